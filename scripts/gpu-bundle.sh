#!/usr/bin/env bash
# Builds the release test and bench executables (PTX embedded) and gathers them, stripped, into
# one folder (default .gpu-bundle/) with a run.sh, for a CUDA machine that has no Rust:
#   scripts/gpu-bundle.sh && scp -r .gpu-bundle gpuhost: && ssh gpuhost .gpu-bundle/run.sh
# run.sh runs every test, the tour, then the benches; logs go to $OUT (if set) or the bundle's logs/.
set -euo pipefail
cd "$(dirname "$0")/.."
bundle="${1:-.gpu-bundle}"
[ -f "${WARPKIT_TOOLCHAIN_DIR:-$HOME/.local/share/warpkit}/toolchain.env" ] || scripts/setup.sh

executables() { # cargo's JSON messages -> paths of the built executables
    python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        print(m["target"]["kind"][0], m["target"]["name"], m["executable"])'
}

rm -rf "$bundle" && mkdir -p "$bundle/tests" "$bundle/benches" "$bundle/examples"
cargo build --release -p warpkit --example tour
cp target/release/examples/tour "$bundle/examples/"
cargo test --release --workspace --no-run --message-format=json 2>/dev/null | executables |
while read -r kind name exe; do
    cp "$exe" "$bundle/tests/$kind-$name"
done
cargo bench --workspace --no-run --message-format=json 2>/dev/null | executables |
while read -r kind name exe; do
    # The emulator's bench needs no GPU: it stays off the GPU machine's clock.
    if [ "$kind" = bench ] && [ "$name" != emulator ]; then cp "$exe" "$bundle/benches/$name"; fi
done
strip "$bundle"/tests/* "$bundle"/benches/* "$bundle"/examples/*

cat >"$bundle/run.sh" <<'RUN'
#!/usr/bin/env bash
# Runs warpkit's tests, then its benches (skip them with NO_BENCH=1), on this machine's GPU.
cd "$(dirname "$0")"
logs="${OUT:-$PWD/logs}"; mkdir -p "$logs"
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
