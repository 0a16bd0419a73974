#!/usr/bin/env bash
# Builds the release test and bench executables (PTX embedded) and gathers them, stripped, into
# one folder (default .gpu-bundle/) with a run.sh, for a CUDA machine that has no Rust:
#   scripts/gpu-bundle.sh && scp -r .gpu-bundle gpuhost: && ssh gpuhost .gpu-bundle/run.sh
# run.sh runs every test, the tour, then the benches; logs go to $OUT (if set) or the bundle's logs/.
# `run.sh startup` times cold and warm start-up instead (see startup in run.sh); `run.sh dist`
# runs the multi-GPU tests, the tour and the dist bench (issue 45, two or more GPUs);
# `run.sh soak-start SECS` and `run.sh soak-wait` soak the tour across commands (see soak_start);
# `run.sh profile PARTS` runs Nsight Compute over the tour's launches of those parts (see profile).
# `run.sh sanitize` (or SANITIZE=1 run.sh) runs instead each integration test binary (tests/test-*)
# and the tour under compute-sanitizer's memcheck, racecheck and synccheck, on the GPU only, at
# capped sizes (WARPKIT_TEST_MAX_LEN and WARPKIT_TOUR_LEN, default 65537; racecheck 4099), each
# run under SANITIZE_TIMEOUT seconds (default 300); it logs to sanitize-<tool>.log, prints a table of
# findings and exits non-zero on any finding or failure. See the sanitize function in run.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
bundle="${1:-.gpu-bundle}"
[ -f "${WARPKIT_TOOLCHAIN_DIR:-$HOME/.local/share/warpkit}/toolchain.env" ] || scripts/setup.sh

rm -rf "$bundle" && mkdir -p "$bundle/tests" "$bundle/benches" "$bundle/examples"
cargo build --release -p warpkit --features nccl-02028 --example tour --example startup --bin warpkit-launch
cp target/release/examples/tour target/release/examples/startup target/release/warpkit-launch "$bundle/examples/"
cargo test --release --workspace --no-run --message-format=json 2>/dev/null | python3 scripts/executables.py |
while read -r kind name exe; do
    cp "$exe" "$bundle/tests/$kind-$name"
done
cargo bench --workspace --no-run --message-format=json 2>/dev/null | python3 scripts/executables.py |
while read -r kind name exe; do
    # The emulator's bench needs no GPU: it stays off the GPU machine's clock.
    if [ "$kind" = bench ] && [ "$name" != emulator ]; then cp "$exe" "$bundle/benches/$name"; fi
