#!/usr/bin/env bash
# Written in the fifty-first session (not yet run): what binds the subsets' 32x32 mend kernel?
# The pair branch cut its instructions 42 % and gained 1.4 % (callE), so it is not issue-bound.
# Hypothesis: the FMA-heavy pipe. Philox's multiplies are IMAD.WIDE (main's subset_mend_words1
# has 46 IMAD.WIDE/HI and 47 IMAD moves in its SASS), which only the FMA-heavy half of each
# scheduler's datapath runs; at 2.78 G grids/s a grid gets 376 scheduler cycles. Nsight Compute
# of one launch at 32x32 k = 512 for main (and: subset_mend_words1) and pair
# (subset_mend_half_full): pipe utilization, warp stall reasons, issue, occupancy, memory.
# Then (`callF.sh tests`) the GPU test binaries that callE cut or failed: alias, errors alone.
# Bundle .gpu-c.txz as callE's (rebuild as its header says if this machine was reset).
set -o pipefail
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-c.txz
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
# The sections in one run, the pipe metrics in another: a metric name this ncu does not know
# fails only its own run.
P=sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fmaheavy.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_uniform.avg.pct_of_peak_sustained_active
for v in and pair; do
  for what in "--section ComputeWorkloadAnalysis --section InstructionStats --section WarpStateStats --section SchedulerStats --section Occupancy --section MemoryWorkloadAnalysis" "--metrics $P"; do
    echo "== ncu $v ${what%% *} $SECONDS" >> "$OUT/ncu-subsets.txt"
    timeout 100 $ncu $what --kernel-name regex:subset_mend --launch-skip 3 --launch-count 1 \
      .gpu-c/bench-subset-$v --bench '^subsets/Mend Warpwise/32x32 k=512$' --warm-up-time 0.2 --measurement-time 0.3 \
      >> "$OUT/ncu-subsets.txt" 2>&1
    echo "ncu $v ${what%% *} rc=$?"; done; done
grep -E "^== ncu|subset_mend|pipe|Issue|Stall|stall|Occupancy|Throughput|Duration" "$OUT/ncu-subsets.txt" | head -120
[ "${1:-}" = tests ] || { echo "end $SECONDS"; exit 0; }
export WARPKIT_TEST_DEVICES=gpu NCCL_NVLS_ENABLE=0
timeout 60 .gpu-c/pair/test-errors --test-threads=4 2>&1 | tail -5 | tee "$OUT/errors.log"
timeout 400 .gpu-c/pair/test-alias --test-threads=8 2>&1 | tail -20 | tee "$OUT/alias.log"
echo "end $SECONDS"
