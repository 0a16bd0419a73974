#!/usr/bin/env bash
# Call 1: benches alone (scan A/B against the build before `first`, moments, SOM A/B against the
# cp.async branch), then the GPU tests, six binaries at a time.
cd "$(dirname "$0")"
logs="$OUT"; mkdir -p "$logs"
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv | tee "$logs/gpu.txt"
export CRITERION_HOME="$logs/criterion"
scan='scan_exclusive 2\^(28|23|20) u32$'
for i in 1 2; do
  el "grid new $i"; benches/grid --bench "$scan" 2>&1 | grep -E "^grid/|time:|thrpt:" | tee -a "$logs/grid-ab.txt" | sed "s/^/new$i /"
  el "grid old $i"; ab/grid-before-first --bench "$scan" 2>&1 | grep -E "^grid/|time:|thrpt:" | sed "s/^/old$i /" | tee -a "$logs/grid-ab.txt"
done
el moments; benches/moments --bench 2>&1 | tee "$logs/bench-moments.txt" | grep -E "^moments|time:|thrpt:"
bmu='best_matching_units_into/12000x12|best_matching_units \(wall'
for i in 1 2; do
  el "som main $i"; benches/som --bench "$bmu" 2>&1 | grep -E "^som/|time:|thrpt:" | sed "s/^/main$i /" | tee -a "$logs/som-ab.txt"
  el "som async $i"; ab/som-async --bench "$bmu" 2>&1 | grep -E "^som/|time:|thrpt:" | sed "s/^/async$i /" | tee -a "$logs/som-ab.txt"
done
el "tests"
export WARPKIT_TEST_DEVICES=gpu NCCL_NVLS_ENABLE=0
one() { # one EXE: its log, its result lines
  local exe=$1 name; name=$(basename "$exe")
  local threads=4; [ "$name" = test-alias ] && threads=8
  timeout 330 "$exe" --test-threads=$threads >"$logs/t-$name.log" 2>&1; local rc=$?
  echo "== $name exit $rc $(grep -E '^test result' "$logs/t-$name.log" | tail -1)"
  grep -E "FAILED|panicked|SKIPPED" "$logs/t-$name.log" | head -5
}
export -f one; export logs
ls tests/test-* ab/test-som-async | grep -v -e test-faults -e test-engines | xargs -P 6 -I{} bash -c 'one {}' | tee "$logs/tests-summary.txt"
el "faults/engines"
for exe in tests/test-faults tests/test-engines; do one $exe; done | tee -a "$logs/tests-summary.txt"
el done
