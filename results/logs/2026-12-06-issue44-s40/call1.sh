#!/usr/bin/env bash
# Call 1: provisional tile sums (tile_total counts light and heavy items for both thresholds Q
# nearly always gives; tile_counts settles them without reading the weights again, or counts as
# before). GPU tests of alias and convolve (convolve_v3 moved), memcheck on alias tests, the
# default construction A/B against main's images ("part" = 6984596 = main), ncu of the build's
# tile kernels, then the multisplit's default call at m = 32 and 256 (H100 figures owed).
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-next.txz
export WARPKIT_TEST_DEVICES=gpu WARPKIT_TEST_MAX_LEN=2000000
timeout 150 .gpu-next/test-alias --test-threads=1 2>&1 | grep -E "^test |result|panicked|n=1000000 .*(f64|f32) (uniform|all equal).*Psa \{ split: Binary, pack: SharedMemory, layout: WeightsBeside" | tee "$OUT/tests.log"
timeout 100 .gpu-next/test-convolve --test-threads=1 2>&1 | grep -E "^test |result|panicked" | tee -a "$OUT/tests.log"
WARPKIT_TEST_MAX_LEN=200000 timeout 90 compute-sanitizer --tool memcheck .gpu-next/test-alias --test-threads=1 tables_pass_the_check_f64 a_refused 2>&1 | tail -4 | tee "$OUT/memcheck.log"
unset WARPKIT_TEST_DEVICES WARPKIT_TEST_MAX_LEN
F='alias construction f64/gpu (psa Binary SharedMemory|default) (power law|uniform)'
G='alias construction f32/gpu (psa Binary SharedMemory|default) power law'
for b in part fused part fused; do
  echo "== $b" | tee -a "$OUT/bench.log"
  timeout 80 .gpu-next/bench-alias-$b --bench "$F" 2>&1 | grep -E "^alias|time:" | tee -a "$OUT/bench.log"
  timeout 60 .gpu-next/bench-alias-$b --bench "$G" 2>&1 | grep -E "^alias|time:" | tee -a "$OUT/bench.log"
done
WARPKIT_TOUR_ONLY=alias timeout 120 ncu -k regex:'alias_(tile|check|reduce|partition_f64)' -c 12 --section SpeedOfLight .gpu-next/tour gpu > "$OUT/ncu.txt" 2>&1
grep -E "alias_|Duration|^  [a-z_]+.*\(" "$OUT/ncu.txt" | head -60
timeout 100 .gpu-next/bench-multisplit --bench 'multisplit u32/default (keys|pairs) m=(32|256), wall/2\^28' 2>&1 | grep -E "^multisplit|time:|thrpt:" | tee "$OUT/multisplit.log"
