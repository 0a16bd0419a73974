#!/usr/bin/env bash
# Written in the forty-eighth session for the next one, not yet run: main against pa (branch
# issue44-pairs-async at ea559c8: the block-level pairs scatters copy each lane's values by
# cp.async into the staged values' region instead of holding them in registers across the
# ranking, and every block-level kernel leaves the ballot path out; ptxas sm_90 u32/u32 64
# registers, u64/u32 80, u32/u64 84, u64/u64 96, no spill). Benches main, pa, pa, main; then
# every GPU test binary of pa's build, six at a time (alias alone at the end: eight at once ran
# the 80 GB card out of memory in callA); then memcheck, racecheck and synccheck of pa's
# multisplit tests. Bundle .gpu-pa.txz as callA's: .gpu-pa/bench-multisplit-{main,pa},
# .gpu-pa/pa/test-*, each worktree in a target directory of its own, stripped, `xz -9`.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-pa.txz
M='multisplit u32/(default (keys|pairs) m=(32|256), wall|BlockLevel (keys|pairs) m=(256|4096|65536))/2\^28'
ms() { echo "== $1 $SECONDS" | tee -a "$OUT/multisplit.log"
  timeout 60 .gpu-pa/bench-multisplit-$1 --bench "$M" 2>&1 | grep -E "^multisplit|time:|thrpt:" | tee -a "$OUT/multisplit.log"; }
ms main; ms pa; ms pa; ms main
echo "== tests $SECONDS"
export WARPKIT_TEST_DEVICES=gpu NCCL_NVLS_ENABLE=0 logs=$OUT/tests
mkdir -p $logs
one() { local name=$1; shift
  timeout 300 "$@" >"$logs/$name.log" 2>&1; local rc=$?
  echo "== $name exit $rc $(grep -E '^test result|SUMMARY' "$logs/$name.log" | tail -1)"
  grep -E "FAILED|panicked" "$logs/$name.log" | head -5; }
export -f one
cs=compute-sanitizer; command -v $cs >/dev/null || cs=/usr/local/cuda/bin/compute-sanitizer
planted="--skip exhausting_device_memory_is_an_error_value --skip a_kernel_that_reads_out_of_bounds_is_an_error --skip a_kernel_that_faults_on_a_gpu_is_an_error_value"
{ echo "multisplit .gpu-pa/pa/test-multisplit --test-threads=4"
  for tool in memcheck synccheck; do
    echo "$tool env WARPKIT_TEST_MAX_LEN=65537 $cs --tool $tool --error-exitcode 1 .gpu-pa/pa/test-multisplit --test-threads=1 $planted"; done
  echo "racecheck env WARPKIT_TEST_MAX_LEN=4099 $cs --tool racecheck --racecheck-report analysis --error-exitcode 1 .gpu-pa/pa/test-multisplit --test-threads=1 $planted"
  for t in .gpu-pa/pa/test-*; do case $t in */test-alias|*/test-multisplit|*/test-faults|*/test-engines) ;;
    *) echo "$(basename $t) $t --test-threads=4";; esac; done
} | xargs -P 6 -L 1 bash -c 'one "$@"' _ | tee "$OUT/tests-summary.txt"
for t in alias faults engines; do one $t .gpu-pa/pa/test-$t --test-threads=8; done | tee -a "$OUT/tests-summary.txt"
echo "end $SECONDS"
