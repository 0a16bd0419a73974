#!/usr/bin/env bash
# Second call: which step leaves a stream's idle synchronize at 1.45 us (the first call: a
# caller's stream costs 0.2 us before warpkit's uploads and call, 1.48 after): a copy from
# pageable memory on a cudarc stream, and warpkit's on a caller's stream after each step.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-next.txz
F='convolve idle synchronize'
for i in 1 2; do
  timeout 150 .gpu-next/bench-conv --bench "$F" 2>&1 | grep -E "^convolve|time:" | tee -a "$OUT/bench-sync.log"
done
