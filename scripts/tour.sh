#!/usr/bin/env bash
# warpkit's main job: the tour of the primitives (GPU if present, else CPU). Sets up the
# device toolchain first if it is missing. Extra arguments go to the tour (cpu | gpu).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo run --release -p warpkit --example tour -- "$@"