done
strip "$bundle"/tests/* "$bundle"/benches/* "$bundle"/examples/*

cat >"$bundle/run.sh" <<'RUN'
#!/usr/bin/env bash
# Runs warpkit's tests, then its benches (skip them with NO_BENCH=1), on this machine's GPU.
# `run.sh sanitize` (or SANITIZE=1) runs the sanitizers instead: see sanitize below.
cd "$(dirname "$0")"
logs="${OUT:-$PWD/logs}"; mkdir -p "$logs"
# NCCL with NVLink multicast off, as warpkit's NCCL groups require (and shared hosts need).
export NCCL_NVLS_ENABLE=0
# cudarc loads NCCL as libnccl.so: where only libnccl.so.2 is installed (the system's package, or
# the Python wheel PyTorch brings), link it so for the tests that make NCCL groups in-process.
if ! ldconfig -p 2>/dev/null | grep -q 'libnccl\.so '; then
    nccl2="$(ldconfig -p 2>/dev/null | awk '/libnccl\.so\.2 /{print $NF; exit}')"
    [ -n "$nccl2" ] || nccl2="$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib", "libnccl.so.2"))' 2>/dev/null || true)"
    if [ -n "$nccl2" ] && [ -e "$nccl2" ]; then
        mkdir -p "$PWD/nccl-lib" && ln -sf "$nccl2" "$PWD/nccl-lib/libnccl.so"
        export LD_LIBRARY_PATH="$PWD/nccl-lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    fi
fi

# Each integration test binary (tests/test-*) and the tour under compute-sanitizer (PATH, else
# /usr/local/cuda/bin), tool by tool: SANITIZE_TOOLS (default memcheck racecheck synccheck).
# The emulator is left out (WARPKIT_TEST_DEVICES=gpu) and sizes are capped: WARPKIT_TEST_MAX_LEN
# and WARPKIT_TOUR_LEN (elements, default 65537), and for racecheck, the slowest tool, the test
# binaries' and the tour's lengths at SANITIZE_RACECHECK_LEN (default 4099: alias and multisplit then take
# 170 s and 112 s on an H100). Every run has SANITIZE_TIMEOUT seconds (default 300); test
# binaries get --test-threads=1, TEST_ARGS, and --skip for each name in
# SANITIZE_SKIP (default: the tests that fail on purpose, which the sanitizer would report:
# the one that exhausts device memory and the two whose kernels read out of bounds);
# SANITIZE_ARGS go to compute-sanitizer. SANITIZE_JOBS runs (default 1) go at once: the tools
# spend their time on the host's cores, so twelve at a time on a 16-core machine finished
# racecheck and synccheck of 19 binaries in six minutes (2026-12-05). Output goes
# to $logs/sanitize-<tool>.log, the table of findings to $logs/sanitize-summary.txt.
# SANITIZE_ONLY (basenames, e.g. "test-alias tour") narrows the runs to those binaries;
# SANITIZE_SPLIT=1 makes each test of a binary a run of its own (`--exact NAME`), so that a
# binary too slow for one run's limit under racecheck spreads over the jobs.
sanitize() {
    SANITIZE_CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
    [ -x "$SANITIZE_CS" ] || { echo "compute-sanitizer: not on PATH nor in /usr/local/cuda/bin"; return 1; }
    export SANITIZE_CS logs
    export WARPKIT_TEST_DEVICES=gpu
    export WARPKIT_TEST_MAX_LEN="${WARPKIT_TEST_MAX_LEN:-65537}"
    export WARPKIT_TOUR_LEN="${WARPKIT_TOUR_LEN:-65537}"
    # --error-exitcode: a finding fails the run; --print-limit: the first reports of each run
    # are enough (racecheck can find thousands of one race).
    SANITIZE_COMMON="--error-exitcode 1 --print-limit ${SANITIZE_PRINT_LIMIT:-20}"
    # A binary that never calls CUDA (the emulator's tests) ends with its own status.
    "$SANITIZE_CS" --help 2>&1 | grep -q -- --require-cuda-init && SANITIZE_COMMON+=" --require-cuda-init no"
    local planted="exhausting_device_memory_is_an_error_value a_kernel_that_reads_out_of_bounds_is_an_error"
    planted+=" a_kernel_that_faults_on_a_gpu_is_an_error_value"
    SANITIZE_SKIP_ARGS="" && for name in ${SANITIZE_SKIP-$planted}; do SANITIZE_SKIP_ARGS+=" --skip $name"; done
    export SANITIZE_COMMON SANITIZE_SKIP_ARGS
    export -f sanitize_run
    local summary="$logs/sanitize-summary.txt" status=0 tool exe
    "$SANITIZE_CS" --version 2>&1 | tail -n 1
    printf '%-10s %-22s %-34s %s\n' tool binary findings exit >"$summary"
    local runs="" tests
    for tool in ${SANITIZE_TOOLS:-memcheck racecheck synccheck}; do
        for exe in tests/test-* examples/tour; do
            [ -x "$exe" ] || continue
            [ -z "${SANITIZE_ONLY:-}" ] || [[ " $SANITIZE_ONLY " == *" $(basename "$exe") "* ]] || continue
            # A binary whose tests cannot be listed runs whole (and so shows its failure).
            tests=""
            if [ "${SANITIZE_SPLIT:-0}" != 0 ] && [ "$exe" != examples/tour ]; then
                tests="$("$exe" --list --format terse 2>/dev/null | sed -n 's/: test$//p')"
            fi
            if [ -n "$tests" ]; then
                runs+="$(echo "$tests" | sed "s|^|$tool $exe |")"$'\n'
            else
                runs+="$tool $exe"$'\n'
            fi
        done
    done
    [ -n "$runs" ] || { echo "sanitize: no binary matches SANITIZE_ONLY=${SANITIZE_ONLY:-}"; return 1; }
    printf '%s' "$runs" | xargs -r -P "${SANITIZE_JOBS:-1}" -L 1 bash -c 'sanitize_run "$@"' _ || status=1
    # Rows in the order of tool and binary, whatever order the runs ended in.
    { head -n 1 "$summary"; tail -n +2 "$summary" | sort -s -k1,1 -k2,2; } >"$summary.sorted" && mv "$summary.sorted" "$summary"
    # One log a tool, its runs in the order above.
    for tool in ${SANITIZE_TOOLS:-memcheck racecheck synccheck}; do
        : >"$logs/sanitize-$tool.log"
        for exe in tests/test-* examples/tour; do
            local one
            for one in "$logs/sanitize-$tool-$(basename "$exe").log" "$logs/sanitize-$tool-$(basename "$exe")--"*.log; do
                [ -f "$one" ] && cat "$one" >>"$logs/sanitize-$tool.log" && rm -f "$one"
            done
        done
    done
    echo; cat "$summary"
    echo "sanitize: $([ $status -eq 0 ] && echo no findings || echo FINDINGS OR FAILURES, see sanitize-*.log)"
    return $status
}

# One run of sanitize: TOOL over EXE (its test TEST alone where given), its output to
# $logs/sanitize-TOOL-NAME[--TEST].log, a row of the table appended to
# $logs/sanitize-summary.txt; fails on a finding or a failure.
sanitize_run() {
    local tool=$1 exe=$2 test=${3:-} extra="" args="gpu" name
    name="$(basename "$exe")${test:+--$test}"
    # analysis: one report per racing pair of accesses rather than one per hazard.
    [ "$tool" = racecheck ] && extra="--racecheck-report analysis"
    [ "$exe" = examples/tour ] || args="${test:+--exact $test} --test-threads=1 $SANITIZE_SKIP_ARGS ${TEST_ARGS:-}"
    # racecheck caps the tour's lengths as it caps the tests'.
    local cap="$WARPKIT_TEST_MAX_LEN" tour_len="$WARPKIT_TOUR_LEN"
    [ "$tool" = racecheck ] && cap="${SANITIZE_RACECHECK_LEN:-4099}" && tour_len="$cap"
    local log="$logs/sanitize-$tool-$name.log"
    echo "==== WARPKIT_TEST_MAX_LEN=$cap WARPKIT_TOUR_LEN=$tour_len $SANITIZE_CS --tool $tool $SANITIZE_COMMON $extra ${SANITIZE_ARGS:-} $exe $args" >"$log"
    # shellcheck disable=SC2086 # the options are lists of words
    WARPKIT_TEST_MAX_LEN="$cap" WARPKIT_TOUR_LEN="$tour_len" timeout -k 10 "${SANITIZE_TIMEOUT:-300}" "$SANITIZE_CS" --tool "$tool" $SANITIZE_COMMON \
        $extra ${SANITIZE_ARGS:-} "$exe" $args >>"$log" 2>&1
    local rc=$?
    echo "==== exit $rc" >>"$log"
    # memcheck and synccheck: "ERROR SUMMARY: N errors"; racecheck: "RACECHECK SUMMARY: N hazards
    # displayed (E errors, W warnings)". None at all: the binary never called CUDA, or it was
    # stopped.
    local kind=ERROR unit=errors found what
    if [ "$tool" = racecheck ] && grep -q "RACECHECK SUMMARY" "$log"; then kind=RACECHECK unit=hazards; fi
    found="$(sed -nE "s/.*$kind SUMMARY: ([0-9]+) .*/\1/p" "$log" | awk '{n += $1} END {if (NR) print n}')"
    what="${found:+$found $unit}"
    what="${what:-no summary}"
    case $rc in 124 | 137) what="$what (timed out)" ;; esac
    # One write each, so that runs at once do not interleave their lines.
    printf '== %s %s\n%s\n' "$tool" "$name" "$(grep -E "^test result|FAILED|panicked|checked|WRONG|^========= [A-Z]" "$log" |
        grep -v COMPUTE-SANITIZER | head -n 20)"
    printf '%-10s %-22s %-34s %s\n' "$tool" "$name" "$what" "$rc" >>"$logs/sanitize-summary.txt"
    [ "$rc" -eq 0 ] && [ "${found:-0}" -eq 0 ]
}

