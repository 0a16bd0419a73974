#!/usr/bin/env bash
# Session 33, call 3: Nsight Compute of the screened search against main's, f32, one launch each.
set -u
[ -d .gpu-s33 ] || tar -xJf .gpu-s33.txz
cd .gpu-s33
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for v in main new; do
  timeout 200 $NCU --kernel-name regex:som_bmu_f32 --launch-skip 5 --launch-count 1 --set full --import-source no -o $OUT/ncu-$v \
    ./bench-som-$v --bench "best_matching_units_into/12000x12 vs 200x200 F32$" --warm-up-time 0.2 --measurement-time 0.5 > $OUT/ncu-$v.log 2>&1
  $NCU --import $OUT/ncu-$v.ncu-rep --page details > $OUT/ncu-$v-details.txt 2>&1
  $NCU --import $OUT/ncu-$v.ncu-rep --page source --csv --print-source sass > $OUT/ncu-$v-sass.csv 2>&1
done
grep -E "Duration|Executed Instructions  |Issue Slots Busy|Achieved Occupancy|Registers Per|Warp Cycles Per Issued|Branch Efficiency|Avg. Divergent|No Eligible|Theoretical Occ" $OUT/ncu-*-details.txt
