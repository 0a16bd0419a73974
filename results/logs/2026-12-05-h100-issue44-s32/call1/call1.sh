#!/usr/bin/env bash
# Session 32, call 1 (main 8e73145 bundle): the alias build's kernels under Nsight Compute (run.sh
# profile alias: time and DRAM bytes a launch); the f32 BMU pass under ncu --set full (pipes,
# stalls, SASS-level source page); som tests (dims 36 and 44 new on a GPU); the tour's parts on a
# GPU; baselines: alias construction bench, BMU bench, convolve 2048 (events and wall).
cd "$(dirname "$0")/.gpu-bundle"
logs="$OUT"; mkdir -p "$logs"
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$logs/gpu.txt"
export CRITERION_HOME="$logs/criterion"
NCU="$(command -v ncu || echo /usr/local/cuda/bin/ncu)"
el "profile alias"
OUT="$logs" ./run.sh profile alias 120; echo "profile exit $?"; wc -l "$logs"/profile-alias.csv; tail -4 "$logs/profile-alias.txt"
el "ncu som bmu"
WARPKIT_TOUR_ONLY=som timeout 240 "$NCU" --clock-control none -k regex:som_bmu_f32 -c 1 --set full --import-source yes -f -o "$logs/som-bmu" examples/tour gpu > "$logs/som-bmu-tour.txt" 2>&1; echo "ncu exit $?"
"$NCU" --import "$logs/som-bmu.ncu-rep" --page details > "$logs/som-bmu-details.txt" 2>&1
"$NCU" --import "$logs/som-bmu.ncu-rep" --page source --csv --print-source sass > "$logs/som-bmu-sass.csv" 2>&1
wc -l "$logs"/som-bmu-*
el "tests som"
export WARPKIT_TEST_DEVICES=gpu
timeout 300 tests/test-som --test-threads=4 > "$logs/t-som.log" 2>&1; echo "som exit $? $(grep -E '^test result' "$logs/t-som.log" | tail -1)"
el "tour alias,som,convolve"
WARPKIT_TOUR_ONLY=alias,som,convolve timeout 200 examples/tour gpu > "$logs/tour-parts.txt" 2>&1; echo "tour exit $?"; tail -5 "$logs/tour-parts.txt"
el "benches"
benches/alias --bench '^alias construction f64/gpu psa Binary SharedMemory (power law|uniform)/' 2>&1 | grep -E "^alias|time:" | tee "$logs/alias-build.txt" | head -20
benches/som --bench 'best_matching_units_into/12000x12' 2>&1 | grep -E "^som/|time:" | tee "$logs/som-bmu-bench.txt"
benches/convolve --bench '^convolve (f32|wall f32)/(Lanes|auto per output)/2048$' 2>&1 | grep -E "^convolve|time:" | tee "$logs/convolve-2048.txt"
el done
cd "$logs" && rm -rf criterion && tar -czf logs.tgz --exclude=logs.tgz --exclude='*.ncu-rep' . 2>/dev/null
