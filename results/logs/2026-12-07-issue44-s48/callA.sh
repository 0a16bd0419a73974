#!/usr/bin/env bash
# Issue 44, forty-eighth session: main (2ef4f8a) against rp (branch issue44-rank-regs, rebased
# on main as b578b34: the block scatter of keys without its dead ballot path, four blocks an
# SM) and lb (branch issue44-lookback at 62f3e00: rp plus the block-level write of keys with
# its digit starts by a look-back across blocks and the histogram of group sums alone it
# launches, switched on by checks::multisplit_set_look_back in the bench's "look-back" lines).
# Benches first (main, rp, lb, then rp, main, lb; the default-order sampler once each for main
# and rp), then every GPU test binary of rp's build and lb's multisplit tests, eight at a time,
# each stopped before the call's limit (logs in tests/), then faults and engines alone. callB.sh: the sanitizers.
# Bundle .gpu-ab.txz: .gpu-ab/{bench-*-{main,rp,lb},test-multisplit-lb,rp/test-*}, release
# builds by `cargo bench|test --no-run` and scripts/executables.py (a target directory a
# worktree: with one shared, cargo kept one worktree's kernels for the other), stripped.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-ab.txz
M='multisplit u32/(default (keys|pairs) m=(32|256), wall|BlockLevel (keys|pairs) m=(256|4096|65536))/2\^28'
L='multisplit u32/(default keys look-back m=(256|4096|65536), wall|BlockLevel keys look-back m=(256|4096|65536))/2\^28'
A='alias default order 1e9/Tiled events/10000000$'
ms() { echo "== $1 $SECONDS" | tee -a "$OUT/multisplit.log"
  timeout 60 .gpu-ab/bench-multisplit-$1 --bench "$2" 2>&1 | grep -E "^multisplit|time:|thrpt:" | tee -a "$OUT/multisplit.log"; }
al() { echo "== $1 $SECONDS" | tee -a "$OUT/alias.log"
  timeout 30 .gpu-ab/bench-alias-$1 --bench "$A" 2>&1 | grep -E "^alias|time:|thrpt:" | tee -a "$OUT/alias.log"; }
ms main "$M"; ms rp "$M"; ms lb "$L"; al main; al rp; ms rp "$M"; ms main "$M"; ms lb "$L"
echo "== tests $SECONDS"
export WARPKIT_TEST_DEVICES=gpu NCCL_NVLS_ENABLE=0 logs=$OUT/tests
mkdir -p $logs
end=$((585 - SECONDS)); export end
one() { local name=$1; shift
  timeout $end "$@" >"$logs/$name.log" 2>&1; local rc=$?
  echo "== $name exit $rc $(grep -E '^test result' "$logs/$name.log" | tail -1)"
  grep -E "FAILED|panicked" "$logs/$name.log" | head -5; }
export -f one
{ echo "alias-rp .gpu-ab/rp/test-alias --test-threads=12"
  echo "multisplit-rp .gpu-ab/rp/test-multisplit --test-threads=4"
  echo "multisplit-lb .gpu-ab/test-multisplit-lb --test-threads=4"
  for t in .gpu-ab/rp/*; do case $t in */test-alias|*/test-multisplit|*/test-faults|*/test-engines) ;;
    *) echo "$(basename $t)-rp $t --test-threads=4";; esac; done
} | xargs -P 8 -L 1 bash -c 'one "$@"' _ | tee "$OUT/tests-summary.txt"
# The planted faults alone, as before.
end=20; for t in faults engines; do one $t-rp .gpu-ab/rp/test-$t; done | tee -a "$OUT/tests-summary.txt"
echo "end $SECONDS"
