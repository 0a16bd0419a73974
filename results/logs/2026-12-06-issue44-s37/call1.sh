#!/usr/bin/env bash
# First call: where an idle synchronize's time goes. The bench group "convolve idle
# synchronize" (each cudarc stream left by one kind of work warpkit's stream sees; warpkit on a
# caller's stream) beside the 2048 call's wall clock, and the CUDA runtime's idle synchronize
# from the microbench, all on one machine.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-next.txz
nvcc -O3 -arch=sm_90 -o /tmp/conv_small results/microbench/conv_small.cu 2>&1 | tail -3
/tmp/conv_small 2>&1 | head -14 | tee "$OUT/conv_small.txt"
F='convolve (idle synchronize|wall f32/(auto per output|a synchronize)[^/]*/2048)'
for i in 1 2; do
  timeout 150 .gpu-next/bench-conv --bench "$F" 2>&1 | grep -E "^convolve|time:" | tee -a "$OUT/bench-sync.log"
done
