#!/usr/bin/env bash
# Session 32, call 4 (main's kernels): the alias build's three slowest kernels under ncu
# --set full (the tile counts at 1.61 TB/s against the tile totals' 2.75, the partition, the
# pack), and the launch-and-synchronize floor on an H100 (floor.cu, as measured on an H200
# 2026-12-03) beside the 2048 convolution's 14.8 µs wall (call 1).
cd "$(dirname "$0")/.gpu-bundle"
logs="$OUT"; mkdir -p "$logs"
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$logs/gpu.txt"
NVCC="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"
( "$NVCC" -O2 -arch=sm_90 -o /tmp/floor ../.gpu-bundle-floor.cu && /tmp/floor > "$logs/floor.txt" 2>&1; echo "floor rc=$?" >> "$logs/floor.txt" ) &
NCU="$(command -v ncu || echo /usr/local/cuda/bin/ncu)"
WARPKIT_TOUR_ONLY=alias timeout 150 "$NCU" --clock-control none -k 'regex:alias_(tile_counts|partition|pack_shared)_f64' -c 3 --set full -f -o "$logs/alias-full" examples/tour gpu > "$logs/alias-full-tour.txt" 2>&1; echo "ncu exit $?"
"$NCU" --import "$logs/alias-full.ncu-rep" --page details > "$logs/alias-full-details.txt" 2>&1
grep -E "^  alias|Duration|DRAM Throughput|Issue Slots Busy|Registers Per|Achieved Occupancy|L2 Hit Rate  |Mem Busy" "$logs/alias-full-details.txt"
wait; cat "$logs/floor.txt"
el done
