#!/usr/bin/env bash
# Ninth call: after the review, the split and packs take the light count and total as a group
# (`Settled`), the hostile-contents test feeds light counts past the sweep's items; the rebuild
# moved one kernel's SASS (alias_pack_shared_plus_f64). Alias GPU tests to 2*10^6 items and
# memcheck on the hostile-contents and rebuild tests.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-next.txz
export WARPKIT_TEST_DEVICES=gpu
WARPKIT_TEST_MAX_LEN=2000000 timeout 200 .gpu-next/test-alias --test-threads=1 2>&1 | grep -E "^test |result|panicked" | tee "$OUT/tests.log"
WARPKIT_TEST_MAX_LEN=200000 timeout 150 compute-sanitizer --tool memcheck .gpu-next/test-alias --test-threads=1 rebuilding_in_place no_contents 2>&1 | tail -4 | tee "$OUT/memcheck.log"
