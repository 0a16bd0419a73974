#!/usr/bin/env bash
# Prepared, not run (the session's device time was spent): where an idle synchronize's time goes
# (the bench's "convolve idle synchronize" group: warpkit's after a call; cudarc's on a fresh
# stream, the driver call alone, after a memset on the stream, after an allocation made and
# freed on it) beside the 2048 call's wall clock. Build the convolve bench (`--no-run`), strip
# it into .gpu-next/bench-conv-warps, xz the folder to .gpu-next.txz and carry it.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-next.txz
F='convolve (idle synchronize|wall f32/(auto per output|a synchronize)[^/]*/2048)'
for i in 1 2; do
  timeout 60 .gpu-next/bench-conv-warps --bench "$F" 2>&1 | grep -E "^convolve|time:" | tee -a "$OUT/bench-sync.log"
done
