#!/usr/bin/env bash
# Written in the fiftieth session (no device was lent then: not yet run). Subsets bench, CUDA
# events: main (and = 286d191) against branch issue44-subset-half at 49948b0 (half2: the
# density-1/2 kernel, a constant mask test for full masks, the stepped store) and branch
# issue44-subset-pair at 69e096e (pair: half2 plus the paired layout, two subsets a block),
# in the order and / half2 / pair / pair / half2 / and. Then every GPU test binary of one
# build, $1 = pair (default) or half2 (their rebuilds moved every area's images), six at a
# time, with the subsets' agreement and independence tests under the three sanitizers.
# Bundle .gpu-c.txz: .gpu-c/bench-subset-{and,half2,pair}, .gpu-c/{pair,half2}/test-*.
set -o pipefail
which=${1:-pair}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-c.txz
sb() { echo "== $1 $SECONDS" | tee -a "$OUT/subsets.log"
  timeout 60 .gpu-c/bench-subset-$1 --bench '^subsets/(Mend [A-Za-z]+/(32x32 k=(512|128)|64x64 k=2048|32-bit k=16)|Halving Threadwise/32-bit k=16)$' 2>&1 |
    grep -E "^subsets|time:|thrpt:" | tee -a "$OUT/subsets.log"; }
for b in and half2 pair pair half2 and; do sb $b; done
export WARPKIT_TEST_DEVICES=gpu NCCL_NVLS_ENABLE=0 logs=$OUT/tests
mkdir -p $logs
one() { local name=$1; shift
  timeout 420 "$@" >"$logs/$name.log" 2>&1; local rc=$?
  echo "== $name exit $rc $(grep -E '^test result|SUMMARY' "$logs/$name.log" | tail -1)"
  grep -E "FAILED|panicked" "$logs/$name.log" | head -5; }
export -f one
cs=compute-sanitizer; command -v $cs >/dev/null || cs=/usr/local/cuda/bin/compute-sanitizer
t=.gpu-c/$which
{ echo "alias $t/test-alias --test-threads=8"
  for tool in memcheck synccheck racecheck; do
    echo "subset-$tool env WARPKIT_TEST_MAX_LEN=4099 $cs --tool $tool --error-exitcode 1 $t/test-subset --test-threads=1 every_subset_has_k_elements consecutive_subsets"; done
  for x in $t/test-*; do case $x in */test-alias|*/test-faults|*/test-engines|*/test-emulator) ;;
    *) echo "$(basename $x) $x --test-threads=4";; esac; done
} | xargs -P 6 -L 1 bash -c 'one "$@"' _ | tee "$OUT/tests-summary.txt"
for x in faults engines; do one $x $t/test-$x --test-threads=8; done | tee -a "$OUT/tests-summary.txt"
echo "end $SECONDS"; tar -C "$OUT" -czf "$OUT/tests.tgz" tests && rm -rf "$OUT/tests"
