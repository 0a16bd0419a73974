#!/usr/bin/env bash
# Branch issue44-rank-regs at 837db74 ("rp": rr4 with the pairs kernels' ballot path kept)
# against main: multisplit and the default-order (Tiled) sampler alternated twice, then every GPU
# test binary of rp's build, six at a time (alias at 8 threads); callH3.sh: the sanitizers. Bundle .gpu-rp.txz:
# .gpu-rp/bench-{multisplit,alias}-main (main's benches), .gpu-rp/benches/* and tests/* from
# scripts/gpu-bundle.sh on 837db74.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-rp.txz
cp .gpu-rp/benches/multisplit .gpu-rp/bench-multisplit-rp; cp .gpu-rp/benches/alias .gpu-rp/bench-alias-rp
M='multisplit u32/(default (keys|pairs) m=(32|256), wall|BlockLevel (keys|pairs) m=(256|4096|65536))/2\^28'
A='alias default order 1e9/Tiled events/10000000$'
bench() { for b in "$@"; do
  echo "== $b $SECONDS" | tee -a "$OUT/multisplit.log"
  timeout 45 .gpu-rp/bench-multisplit-$b --bench "$M" 2>&1 | grep -E "^multisplit|thrpt:" | tee -a "$OUT/multisplit.log"
  echo "== $b $SECONDS" | tee -a "$OUT/alias.log"
  timeout 30 .gpu-rp/bench-alias-$b --bench "$A" 2>&1 | grep -E "^alias|time:|thrpt:" | tee -a "$OUT/alias.log"
done; }
bench main rp main rp
echo "== tests $SECONDS"
export WARPKIT_TEST_DEVICES=gpu NCCL_NVLS_ENABLE=0 logs=/tmp/test-logs; mkdir -p $logs
one() { local exe=$1 name; name=$(basename "$exe")
  local threads=4; [ "$name" = test-alias ] && threads=8
  timeout 240 "$exe" --test-threads=$threads >"$logs/t-$name.log" 2>&1; local rc=$?
  echo "== $name exit $rc $(grep -E '^test result' "$logs/t-$name.log" | tail -1)"
  grep -E "FAILED|panicked" "$logs/t-$name.log" | head -5; }
export -f one
first='alias multisplit som scan_reduce levels'
{ for t in $first; do echo .gpu-rp/tests/test-$t; done
  ls .gpu-rp/tests/test-* | grep -vE "test-(${first// /|}|faults|engines)\$"; } | xargs -P 6 -I{} bash -c 'one {}' | tee "$OUT/tests-summary.txt"
for exe in .gpu-rp/tests/test-faults .gpu-rp/tests/test-engines; do one $exe; done | tee -a "$OUT/tests-summary.txt"
tar -czf "$OUT/test-logs.tgz" -C /tmp test-logs
echo "end $SECONDS"
