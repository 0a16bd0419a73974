#!/usr/bin/env bash
# First GPU call of the thirty-sixth session: warp 0 polling (issue44-warp0-polls, the
# thirty-fifth session's patch) against main on the online epoch, its tests and sanitizers; a
# CUDA microbench of small convolutions beside main's lane kernel at 2048. Writes 8 files.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee "$OUT/device.txt"
tar -xJf .gpu-next.txz
B=.gpu-next
export WARPKIT_TEST_DEVICES=gpu
nvcc -O3 -arch=sm_90 -o /tmp/conv_small results/microbench/conv_small.cu 2>&1 | tail -5
/tmp/conv_small 2>&1 | tee "$OUT/conv_small.txt"
timeout 100 $B/bench-conv-main --bench 'convolve (f32/Lanes|wall f32/auto per output)/2048' 2>&1 | grep -E "^convolve|time:" | tee "$OUT/bench-conv.log"
timeout 150 $B/test-som-warp0 --test-threads=1 > "$OUT/test-som-warp0.log" 2>&1; echo "som rc=$?"
grep -E "^test |result" "$OUT/test-som-warp0.log"
for i in 1 2; do
    for v in main warp0; do
        echo "== $v" >> "$OUT/bench-online.log"
        timeout 100 $B/bench-som-$v --bench Online 2>&1 | grep -E "^som/|time:" >> "$OUT/bench-online.log"
    done
done
cat "$OUT/bench-online.log"
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck synccheck racecheck; do
    timeout 120 "$CS" --tool $tool --kernel-name kns=som_online $B/test-som-warp0 --test-threads=1 \
        training_gives_every_backend_the_same_map > "$OUT/sanitize-$tool.log" 2>&1
    echo "$tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|result" "$OUT/sanitize-$tool.log"
done
