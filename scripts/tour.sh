#!/usr/bin/env bash
# warpkit's main job: the tour of the primitives (GPU if present, else CPU). It embeds the
# checked-in kernels (host/kernels/), so it needs no device toolchain. Extra arguments go to the
# tour (cpu | gpu | emulator).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --release -p warpkit --features nccl-02028 --example tour -- "$@"
