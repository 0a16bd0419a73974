#!/usr/bin/env bash
# For the next session: branch issue44-rank-regs against main. rr3 = e21960a's images (the
# ballot path left out of the block-level scatter, each window's rank pinned: ptxas 0 spill at
# the 3-block bound), rr4 = the same at 4 blocks an SM (MULTISPLIT_BLOCK_KEYS 3 -> 4: 64
# registers). Alternated, then the faster one's multisplit and alias GPU tests (rank.rs is the
# alias tiled sampler's ranking too). Bundle .gpu-rr.txz: bench-multisplit-{main,rr3,rr4},
# test-{multisplit,alias}-rrN of the faster variant (build steps in README.md here).
set -o pipefail
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-rr.txz
M='multisplit u32/(default (keys|pairs) m=(32|256), wall|BlockLevel (keys|pairs) m=(256|4096|65536))/2\^28'
for b in main rr3 rr4 main rr3 rr4; do
  echo "== $b $SECONDS" | tee -a "$OUT/multisplit.log"
  timeout 70 .gpu-rr/bench-multisplit-$b --bench "$M" 2>&1 | grep -E "^multisplit|time:|thrpt:" | tee -a "$OUT/multisplit.log"
done
export WARPKIT_TEST_DEVICES=gpu
for t in .gpu-rr/test-multisplit-* .gpu-rr/test-alias-*; do
  echo "== $t $SECONDS"; timeout 300 $t --test-threads=8 2>&1 | grep -E "^test |result|panicked|FAILED" | tee -a "$OUT/tests.log"
done
echo "end $SECONDS"
