#!/usr/bin/env bash
# warpkit's test command: set-up (if needed), PTX build and ptxas check (no spills), format,
# clippy, every test, the crates as dependents get them, and the build without the GPU backend.
# GPU tests run where a CUDA device is present and print SKIPPED otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# The kernels built from source must be the checked-in images where the toolchain is the one
# host/kernels/SOURCES records (the build fails otherwise; it warns on another toolchain).
export WARPKIT_CHECK_IMAGES=1
cargo build --workspace --all-targets
scripts/check-ptx.sh
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
cargo test --workspace
# What a dependent gets: the default build (the checked-in kernel images, which it refuses if
# they are older than the kernel sources), the three crates as `cargo publish` would upload them
# (packaged and built from the package, nothing uploaded), and their docs as docs.rs builds
# them (with the features its metadata names).
cargo check -p warpkit
cargo publish --dry-run -p warpkit-kernels -p warpkit-builder -p warpkit
RUSTDOCFLAGS="-D warnings" cargo doc -p warpkit-kernels -p warpkit-builder -p warpkit --no-deps --features warpkit/serde,warpkit/glam
# Without the GPU backend (`default-features = false`): no CUDA bindings compiled, the rest
# lints clean, passes its unit tests and runs on the CPU.
tree=$(cargo tree -p warpkit --no-default-features -e normal)
if grep -q cudarc <<<"$tree"; then
    echo "cudarc is compiled without warpkit's cuda feature" >&2
    exit 1
fi
cargo clippy -p warpkit --no-default-features --all-targets -- -D warnings
cargo test -p warpkit --no-default-features --lib
cargo run -p warpkit --no-default-features --example scan
# The fuzz targets for a minute each, where cargo-fuzz is installed (SKIPPED otherwise).
scripts/fuzz.sh
