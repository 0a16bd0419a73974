#!/usr/bin/env bash
# Call 2 (branch issue44-partition-pad, second build; padding dropped): the partition's weights
# as real 16-byte vectors and its scan words loaded by lanes as it starts, the sweeps' thresholds
# by a reciprocal and two FMAs. GPU tests of alias (to 2*10^6 items), memcheck on two of them,
# the default construction of 10^7 and 10^8 f64 alternated with main (63e58ba), CUDA events
# and wall clock; Nsight Compute's source page of the new partition and shared pack.
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-next.txz
export WARPKIT_TEST_DEVICES=gpu WARPKIT_TEST_MAX_LEN=2000000
timeout 150 .gpu-next/test-alias --test-threads=1 2>&1 | grep -E "^test |result|panicked" | tee "$OUT/tests.log"
WARPKIT_TEST_MAX_LEN=200000 timeout 100 compute-sanitizer --tool memcheck .gpu-next/test-alias --test-threads=1 a_refused no_contents 2>&1 | tail -4 | tee "$OUT/memcheck.log"
unset WARPKIT_TEST_DEVICES WARPKIT_TEST_MAX_LEN
F='alias construction f64/gpu (psa Binary SharedMemory|default) power law'
for i in 1 2; do
  for b in main new; do
    echo "== $b" | tee -a "$OUT/bench.log"
    timeout 100 .gpu-next/bench-alias-$b --bench "$F" 2>&1 | grep -E "^alias|time:" | tee -a "$OUT/bench.log"
  done
done
NCU="$(command -v ncu || echo /usr/local/cuda/bin/ncu)"
WARPKIT_TOUR_ONLY=alias timeout 200 "$NCU" --clock-control none -k 'regex:alias_(tile_counts|partition|pack_shared)_f64' -c 3 --set full \
  --import-source no -f -o "$OUT/src" .gpu-next/tour gpu > "$OUT/src-tour.txt" 2>&1; echo "ncu exit $?"
"$NCU" --import "$OUT/src.ncu-rep" --page details > "$OUT/src-details.txt" 2>&1
"$NCU" --import "$OUT/src.ncu-rep" --page source --csv --print-source sass > "$OUT/src-sass.csv" 2>&1
rm -f "$OUT/src.ncu-rep"
grep -E "^  alias|Duration|DRAM Throughput|Issue Slots Busy|Registers Per|Achieved Occupancy|Executed Instructions  " "$OUT/src-details.txt" | head -40
# Summarized afterwards: scripts/ncu-hot-lines.py src-sass.csv KERNEL top|loops > call2/hot-lines.txt (the CSV itself stays off the repository: 0.9 MB)
