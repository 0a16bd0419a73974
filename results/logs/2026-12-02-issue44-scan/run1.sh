#!/usr/bin/env bash
# Batch 1 (2026-12-02, 18th session): CUB's scan beside warpkit's (b0 = main 94551b7; b1 = scan
# tuning candidates: smaller tiles, more blocks an SM, paced look-back), ncu of both; the scan
# tests on b1; compute-sanitizer memcheck and synccheck on the multisplit tests (main's kernels);
# the multisplit public call by wall clock.
cd "$(dirname "$0")"
L=$OUT/logs; mkdir -p $L
step() { local name=$1 t=$2; shift 2; echo "== $name: $*" >> $L/steps.txt; local s=$(date +%s); timeout $t "$@" > $L/$name.log 2>&1; echo "rc $? $name $(( $(date +%s) - s ))s" >> $L/steps.txt; }
for b in b0 b1; do tar xJf $b.tar.xz; done
export CRITERION_HOME=$OUT/crit
nvidia-smi > $L/gpu.txt 2>&1; nvcc --version > $L/nvcc.txt 2>&1
step nvcc 150 nvcc -O3 -arch=sm_90 cub_scan.cu -o cub_scan
for n in 28 23 20; do step cub_scan_$n 60 ./cub_scan $n; done
F0='grid/scan_exclusive 2\^28 u32$'
FT='grid/scan tuning 2\^28'
step bench_b0_1 60 b0/bench-grid --bench "$F0" --noplot
step bench_b1_1 150 b1/bench-grid --bench "$F0|$FT" --noplot
step bench_b0_2 60 b0/bench-grid --bench "$F0" --noplot
step bench_b1_2 150 b1/bench-grid --bench "$FT" --noplot
WARPKIT_TEST_DEVICES=gpu step test_scan_b1 150 b1/test-scan_reduce --test-threads 4
S='--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis'
step ncu_cub 90 ncu $S -k regex:DeviceScanKernel --launch-skip 3 --launch-count 1 ./cub_scan 28
step ncu_b0 90 ncu $S -k regex:scan_exclusive_u32 --launch-skip 5 --launch-count 1 b0/bench-grid --bench "$F0" --noplot
step ncu_b1_v6 90 ncu $S -k regex:b128_v6_min10$ --launch-skip 5 --launch-count 1 b1/bench-grid --bench "grid/scan tuning 2\^28 scan_tuning_u32_b128_v6_min10$" --noplot
M='multisplit u32/(default (keys|pairs) m=[0-9]+, wall|BlockLevel (keys|pairs) m=[0-9]+|Direct (keys|pairs) m=2)/2\^28'
step bench_ms_wall 150 b1/bench-multisplit --bench "$M" --noplot
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
export WARPKIT_TEST_DEVICES=gpu WARPKIT_TEST_MAX_LEN=65537
step san_memcheck_ms 150 $CS --tool memcheck --error-exitcode 1 --print-limit 20 b0/test-multisplit --test-threads 1
step san_synccheck_ms 120 $CS --tool synccheck --error-exitcode 1 --print-limit 20 b0/test-multisplit --test-threads 1
cd $OUT && tar czf logs.tgz logs && rm -rf logs crit
