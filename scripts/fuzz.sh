#!/usr/bin/env bash
# The fuzz targets (fuzz/: every public constructor and validator on the CPU backend), each for
# FUZZ_SECONDS (60 unless set), where cargo-fuzz and a nightly toolchain are installed
# (`cargo install cargo-fuzz`, `rustup toolchain install nightly`); SKIPPED otherwise. A
# finding stops the run with libFuzzer's report and leaves its input in fuzz/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    echo "SKIPPED: fuzzing needs cargo-fuzz and a nightly toolchain"
    exit 0
fi
for target in $(cargo +nightly fuzz list); do
    cargo +nightly fuzz run "$target" -- -max_total_time="${FUZZ_SECONDS:-60}" -max_len=4096 -rss_limit_mb=4096
done
