#!/usr/bin/env bash
# Batch 3: block-level scatter of 2 tiles a block (A: unbounded, B: 3 blocks an SM) against the
# baseline (b1), binary-search bounds; the multisplit GPU tests with B.
cd "$(dirname "$0")"
L=$OUT/logs; mkdir -p $L
step() { local name=$1 t=$2; shift 2; echo "== $name: $*" >> $L/steps.txt; local s=$(date +%s); timeout $t "$@" > $L/$name.log 2>&1; echo "rc $? $name $(( $(date +%s) - s ))s" >> $L/steps.txt; }
for b in b1 bA bB; do tar xJf $b.tar.xz; done
tar xJf t3.tar.xz
export CRITERION_HOME=$OUT/crit
F='multisplit u32/(BlockLevel (keys|pairs) m=(32|256|4096|65536)|Direct keys m=2)/2\^28'
for b in b1 bA bB b1 bA bB; do step bench_$b 200 $b/multisplit --bench "$F" --noplot; done
M='--metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__registers_per_thread,launch__occupancy_limit_registers,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed'
for b in bA bB; do step ncu_$b 150 ncu $M --launch-skip 40 --launch-count 8 $b/multisplit --bench "multisplit u32/BlockLevel keys m=4096/2\^28" --noplot; done
WARPKIT_TEST_DEVICES=gpu step test_multisplit 400 t3/test-multisplit --test-threads 4
cd $OUT && tar czf logs.tgz logs && rm -rf logs crit
