#!/usr/bin/env bash
# Session 33, call 4: the screened search on i.i.d. uniform data, beside the bench's lattice.
set -u
rm -rf .gpu-s33; tar -xJf .gpu-s33.txz
cd .gpu-s33
timeout 200 ./bench-som-new --bench "best_matching_units_into" > $OUT/bench-new-random.log 2>&1
grep -h "time:" -B1 $OUT/bench-*.log | grep -v "^--" | paste - - | sed 's/  */ /g' | cut -c1-160
