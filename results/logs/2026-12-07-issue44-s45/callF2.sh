#!/usr/bin/env bash
# The second half for hist: the alias build on its images against main's (the block scan's change
# reaches the alias pack and partition), memcheck and racecheck of its multisplit tests.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
[ -d .gpu-hist ] || tar -xJf .gpu-hist.txz
F='alias construction f64/gpu psa Binary SharedMemory power law'
for b in main hist main hist; do echo "== $b $SECONDS" | tee -a "$OUT/alias-build.log"
  timeout 40 .gpu-hist/bench-alias-$b --bench "$F" 2>&1 | grep -E "^alias|time:" | tee -a "$OUT/alias-build.log"; done
export WARPKIT_TEST_DEVICES=gpu
for tool in memcheck racecheck; do
  len=65537; [ $tool = racecheck ] && len=4099
  WARPKIT_TEST_MAX_LEN=$len timeout 170 compute-sanitizer --tool $tool .gpu-hist/tests/test-multisplit --test-threads=1 > "$OUT/san-$tool.log" 2>&1
  echo "$tool exit $? $SECONDS"; grep -E "test result|ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/san-$tool.log"
done
echo "end $SECONDS"