# Start-up as a fresh process meets it, by wall clock: examples/startup (GPU 0 opened and a
# first scan of 2^20 u32), the tour and each integration test binary, each run with the
# driver's JIT cache disabled (CUDA_CACHE_DISABLE=1: containers, CI runners, fresh home
# directories) and with a warm one (a private CUDA_CACHE_PATH, filled by a first run),
# alternately STARTUP_RUNS times (default 3); the table gives the medians. Test binaries run on
# the GPU only, with one seed (WARPKIT_TEST_SEED, default 1) so that every run does the same
# work, at sizes capped by WARPKIT_TEST_MAX_LEN (default 65537): the difference is start-up, not
# work. The table goes to $logs/startup.txt, every run's output to $logs/startup.log.
startup() {
    export WARPKIT_TEST_DEVICES=gpu
    export WARPKIT_TEST_SEED="${WARPKIT_TEST_SEED:-1}"
    export WARPKIT_TEST_MAX_LEN="${WARPKIT_TEST_MAX_LEN:-65537}"
    local cache; cache="$(mktemp -d)"
    local table="$logs/startup.txt" log="$logs/startup.log" status=0 exe runs="${STARTUP_RUNS:-3}"
    : >"$log"
    timed() { # timed LABEL EXE ARGS...: runs once, appends its output to the log, prints seconds
        local label=$1 t0 t1 rc; shift
        t0=$(date +%s.%N)
        "$@" >>"$log" 2>&1; rc=$?
        t1=$(date +%s.%N)
        echo "== $label $* exit $rc" >>"$log"
        [ $rc -eq 0 ] || echo "FAILED: $label $*" >&2
        awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }'
    }
    median() { tr ' ' '\n' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
    printf '%-20s %-22s %-22s %9s\n' binary "cold_s (median; all)" "warm_s (median; all)" cold-warm >"$table"
    for exe in examples/startup examples/tour tests/test-*; do
        [ -x "$exe" ] || continue
        local args=(); [ "${exe#tests/}" != "$exe" ] && args=(--test-threads=4)
        local colds=() warms=() i
        CUDA_CACHE_PATH="$cache" timed fill "$exe" "${args[@]}" >/dev/null
        for ((i = 0; i < runs; i++)); do
            colds+=("$(CUDA_CACHE_DISABLE=1 timed cold "$exe" "${args[@]}")")
            warms+=("$(CUDA_CACHE_PATH="$cache" timed warm "$exe" "${args[@]}")")
        done
        local cold warm
        cold=$(echo "${colds[*]}" | median); warm=$(echo "${warms[*]}" | median)
        printf '%-20s %-22s %-22s %9s\n' "$(basename "$exe")" "$cold; ${colds[*]}" "$warm; ${warms[*]}" \
            "$(awk -v c="$cold" -v w="$warm" 'BEGIN { printf "%+.2f", c - w }')" >>"$table"
    done
    grep -q "exit [1-9]" "$log" && status=1
    grep -E "open .* ms" "$log" || true
    cat "$table"
    rm -rf "$cache"
    return $status
}

