#!/usr/bin/env bash
# Call 2 (41st session): the compact light entries (08ac1fc) under compute-sanitizer (memcheck,
# synccheck, racecheck on the alias tests), the default build's other cases against main's
# images ("band") alternated, and ncu of the build's kernels in the tour (10^7 f64).
set -o pipefail
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
tar -xJf .gpu-next.txz
export WARPKIT_TEST_DEVICES=gpu WARPKIT_TEST_MAX_LEN=200000
T=.gpu-next/test-alias-compact
timeout 90 compute-sanitizer --tool memcheck $T --test-threads=1 tables_pass_the_check a_refused no_contents devices_draw 2>&1 | grep -E "^test |result|ERROR SUMMARY" | tee "$OUT/memcheck.log"
timeout 50 compute-sanitizer --tool synccheck $T --test-threads=1 tables_pass_the_check 2>&1 | grep -E "^test |result|ERROR SUMMARY" | tee "$OUT/synccheck.log"
WARPKIT_TEST_MAX_LEN=4099 timeout 60 compute-sanitizer --tool racecheck $T --test-threads=1 tables_pass_the_check 2>&1 | grep -E "^test |result|RACECHECK SUMMARY|ERROR SUMMARY" | tee "$OUT/racecheck.log"
unset WARPKIT_TEST_DEVICES WARPKIT_TEST_MAX_LEN
F='alias construction f64/gpu (psa Binary SharedMemory|default) uniform'
G='alias construction f32/gpu (psa Binary SharedMemory|default) power law'
for b in band compact compact band; do
  echo "== $b" | tee -a "$OUT/bench.log"
  timeout 45 .gpu-next/bench-alias-$b --bench "$F" 2>&1 | grep -E "^alias|time:" | tee -a "$OUT/bench.log"
done
for b in band compact; do
  echo "== $b f32" | tee -a "$OUT/bench.log"
  timeout 50 .gpu-next/bench-alias-$b --bench "$G" 2>&1 | grep -E "^alias|time:" | tee -a "$OUT/bench.log"
done
WARPKIT_TOUR_ONLY=alias timeout 90 ncu -k regex:'alias_(tile_total_f64|partition_f64|split_binary|pack_shared_f64)' -c 4 --section SpeedOfLight --section LaunchStats --metrics dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum .gpu-next/tour gpu > "$OUT/ncu.txt" 2>&1
grep -E "^  alias_|Duration|DRAM Throughput|dram__bytes|inst_executed|Registers Per" "$OUT/ncu.txt" | head -40
