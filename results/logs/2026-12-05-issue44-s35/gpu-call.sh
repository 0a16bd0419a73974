#!/usr/bin/env bash
# The thirty-fifth session's GPU call (the one the thirty-fourth prepared, whose machine never
# came): the online epoch with posted candidates (branch issue44-online-posts rebased on main:
# b2c6e3b + images = "new", a775230 + images = "new2") against main's grid barrier, the
# exchange microbench, and the GPU tests of the two other kernels whose SASS the rebuild
# changed (alias_pack_shared_plus_f32, convolve_v2_f32). The bundle .gpu-s35.txz (ignored by
# git) holds the stripped bench and test executables of each revision; run from the
# repository root with it carried.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee "$OUT/device.txt"
tar -xJf .gpu-s35.txz
B=.gpu-s35
(cd results/microbench && nvcc -O3 -arch=sm_90 -Xptxas -v som_step.cu -o /tmp/som_step 2>&1 |
    grep -E "error|registers|spill"; timeout 120 /tmp/som_step) 2>&1 | tee "$OUT/som_step.txt"
export WARPKIT_TEST_DEVICES=gpu
for v in new new2; do
    timeout 300 $B/test-som-$v --test-threads=1 2>&1 | tee "$OUT/test-som-$v.log" | grep -E "^test |result"
done
for i in 1 2; do
    for v in main new new2; do
        timeout 150 $B/bench-som-$v --bench Online 2>&1 | tee "$OUT/bench-$v-$i.log" | grep -E "Online|time:"
    done
done
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck synccheck racecheck; do
    timeout 240 "$CS" --tool $tool $B/test-som-new2 --test-threads=1 training_gives_every_backend_the_same_map \
        > "$OUT/sanitize-$tool.log" 2>&1
    echo "$tool rc=$?"; tail -3 "$OUT/sanitize-$tool.log"
done
timeout 200 $B/test-convolve-new2 --test-threads=1 2>&1 | tee "$OUT/test-convolve-new2.log" | grep -E "result|FAIL|panic"
timeout 200 $B/test-alias-new2 --test-threads=1 tables_pass_the_check 2>&1 | tee "$OUT/test-alias-new2.log" | grep -E "^test |result"
