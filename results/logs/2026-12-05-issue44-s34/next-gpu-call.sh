#!/usr/bin/env bash
# The GPU call the thirty-fourth session prepared and could not make (no device was lent): the
# online epoch with posted candidates (branch issue44-online-posts: 45297c4 = online-posts.patch,
# "new"; 69deddc = that and online-keys.patch, "new2") against main's grid barrier, and the
# exchange microbench. Its bundle, .gpu-s34.txz (ignored by git), was left built in the
# repository root; to rebuild it, check out each revision (or apply the patches, then
# scripts/update-kernels.sh) and in each tree run
#   cargo bench -p warpkit-benches --bench som --no-run --message-format=json | python3 scripts/executables.py
#   cargo test --release -p warpkit-tests --test som --no-run --message-format=json | python3 scripts/executables.py
# copy bench-som-main, bench-som-new(2) and test-som-new(2) into .gpu-s34/, strip them,
# `tar -cf - .gpu-s34 | xz -T2 -6 > .gpu-s34.txz`, carry .gpu-s34.txz, and run this from the
# repository root on the device.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee "$OUT/device.txt"
tar -xJf .gpu-s34.txz
B=.gpu-s34
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
