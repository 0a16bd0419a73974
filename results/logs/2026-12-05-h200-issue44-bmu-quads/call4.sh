#!/usr/bin/env bash
# Call 4 (branch issue44-bmu-quads bundle): the BMU A/B against main (ab/bench-som-4c038bc);
# GPU tests of the kernels the rebuild touched (som, alias, convolve) and of subset (main's
# 32-register bound, same SASS here); memcheck/synccheck of som, racecheck of its search tests;
# the 2048 convolution (events and wall); ncu of the tour's first 70 launches (the alias build
# of 10^7 f64 and the default-order sampling): time and DRAM bytes a kernel.
cd "$(dirname "$0")/.gpu-bundle"
logs="$OUT"; mkdir -p "$logs"
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$logs/gpu.txt"
export CRITERION_HOME="$logs/criterion"
bmu='best_matching_units_into/12000x12|best_matching_units \(wall'
for i in 1 2; do
  el "som main $i"; ab/bench-som-4c038bc --bench "$bmu" 2>&1 | grep -E "^som/|time:" | sed "s/^/main$i /" | tee -a "$logs/som-ab.txt"
  el "som quads $i"; benches/som --bench "$bmu" 2>&1 | grep -E "^som/|time:" | sed "s/^/quads$i /" | tee -a "$logs/som-ab.txt"
done
el "convolve 2048"
benches/convolve --bench '^convolve (f32|wall f32)/(Lanes|auto per output|Band)/2048$' 2>&1 | grep -E "^convolve|time:" | tee "$logs/convolve-2048.txt"
el "tests"
export WARPKIT_TEST_DEVICES=gpu
for t in som alias convolve subset; do
  ( timeout 400 tests/test-$t --test-threads=4 > "$logs/t-$t.log" 2>&1; echo "== $t exit $? $(grep -E '^test result' "$logs/t-$t.log" | tail -1)"; grep -E "FAILED|panicked" "$logs/t-$t.log" | head -3 ) &
done
wait
el "sanitizers"
CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
export WARPKIT_TEST_MAX_LEN=4099
for tool in memcheck synccheck racecheck; do
  ( timeout 300 "$CS" --tool $tool --error-exitcode 1 --print-limit 10 tests/test-som --test-threads=1 nearest_cells exact_ties > "$logs/san-som-$tool.log" 2>&1; echo "== $tool exit $? $(grep -E 'SUMMARY' "$logs/san-som-$tool.log")" ) &
done
wait
el "ncu tour"
NCU="$(command -v ncu || echo /usr/local/cuda/bin/ncu)"
timeout 300 "$NCU" --clock-control none --launch-count 70 --csv --page raw \
  --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__grid_size,launch__block_size,launch__registers_per_thread \
  examples/tour gpu > "$logs/ncu-tour.csv" 2> "$logs/ncu-tour.err"; echo "ncu exit $?"
wc -l "$logs/ncu-tour.csv"; tail -2 "$logs/ncu-tour.err"
el done
cd "$logs" && rm -rf criterion && tar -czf logs.tgz --exclude=logs.tgz . 2>/dev/null
