#!/usr/bin/env bash
# Session 32, call 5: the BMU search's loop of fewer instructions (first dimension squared,
# four a round, full tiles unchecked) with each thread's best cells kept in shared memory
# between tiles, so that f32 fits 64 registers (4 blocks an SM), A/B against main
# (ab/bench-som-8e73145), alternated twice; then the som GPU tests and memcheck of the search.
cd "$(dirname "$0")/.gpu-bundle"
logs="$OUT"; mkdir -p "$logs"
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$logs/gpu.txt"
export CRITERION_HOME="$logs/criterion"
bmu='best_matching_units_into/12000x12'
for i in 1 2; do
  el "main $i"; ab/bench-som-8e73145 --bench "$bmu" 2>&1 | grep -E "^som/|time:" | grep -v "%" | sed "s/^/main$i /" | tee -a "$logs/som-ab.txt"
  el "best in shared $i"; benches/som --bench "$bmu" 2>&1 | grep -E "^som/|time:" | grep -v "%" | sed "s/^/shared$i /" | tee -a "$logs/som-ab.txt"
done
el "tests"
export WARPKIT_TEST_DEVICES=gpu
CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
( WARPKIT_TEST_MAX_LEN=4099 timeout 100 "$CS" --tool memcheck --error-exitcode 1 --print-limit 10 tests/test-som --test-threads=1 nearest_cells exact_ties > "$logs/san-som-memcheck.log" 2>&1; echo "== memcheck exit $? $(grep -E 'SUMMARY' "$logs/san-som-memcheck.log")" ) &
timeout 110 tests/test-som --test-threads=4 > "$logs/t-som.log" 2>&1; echo "== som exit $? $(grep -E '^test result' "$logs/t-som.log" | tail -1)"
wait
el done
