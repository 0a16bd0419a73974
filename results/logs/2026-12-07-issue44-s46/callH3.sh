#!/usr/bin/env bash
# After callH2.sh on the same bundle: memcheck (65537 elements) and racecheck (4099) of rp's
# multisplit tests, on the GPU only.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
[ -d .gpu-rp ] || tar -xJf .gpu-rp.txz
export WARPKIT_TEST_DEVICES=gpu
for tool in memcheck racecheck; do
  len=65537; [ $tool = racecheck ] && len=4099
  WARPKIT_TEST_MAX_LEN=$len timeout 110 compute-sanitizer --tool $tool .gpu-rp/tests/test-multisplit --test-threads=1 > "$OUT/san-$tool.log" 2>&1
  echo "$tool exit $? $SECONDS"; grep -E "test result|ERROR SUMMARY|RACECHECK SUMMARY|FAILED" "$OUT/san-$tool.log"
done
echo "end $SECONDS"
