#!/usr/bin/env bash
# Call 4 (branch issue44-partition-loads): the partition's weights as 16-byte vector loads
# where a full tile's buffer is aligned. GPU tests of alias (to 2*10^6 items), memcheck on two
# of them, and the default construction of 10^7 and 10^8 f64 power-law weights alternated
# with main (3a3faf1), CUDA events and wall clock.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-next.txz
export WARPKIT_TEST_DEVICES=gpu WARPKIT_TEST_MAX_LEN=2000000
timeout 150 .gpu-next/test-alias --test-threads=1 2>&1 | grep -E "^test |result|panicked" | tee "$OUT/tests.log"
WARPKIT_TEST_MAX_LEN=200000 timeout 120 compute-sanitizer --tool memcheck .gpu-next/test-alias --test-threads=1 a_refused no_contents 2>&1 | tail -4 | tee "$OUT/memcheck.log"
unset WARPKIT_TEST_DEVICES WARPKIT_TEST_MAX_LEN
F='alias construction f64/gpu (psa Binary SharedMemory|default) power law'
for i in 1 2; do
  for b in base vec; do
    echo "== $b" | tee -a "$OUT/bench.log"
    timeout 100 .gpu-next/bench-alias-$b --bench "$F" 2>&1 | grep -E "^alias|time:" | tee -a "$OUT/bench.log"
  done
done
