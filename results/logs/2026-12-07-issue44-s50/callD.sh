#!/usr/bin/env bash
# Written in the fiftieth session (no device was lent then: not yet run). Multisplit: main
# (bench-multisplit-main: main's multisplit code) against p1 (branch
# study-banks-s50 at 90d0d46: the block-level ranking's match words indexed by the digit's low
# 5 bits, bits 5-7 by three ballots; modelled 29.1 -> 24.3 shared wavefronts a 32-key window at
# m = 256, +15-18 instructions; `multisplit-banks-study.md`). Benches main, p1, p1, main; Nsight
# Compute of the keys scatter at m = 256 for both (shared wavefronts by op, conflicts,
# instructions, time); then (`callD.sh all`) every GPU test binary of p1's build and the
# multisplit sanitizers. Bundle .gpu-ms.txz: .gpu-ms/bench-multisplit-{main,p1}, .gpu-ms/p1/test-*
# (the tests only for `all`).
set -o pipefail
part=${1:-bench}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-ms.txz
M='multisplit u32/(default (keys|pairs) m=(32|256), wall|BlockLevel (keys|pairs) m=(256|4096)|default keys m=65536, wall)/2\^28'
ms() { echo "== $1 $SECONDS" | tee -a "$OUT/multisplit.log"
  timeout 90 .gpu-ms/bench-multisplit-$1 --bench "$M" 2>&1 | grep -E "^multisplit|time:|thrpt:" | tee -a "$OUT/multisplit.log"; }
for v in main p1 p1 main; do ms $v; done
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
C=l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,l1tex__throughput.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__inst_executed_op_shfl.sum,gpu__time_duration.sum,smsp__issue_active.avg.per_cycle_active
for v in main p1; do
  echo "== ncu $v $SECONDS" >> "$OUT/ncu.txt"
  timeout 80 $ncu --metrics $C --kernel-name regex:multisplit_scatter_block --launch-skip 3 --launch-count 1 \
    .gpu-ms/bench-multisplit-$v --bench "multisplit u32/BlockLevel keys m=256/2\^28" --warm-up-time 0.2 --measurement-time 0.3 >> "$OUT/ncu.txt" 2>&1
  echo "ncu $v rc=$?"; done
grep -E "^== ncu|multisplit_scatter|l1tex|smsp|gpu__" "$OUT/ncu.txt"
[ $part = all ] || { echo "end $SECONDS"; exit 0; }
export WARPKIT_TEST_DEVICES=gpu NCCL_NVLS_ENABLE=0 logs=$OUT/tests
mkdir -p $logs
one() { local name=$1; shift
  timeout 420 "$@" >"$logs/$name.log" 2>&1; local rc=$?
  echo "== $name exit $rc $(grep -E '^test result|SUMMARY' "$logs/$name.log" | tail -1)"
  grep -E "FAILED|panicked" "$logs/$name.log" | head -5; }
export -f one
cs=compute-sanitizer; command -v $cs >/dev/null || cs=/usr/local/cuda/bin/compute-sanitizer
planted="--skip exhausting_device_memory_is_an_error_value --skip a_kernel_that_reads_out_of_bounds_is_an_error --skip a_kernel_that_faults_on_a_gpu_is_an_error_value"
t=.gpu-ms/p1
{ echo "alias $t/test-alias --test-threads=8"
  echo "multisplit $t/test-multisplit --test-threads=4"
  for tool in memcheck synccheck; do
    echo "$tool env WARPKIT_TEST_MAX_LEN=65537 $cs --tool $tool --error-exitcode 1 $t/test-multisplit --test-threads=1 $planted"; done
  echo "racecheck env WARPKIT_TEST_MAX_LEN=4099 $cs --tool racecheck --racecheck-report analysis --error-exitcode 1 $t/test-multisplit --test-threads=1 $planted"
  for x in $t/test-*; do case $x in */test-alias|*/test-multisplit|*/test-faults|*/test-engines|*/test-emulator) ;;
    *) echo "$(basename $x) $x --test-threads=4";; esac; done
} | xargs -P 6 -L 1 bash -c 'one "$@"' _ | tee "$OUT/tests-summary.txt"
for x in faults engines; do one $x $t/test-$x --test-threads=8; done | tee -a "$OUT/tests-summary.txt"
echo "end $SECONDS"; tar -C "$OUT" -czf "$OUT/tests.tgz" tests && rm -rf "$OUT/tests"
