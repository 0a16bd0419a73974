#!/usr/bin/env bash
# One call for branch issue44-ms-fulltile ("ms") against main, most important first, each step
# logging as it goes: multisplit figures alternated, its GPU tests, the alias build on its images
# against main's ("compact"), alias and convolve GPU tests with memcheck and racecheck of the
# multisplit tests beside them, then alias block-shape variants while time is left.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-all.txz
M='multisplit u32/(default (keys|pairs) m=(32|256), wall|BlockLevel (keys m=(32|256|4096)|pairs m=32))/2\^28'
for b in main ms main ms; do
  echo "== $b $SECONDS" | tee -a "$OUT/multisplit.log"
  timeout 60 .gpu-all/bench-multisplit-$b --bench "$M" 2>&1 | grep -E "^multisplit|time:|thrpt:" | tee -a "$OUT/multisplit.log"
done
export WARPKIT_TEST_DEVICES=gpu
echo "== tests $SECONDS"
timeout 120 .gpu-all/test-multisplit-ms --test-threads=1 2>&1 | grep -E "^test |result|panicked|FAILED|failed" | tee "$OUT/tests-multisplit.log"
F='alias construction f64/gpu psa Binary SharedMemory power law'
bench() { echo "== $1 $SECONDS" | tee -a "$OUT/alias-build.log"
  WARPKIT_TEST_DEVICES= timeout 40 .gpu-all/bench-alias-$1 --bench "$F" 2>&1 | grep -E "^alias|time:" | tee -a "$OUT/alias-build.log"; }
for b in compact ms compact ms; do bench $b; done
echo "== checks $SECONDS"
timeout 250 .gpu-all/test-alias-ms > "$OUT/tests-alias.log" 2>&1 &
timeout 40 .gpu-all/test-convolve-ms 2>&1 | grep -E "^test |result|panicked|FAILED" | tee "$OUT/tests-convolve.log"
for tool in memcheck racecheck; do
  timeout 110 compute-sanitizer --tool $tool .gpu-all/test-multisplit-ms --test-threads=1 > "$OUT/san-$tool.log" 2>&1
  echo "$tool exit $? $SECONDS"; grep -E "test result|ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/san-$tool.log"
done
wait; grep -E "^test |result|panicked|FAILED" "$OUT/tests-alias.log"
for b in t2 p2 t5 compact; do [ $SECONDS -lt 500 ] && bench $b; done; echo "end $SECONDS"
