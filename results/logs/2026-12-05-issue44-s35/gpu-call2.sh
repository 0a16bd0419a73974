#!/usr/bin/env bash
# The second call: what the first (call1/, timed out in racecheck, 8 files back at most) did
# not return: the GPU tests of new2 (som, convolve, alias check), synccheck and racecheck of
# the online training test, then the exchange microbench. One log a step.
set -o pipefail
tar -xJf .gpu-s35.txz
B=.gpu-s35
export WARPKIT_TEST_DEVICES=gpu
timeout 150 $B/test-som-new2 --test-threads=1 > "$OUT/test-som-new2.log" 2>&1; echo "som rc=$?"
grep -E "^test |result" "$OUT/test-som-new2.log"
timeout 150 $B/test-convolve-new2 --test-threads=1 > "$OUT/test-convolve-new2.log" 2>&1; echo "convolve rc=$?"
grep -E "result|FAIL" "$OUT/test-convolve-new2.log"
timeout 120 $B/test-alias-new2 --test-threads=1 tables_pass_the_check > "$OUT/test-alias-new2.log" 2>&1; echo "alias rc=$?"
grep -E "^test |result" "$OUT/test-alias-new2.log"
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in synccheck racecheck; do
    timeout 120 "$CS" --tool $tool $B/test-som-new2 --test-threads=1 training_gives_every_backend_the_same_map \
        > "$OUT/sanitize-$tool.log" 2>&1
    echo "$tool rc=$?"; tail -3 "$OUT/sanitize-$tool.log"
done
(cd results/microbench && nvcc -O3 -arch=sm_90 -Xptxas -v som_step.cu -o /tmp/som_step 2>&1 |
    grep -E "error|registers|spill"; timeout 60 /tmp/som_step) > "$OUT/som_step.txt" 2>&1
tail -12 "$OUT/som_step.txt"