# Issue 45's GPU legs, on a machine of two or more GPUs: the NCCL tests and the distributed
# tests on the GPU (a log each), the tour (its multi-GPU line), then the dist bench (the
# all-reduce's bus bandwidth and the three targets; WARPKIT_DIST_BENCH_LOG2 scales them).
dist() {
    local status=0 t name
    for t in tests/test-dist_nccl tests/test-dist; do
        name="$(basename "$t")"
        echo "== $t"
        NCCL_DEBUG="${NCCL_DEBUG:-WARN}" WARPKIT_TEST_DEVICES=gpu timeout "${TEST_TIMEOUT:-600}" \
            "$t" --test-threads=1 >"$logs/$name.log" 2>&1 || { echo "$t failed"; status=1; }
        grep -E "^test result|FAILED|panicked|SKIPPED" "$logs/$name.log"
    done
    echo "== tour"
    examples/tour >"$logs/tour.log" 2>&1 || { echo "the tour failed"; status=1; }
    grep -iE "gpus|ranks" "$logs/tour.log"
    echo "== benches/dist"
    CRITERION_HOME="$logs/criterion" benches/dist --bench 2>&1 | tee "$logs/bench-dist.log" |
        grep -E "^dist:|time:|thrpt:"
    [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "benches/dist failed"; status=1; }
    return $status
}

