#!/usr/bin/env bash
# Call 1 (41st session): the default f64 build (power law, events and wall clock) alternated over
# main's images ("band", 3a634db), the tile passes and shared pack in reverse order ("l2",
# 24ed774), the five-sum scan words ("five", 319ce39) and the 8-byte light entries on top of l2
# ("compact", 08ac1fc); then compact's GPU tests.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-next.txz
F='alias construction f64/gpu (psa Binary SharedMemory|default) power law'
for b in band l2 five compact compact five l2 band; do
  echo "== $b" | tee -a "$OUT/bench.log"
  timeout 55 .gpu-next/bench-alias-$b --bench "$F" 2>&1 | grep -E "^alias|time:" | tee -a "$OUT/bench.log"
done
export WARPKIT_TEST_DEVICES=gpu WARPKIT_TEST_MAX_LEN=2000000
timeout 90 .gpu-next/test-alias-compact --test-threads=1 2>&1 | grep -E "^test |result|panicked" | tee -a "$OUT/tests.log"
