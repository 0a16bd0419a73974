#!/usr/bin/env bash
# Tenth call: convolve's GPU tests on the final build (after the review: auto's boundaries, q
# checked untouched in the warp kernel's strided test).
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-next.txz
WARPKIT_TEST_DEVICES=gpu timeout 90 .gpu-next/test-conv --test-threads=1 2>&1 | grep -E "^test |result|panicked" | tee "$OUT/tests.log"
