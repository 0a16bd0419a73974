#!/usr/bin/env bash
# The next GPU call the thirty-fifth session prepared (its device budget was spent): the online
# epoch with warp 0 of each block polling the posts (warp0-polls.patch, sources only; branch
# issue44-warp0-polls, lost with the session's checkout) against main. To build its bundle,
# from the repository root:
#   git worktree add --detach ../wt-warp0 main && (cd ../wt-warp0 && git apply \
#     "$PWD/results/logs/2026-12-05-issue44-s35/warp0-polls.patch" && scripts/update-kernels.sh)
#   in each tree (main here, ../wt-warp0 there; a target directory of each tree's own):
#     cargo bench -p warpkit-benches --bench som --no-run --message-format=json | python3 scripts/executables.py
#     cargo test --release -p warpkit-tests --test som --no-run --message-format=json | python3 scripts/executables.py
#   copy them to .gpu-next/{bench-som-main,bench-som-warp0,test-som-warp0}, strip them,
#   `tar -cf - .gpu-next | xz -T2 -6 > .gpu-next.txz` (list both in .git/info/exclude),
#   and run this with .gpu-next.txz carried. At most 8 files come back from $OUT: this writes 7.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee "$OUT/device.txt"
tar -xJf .gpu-next.txz
B=.gpu-next
export WARPKIT_TEST_DEVICES=gpu
# The 600 x 600 map in place runs 1407 blocks: the polls' rounds past 256 blocks.
timeout 150 $B/test-som-warp0 --test-threads=1 > "$OUT/test-som-warp0.log" 2>&1; echo "som rc=$?"
grep -E "^test |result" "$OUT/test-som-warp0.log"
for i in 1 2; do
    for v in main warp0; do
        timeout 100 $B/bench-som-$v --bench Online 2>&1 | grep -E "^som/|time:" >> "$OUT/bench-online.log"
    done
done
cat "$OUT/bench-online.log"
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck synccheck racecheck; do
    timeout 150 "$CS" --tool $tool --kernel-name kns=som_online $B/test-som-warp0 --test-threads=1 \
        training_gives_every_backend_the_same_map > "$OUT/sanitize-$tool.log" 2>&1
    echo "$tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|result" "$OUT/sanitize-$tool.log"
done
