#!/usr/bin/env bash
# Branch issue44-hist-only ("ho": the histogram's whole-tile count alone, on main's scatter)
# against main: multisplit figures alternated, then every GPU test binary of ho's build, six at a
# time (alias at 8 threads). Bundle .gpu-ho.txz (see README.md here).
set -o pipefail
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-ho.txz
M='multisplit u32/(default (keys|pairs) m=(32|256), wall|BlockLevel keys m=(32|4096))/2\^28'
for b in main ho main ho; do
  echo "== $b $SECONDS" | tee -a "$OUT/multisplit.log"
  timeout 60 .gpu-ho/bench-multisplit-$b --bench "$M" 2>&1 | grep -E "^multisplit|time:|thrpt:" | tee -a "$OUT/multisplit.log"
done
echo "== tests $SECONDS"
export WARPKIT_TEST_DEVICES=gpu NCCL_NVLS_ENABLE=0 logs="$OUT"
one() { local exe=$1 name; name=$(basename "$exe")
  local threads=4; [ "$name" = test-alias ] && threads=8
  timeout 300 "$exe" --test-threads=$threads >"$logs/t-$name.log" 2>&1; local rc=$?
  echo "== $name exit $rc $(grep -E '^test result' "$logs/t-$name.log" | tail -1)"
  grep -E "FAILED|panicked" "$logs/t-$name.log" | head -5; }
export -f one
first='alias multisplit som scan_reduce levels'
{ for t in $first; do echo .gpu-ho/tests/test-$t; done
  ls .gpu-ho/tests/test-* | grep -vE "test-(${first// /|}|faults|engines)\$"; } | xargs -P 6 -I{} bash -c 'one {}' | tee "$OUT/tests-summary.txt"
for exe in .gpu-ho/tests/test-faults .gpu-ho/tests/test-engines; do one $exe; done | tee -a "$OUT/tests-summary.txt"
echo "end $SECONDS"
