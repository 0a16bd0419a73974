#!/usr/bin/env bash
# Fifth call: where an idle synchronize's time goes (warpkit's, cudarc's, the driver's alone,
# cuCtxGetCurrent alone) and the 2048 call's wall clock beside it; the CUDA runtime's idle
# synchronize and the microbench's shapes on the same machine.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-next.txz
nvcc -O3 -arch=sm_90 -o /tmp/conv_small results/microbench/conv_small.cu 2>&1 | tail -3
/tmp/conv_small 2>&1 | head -14 | tee "$OUT/conv_small.txt"
F='convolve wall f32/(a synchronize|cudarc|cuStream|cuCtx|auto per output)[^/]*/2048'
for i in 1 2; do
  timeout 120 .gpu-next/bench-conv-warps --bench "$F" 2>&1 | grep -E "^convolve|time:" | tee -a "$OUT/bench-sync.log"
done
