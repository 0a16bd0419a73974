#!/usr/bin/env bash
# Rebuilds the kernels from `kernels-gpu` and checks their images in under `host/kernels/`,
# which is what a build of warpkit embeds by default (no device toolchain needed there), and
# the example's under `examples/own-kernels/host/kernels/`. Run
# after changing a kernel, `kernels-gpu/Cargo.toml` or `host/build/`; the default build stops
# with a pointer here until then. Sets up the device toolchain and ptxas first if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
WARPKIT_UPDATE_KERNELS=1 cargo check --release -p warpkit --features build-kernels
# The example's own kernels count warpkit-kernels among their sources (its macros write them).
WARPKIT_UPDATE_KERNELS=1 cargo check --release -p own-kernels
git status --short host/kernels examples/own-kernels/host/kernels
