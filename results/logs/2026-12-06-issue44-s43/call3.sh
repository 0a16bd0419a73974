#!/usr/bin/env bash
# The forty-third session's call (two earlier forms found no machine; their parts that matter
# most run here together, in order of weight, each logging as it goes):
# 1. The block-level multisplit scatter with whole tiles ranked and staged without bound checks,
#    the table's words prefetched into L2 and read after the ranking instead of held (spilled)
#    across it, the clearing and the block scan without checks ("ms", branch
#    issue44-ms-fulltile) against main's kernels ("main"), alternated.
# 2. The alias build's block shapes (call1.sh's variants) by CUDA events between two runs of
#    main's ("compact"), and the fastest one's wall clock.
# 3. The multisplit branch's GPU tests; Nsight Compute of both scatters at m = 256.
# The bundle (`.gpu-next.txz`, carried; 43 MB): bench-alias-{compact,t2,p2,t5,p3,p4},
# test-alias-{compact,t2,p2} (variants.sh), bench-multisplit-{ms,main},
# test-multisplit-ms (ms-build.sh, on branch issue44-ms-fulltile), then
# `tar -cf - .gpu-next | xz -T2 -6 > .gpu-next.txz`. NOT RUN in the forty-third session: no
# machine could be started.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-next.txz
M='multisplit u32/(default (keys|pairs) m=(32|256|4096|65536), wall|BlockLevel (keys|pairs) m=(32|256|4096|65536))/2\^28'
for b in main ms main ms; do
  echo "== $b" | tee -a "$OUT/multisplit.log"
  timeout 90 .gpu-next/bench-multisplit-$b --bench "$M" 2>&1 | grep -E "^multisplit|time:|thrpt:" | tee -a "$OUT/multisplit.log"
done
F='alias construction f64/gpu psa Binary SharedMemory power law'
W='alias construction f64/gpu default power law wall'
bench() { # binary, filter, label
  echo "== $1 $3" | tee -a "$OUT/alias.log"
  timeout 50 .gpu-next/bench-alias-$1 --bench "$2" 2>&1 | grep -E "^alias|time:" | tee "$OUT/$1-$3.txt" | tee -a "$OUT/alias.log"
}
median() { # file, size: the events median (µs) at `size` in a bench's output
  awk -v size="$2" '/SharedMemory/ && $NF ~ "/"size"$" { grab = 1; next }
    grab && /time:/ { v = $4; u = $5; if (u == "ms") v *= 1000; print v; exit }' "$1"
}
VARIANTS="t2 p2 t5 p3 p4"
bench compact "$F" f64
for b in $VARIANTS; do bench $b "$F" f64; done
bench compact "$F" f64-again
ranked=$(for b in $VARIANTS; do
  awk -v v=$b -v a="$(median $OUT/$b-f64.txt 10000000)" -v b="$(median $OUT/$b-f64.txt 100000000)" \
      -v c="$(median $OUT/compact-f64.txt 10000000)" -v d="$(median $OUT/compact-f64.txt 100000000)" \
      'BEGIN { if (a > 0 && b > 0 && c > 0 && d > 0) print a / c + b / d, v; else print 9, v }'
done | sort -n | tee -a "$OUT/alias.log")
best=$(echo "$ranked" | awk 'NR == 1 { print $2 }')
echo "best: $best" | tee -a "$OUT/alias.log"
for b in $best compact; do bench $b "$W" wall; done
WARPKIT_TEST_DEVICES=gpu timeout 150 .gpu-next/test-multisplit-ms --test-threads=1 2>&1 | grep -E "^test |result|panicked|FAILED|failed" | tee "$OUT/tests-multisplit.log"
for b in main ms; do
  timeout 45 ncu -k regex:multisplit_scatter_block_u32_keys -c 1 --section SpeedOfLight --section LaunchStats --section Occupancy \
    --metrics smsp__inst_executed.sum,smsp__sass_inst_executed_op_local_ld.sum,smsp__sass_inst_executed_op_local_st.sum \
    .gpu-next/bench-multisplit-$b --bench 'multisplit u32/BlockLevel keys m=256/2\^28' > "$OUT/ncu-$b.txt" 2>&1
  grep -E "Duration|inst_executed|local_|Registers Per|Achieved Occupancy|Memory Throughput" "$OUT/ncu-$b.txt" | sed "s/^/$b /"
done
