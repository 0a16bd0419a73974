#!/usr/bin/env bash
# The sanitizers over callA.sh's bundle: memcheck (65537 elements) and racecheck (4099) of rp's
# multisplit tests, memcheck of lb's look-back test, at once (the tools spend host cores).
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
[ -d .gpu-ab ] || tar -xJf .gpu-ab.txz
cs=compute-sanitizer; command -v $cs >/dev/null || cs=/usr/local/cuda/bin/compute-sanitizer
export WARPKIT_TEST_DEVICES=gpu
planted="--skip exhausting_device_memory_is_an_error_value --skip a_kernel_that_reads_out_of_bounds_is_an_error --skip a_kernel_that_faults_on_a_gpu_is_an_error_value"
san() { local name=$1 len=$2; shift 2
  WARPKIT_TEST_MAX_LEN=$len timeout 150 $cs --error-exitcode 1 "$@" >"$OUT/$name.log" 2>&1
  echo "== $name exit $? $(grep -E 'test result' "$OUT/$name.log" | tail -1) $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/$name.log" | tail -1)"; }
san memcheck-rp 65537 --tool memcheck .gpu-ab/rp/test-multisplit --test-threads=1 $planted &
san racecheck-rp 4099 --tool racecheck --racecheck-report analysis .gpu-ab/rp/test-multisplit --test-threads=1 $planted &
san memcheck-lb 65537 --tool memcheck .gpu-ab/test-multisplit-lb --test-threads=1 look_back &
wait
echo "end $SECONDS"
