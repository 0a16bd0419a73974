#!/usr/bin/env bash
# Batch 3: the scan's tile staged in shared memory by cp.async (b3 tuning candidates) beside the
# register tile, paced and not; the scan tests on b3; CUB's f64 scans.
cd "$(dirname "$0")"
L=$OUT/logs; mkdir -p $L
step() { local name=$1 t=$2; shift 2; echo "== $name: $*" >> $L/steps.txt; local s=$(date +%s); timeout $t "$@" > $L/$name.log 2>&1; echo "rc $? $name $(( $(date +%s) - s ))s" >> $L/steps.txt; }
tar xJf b3.tar.xz
export CRITERION_HOME=$OUT/crit
step nvcc 150 nvcc -O3 -arch=sm_90 cub_scan.cu -o cub_scan
step cub_scan_f64 60 ./cub_scan 28 f64
step bench_b3_tuning 200 b3/bench-grid --bench 'grid/scan tuning 2\^(28|23)' --noplot
WARPKIT_TEST_DEVICES=gpu step test_scan_b3 150 b3/test-scan_reduce --test-threads 4
S='--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats'
step ncu_b3_staged 90 ncu $S -k regex:b256_v8_staged_w1000_p500$ --launch-skip 5 --launch-count 1 b3/bench-grid --bench "grid/scan tuning 2\^28 scan_tuning_u32_b256_v8_staged_w1000_p500$" --noplot
step ncu_b3_paced 90 ncu $S -k regex:b256_v8_w1000_p500$ --launch-skip 5 --launch-count 1 b3/bench-grid --bench "grid/scan tuning 2\^28 scan_tuning_u32_b256_v8_w1000_p500$" --noplot
cd $OUT && tar czf logs.tgz logs && rm -rf logs crit
