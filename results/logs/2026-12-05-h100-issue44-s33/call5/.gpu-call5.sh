#!/usr/bin/env bash
# Session 33, call 5: Nsight Compute of the screened search (dropped build) on uniform data (f32) and the lattice (f64).
set -u
rm -rf .gpu-s33; tar -xJf .gpu-s33.txz
cd .gpu-s33
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
run() { # name kernel-regex bench-filter
  timeout 200 $NCU --kernel-name regex:$2 --launch-skip 5 --launch-count 1 --set full --import-source no -o $OUT/ncu-$1 \
    ./bench-som-new --bench "$3" --warm-up-time 0.2 --measurement-time 0.5 > $OUT/ncu-$1.log 2>&1
  $NCU --import $OUT/ncu-$1.ncu-rep --page details > $OUT/ncu-$1-details.txt 2>&1
  $NCU --import $OUT/ncu-$1.ncu-rep --page source --csv --print-source sass > $OUT/ncu-$1-sass.csv 2>&1
  rm -f $OUT/ncu-$1.ncu-rep
}
run uniform-f32 som_bmu_f32 "best_matching_units_into/12000x12 vs 200x200 F32, uniform random"
run lattice-f64 som_bmu_f64 "best_matching_units_into/12000x12 vs 200x200 F64$"
grep -E "Duration|Executed Instructions  |Issue Slots Busy|Achieved Occupancy|Registers Per|No Eligible|Theoretical Occ" $OUT/ncu-*-details.txt
