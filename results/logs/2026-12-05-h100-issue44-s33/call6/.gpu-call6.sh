#!/usr/bin/env bash
# Session 33, call 6: an 8 x 8 register tile for the f32 BMU pass (128 nodes a block, 2 blocks an SM) against main.
set -u
rm -rf .gpu-s33; tar -xJf .gpu-s33.txz
cd .gpu-s33
for r in 1 2; do
  timeout 100 ./bench-som-main --bench "best_matching_units.*F32" > $OUT/bench-main-$r.log 2>&1
  timeout 100 ./bench-som-new --bench "best_matching_units.*F32" > $OUT/bench-new-$r.log 2>&1
done
timeout 150 ./test-som --test-threads=1 nearest_cells exact_ties > $OUT/test-som.log 2>&1; echo "test-som exit $?" >> $OUT/test-som.log
grep -h "test result\|exit" $OUT/test-som.log
grep -h "time:" -B1 $OUT/bench-*.log | grep -v "^--" | paste - - | sed 's/  */ /g' | cut -c1-170
