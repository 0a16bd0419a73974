#!/usr/bin/env bash
# Written in the forty-ninth session for the next one, not yet run: main (286d191) against half
# (branch issue44-subset-half, f6f6dd8: a mend kernel of its own at density 1/2, the same
# subsets). Bundle .gpu-half.txz: .gpu-half/bench-subset-{main,half} and .gpu-half/half/test-*
# (every test binary of half's build: its rebuild moved every area's images), each worktree in
# a target directory of its own, stripped, `xz -9`. Benches main, half, half, main; then every
# GPU test binary six at a time, with the subsets' agreement test under the three sanitizers.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-half.txz
sb() { echo "== $1 $SECONDS" | tee -a "$OUT/subsets.log"
  timeout 60 .gpu-half/bench-subset-$1 --bench '^subsets/(Mend [A-Za-z]+/(32x32 k=(512|128)|64x64 k=2048|32-bit k=16)|Halving Threadwise/32-bit k=16)$' 2>&1 |
    grep -E "^subsets|time:|thrpt:" | tee -a "$OUT/subsets.log"; }
sb main; sb half; sb half; sb main
export WARPKIT_TEST_DEVICES=gpu NCCL_NVLS_ENABLE=0 logs=$OUT/tests
mkdir -p $logs
one() { local name=$1; shift
  timeout 420 "$@" >"$logs/$name.log" 2>&1; local rc=$?
  echo "== $name exit $rc $(grep -E '^test result|SUMMARY' "$logs/$name.log" | tail -1)"
  grep -E "FAILED|panicked" "$logs/$name.log" | head -5; }
export -f one
cs=compute-sanitizer; command -v $cs >/dev/null || cs=/usr/local/cuda/bin/compute-sanitizer
{ echo "alias .gpu-half/half/test-alias --test-threads=8"
  for tool in memcheck synccheck racecheck; do
    echo "subset-$tool env WARPKIT_TEST_MAX_LEN=4099 $cs --tool $tool --error-exitcode 1 .gpu-half/half/test-subset --test-threads=1 every_subset_has_k_elements"; done
  for t in .gpu-half/half/test-*; do case $t in */test-alias|*/test-faults|*/test-engines) ;;
    *) echo "$(basename $t) $t --test-threads=4";; esac; done
} | xargs -P 6 -L 1 bash -c 'one "$@"' _ | tee "$OUT/tests-summary.txt"
for t in faults engines; do one $t .gpu-half/half/test-$t --test-threads=8; done | tee -a "$OUT/tests-summary.txt"
echo "end $SECONDS"; tar -C "$OUT" -czf "$OUT/tests.tgz" tests && rm -rf "$OUT/tests"
