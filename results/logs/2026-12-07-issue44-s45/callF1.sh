#!/usr/bin/env bash
# Branch issue44-ms-land ("hist": the block scatter's whole tiles and the histogram's whole-tile
# count) against main: multisplit figures alternated, then every GPU test binary of hist's build,
# six at a time (alias alone at 8 threads). Bundle .gpu-hist.txz (see README.md here).
set -o pipefail
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-hist.txz
M='multisplit u32/(default (keys|pairs) m=(32|256), wall|BlockLevel (keys m=(32|256|4096)|pairs m=32))/2\^28'
for b in main hist main hist; do
  echo "== $b $SECONDS" | tee -a "$OUT/multisplit.log"
  timeout 60 .gpu-hist/bench-multisplit-$b --bench "$M" 2>&1 | grep -E "^multisplit|time:|thrpt:" | tee -a "$OUT/multisplit.log"
done
echo "== tests $SECONDS"
export WARPKIT_TEST_DEVICES=gpu NCCL_NVLS_ENABLE=0 logs="$OUT"
one() { local exe=$1 name; name=$(basename "$exe")
  local threads=4; [ "$name" = test-alias ] && threads=8
  timeout 340 "$exe" --test-threads=$threads >"$logs/t-$name.log" 2>&1; local rc=$?
  echo "== $name exit $rc $(grep -E '^test result' "$logs/t-$name.log" | tail -1)"
  grep -E "FAILED|panicked|SKIPPED" "$logs/t-$name.log" | head -5; }
export -f one
ls .gpu-hist/tests/test-* | grep -v -e test-faults -e test-engines | xargs -P 6 -I{} bash -c 'one {}' | tee "$OUT/tests-summary.txt"
for exe in .gpu-hist/tests/test-faults .gpu-hist/tests/test-engines; do one $exe; done | tee -a "$OUT/tests-summary.txt"
echo "end $SECONDS"
