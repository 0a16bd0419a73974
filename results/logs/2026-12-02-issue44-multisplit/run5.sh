#!/usr/bin/env bash
# Batch 5: final kernels (E: histogram without per-key branches, direct keys bounded to 48
# registers) against the baseline b1; full bench; multisplit GPU tests; own-kernels example.
cd "$(dirname "$0")"
L=$OUT/logs; mkdir -p $L
step() { local name=$1 t=$2; shift 2; echo "== $name: $*" >> $L/steps.txt; local s=$(date +%s); timeout $t "$@" > $L/$name.log 2>&1; echo "rc $? $name $(( $(date +%s) - s ))s" >> $L/steps.txt; }
for b in b1 bE t5; do tar xJf $b.tar.xz; done
export CRITERION_HOME=$OUT/crit
F='multisplit u32/(BlockLevel (keys|pairs) m=(32|256|4096|65536)|Direct (keys|pairs) m=2)/2\^28'
step bench_b1_1 200 b1/multisplit --bench "$F" --noplot
step bench_bE_1 200 bE/multisplit --bench "$F" --noplot
step bench_b1_2 200 b1/multisplit --bench "$F" --noplot
step bench_bE_2 200 bE/multisplit --bench "$F" --noplot
step bench_bE_all 300 bE/multisplit --bench 'multisplit u32/.*/2\^28' --noplot
WARPKIT_TEST_DEVICES=gpu step test_multisplit 300 t5/test-multisplit --test-threads 4
step own_kernels 100 t5/own-kernels
M='--metrics gpu__time_duration.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed'
for m in 2 32 256; do step ncu_bE_$m 100 ncu $M --launch-skip 30 --launch-count 4 bE/multisplit --bench "multisplit u32/$([ $m = 2 ] && echo Direct || echo BlockLevel) keys m=$m/2\^28" --noplot; done
cd $OUT && tar czf logs.tgz logs && rm -rf logs crit
