#!/usr/bin/env bash
# Third call: an output a warp (`convolve_warp_sums_*`) against main's lane kernel on short
# convolutions (bench alternated twice), the convolve GPU tests and compute-sanitizer on the
# new kernel, the CUDA microbench timed beside them, both library kernels under Nsight Compute.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-next.txz
B=.gpu-next
export WARPKIT_TEST_DEVICES=gpu
nvcc -O3 -arch=sm_90 -o /tmp/conv_small results/microbench/conv_small.cu 2>&1 | tail -3
/tmp/conv_small 2>&1 | tee "$OUT/conv_small.txt"
F='convolve (f32/Lanes/(256|1024|2048)$|f64/Lanes/2048|wall f32/auto per output/2048|gradients f32/both/2048)'
for i in 1 2; do
  for v in main warps; do
    echo "== $v" >> "$OUT/bench-conv.log"
    timeout 120 $B/bench-conv-$v --bench "$F" 2>&1 | grep -E "^convolve|time:" >> "$OUT/bench-conv.log"
  done
done
cat "$OUT/bench-conv.log"
timeout 200 $B/test-conv-warps --test-threads=1 > "$OUT/test-conv.log" 2>&1; echo "convolve tests rc=$?"
grep -E "^test |result" "$OUT/test-conv.log"
# The rebuild moved three alias kernels' SASS (scripts/sass-diff.py): their tables' check, up to
# 2 * 10^6 items (the CPU backend's side of the larger sizes is what took minutes before).
WARPKIT_TEST_MAX_LEN=2000000 timeout 150 $B/test-alias-warps --test-threads=1 tables_pass_the_check \
  2>&1 | grep -E "^test |result|panicked" | tee -a "$OUT/test-conv.log"
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck synccheck; do
  echo "== $tool" >> "$OUT/sanitize.log"
  timeout 100 "$CS" --tool $tool --kernel-name kns=warp_sums $B/test-conv-warps --test-threads=1 \
    nan_and_infinity gradients_match batches_of > "$OUT/sanitize-$tool.tmp" 2>&1
  echo "$tool rc=$?" >> "$OUT/sanitize.log"; tail -40 "$OUT/sanitize-$tool.tmp" >> "$OUT/sanitize.log"; rm "$OUT/sanitize-$tool.tmp"
done
grep -E "rc=|ERROR SUMMARY|result" "$OUT/sanitize.log"
S="--section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats"
for v in main warps; do
  timeout 90 ncu $S --kernel-name regex:"convolve_(lanes|warp_sums)_f32" --launch-skip 20 --launch-count 1 \
    $B/bench-conv-$v --bench 'convolve f32/Lanes/2048' --warm-up-time 0.2 --measurement-time 0.3 >> "$OUT/ncu-library.txt" 2>&1
  echo "ncu $v rc=$?"
done
grep -E "convolve_(lanes|warp)|Duration|Registers Per|Achieved Occ|Issued Warp" "$OUT/ncu-library.txt"
