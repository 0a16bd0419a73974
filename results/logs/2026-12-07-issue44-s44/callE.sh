#!/usr/bin/env bash
# Little device time left: measurement of the multisplit candidates only. main = main's kernels,
# ms = branch issue44-ms-land's scatter (d87e708), hist = that plus the histogram's whole-tile
# count (1fc8fc0); alternated; then hist's multisplit GPU tests. Bundle .gpu-ms.txz.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-ms.txz
M='multisplit u32/(default (keys|pairs) m=(32|256), wall|BlockLevel keys m=(32|256|4096))/2\^28'
for b in main ms hist main ms hist; do
  echo "== $b $SECONDS" | tee -a "$OUT/multisplit.log"
  timeout 45 .gpu-ms/bench-multisplit-$b --bench "$M" 2>&1 | grep -E "^multisplit|time:|thrpt:" | tee -a "$OUT/multisplit.log"
done
echo "== tests $SECONDS"
WARPKIT_TEST_DEVICES=gpu timeout 100 .gpu-ms/test-multisplit-hist 2>&1 | grep -E "^test |result|panicked|FAILED|failed" | tee "$OUT/tests-multisplit.log"
