#!/usr/bin/env bash
# Call 5: main's final alias kernels (8b61500's images) under compute-sanitizer racecheck and
# synccheck (the tile counts and partition now make one block reduction or scan where they
# made three), on the tests that build with every device method, at small sizes.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-next.txz
export WARPKIT_TEST_DEVICES=gpu WARPKIT_TEST_MAX_LEN=4099
for tool in synccheck racecheck; do
  timeout 170 compute-sanitizer --tool $tool .gpu-next/test-alias --test-threads=1 a_refused rebuilding_in_place 2>&1 | tail -4 | tee "$OUT/$tool.log"
done
