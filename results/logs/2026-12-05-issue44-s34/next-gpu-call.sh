#!/usr/bin/env bash
# The GPU call the thirty-fourth session prepared and could not make (no device was lent): the
# online epoch with posted candidates (online-posts.patch, branch issue44-online-posts) against
# main's grid barrier, and the exchange microbench. Before it, on the CPU machine:
#   git worktree add ../posts issue44-online-posts   (or: git apply online-posts.patch, then
#   scripts/update-kernels.sh), and in each tree
#   cargo bench -p warpkit-benches --bench som --no-run --message-format=json | python3 scripts/executables.py
#   cargo test --release -p warpkit-tests --test som --no-run --message-format=json | python3 scripts/executables.py
# copy bench-som-main, bench-som-new and test-som-new into .gpu-s34/, strip them,
# `tar -cf - .gpu-s34 | xz -T2 -6 > .gpu-s34.txz`, carry .gpu-s34.txz, and run this from the
# repository root on the device.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee "$OUT/device.txt"
tar -xJf .gpu-s34.txz
B=.gpu-s34
(cd results/microbench && nvcc -O3 -arch=sm_90 -Xptxas -v som_step.cu -o /tmp/som_step 2>&1 |
    grep -E "error|registers|spill"; timeout 120 /tmp/som_step) 2>&1 | tee "$OUT/som_step.txt"
export WARPKIT_TEST_DEVICES=gpu
timeout 300 $B/test-som-new --test-threads=1 2>&1 | tee "$OUT/test-som-new.log" | grep -E "^test |result"
for i in 1 2; do
    timeout 150 $B/bench-som-main --bench Online 2>&1 | tee "$OUT/bench-main-$i.log" | grep -E "Online|time:"
    timeout 150 $B/bench-som-new --bench Online 2>&1 | tee "$OUT/bench-new-$i.log" | grep -E "Online|time:"
done
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck synccheck racecheck; do
    timeout 240 "$CS" --tool $tool $B/test-som-new --test-threads=1 training_gives_every_backend_the_same_map \
        > "$OUT/sanitize-$tool.log" 2>&1
    echo "$tool rc=$?"; tail -3 "$OUT/sanitize-$tool.log"
done
