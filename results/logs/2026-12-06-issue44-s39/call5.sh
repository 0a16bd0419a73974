#!/usr/bin/env bash
# NOT RUN: no device could be started for it (the session's device time left, 433 s, was too little to start one); kept for the next session, which has the five-sums build to test (five-sums-untested.patch).
# Call 5: the final partition (five sums over tiles read by lanes 0-4, after a helper's review)
# against 6984596 (nine words, "part") and main before (63e58ba): GPU tests of alias (to 2*10^6
# items) and memcheck on the final build, the default construction of 10^7 and 10^8 f64,
# CUDA events and wall clock; then the multisplit's default call at m = 32 and 256 on the H100
# (keys and pairs of 2^28 u32, wall clock), for issue 44's table.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-next.txz
export WARPKIT_TEST_DEVICES=gpu WARPKIT_TEST_MAX_LEN=2000000
timeout 120 .gpu-next/test-alias --test-threads=1 2>&1 | grep -E "^test |result|panicked" | tee "$OUT/tests.log"
WARPKIT_TEST_MAX_LEN=200000 timeout 60 compute-sanitizer --tool memcheck .gpu-next/test-alias --test-threads=1 a_refused no_contents 2>&1 | tail -4 | tee "$OUT/memcheck.log"
unset WARPKIT_TEST_DEVICES WARPKIT_TEST_MAX_LEN
F='alias construction f64/gpu (psa Binary SharedMemory|default) power law'
for b in main part final part final; do
  echo "== $b" | tee -a "$OUT/bench.log"
  timeout 60 .gpu-next/bench-alias-$b --bench "$F" 2>&1 | grep -E "^alias|time:" | tee -a "$OUT/bench.log"
done
timeout 100 .gpu-next/bench-multisplit --bench 'multisplit u32/default (keys|pairs) m=(32|256), wall/2\^28' 2>&1 | grep -E "^multisplit|time:|thrpt:" | tee "$OUT/multisplit.log"
