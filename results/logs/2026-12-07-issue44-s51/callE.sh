#!/usr/bin/env bash
# Fifty-first session: one call for what callC.sh and callD.sh (../2026-12-07-issue44-s50) split
# in two (device starts were scarce), in the order of what landing needs.
# $2 = the seconds the call may run (default 575): the stages check it. In the order:
# 1. Subsets, CUDA events: main (and) / half2 (branch issue44-subset-half 49948b0) / pair
#    (issue44-subset-pair 69e096e), alternated and, pair, pair, and, then half2 where the limit is 500 s or more.
# 2. Multisplit: main / p1 (study-banks-s50 90d0d46: split matching) / p2 (study-banks-p2: p1
#    plus the running count by the lowest peer's atom.shared.add with return and a shuffle),
#    main, p1, p2.
# 3. Every GPU test binary of $1's subsets build (pair by default), six at a time, the subsets'
#    agreement and independence tests under the three sanitizers, cut off 60 s before the end.
# 4. If time is left: multisplit p2, p1, main again; Nsight Compute of the keys scatter at m = 256.
# Bundles: .gpu-c.txz (.gpu-c/bench-subset-{and,half2,pair}, .gpu-c/{pair,half2}/test-*),
# .gpu-ms.txz (.gpu-ms/bench-multisplit-{main,p1,p2}).
set -o pipefail
which=${1:-pair} limit=${2:-575}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-c.txz; tar -xJf .gpu-ms.txz
sb() { echo "== $1 $SECONDS" | tee -a "$OUT/subsets.log"
  timeout 60 .gpu-c/bench-subset-$1 --bench '^subsets/(Mend [A-Za-z]+/(32x32 k=(512|128)|64x64 k=2048|32-bit k=16)|Halving Threadwise/32-bit k=16)$' 2>&1 |
    grep -E "^subsets|time:|thrpt:" | tee -a "$OUT/subsets.log"; }
for b in and pair pair and; do sb $b; done
[ $limit -ge 500 ] && sb half2
M='multisplit u32/(default (keys|pairs) m=(32|256), wall|BlockLevel (keys|pairs) m=(256|4096)|default keys m=65536, wall)/2\^28'
ms() { echo "== $1 $SECONDS" | tee -a "$OUT/multisplit.log"
  timeout 60 .gpu-ms/bench-multisplit-$1 --bench "$M" 2>&1 | grep -E "^multisplit|time:|thrpt:" | tee -a "$OUT/multisplit.log"; }
for v in main p1 p2; do ms $v; done
echo "== tests $SECONDS"
export WARPKIT_TEST_DEVICES=gpu NCCL_NVLS_ENABLE=0 logs=$OUT/tests
export end=$(($(date +%s) + limit - 60 - SECONDS))
mkdir -p $logs
one() { local name=$1 lim=$((end - $(date +%s))); shift
  ((lim > 420)) && lim=420
  timeout $((lim < 1 ? 1 : lim)) "$@" >"$logs/$name.log" 2>&1; local rc=$?
  echo "== $name exit $rc $(grep -E '^test result|SUMMARY' "$logs/$name.log" | tail -1)"
  grep -E "FAILED|panicked" "$logs/$name.log" | head -5; }
export -f one
cs=compute-sanitizer; command -v $cs >/dev/null || cs=/usr/local/cuda/bin/compute-sanitizer
t=.gpu-c/$which
{ echo "test-subset $t/test-subset --test-threads=4"; echo "alias $t/test-alias --test-threads=8"
  for tool in memcheck synccheck racecheck; do
    echo "subset-$tool env WARPKIT_TEST_MAX_LEN=4099 $cs --tool $tool --error-exitcode 1 $t/test-subset --test-threads=1 every_subset_has_k_elements consecutive_subsets"; done
  for x in $t/test-*; do case $x in */test-subset|*/test-alias|*/test-faults|*/test-engines|*/test-emulator) ;;
    *) echo "$(basename $x) $x --test-threads=4";; esac; done
} | xargs -P 6 -L 1 bash -c 'one "$@"' _ | tee "$OUT/tests-summary.txt"
# After the others, as in earlier calls (their planted faults and engine checks run alone).
end=$((end + 15))  # faults and engines: about 2 s
for x in faults engines; do one $x $t/test-$x --test-threads=8; done | tee -a "$OUT/tests-summary.txt"
tar -C "$OUT" -czf "$OUT/tests.tgz" tests && rm -rf "$OUT/tests"
[ $SECONDS -lt $((limit - 80)) ] && for v in p2 p1 main; do ms $v; done
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
C=l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,l1tex__throughput.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__inst_executed_op_shfl.sum,gpu__time_duration.sum,smsp__issue_active.avg.per_cycle_active,launch__registers_per_thread
for v in main p1 p2; do
  [ $SECONDS -lt $((limit - 45)) ] || break
  echo "== ncu $v $SECONDS" >> "$OUT/ncu.txt"
  timeout 40 $ncu --metrics $C --kernel-name regex:multisplit_scatter_block --launch-skip 3 --launch-count 1 \
    .gpu-ms/bench-multisplit-$v --bench "multisplit u32/BlockLevel keys m=256/2\^28" --warm-up-time 0.2 --measurement-time 0.3 >> "$OUT/ncu.txt" 2>&1
  echo "ncu $v rc=$?"; done
grep -E "^== ncu|multisplit_scatter|l1tex|smsp|gpu__|launch__" "$OUT/ncu.txt"
echo "end $SECONDS"
