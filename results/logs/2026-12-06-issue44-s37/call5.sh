#!/usr/bin/env bash
# Fifth call (the fourth found no Nsight Systems on the machine): where the warp kernel stands
# against the band kernel at sizes past the lane threshold (2^23 terms: auto takes the band
# kernel from about 2896 x 2896): forced Lanes (the warp kernel for whole products of
# comparable lengths) against Band and auto, f32 to 65536, f64 to 8192; twice.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-next.txz
F='convolve f(32|64)/(Lanes|Band|auto of mass)/'
for i in 1 2; do
  timeout 200 .gpu-next/bench-conv --bench "$F" 2>&1 | grep -E "^convolve|time:" | tee -a "$OUT/bench-sizes.log"
done
