#!/usr/bin/env bash
# Call 1: the alias tile kernels with fewer instructions (the quantizer's factor multiplied
# where it is a normal double, one block reduction or scan of the light count, light weight
# and heavy weight together, sums' items striped and loaded together). GPU tests of alias
# (to 2*10^6 items) and multisplit (a rebuild moved one of its kernels' SASS), memcheck on two
# alias tests, the default construction of 10^7 and 10^8 f64 power-law weights alternated with
# main's (7611e2a) by CUDA events, the new bench's wall-clock case, and the build's kernels
# under ncu (the tour's first build, 10^7 f64).
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-next.txz
export WARPKIT_TEST_DEVICES=gpu
WARPKIT_TEST_MAX_LEN=2000000 timeout 200 .gpu-next/test-alias --test-threads=1 2>&1 | grep -E "^test |result|panicked" | tee "$OUT/tests.log"
timeout 120 .gpu-next/test-multisplit --test-threads=1 2>&1 | grep -E "result|panicked|FAILED" | tee -a "$OUT/tests.log"
WARPKIT_TEST_MAX_LEN=200000 timeout 150 compute-sanitizer --tool memcheck .gpu-next/test-alias --test-threads=1 rebuilding_in_place no_contents 2>&1 | tail -4 | tee "$OUT/memcheck.log"
unset WARPKIT_TEST_DEVICES
F='alias construction f64/gpu (psa Binary SharedMemory|default) power law'
for i in 1 2; do
  echo "== main" | tee -a "$OUT/bench.log"
  timeout 120 .gpu-next/bench-alias-main --bench "$F" 2>&1 | grep -E "^alias|time:" | tee -a "$OUT/bench.log"
  echo "== new" | tee -a "$OUT/bench.log"
  timeout 120 .gpu-next/bench-alias-new --bench "$F" 2>&1 | grep -E "^alias|time:" | tee -a "$OUT/bench.log"
done
NCU="$(command -v ncu || echo /usr/local/cuda/bin/ncu)"
WARPKIT_TOUR_ONLY=alias timeout 150 "$NCU" --clock-control none -c 16 \
  --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum,launch__registers_per_thread \
  .gpu-next/tour gpu > "$OUT/ncu-tour.txt" 2>&1; echo "ncu exit $?"
grep -E "^  [a-z_]+|duration|bytes|inst_executed|registers" "$OUT/ncu-tour.txt" | head -120
