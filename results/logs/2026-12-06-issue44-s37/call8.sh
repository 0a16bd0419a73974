#!/usr/bin/env bash
# Eighth call: the PSA build's quantized total and light count left on the device (two of its
# three round trips gone). GPU tests of alias (to 2*10^6 items) and convolve (a rebuild moved
# convolve_v3's SASS), memcheck on two alias tests, and the default construction of 10^7 and
# 10^8 f64 power-law weights alternated with main's (bench-alias-rt, round-trip hack off, is
# main's code and kernels), CUDA events.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-next.txz
export WARPKIT_TEST_DEVICES=gpu
WARPKIT_TEST_MAX_LEN=2000000 timeout 200 .gpu-next/test-alias --test-threads=1 2>&1 | grep -E "^test |result|panicked" | tee "$OUT/tests.log"
timeout 60 .gpu-next/test-conv --test-threads=1 2>&1 | grep -E "result|panicked" | tee -a "$OUT/tests.log"
WARPKIT_TEST_MAX_LEN=200000 timeout 150 compute-sanitizer --tool memcheck .gpu-next/test-alias --test-threads=1 rebuilding_in_place no_contents 2>&1 | tail -4 | tee "$OUT/memcheck.log"
unset WARPKIT_TEST_DEVICES WARPKIT_HACK_NO_ROUNDTRIPS
F='alias construction f64/gpu psa Binary SharedMemory power law/'
for i in 1 2; do
  echo "== main" | tee -a "$OUT/bench.log"
  timeout 100 .gpu-next/bench-alias-rt --bench "$F" 2>&1 | grep -E "^alias|time:" | tee -a "$OUT/bench.log"
  echo "== device-side counts" | tee -a "$OUT/bench.log"
  timeout 150 .gpu-next/bench-alias-new --bench "$F" 2>&1 | grep -E "^alias|time:" | tee -a "$OUT/bench.log"
done
