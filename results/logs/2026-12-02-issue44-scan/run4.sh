#!/usr/bin/env bash
# Batch 4: the final scan kernels (b4: default paced 2000 ns / 500 ns; pacing sweep) beside b2
# (default paced 1000 / 500); GPU tests (scan_reduce, levels, multisplit) and compute-sanitizer
# (memcheck, racecheck, synccheck) on the scan tests, with b4. Steps that would run past the
# batch's 540 s are skipped (listed in steps.txt).
cd "$(dirname "$0")"
L=$OUT/logs; mkdir -p $L; T0=$(date +%s)
step() { local name=$1 t=$2; shift 2; if [ $(( $(date +%s) - T0 + t )) -gt 540 ]; then echo "skipped $name" >> $L/steps.txt; return; fi; echo "== $name: $*" >> $L/steps.txt; local s=$(date +%s); timeout $t "$@" > $L/$name.log 2>&1; echo "rc $? $name $(( $(date +%s) - s ))s" >> $L/steps.txt; }
for b in b2 b4; do tar xJf $b.tar.xz; done
export CRITERION_HOME=$OUT/crit
D='grid/scan_(exclusive|inclusive) 2\^28 f64|grid/scan_exclusive 2\^(28|23|20) u32$|grid/scan_exclusive 2\^28 u32 new buffer'
step bench_b2_1 60 b2/bench-grid --bench "$D" --noplot
step bench_b4_1 60 b4/bench-grid --bench "$D" --noplot
step bench_b4_tuning 60 b4/bench-grid --bench 'grid/scan tuning 2\^28' --noplot
step bench_b4_2 60 b4/bench-grid --bench "$D" --noplot
export WARPKIT_TEST_DEVICES=gpu
step test_scan_b4 120 b4/test-scan_reduce --test-threads 4
step test_levels_b4 60 b4/test-levels --test-threads 4
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
WARPKIT_TEST_MAX_LEN=65537 step san_memcheck_scan 90 $CS --tool memcheck --error-exitcode 1 --print-limit 20 b4/test-scan_reduce --test-threads 1
WARPKIT_TEST_MAX_LEN=65537 step san_synccheck_scan 60 $CS --tool synccheck --error-exitcode 1 --print-limit 20 b4/test-scan_reduce --test-threads 1
WARPKIT_TEST_MAX_LEN=4099 step san_racecheck_scan 90 $CS --tool racecheck --racecheck-report analysis --error-exitcode 1 --print-limit 20 b4/test-scan_reduce --test-threads 1
step test_multisplit_b4 130 b4/test-multisplit --test-threads 4
cd $OUT && tar czf logs.tgz logs && rm -rf logs crit
