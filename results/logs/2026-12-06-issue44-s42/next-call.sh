#!/usr/bin/env bash
# NOT RUN (the 42nd session's second call, call2.sh, lost its machine mid-run, and no other could
# be started). For the next session: the alias build's block shapes against main ("compact",
# eab1333's kernels), each variant a branch with its images:
#   p2 = shared pack 128 threads x 16 rows (issue44-pack-128x16), p3 = 256 x 16
#   (issue44-pack-256x16), p4 = 128 x 8 (issue44-pack-128x8); t2 = partition tiles of 2048 items,
#   8 a thread (issue44-tile-2048), t2p2 = t2 and p2 (issue44-t2p2); t5, t6 = the partition
#   bounded to 5 / 6 blocks of 256 an SM (issue44-partition-5, -6; ptxas: 48 / 40 registers,
#   4 / 32 bytes spilled).
# The default f64 power-law build of each by CUDA events; then the fastest (events at 10^7 and
# 10^8 together) against main by wall clock, uniform f64 and power-law f32, its GPU alias tests
# and the runner-up's, and the fastest under memcheck, synccheck and racecheck. About 520 s: run
# with timeout_s 600.
# The bundle: each branch's `cargo bench -p warpkit-benches --bench alias --no-run` and
# `cargo test --release -p warpkit-tests --test alias --no-run` executables, stripped, as
# .gpu-next/bench-alias-NAME and test-alias-NAME, main's bench as bench-alias-compact
# (/work/main/.gpu-next.txz at the end of the 42nd session): `tar -cf - .gpu-next | xz -T2 -6`.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-next.txz
F='alias construction f64/gpu psa Binary SharedMemory power law'
W='alias construction f64/gpu default power law wall'
U='alias construction f64/gpu (psa Binary SharedMemory|default) uniform'
G='alias construction f32/gpu (psa Binary SharedMemory|default) power law'
bench() { # binary, filter, label
  echo "== $1 $3" | tee -a "$OUT/bench.log"
  timeout 50 .gpu-next/bench-alias-$1 --bench "$2" 2>&1 | grep -E "^alias|time:" | tee "$OUT/$1-$3.txt" | tee -a "$OUT/bench.log"
}
# The events median (µs) at `size` in a bench's output.
median() { # file, size
  awk -v size="$2" '/SharedMemory/ && $NF ~ "/"size"$" { grab = 1; next }
    grab && /time:/ { v = $4; u = $5; if (u == "ms") v *= 1000; print v; exit }' "$1"
}
VARIANTS="t2 p2 t5 t2p2 p3 t6 p4"
bench compact "$F" f64
for b in $VARIANTS; do bench $b "$F" f64; done
bench compact "$F" f64-again
ranked=$(for b in $VARIANTS; do
  awk -v v=$b -v a="$(median $OUT/$b-f64.txt 10000000)" -v b="$(median $OUT/$b-f64.txt 100000000)" \
      -v c="$(median $OUT/compact-f64.txt 10000000)" -v d="$(median $OUT/compact-f64.txt 100000000)" \
      'BEGIN { if (a > 0 && b > 0 && c > 0 && d > 0) print a / c + b / d, v; else print 9, v }'
done | sort -n | tee -a "$OUT/bench.log")
best=$(echo "$ranked" | awk 'NR == 1 { print $2 }')
second=$(echo "$ranked" | awk 'NR == 2 { print $2 }')
echo "best: $best, then $second" | tee -a "$OUT/bench.log"
export WARPKIT_TEST_DEVICES=gpu
for b in $best $second; do
  echo "== $b" | tee -a "$OUT/tests.log"
  WARPKIT_TEST_MAX_LEN=200000 timeout 40 .gpu-next/test-alias-$b --test-threads=1 2>&1 | grep -E "result|panicked|FAILED|failed" | tee -a "$OUT/tests.log"
done
for b in $best compact; do bench $b "$W" wall; bench $b "$U" uniform; bench $b "$G" f32; done
T=.gpu-next/test-alias-$best
WARPKIT_TEST_MAX_LEN=50000 timeout 40 compute-sanitizer --tool memcheck $T --test-threads=1 tables_pass_the_check_f64 no_contents 2>&1 | grep -E "^test |result|ERROR SUMMARY" | tee "$OUT/memcheck.log"
WARPKIT_TEST_MAX_LEN=50000 timeout 40 compute-sanitizer --tool synccheck $T --test-threads=1 tables_pass_the_check_f64 2>&1 | grep -E "^test |result|ERROR SUMMARY" | tee "$OUT/synccheck.log"
WARPKIT_TEST_MAX_LEN=4099 timeout 70 compute-sanitizer --tool racecheck $T --test-threads=1 tables_pass_the_check_f64 2>&1 | grep -E "^test |result|RACECHECK SUMMARY|ERROR SUMMARY" | tee "$OUT/racecheck.log"
