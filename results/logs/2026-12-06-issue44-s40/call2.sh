#!/usr/bin/env bash
# Call 2: the tile sums a warp a tile (no barrier, 8 tiles a block, loads 8 at a time; tile_counts
# settles a tile in one lane, or recounts it by its warp). GPU tests of alias and convolve
# (convolve_v2/v3 moved), memcheck on alias tests, A/B against main's images ("part"), ncu of
# the build's tile kernels (durations, registers).
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-next.txz
export WARPKIT_TEST_DEVICES=gpu WARPKIT_TEST_MAX_LEN=2000000
timeout 150 .gpu-next/test-alias --test-threads=1 2>&1 | grep -E "^test |result|panicked" | tee "$OUT/tests.log"
timeout 100 .gpu-next/test-convolve --test-threads=1 2>&1 | grep -E "^test |result|panicked" | tee -a "$OUT/tests.log"
WARPKIT_TEST_MAX_LEN=200000 timeout 90 compute-sanitizer --tool memcheck .gpu-next/test-alias --test-threads=1 tables_pass_the_check a_refused 2>&1 | tail -4 | tee "$OUT/memcheck.log"
unset WARPKIT_TEST_DEVICES WARPKIT_TEST_MAX_LEN
F='alias construction f64/gpu (psa Binary SharedMemory|default) (power law|uniform)'
G='alias construction f32/gpu (psa Binary SharedMemory|default) power law'
for b in part warp part warp; do
  echo "== $b" | tee -a "$OUT/bench.log"
  timeout 80 .gpu-next/bench-alias-$b --bench "$F" 2>&1 | grep -E "^alias|time:" | tee -a "$OUT/bench.log"
  timeout 60 .gpu-next/bench-alias-$b --bench "$G" 2>&1 | grep -E "^alias|time:" | tee -a "$OUT/bench.log"
done
WARPKIT_TOUR_ONLY=alias timeout 100 ncu -k regex:'alias_(tile_total|tile_counts|partition_f64)' -c 3 --section SpeedOfLight --section LaunchStats --section Occupancy .gpu-next/tour gpu > "$OUT/ncu.txt" 2>&1
grep -E "^  alias_|Duration|Registers Per|DRAM Throughput|Achieved Occupancy" "$OUT/ncu.txt" | head -30
