#!/usr/bin/env bash
# Sixth call: auto gives one product of comparable lengths up to 2^24 terms to the warp
# kernel (4096 x 4096). Convolve's GPU tests (4096 x 4096 added to the sizes every method
# runs), memcheck on the full products with the warp kernel, and the bench at 4096 by events
# (auto of mass, Lanes, Band) and wall clock (auto per output), twice.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-next.txz
export WARPKIT_TEST_DEVICES=gpu
.gpu-next/test-conv --test-threads=1 2>&1 | grep -E "^test |result|panicked" | tee "$OUT/test-conv.log"
timeout 200 compute-sanitizer --tool memcheck --kernel-name kns=warp_sums .gpu-next/test-conv full_products 2>&1 | tail -4 | tee "$OUT/memcheck.log"
F='convolve (f(32|64)/(Lanes|Band|auto of mass)/4096|wall f32/auto per output/4096)'
for i in 1 2; do
  timeout 120 .gpu-next/bench-conv --bench "$F" 2>&1 | grep -E "^convolve|time:" | tee -a "$OUT/bench-4096.log"
done
