#!/usr/bin/env bash
# Seventh call: what the default alias build's three host round trips cost. An experiment
# build (branch exp-alias-roundtrips, not for main): with WARPKIT_HACK_NO_ROUNDTRIPS set, the
# build takes the first build's downloaded values (the bench rebuilds the same weights) instead
# of waiting for them; off, on, off, on; CUDA events, 10^7 and 10^8 f64 power-law weights.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-next.txz
F='alias construction f64/gpu psa Binary SharedMemory power law/'
for i in 1 2; do
  for hack in off on; do
    echo "== round trips hack: $hack" | tee -a "$OUT/bench-rt.log"
    if [ $hack = on ]; then export WARPKIT_HACK_NO_ROUNDTRIPS=1; else unset WARPKIT_HACK_NO_ROUNDTRIPS; fi
    timeout 120 .gpu-next/bench-alias-rt --bench "$F" 2>&1 | grep -E "^alias|time:|panicked|rror" | tee -a "$OUT/bench-rt.log"
  done
done
