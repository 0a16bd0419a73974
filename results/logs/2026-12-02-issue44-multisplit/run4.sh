#!/usr/bin/env bash
# Batch 4: variant C (start loads in the digit branch, bounds on keys-only block scatters):
# benches, the multisplit GPU tests, the own-kernels example, histogram source counters.
cd "$(dirname "$0")"
L=$OUT/logs; mkdir -p $L
step() { local name=$1 t=$2; shift 2; echo "== $name: $*" >> $L/steps.txt; local s=$(date +%s); timeout $t "$@" > $L/$name.log 2>&1; echo "rc $? $name $(( $(date +%s) - s ))s" >> $L/steps.txt; }
for b in b1 bC bD t4; do tar xJf $b.tar.xz; done
export CRITERION_HOME=$OUT/crit
F='multisplit u32/(BlockLevel (keys|pairs) m=(32|256|4096|65536)|Direct (keys|pairs) m=2)/2\^28'
step bench_b1_1 200 b1/multisplit --bench "$F" --noplot
step bench_bC_1 200 bC/multisplit --bench "$F" --noplot
step bench_b1_2 200 b1/multisplit --bench "$F" --noplot
step bench_bD_1 200 bD/multisplit --bench "$F" --noplot
step bench_bD_2 200 bD/multisplit --bench "$F" --noplot
step bench_bD_all 300 bD/multisplit --bench 'multisplit u32/.*/2\^28' --noplot
WARPKIT_TEST_DEVICES=gpu step test_multisplit 400 t4/test-multisplit --test-threads 4
step own_kernels 200 t4/own-kernels
for m in 32 256; do
  step ncu_hist_$m 200 ncu -k multisplit_histogram_u32 --launch-skip 3 --launch-count 1 --section SourceCounters --section WarpStateStats -o $L/h_$m bD/multisplit --bench "multisplit u32/BlockLevel keys m=$m/2\^28" --noplot
  step sass_hist_$m 100 ncu -i $L/h_$m.ncu-rep --page source --csv --print-source sass
done
rm -f $L/*.ncu-rep
cd $OUT && tar czf logs.tgz logs && rm -rf logs crit
