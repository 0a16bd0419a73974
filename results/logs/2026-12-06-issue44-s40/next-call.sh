#!/usr/bin/env bash
# NOT RUN (the session's device time was spent). For the next session: the five-sum form of the
# partition's scan words (branch issue44-five-sums, emulator-tested) against main (ba7716f).
# Build first, on the CPU machine:
#   scripts/gpu-bundle.sh   (or only: the alias bench and test executables of main into .gpu-next/
#                            as bench-alias-main, test-alias)
#   scripts/gpu-ab.sh issue44-five-sums bench:alias test:alias   (-> bench-alias-<rev>, test-alias-<rev>)
# name them .gpu-next/bench-alias-{main,five} and .gpu-next/test-alias-five, tar and xz
# .gpu-next, carry it. Keep the branch only if it is faster at both sizes.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-next.txz
export WARPKIT_TEST_DEVICES=gpu WARPKIT_TEST_MAX_LEN=2000000
timeout 150 .gpu-next/test-alias-five --test-threads=1 2>&1 | grep -E "^test |result|panicked" | tee "$OUT/tests.log"
WARPKIT_TEST_MAX_LEN=200000 timeout 80 compute-sanitizer --tool memcheck .gpu-next/test-alias-five --test-threads=1 tables_pass_the_check a_refused 2>&1 | tail -4 | tee "$OUT/memcheck.log"
unset WARPKIT_TEST_DEVICES WARPKIT_TEST_MAX_LEN
F='alias construction f64/gpu (psa Binary SharedMemory|default) power law'
for b in main five main five; do
  echo "== $b" | tee -a "$OUT/bench.log"
  timeout 90 .gpu-next/bench-alias-$b --bench "$F" 2>&1 | grep -E "^alias|time:" | tee -a "$OUT/bench.log"
done
