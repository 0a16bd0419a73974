#!/usr/bin/env bash
# Call 1 (42nd session): PSA's prefix sums every 64th item ("points", branch issue44-coarse,
# 5a28854 kernels = b93d549's) against main's compact entries ("compact", eab1333's kernels):
# the default f64 power-law build, points' GPU tests (alias; convolve, whose v2/v3 SASS the
# rebuild moved), memcheck; then uniform and f32 figures and synccheck/racecheck, so a win can
# land without another call.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-next.txz
bench() { # binary, filter, label
  echo "== $1 $3" | tee -a "$OUT/bench.log"
  timeout 50 .gpu-next/bench-alias-$1 --bench "$2" 2>&1 | grep -E "^alias|time:" | tee -a "$OUT/bench.log"
}
F='alias construction f64/gpu (psa Binary SharedMemory|default) power law'
U='alias construction f64/gpu (psa Binary SharedMemory|default) uniform'
G='alias construction f32/gpu (psa Binary SharedMemory|default) power law'
bench points "$F" f64
bench compact "$F" f64
T=.gpu-next/test-alias-points
export WARPKIT_TEST_DEVICES=gpu WARPKIT_TEST_MAX_LEN=500000
timeout 60 $T --test-threads=1 2>&1 | grep -E "^test |result|panicked" | tee -a "$OUT/tests.log"
timeout 30 .gpu-next/test-convolve-points --test-threads=1 2>&1 | grep -E "result|panicked" | tee -a "$OUT/tests.log"
WARPKIT_TEST_MAX_LEN=50000 timeout 40 compute-sanitizer --tool memcheck $T --test-threads=1 tables_pass_the_check_f64 no_contents 2>&1 | grep -E "^test |result|ERROR SUMMARY" | tee "$OUT/memcheck.log"
unset WARPKIT_TEST_DEVICES WARPKIT_TEST_MAX_LEN
bench points "$F" f64
bench compact "$U" uniform
bench points "$U" uniform
bench points "$G" f32
bench compact "$G" f32
export WARPKIT_TEST_DEVICES=gpu
WARPKIT_TEST_MAX_LEN=50000 timeout 40 compute-sanitizer --tool synccheck $T --test-threads=1 tables_pass_the_check_f64 2>&1 | grep -E "^test |result|ERROR SUMMARY" | tee "$OUT/synccheck.log"
WARPKIT_TEST_MAX_LEN=4099 timeout 75 compute-sanitizer --tool racecheck $T --test-threads=1 tables_pass_the_check_f64 2>&1 | grep -E "^test |result|RACECHECK SUMMARY|ERROR SUMMARY" | tee "$OUT/racecheck.log"
