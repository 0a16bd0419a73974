#!/usr/bin/env bash
# Call 3: the final build (3a3faf1: the tile kernels of 8b61500, the refused-rebuild test).
# GPU tests of alias (to 2*10^6 items), memcheck on the new test, and the partition and pack
# of the tour's 10^7 f64 build under ncu --set full (their stalls, for the next session).
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-next.txz
export WARPKIT_TEST_DEVICES=gpu WARPKIT_TEST_MAX_LEN=2000000
timeout 150 .gpu-next/test-alias --test-threads=1 2>&1 | grep -E "^test |result|panicked" | tee "$OUT/tests.log"
WARPKIT_TEST_MAX_LEN=200000 timeout 150 compute-sanitizer --tool memcheck .gpu-next/test-alias --test-threads=1 a_refused 2>&1 | tail -4 | tee "$OUT/memcheck.log"
unset WARPKIT_TEST_DEVICES WARPKIT_TEST_MAX_LEN
NCU="$(command -v ncu || echo /usr/local/cuda/bin/ncu)"
WARPKIT_TOUR_ONLY=alias timeout 200 "$NCU" --clock-control none -k 'regex:alias_(tile_counts|partition|pack_shared)_f64' -c 3 --set full \
  --import-source no -f -o "$OUT/alias-full" .gpu-next/tour gpu > "$OUT/alias-full-tour.txt" 2>&1; echo "ncu exit $?"
"$NCU" --import "$OUT/alias-full.ncu-rep" --page details > "$OUT/alias-full-details.txt" 2>&1
rm -f "$OUT/alias-full.ncu-rep"
grep -E "^  alias|Duration|DRAM Throughput|Issue Slots Busy|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit|Warp Cycles Per Issued|Stall|No Eligible" "$OUT/alias-full-details.txt" | head -80