# A soak of the tour longer than one command may run (the device tool stops a command at
# 600 s): `run.sh soak-start SECS` starts, in a session of its own, a shell that runs `tour gpu`
# with WARPKIT_TOUR_SOAK_SECS=SECS, samples nvidia-smi's view of the GPU memory every 30 s
# (timestamped, beside the tour's PID) and ends its log with "soak exit N"; it writes under
# SOAK_DIR (default ~/warpkit-soak, outside the bundle, which a later call may replace) and
# returns at once. `run.sh soak-wait [SECS]`, a later command on the same machine, waits up to
# SECS (default 590) for the soak to end and copies SOAK_DIR to $logs; it fails where the tour
# failed, or ended without its exit line, or has not ended.
soak_dir() { echo "${SOAK_DIR:-$HOME/warpkit-soak}"; }
soak_start() {
    local secs=${1:-} dir; dir="$(soak_dir)"
    [[ "$secs" =~ ^[0-9]+$ ]] || { echo "soak-start: give the soak's length in whole seconds"; return 1; }
    [ -x examples/tour ] || { echo "soak-start: no examples/tour here"; return 1; }
    if [ -f "$dir/pid" ] && kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
        echo "soak-start: a soak is running (pid $(cat "$dir/pid")); wait for it first"
        return 1
    fi
    rm -rf "$dir" && mkdir -p "$dir"
    # The soak's shell records its own PID, so what is watched is what runs, however setsid
    # starts it.
    SOAK_SECS=$secs SOAK_OUT=$dir setsid nohup bash -c '
        echo $$ >"$SOAK_OUT/pid"
        WARPKIT_TOUR_SOAK_SECS=$SOAK_SECS examples/tour gpu >"$SOAK_OUT/tour.txt" 2>&1 &
        tour=$!
        echo "tour pid $tour" >"$SOAK_OUT/nvidia-smi.txt"
        while kill -0 $tour 2>/dev/null; do
            nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader | sed "s/^/$(date -u +%T) /"
            sleep 30
        done >>"$SOAK_OUT/nvidia-smi.txt" 2>&1 &
        sampler=$!
        wait $tour
        status=$?
        kill $sampler 2>/dev/null
        echo "soak exit $status" >>"$SOAK_OUT/tour.txt"' </dev/null >/dev/null 2>&1 &
    echo "soak of $secs s started at $(date -u +%T), logs in $dir"
}
soak_wait() {
    local dir until=$((SECONDS + ${1:-590})); dir="$(soak_dir)"
    [ -f "$dir/pid" ] || { echo "soak-wait: no soak was started here ($dir)"; return 1; }
    local pid; pid="$(cat "$dir/pid")"
    while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $until ]; do sleep 5; done
    cp -r "$dir" "$logs/"
    grep -E "^soak" "$dir/tour.txt" | tail -n 3
    if kill -0 "$pid" 2>/dev/null; then
        echo "soak-wait: the soak is still running"
        return 1
    fi
    grep -q "^soak exit" "$dir/tour.txt" || echo "soak-wait: the soak ended without its exit line"
    grep -q "^soak exit 0" "$dir/tour.txt"
}

# `run.sh profile PARTS [LAUNCHES]`: Nsight Compute over the tour with only PARTS after its
# Philox stream, scan and sum (WARPKIT_TOUR_ONLY, e.g. alias), the first LAUNCHES launches
# (default 200): each launch's time, DRAM bytes read and written, grid, block and registers,
# clocks left alone. The report ($logs/profile-PARTS.ncu-rep) is written when the tour ends,
# then printed as CSV to $logs/profile-PARTS.csv; the tour's own output goes to
# $logs/profile-PARTS.txt.
profile() {
    local parts=${1:-} count=${2:-200} ncu name
    [ -n "$parts" ] || { echo "profile: name the tour's parts, e.g. alias"; return 1; }
    ncu="$(command -v ncu || echo /usr/local/cuda/bin/ncu)"
    name="$logs/profile-${parts//,/-}"
    WARPKIT_TOUR_ONLY=$parts "$ncu" --clock-control none --launch-count "$count" -f -o "$name" \
        --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__grid_size,launch__block_size,launch__registers_per_thread \
        examples/tour gpu >"$name.txt" 2>&1 || { tail -n 5 "$name.txt"; return 1; }
    "$ncu" --import "$name.ncu-rep" --csv --page raw >"$name.csv"
}

case "${1:-}" in
    profile) profile "${2:-}" "${3:-}"; exit $? ;;
    soak-start) soak_start "${2:-}"; exit $? ;;
    soak-wait) soak_wait "${2:-}"; exit $? ;;
    sanitize) sanitize; exit $? ;;
    startup) startup; exit $? ;;
    dist) dist; exit $? ;;
esac
if [ "${SANITIZE:-0}" != 0 ]; then
    sanitize
    exit $?
fi

status=0
for t in tests/*; do
    echo "== $t"
    timeout "${TEST_TIMEOUT:-300}" "$t" --test-threads=4 ${TEST_ARGS:-} >/tmp/warpkit-test.log 2>&1
    rc=$?
    cat /tmp/warpkit-test.log >>"$logs/tests.log"
    grep -E "^test result|FAILED|panicked|SKIPPED" /tmp/warpkit-test.log
    [ $rc -eq 0 ] || { echo "$t exited with $rc (124: timed out)"; status=1; }
done
[ -x examples/tour ] && { echo "== tour"; examples/tour 2>&1 | tee -a "$logs/tour.log" || status=1; }
if [ -z "${NO_BENCH:-}" ]; then
    export CRITERION_HOME="$logs/criterion"
    for b in benches/*; do
        echo "== $b"
        "$b" --bench "${BENCH_FILTER:-}" 2>&1 | tee -a "$logs/bench.log" | grep -E "time:|thrpt:|^[a-z].*/|SKIPPED|device" || true
    done
fi
echo "tests: $([ $status -eq 0 ] && echo all passed || echo FAILURES, see tests.log)"
exit $status
RUN
chmod +x "$bundle/run.sh"
du -sh "$bundle"
