#!/usr/bin/env bash
# Session 33, call 7: the exact BMU pass with one comparison a pair (best cells in shared memory, row limits) against main.
set -u
rm -rf .gpu-s33; tar -xJf .gpu-s33.txz
cd .gpu-s33
for r in 1 2; do
  timeout 60 ./bench-som-main --bench "best_matching_units_into" > $OUT/bench-main-$r.log 2>&1
  timeout 60 ./bench-som-new --bench "best_matching_units_into" > $OUT/bench-new-$r.log 2>&1
done
timeout 60 ./bench-som-new --bench "wall clock, from host\)/12000x12 vs 200x200 F32" > $OUT/bench-new-wall.log 2>&1
timeout 60 ./bench-som-new --bench "train_into.*Batch" > $OUT/bench-new-batch.log 2>&1
timeout 150 ./test-som --test-threads=1 > $OUT/test-som.log 2>&1; echo "test-som exit $?" >> $OUT/test-som.log
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
export WARPKIT_TEST_MAX_LEN=65537
for tool in memcheck racecheck; do
  timeout 60 $CS --tool $tool ./test-som --test-threads=1 nearest_cells exact_ties > $OUT/sanitize-$tool.log 2>&1; echo "exit $?" >> $OUT/sanitize-$tool.log
done
grep -h "ERROR SUMMARY\|RACECHECK SUMMARY\|exit" $OUT/sanitize-*.log
grep -h "test result\|exit" $OUT/test-som.log
grep -h "time:" -B1 $OUT/bench-*.log | grep -v "^--" | paste - - | sed 's/  */ /g' | cut -c1-170
