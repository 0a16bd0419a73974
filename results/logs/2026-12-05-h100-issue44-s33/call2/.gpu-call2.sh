#!/usr/bin/env bash
# Session 33, call 2: seeded first tile, picked sums.
set -u
tar -xJf .gpu-s33.txz
cd .gpu-s33
nvidia-smi -L > $OUT/device.txt; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv >> $OUT/device.txt
timeout 200 ./test-som --test-threads=1 > $OUT/test-som.log 2>&1; echo "test-som exit $?" >> $OUT/test-som.log
for r in 1; do
  timeout 120 ./bench-som-main --bench best_matching_units > $OUT/bench-main-$r.log 2>&1
  timeout 120 ./bench-som-new --bench best_matching_units > $OUT/bench-new-$r.log 2>&1
done
timeout 120 ./bench-som-new --bench best_matching_units > $OUT/bench-new-2.log 2>&1
timeout 60 ./bench-som-new --bench "train_into.*Batch" > $OUT/bench-new-batch.log 2>&1
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
export WARPKIT_TEST_MAX_LEN=65537
for tool in memcheck racecheck synccheck; do
  timeout 150 $CS --tool $tool ./test-som --test-threads=1 nearest_cells hard_data exact_ties > $OUT/sanitize-$tool.log 2>&1; echo "exit $?" >> $OUT/sanitize-$tool.log
done
grep -h "ERROR SUMMARY\|RACECHECK SUMMARY\|exit" $OUT/sanitize-*.log
grep -h "test result\|exit" $OUT/test-som.log
grep -h "time:" -B1 $OUT/bench-*.log | grep -v "^--" | paste - - | sed 's/  */ /g' | cut -c1-200
