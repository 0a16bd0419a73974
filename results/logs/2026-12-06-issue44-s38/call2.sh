#!/usr/bin/env bash
# Call 2: the build's last round trip gone (the tile totals settle the quantizer from the
# sum's words on the device; weights that make no table quantize to 0 and the packs and
# PSA+'s greedy rows then write nothing; the host reads the check once, after the pack is
# queued). GPU tests of alias (to 2*10^6 items, with the new refused-rebuild test) and
# multisplit (owed from call 1, to 2*10^6), memcheck on three alias tests, the default
# construction of 10^7 and 10^8 f64 power-law weights alternated: main (7611e2a), the first
# step (8b61500) and this one, CUDA events and wall clock; the build's kernels under ncu.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-next.txz
export WARPKIT_TEST_DEVICES=gpu WARPKIT_TEST_MAX_LEN=2000000
timeout 150 .gpu-next/test-alias --test-threads=1 2>&1 | grep -E "^test |result|panicked" | tee "$OUT/tests.log"
timeout 150 .gpu-next/test-multisplit --test-threads=1 2>&1 | grep -E "^test |result|panicked" | tee -a "$OUT/tests.log"
WARPKIT_TEST_MAX_LEN=200000 timeout 150 compute-sanitizer --tool memcheck .gpu-next/test-alias --test-threads=1 a_refused rebuilding_in_place no_contents 2>&1 | tail -4 | tee "$OUT/memcheck.log"
unset WARPKIT_TEST_DEVICES WARPKIT_TEST_MAX_LEN
F='alias construction f64/gpu (psa Binary SharedMemory|default) power law'
for i in 1 2; do
  for b in main s1 rt; do
    echo "== $b" | tee -a "$OUT/bench.log"
    timeout 100 .gpu-next/bench-alias-$b --bench "$F" 2>&1 | grep -E "^alias|time:" | tee -a "$OUT/bench.log"
  done
done
NCU="$(command -v ncu || echo /usr/local/cuda/bin/ncu)"
WARPKIT_TOUR_ONLY=alias timeout 120 "$NCU" --clock-control none -c 16 \
  --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum,launch__registers_per_thread \
  .gpu-next/tour gpu > "$OUT/ncu-tour.txt" 2>&1; echo "ncu exit $?"
grep -E "^  [a-z_]+|duration|inst_executed" "$OUT/ncu-tour.txt" | sed -n 13,60p
