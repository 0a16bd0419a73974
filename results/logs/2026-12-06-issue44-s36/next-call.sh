#!/usr/bin/env bash
# Prepared, not run (the session's device time was spent): an idle synchronize on a cudarc
# stream before and after a stream-ordered allocation on it, and warpkit's on a fresh stream of
# its own, beside warpkit's usual one. Build the convolve bench (`--no-run`), strip it into
# .gpu-next/bench-conv-warps, xz the folder to .gpu-next.txz and carry it.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-next.txz
F='convolve wall f32/(a synchronize|cudarc|cuStream|warpkit)[^/]*/2048'
for i in 1 2; do
  timeout 60 .gpu-next/bench-conv-warps --bench "$F" 2>&1 | grep -E "^convolve|time:" | tee -a "$OUT/bench-sync.log"
done
