#!/usr/bin/env bash
# Session 32, call 2: the BMU pass with its first dimension squared (no zeroing), dimensions
# four a round and full tiles compared unchecked, A/B against main (ab/bench-som-8e73145),
# alternated twice; som GPU tests; sanitizers of the search tests; ncu of the new f32 pass.
cd "$(dirname "$0")/.gpu-bundle"
logs="$OUT"; mkdir -p "$logs"
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$logs/gpu.txt"
export CRITERION_HOME="$logs/criterion"
bmu='best_matching_units_into/12000x12|best_matching_units \(wall'
export WARPKIT_TEST_DEVICES=gpu
( timeout 300 tests/test-som --test-threads=4 > "$logs/t-som.log" 2>&1; echo "== som exit $? $(grep -E '^test result' "$logs/t-som.log" | tail -1)" ) &
for i in 1 2; do
  el "som main $i"; ab/bench-som-8e73145 --bench "$bmu" 2>&1 | grep -E "^som/|time:" | sed "s/^/main$i /" | tee -a "$logs/som-ab.txt"
  el "som new $i"; benches/som --bench "$bmu" 2>&1 | grep -E "^som/|time:" | sed "s/^/new$i /" | tee -a "$logs/som-ab.txt"
done
wait
el "sanitizers"
CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
export WARPKIT_TEST_MAX_LEN=4099
for tool in memcheck synccheck racecheck; do
  ( timeout 300 "$CS" --tool $tool --error-exitcode 1 --print-limit 10 tests/test-som --test-threads=1 nearest_cells exact_ties > "$logs/san-som-$tool.log" 2>&1; echo "== $tool exit $? $(grep -E 'SUMMARY' "$logs/san-som-$tool.log")" ) &
done
NCU="$(command -v ncu || echo /usr/local/cuda/bin/ncu)"
WARPKIT_TOUR_ONLY=som timeout 240 "$NCU" --clock-control none -k regex:som_bmu_f32 -c 1 --set full --import-source yes -f -o "$logs/som-bmu" examples/tour gpu > "$logs/som-bmu-tour.txt" 2>&1; echo "ncu exit $?"
"$NCU" --import "$logs/som-bmu.ncu-rep" --page details > "$logs/som-bmu-details.txt" 2>&1
"$NCU" --import "$logs/som-bmu.ncu-rep" --page source --csv --print-source sass > "$logs/som-bmu-sass.csv" 2>&1
grep -E "Duration|Issue Slots Busy|Executed Instructions  |Registers Per" "$logs/som-bmu-details.txt"
wait
el done
cd "$logs" && rm -rf criterion && tar -czf logs.tgz --exclude=logs.tgz --exclude='*.ncu-rep' . 2>/dev/null
