#!/usr/bin/env bash
# warpkit's test command: set-up (if needed), PTX build and ptxas check (no spills), format,
# clippy, and every test. GPU tests run where a CUDA device is present and print SKIPPED
# otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo build --workspace --all-targets
scripts/check-ptx.sh
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
cargo test --workspace
