#!/usr/bin/env bash
# Written in the forty-eighth session, run in the forty-ninth as one call (`callP.sh`: benches, every
# test binary and the sanitizers, Nsight Compute if time is left; `callP.sh ncu` that alone): main against pa (branch
# issue44-pairs-async at ea559c8: the block-level pairs scatters copy each lane's values by
# cp.async into the staged values' region instead of holding them in registers across the
# ranking, and every block-level kernel leaves the ballot path out; ptxas sm_90 u32/u32 64
# registers, u64/u32 80, u32/u64 84, u64/u64 96, no spill). Benches main, pa, pa, main; then
# every GPU test binary of pa's build and memcheck, racecheck and synccheck of its multisplit
# tests, six at a time (eight at once ran the 80 GB card out of memory in s48's callA). Bundle .gpu-pa.txz as callA's: .gpu-pa/bench-multisplit-{main,pa},
# .gpu-pa/pa/test-*, each worktree in a target directory of its own, stripped, `xz -9`.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-pa.txz
[ -f .gpu-sub.txz ] && tar -xJf .gpu-sub.txz
part=${1:-all}
M='multisplit u32/(default (keys|pairs) m=(32|256), wall|BlockLevel (keys|pairs) m=(256|4096))/2\^28'
ms() { echo "== $1 $SECONDS" | tee -a "$OUT/multisplit.log"
  timeout 60 .gpu-pa/bench-multisplit-$1 --bench "$M" 2>&1 | grep -E "^multisplit|time:|thrpt:" | tee -a "$OUT/multisplit.log"; }
[ $part = all ] && { ms main; ms pa; ms pa; ms main; }
# The subsets' mend kernels, main against the round without its short circuit, alternated.
sb() { echo "== $1 $SECONDS" | tee -a "$OUT/subsets.log"
  timeout 40 .gpu-sub/bench-subset-$1 --bench '^subsets/Mend [A-Za-z]+/(32x32 k=512|64x64 k=2048)$' 2>&1 | grep -E "^subsets|time:|thrpt:" | tee -a "$OUT/subsets.log"; }
[ $part = all ] && [ -d .gpu-sub ] && { sb main; sb and; sb and; sb main; }
echo "== tests $SECONDS"
export WARPKIT_TEST_DEVICES=gpu NCCL_NVLS_ENABLE=0 logs=$OUT/tests
mkdir -p $logs
one() { local name=$1; shift
  timeout 420 "$@" >"$logs/$name.log" 2>&1; local rc=$?
  echo "== $name exit $rc $(grep -E '^test result|SUMMARY' "$logs/$name.log" | tail -1)"
  grep -E "FAILED|panicked" "$logs/$name.log" | head -5; }
export -f one
cs=compute-sanitizer; command -v $cs >/dev/null || cs=/usr/local/cuda/bin/compute-sanitizer
planted="--skip exhausting_device_memory_is_an_error_value --skip a_kernel_that_reads_out_of_bounds_is_an_error --skip a_kernel_that_faults_on_a_gpu_is_an_error_value"
if [ $part != ncu ]; then
# Every GPU test binary six at a time, the alias one (about 300 s) first, the multisplit
# sanitizers among them (small sizes, held by the host's cores); faults and engines after.
{ echo "alias .gpu-pa/pa/test-alias --test-threads=8"
  echo "multisplit .gpu-pa/pa/test-multisplit --test-threads=4"
  for tool in memcheck synccheck; do
    echo "$tool env WARPKIT_TEST_MAX_LEN=65537 $cs --tool $tool --error-exitcode 1 .gpu-pa/pa/test-multisplit --test-threads=1 $planted"; done
  echo "racecheck env WARPKIT_TEST_MAX_LEN=4099 $cs --tool racecheck --racecheck-report analysis --error-exitcode 1 .gpu-pa/pa/test-multisplit --test-threads=1 $planted"
  for t in .gpu-pa/pa/test-*; do case $t in */test-alias|*/test-multisplit|*/test-faults|*/test-engines) ;;
    *) echo "$(basename $t) $t --test-threads=4";; esac; done
  # The subsets' round without its short circuit (branch issue44-subset-and).
  echo "subset-and .gpu-sub/test-subset-and --test-threads=4"
  for tool in memcheck synccheck racecheck; do
    echo "subset-and-$tool env WARPKIT_TEST_MAX_LEN=4099 $cs --tool $tool --error-exitcode 1 .gpu-sub/test-subset-and --test-threads=1 every_subset_has_k_elements"; done
} | xargs -P 6 -L 1 bash -c 'one "$@"' _ | tee "$OUT/tests-summary.txt"
for t in faults engines; do one $t .gpu-pa/pa/test-$t --test-threads=8; done | tee -a "$OUT/tests-summary.txt"
fi
if [ $part = ncu ] || [ $SECONDS -lt 420 ]; then
# Nsight Compute over one block-level scatter of keys and of pairs at 256 digits, each build,
# to tell what holds the scatter (issue rate, stalls, occupancy, DRAM bytes).
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
S="--section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis"
for v in main pa; do for w in keys pairs; do
  echo "== ncu $v $w $SECONDS" >> "$OUT/ncu.txt"
  timeout 80 $ncu $S --kernel-name regex:multisplit_scatter_block --launch-skip 3 --launch-count 1 \
    .gpu-pa/bench-multisplit-$v --bench "multisplit u32/BlockLevel $w m=256/2\^28" --warm-up-time 0.2 --measurement-time 0.3 >> "$OUT/ncu.txt" 2>&1
  echo "ncu $v $w rc=$?"; done; done
# Every launch of a few calls (histogram, table scan, scatter): each one's share of a call.
echo "== ncu pa keys every launch $SECONDS" >> "$OUT/ncu.txt"
timeout 80 $ncu --section SpeedOfLight --launch-skip 12 --launch-count 8 .gpu-pa/bench-multisplit-pa \
  --bench "multisplit u32/BlockLevel keys m=256/2\^28" --warm-up-time 0.2 --measurement-time 0.3 >> "$OUT/ncu.txt" 2>&1
echo "ncu every launch rc=$?"
grep -E "^== ncu|  [a-z_0-9]+ \(|Duration|Registers Per|Achieved Occ|Issued Warp|DRAM Through|Memory Through|Compute \(SM\)" "$OUT/ncu.txt"
fi
echo "end $SECONDS"; tar -C "$OUT" -czf "$OUT/tests.tgz" tests && rm -rf "$OUT/tests"
