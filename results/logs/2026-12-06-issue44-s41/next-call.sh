#!/usr/bin/env bash
# Run in the forty-second session as ../2026-12-06-issue44-s42/call1.sh. (Not run here: no H100 could be started in the session's last 40 minutes; 251 s of device time were
# left). For the next session: PSA's prefix sums every 64th item beside the compact entries
# ("points", branch issue44-coarse, 5a28854, emulator alias tests 13/13) against main ("compact",
# 7539c62's kernels): the default f64 build points / compact, points' GPU tests (alias; convolve,
# whose v2/v3 SASS the rebuild moved), memcheck, then points again.
# Build first, on the CPU machine, into .gpu-next/:
#   bench-alias-compact: main's `cargo bench -p warpkit-benches --bench alias --no-run` executable
#   scripts/gpu-ab.sh issue44-coarse bench:alias test:alias test:convolve, renamed to
#     bench-alias-points, test-alias-points, test-convolve-points
# then `tar -cf - .gpu-next | xz -T2 -6 > .gpu-next.txz` and carry it. Keep the branch only if it
# is faster at both sizes; add f32 and uniform figures, synccheck and racecheck before landing.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-next.txz
F='alias construction f64/gpu (psa Binary SharedMemory|default) power law'
bench() {
  echo "== $1" | tee -a "$OUT/bench.log"
  timeout 45 .gpu-next/bench-alias-$1 --bench "$F" 2>&1 | grep -E "^alias|time:" | tee -a "$OUT/bench.log"
}
bench points
bench compact
export WARPKIT_TEST_DEVICES=gpu WARPKIT_TEST_MAX_LEN=500000
timeout 60 .gpu-next/test-alias-points --test-threads=1 2>&1 | grep -E "^test |result|panicked" | tee -a "$OUT/tests.log"
timeout 30 .gpu-next/test-convolve-points --test-threads=1 2>&1 | grep -E "result|panicked" | tee -a "$OUT/tests.log"
WARPKIT_TEST_MAX_LEN=50000 timeout 40 compute-sanitizer --tool memcheck .gpu-next/test-alias-points --test-threads=1 tables_pass_the_check_f64 no_contents 2>&1 | grep -E "^test |result|ERROR SUMMARY" | tee "$OUT/memcheck.log"
unset WARPKIT_TEST_DEVICES WARPKIT_TEST_MAX_LEN
bench points
