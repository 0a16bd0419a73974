#!/usr/bin/env bash
# Call 3: the band (f32 tiles with no item within 2^16 units of 2^31 settle without a second read;
# f64 as in call 2, the sums' words read by every lane, a warp barrier before lane 0 writes).
# GPU tests of alias, memcheck and synccheck on alias tests, A/B against main's images ("part").
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-next.txz
export WARPKIT_TEST_DEVICES=gpu WARPKIT_TEST_MAX_LEN=2000000
timeout 150 .gpu-next/test-alias --test-threads=1 2>&1 | grep -E "^test |result|panicked" | tee "$OUT/tests.log"
export WARPKIT_TEST_MAX_LEN=200000
timeout 80 compute-sanitizer --tool memcheck .gpu-next/test-alias --test-threads=1 tables_pass_the_check a_refused 2>&1 | tail -4 | tee "$OUT/memcheck.log"
timeout 80 compute-sanitizer --tool synccheck .gpu-next/test-alias --test-threads=1 tables_pass_the_check 2>&1 | tail -4 | tee "$OUT/synccheck.log"
unset WARPKIT_TEST_DEVICES WARPKIT_TEST_MAX_LEN
F='alias construction f64/gpu (psa Binary SharedMemory|default) (power law|uniform)'
G='alias construction f32/gpu (psa Binary SharedMemory|default) (power law|uniform)'
for b in part band part band; do
  echo "== $b" | tee -a "$OUT/bench.log"
  timeout 80 .gpu-next/bench-alias-$b --bench "$F" 2>&1 | grep -E "^alias|time:" | tee -a "$OUT/bench.log"
  timeout 60 .gpu-next/bench-alias-$b --bench "$G" 2>&1 | grep -E "^alias|time:" | tee -a "$OUT/bench.log"
done
