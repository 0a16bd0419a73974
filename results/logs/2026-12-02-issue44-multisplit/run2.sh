#!/usr/bin/env bash
# Batch 2: SASS-level profile of the block-level scatter (m=256) and the counted one (m=32), 2^28 keys.
cd "$(dirname "$0")"
L=$OUT/logs; mkdir -p $L
step() { local name=$1 t=$2; shift 2; echo "== $name: $*" >> $L/steps.txt; timeout $t "$@" > $L/$name.log 2>&1; echo "rc $? $name" >> $L/steps.txt; }
tar xJf b1.tar.xz
B=b1/multisplit
for m in 256 32; do
  k=$([ $m = 256 ] && echo multisplit_scatter_block_u32_keys || echo multisplit_scatter_counted_u32_keys)
  step ncu_src_$m 200 ncu -k $k --launch-skip 3 --launch-count 1 --section SourceCounters --section InstructionStats --section WarpStateStats -o $L/src_$m $B --bench "multisplit u32/BlockLevel keys m=$m/2\^28" --noplot
  step sass_$m 100 ncu -i $L/src_$m.ncu-rep --page source --csv --print-source sass
  step details_$m 100 ncu -i $L/src_$m.ncu-rep --page details
done
rm -f $L/*.ncu-rep
cd $OUT && tar czf logs.tgz logs && rm -rf logs
