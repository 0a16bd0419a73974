#!/usr/bin/env bash
# Call 2 (42nd session; the machine was taken back mid-run, nothing came back): the alias build's block shapes against main ("compact", eab1333's
# kernels): p2 = shared pack 128 threads x 16 rows, p3 = 256 x 16, t2 = partition tiles of 2048
# items (8 a thread), t2p2 = both t2 and p2 (branches issue44-pack-128x16, issue44-pack-256x16,
# issue44-tile-2048, issue44-t2p2). The default f64 power-law build for each, every variant's GPU
# alias tests; then the fastest variant (by events at 10^7 and 10^8 together) against main on
# uniform f64 and power-law f32, and under memcheck, synccheck and racecheck.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-next.txz
F='alias construction f64/gpu (psa Binary SharedMemory|default) power law'
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
for b in compact p2 p3 t2 t2p2; do bench $b "$F" f64; done
export WARPKIT_TEST_DEVICES=gpu WARPKIT_TEST_MAX_LEN=200000
for b in p2 p3 t2 t2p2; do
  echo "== $b" | tee -a "$OUT/tests.log"
  timeout 40 .gpu-next/test-alias-$b --test-threads=1 2>&1 | grep -E "result|panicked|FAILED|failed" | tee -a "$OUT/tests.log"
done
best=compact; best_score=2
for b in p2 p3 t2 t2p2; do
  s=$(awk -v a="$(median $OUT/$b-f64.txt 10000000)" -v b="$(median $OUT/$b-f64.txt 100000000)" \
      -v c="$(median $OUT/compact-f64.txt 10000000)" -v d="$(median $OUT/compact-f64.txt 100000000)" \
      'BEGIN { if (a > 0 && b > 0 && c > 0 && d > 0) print a / c + b / d; else print 9 }')
  echo "$b score $s" | tee -a "$OUT/bench.log"
  if awk -v s="$s" -v t="$best_score" 'BEGIN { exit !(s < t) }'; then best=$b; best_score=$s; fi
done
echo "best: $best" | tee -a "$OUT/bench.log"
[ "$best" = compact ] && exit 0
for b in compact $best; do bench $b "$U" uniform; bench $b "$G" f32; done
T=.gpu-next/test-alias-$best
WARPKIT_TEST_MAX_LEN=50000 timeout 40 compute-sanitizer --tool memcheck $T --test-threads=1 tables_pass_the_check_f64 no_contents 2>&1 | grep -E "^test |result|ERROR SUMMARY" | tee "$OUT/memcheck.log"
WARPKIT_TEST_MAX_LEN=50000 timeout 40 compute-sanitizer --tool synccheck $T --test-threads=1 tables_pass_the_check_f64 2>&1 | grep -E "^test |result|ERROR SUMMARY" | tee "$OUT/synccheck.log"
WARPKIT_TEST_MAX_LEN=4099 timeout 75 compute-sanitizer --tool racecheck $T --test-threads=1 tables_pass_the_check_f64 2>&1 | grep -E "^test |result|RACECHECK SUMMARY|ERROR SUMMARY" | tee "$OUT/racecheck.log"
