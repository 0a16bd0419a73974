#!/usr/bin/env bash
# Batch 5: the scan's default in blocks of 512 (b5) against 256 (b4, committed d89245a), both
# paced 2 µs / 0.5 µs; GPU tests (scan_reduce, multisplit), the own-kernels example (its operator
# scans use the default policy) and compute-sanitizer on the scan tests, with b5. Steps that
# would run past 290 s are skipped.
cd "$(dirname "$0")"
L=$OUT/logs; mkdir -p $L; T0=$(date +%s)
step() { local name=$1 t=$2; shift 2; if [ $(( $(date +%s) - T0 + t )) -gt 290 ]; then echo "skipped $name" >> $L/steps.txt; return; fi; echo "== $name: $*" >> $L/steps.txt; local s=$(date +%s); timeout $t "$@" > $L/$name.log 2>&1; echo "rc $? $name $(( $(date +%s) - s ))s" >> $L/steps.txt; }
for b in b4 b5; do tar xJf $b.tar.xz; done
export CRITERION_HOME=$OUT/crit
D='grid/scan_(exclusive|inclusive) 2\^28 f64|grid/scan_exclusive 2\^(28|23|20) u32$|grid/scan_exclusive 2\^28 u32 new buffer'
step bench_b5_1 40 b5/bench-grid --bench "$D" --noplot
step bench_b4_1 40 b4/bench-grid --bench "$D" --noplot
step bench_b5_2 40 b5/bench-grid --bench "$D" --noplot
export WARPKIT_TEST_DEVICES=gpu
step test_scan_b5 70 b5/test-scan_reduce --test-threads 4
step own_kernels_b5 30 b5/own-kernels
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
WARPKIT_TEST_MAX_LEN=65537 step san_memcheck_scan 20 $CS --tool memcheck --error-exitcode 1 --print-limit 20 b5/test-scan_reduce --test-threads 1
WARPKIT_TEST_MAX_LEN=4099 step san_racecheck_scan 25 $CS --tool racecheck --racecheck-report analysis --error-exitcode 1 --print-limit 20 b5/test-scan_reduce --test-threads 1
step test_multisplit_b5 125 b5/test-multisplit --test-threads 4
cd $OUT && tar czf logs.tgz logs && rm -rf logs crit
