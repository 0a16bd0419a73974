#!/usr/bin/env bash
# Third call: convolve's GPU tests with the warp kernel's strided, run and two-shape test, that
# test under memcheck; the idle synchronize after a 16 KB memset (a driver kernel?) and the CUDA
# runtime's after a kernel; the 2048 call's wall clock twice more.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-next.txz
export WARPKIT_TEST_DEVICES=gpu
.gpu-next/test-conv --test-threads=1 2>&1 | tail -25 | tee "$OUT/test-conv.log"
timeout 120 compute-sanitizer --tool memcheck --kernel-name kns=warp_sums .gpu-next/test-conv the_warp_kernel 2>&1 | tail -8 | tee "$OUT/memcheck.log"
nvcc -O3 -arch=sm_90 -o /tmp/conv_small results/microbench/conv_small.cu 2>&1 | tail -3
/tmp/conv_small 2>&1 | head -15 | tee "$OUT/conv_small.txt"
F='convolve (idle synchronize|wall f32/(auto per output|a synchronize)[^/]*/2048)'
for i in 1 2; do
  timeout 150 .gpu-next/bench-conv --bench "$F" 2>&1 | grep -E "^convolve|time:" | tee -a "$OUT/bench-sync.log"
done
