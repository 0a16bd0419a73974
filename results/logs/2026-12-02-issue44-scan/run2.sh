#!/usr/bin/env bash
# Batch 2: the scan's look-back paced. b1 = default unpaced (main's kernels); b2 = default paced
# (1000 ns before the first look, 500 ns between polls) and a sweep of pacings and tile shapes;
# CUB's f64 scans; the scan tests on b2; racecheck of the multisplit tests (main's kernels).
cd "$(dirname "$0")"
L=$OUT/logs; mkdir -p $L
step() { local name=$1 t=$2; shift 2; echo "== $name: $*" >> $L/steps.txt; local s=$(date +%s); timeout $t "$@" > $L/$name.log 2>&1; echo "rc $? $name $(( $(date +%s) - s ))s" >> $L/steps.txt; }
for b in b0 b1 b2; do tar xJf $b.tar.xz; done
export CRITERION_HOME=$OUT/crit
step nvcc 150 nvcc -O3 -arch=sm_90 cub_scan.cu -o cub_scan
step cub_scan_f64 60 ./cub_scan 28 f64
D='grid/scan_(exclusive|inclusive) 2\^28 f64|grid/scan_exclusive 2\^(28|23|20) u32$|grid/scan_exclusive 2\^28 u32 new buffer'
step bench_b1_1 100 b1/bench-grid --bench "$D" --noplot
step bench_b2_1 100 b2/bench-grid --bench "$D" --noplot
step bench_b1_2 100 b1/bench-grid --bench "$D" --noplot
step bench_b2_2 100 b2/bench-grid --bench "$D" --noplot
step bench_b2_tuning 200 b2/bench-grid --bench 'grid/scan tuning' --noplot
M='multisplit u32/BlockLevel keys m=(32|256|4096)/2\^2[68]'
step bench_ms_b1 60 b1/bench-multisplit --bench "$M" --noplot
step bench_ms_b2 60 b2/bench-multisplit --bench "$M" --noplot
WARPKIT_TEST_DEVICES=gpu step test_scan_b2 150 b2/test-scan_reduce --test-threads 4
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
WARPKIT_TEST_DEVICES=gpu WARPKIT_TEST_MAX_LEN=4099 step san_racecheck_ms 200 $CS --tool racecheck --racecheck-report analysis --error-exitcode 1 --print-limit 20 b0/test-multisplit --test-threads 1
cd $OUT && tar czf logs.tgz logs && rm -rf logs crit
