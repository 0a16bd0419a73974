#!/usr/bin/env bash
# Session 32, call 3: the BMU search's new loop (first dimension squared, four a round, full
# tiles unchecked) under launch bounds of 4 blocks an SM (64 registers, spills `found` around
# the compare: the bundle) and of 3 (85 registers: ab/bench-som-V3), against main
# (ab/bench-som-8e73145), alternated twice; som GPU tests and sanitizers on the bundle's build;
# ncu of each f32 search (instructions, issue, registers). The tests run after the benches:
# beside them (call 2) they disturbed the benches' wall clock.
cd "$(dirname "$0")/.gpu-bundle"
logs="$OUT"; mkdir -p "$logs"
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$logs/gpu.txt"
export CRITERION_HOME="$logs/criterion"
v3=$(ls ab/bench-som-* | grep -v 8e73145)
bmu='best_matching_units_into/12000x12|best_matching_units \(wall'
export WARPKIT_TEST_DEVICES=gpu
for i in 1 2; do
  el "main $i"; ab/bench-som-8e73145 --bench "$bmu" 2>&1 | grep -E "^som/|time:" | grep -v "%" | sed "s/^/main$i /" | tee -a "$logs/som-ab.txt"
  el "4 blocks $i"; benches/som --bench "$bmu" 2>&1 | grep -E "^som/|time:" | grep -v "%" | sed "s/^/b4-$i /" | tee -a "$logs/som-ab.txt"
  el "3 blocks $i"; $v3 --bench "$bmu" 2>&1 | grep -E "^som/|time:" | grep -v "%" | sed "s/^/b3-$i /" | tee -a "$logs/som-ab.txt"
done
el "tests, sanitizers and ncu (after the benches, which they would disturb)"
( timeout 300 tests/test-som --test-threads=4 > "$logs/t-som.log" 2>&1; echo "== som exit $? $(grep -E '^test result' "$logs/t-som.log" | tail -1)" ) &
CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
export WARPKIT_TEST_MAX_LEN=4099
for tool in memcheck synccheck racecheck; do
  ( timeout 300 "$CS" --tool $tool --error-exitcode 1 --print-limit 10 tests/test-som --test-threads=1 nearest_cells exact_ties > "$logs/san-som-$tool.log" 2>&1; echo "== $tool exit $? $(grep -E 'SUMMARY' "$logs/san-som-$tool.log")" ) &
done
NCU="$(command -v ncu || echo /usr/local/cuda/bin/ncu)"
for b in benches/som $v3; do
  n=$(basename $b)
  timeout 200 "$NCU" --clock-control none -k regex:som_bmu_f32 -c 1 --set full -f -o "$logs/ncu-$n" $b --bench 'best_matching_units_into/12000x12 vs 200x200 F32' --warm-up-time 0.1 --measurement-time 0.1 > "$logs/ncu-$n.txt" 2>&1; echo "ncu $n exit $?"
  "$NCU" --import "$logs/ncu-$n.ncu-rep" --page details > "$logs/ncu-$n-details.txt" 2>&1
  echo "== $n"; grep -E "Duration|Issue Slots Busy|Executed Instructions  |Registers Per|Achieved Occupancy|Local Memory Spilling Requests  " "$logs/ncu-$n-details.txt"
done
wait
el done
cd "$logs" && rm -rf criterion && tar -czf logs.tgz --exclude=logs.tgz --exclude='*.ncu-rep' . 2>/dev/null
