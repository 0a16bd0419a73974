#!/usr/bin/env bash
# Branch issue44-rank-regs against main: rr3 = cbc9643 (the block scatter's ranking without its
# ballot path, each window's rank pinned; 3 blocks an SM), rr4 = 9c68fda (the same at 4 blocks:
# 64 registers). Multisplit alternated, the default-order (Tiled) sampler of main and rr4 (rank.rs
# is its ranking too), then the GPU tests of both variants' multisplit and alias binaries.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/device.txt"
for f in .gpu-rr*.txz; do tar -xJf $f; done
M='multisplit u32/(default (keys|pairs) m=(32|256), wall|BlockLevel (keys|pairs) m=(256|4096|65536))/2\^28'
for b in main rr3 rr4 main rr3 rr4; do
  echo "== $b $SECONDS" | tee -a "$OUT/multisplit.log"
  timeout 70 .gpu-rr/bench-multisplit-$b --bench "$M" 2>&1 | grep -E "^multisplit|time:|thrpt:" | tee -a "$OUT/multisplit.log"
done
if [ -x .gpu-rr/bench-alias-rr4 ]; then
A='alias default order 1e9/Tiled events/(1000000|10000000)$'
for b in main rr4 main rr4; do
  echo "== $b $SECONDS" | tee -a "$OUT/alias.log"
  timeout 60 .gpu-rr/bench-alias-$b --bench "$A" 2>&1 | grep -E "^alias|time:|thrpt:" | tee -a "$OUT/alias.log"
done
fi
export WARPKIT_TEST_DEVICES=gpu
for t in .gpu-rr/test-multisplit-* .gpu-rr/test-alias-*; do
  echo "== $t $SECONDS" | tee -a "$OUT/tests.log"
  timeout 200 $t --test-threads=8 2>&1 | grep -E "^test |result|panicked|FAILED" | tee -a "$OUT/tests.log"
done
echo "end $SECONDS"
