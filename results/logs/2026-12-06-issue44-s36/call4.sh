#!/usr/bin/env bash
# Fourth call: the warp kernel at four warps a block and for whole forward products only,
# against main (bench alternated twice, with the call's host time and an idle synchronize
# apart); the convolve and alias-table GPU tests and memcheck on this build; the alias
# constructions whose SASS the rebuild moved, timed; the CUDA microbench with its queue times.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-next.txz
B=.gpu-next
export WARPKIT_TEST_DEVICES=gpu
nvcc -O3 -arch=sm_90 -o /tmp/conv_small results/microbench/conv_small.cu 2>&1 | tail -3
/tmp/conv_small 2>&1 | tee "$OUT/conv_small.txt"
F='convolve (f32/Lanes/(256|1024|2048)$|f64/Lanes/2048|wall f32/(auto per output|a synchronize)[^/]*/2048|gradients f32/both/2048)'
for i in 1 2; do
  for v in main warps; do
    echo "== $v" >> "$OUT/bench-conv.log"
    timeout 120 $B/bench-conv-$v --bench "$F" 2>&1 | grep -E "^convolve|time:" >> "$OUT/bench-conv.log"
  done
done
cat "$OUT/bench-conv.log"
timeout 200 $B/test-conv-warps --test-threads=1 > "$OUT/tests.log" 2>&1; echo "convolve tests rc=$?"
WARPKIT_TEST_MAX_LEN=2000000 timeout 150 $B/test-alias-warps --test-threads=1 tables_pass_the_check >> "$OUT/tests.log" 2>&1
echo "alias tables rc=$?"
grep -E "^test |result|panicked" "$OUT/tests.log"
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 100 "$CS" --tool memcheck --kernel-name kns=warp_sums $B/test-conv-warps --test-threads=1 \
  full_products nan_and_infinity batches_of strided > "$OUT/sanitize.log" 2>&1
echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|result" "$OUT/sanitize.log"
timeout 120 $B/bench-alias-warps --bench 'alias construction f64/gpu.*power law/10000000' 2>&1 \
  | grep -E "^alias|time:" | tee "$OUT/bench-alias.log"
