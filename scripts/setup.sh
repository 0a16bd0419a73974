#!/usr/bin/env bash
# Installs what warpkit needs to build its kernels (Rust -> PTX) and to check them, and writes
# the file the host crate's build script reads to find that toolchain. Idempotent: a second run
# that finds everything in place returns at once.
#
# Two routes, the first that works wins:
#   1. Debian: rustc-web/cargo-web/rust-web-src (Rust 1.96 with matching library sources) and
#      llvm-22, plus llvm-bitcode-linker built from the same sources.
#   2. rustup: a nightly with rust-src, llvm-tools and llvm-bitcode-linker, where rustup can
#      download them.
# Also installs ptxas (PyPI nvidia-cuda-nvcc-cu12), which the build uses to embed machine code
# and `scripts/check-ptx.sh` reads the reports of, and records its path in the same file.
#
# It says what it installs before it does, and asks before running `sudo` (from a terminal;
# otherwise it stops unless WARPKIT_SETUP_YES=1 allows it). Only the kernels' build from source
# needs any of this: a build of warpkit that embeds the checked-in kernels does not.
set -euo pipefail

home="${WARPKIT_TOOLCHAIN_DIR:-$HOME/.local/share/warpkit}"
# The ptxas the checked-in kernel images were assembled with (host/kernels/SOURCES): the same
# sources give the same images only with the same assembler.
PTXAS_VERSION=12.9.86
envfile="$home/toolchain.env"
mkdir -p "$home/bin"

say() { echo "warpkit setup: $*" >&2; }

# Prints the command that needs root, then asks (or reads WARPKIT_SETUP_YES) before running it
# under sudo; runs it directly as root.
as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; return; fi
    say "this needs root: sudo $*"
    if [ "${WARPKIT_SETUP_YES:-}" != 1 ]; then
        if ! [ -t 0 ]; then
            say "not run: no terminal to ask on; set WARPKIT_SETUP_YES=1 to allow it"
            return 1
        fi
        local answer
        read -r -p "warpkit setup: run it with sudo? [y/N] " answer
        case "$answer" in y | Y | yes) ;; *) say "not run"; return 1 ;; esac
    fi
    sudo "$@"
}

toolchain_ok() {
    [ -f "$envfile" ] || return 1
    # shellcheck disable=SC1090
    (set -a; . "$envfile"; [ -x "$WARPKIT_DEVICE_CARGO" ] && [ -x "$WARPKIT_DEVICE_RUSTC" ] &&
        PATH="$WARPKIT_DEVICE_PATH:$PATH" command -v llvm-bitcode-linker >/dev/null)
}

debian_route() {
    command -v apt-get >/dev/null || return 1
    local src=/usr/src/rustc-1.96.0
    if ! [ -x /usr/bin/rustc ] || ! [ -d "$src/library" ] || ! [ -x /usr/lib/llvm-22/bin/llc ]; then
        say "installing the device toolchain from Debian: rustc-web cargo-web rust-web-src llvm-22"
        as_root sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
            rustc-web cargo-web rust-web-src llvm-22 >/dev/null' || return 1
    fi
    /usr/bin/rustc --print target-list | grep -qx nvptx64-nvidia-cuda || return 1
    if ! [ -x "$home/bin/llvm-bitcode-linker" ]; then
        say "building llvm-bitcode-linker from $src"
        env -u RUSTUP_TOOLCHAIN -u CARGO -u RUSTC RUSTC=/usr/bin/rustc /usr/bin/cargo install \
            --quiet --locked --path "$src/src/tools/llvm-bitcode-linker" --root "$home" \
            --target-dir "$home/build" || return 1
        rm -rf "$home/build"
    fi
    cat >"$envfile" <<ENV
WARPKIT_DEVICE_CARGO=/usr/bin/cargo
WARPKIT_DEVICE_RUSTC=/usr/bin/rustc
WARPKIT_DEVICE_PATH=$home/bin:/usr/lib/llvm-22/bin
ENV
}

rustup_route() {
    command -v rustup >/dev/null || return 1
    say "installing a nightly with rust-src, llvm-tools and llvm-bitcode-linker through rustup"
    rustup toolchain install nightly --profile minimal \
        --component rust-src llvm-tools llvm-bitcode-linker --target nvptx64-nvidia-cuda || return 1
    local rustc cargo sysroot
    rustc=$(rustup which --toolchain nightly rustc) || return 1
    cargo=$(rustup which --toolchain nightly cargo) || return 1
    sysroot=$("$rustc" --print sysroot)
    local host; host=$("$rustc" -vV | sed -n 's/^host: //p')
    cat >"$envfile" <<ENV
WARPKIT_DEVICE_CARGO=$cargo
WARPKIT_DEVICE_RUSTC=$rustc
WARPKIT_DEVICE_PATH=$sysroot/lib/rustlib/$host/bin/gcc-ld:$sysroot/lib/rustlib/$host/bin
ENV
}

ptxas_ok() { command -v ptxas >/dev/null || [ -x "$(ptxas_path)" ]; }
ptxas_path() {
    python3 - <<'PY' 2>/dev/null
import os, nvidia.cuda_nvcc as m
print(os.path.join(list(m.__path__)[0], "bin", "ptxas"))
PY
}

if toolchain_ok; then
    :
elif debian_route && toolchain_ok; then
    say "device toolchain ready (Debian route): $envfile"
elif rustup_route && toolchain_ok; then
    say "device toolchain ready (rustup route): $envfile"
else
    say "could not install a device toolchain by either route"
    exit 1
fi

if ! ptxas_ok; then
    say "installing ptxas for the current user's python3 (pip: nvidia-cuda-nvcc-cu12 $PTXAS_VERSION)"
    python3 -m pip install -q "nvidia-cuda-nvcc-cu12==$PTXAS_VERSION" 2>/dev/null ||
        python3 -m pip install -q --break-system-packages "nvidia-cuda-nvcc-cu12==$PTXAS_VERSION"
fi

# The host build assembles the kernels to machine code with this ptxas (without one it embeds
# PTX only, and start-up waits for the driver's JIT compiler). Rewritten only when it changes,
# since the build reruns when the file does.
ptxas=$(command -v ptxas || ptxas_path || true)
if [ -x "$ptxas" ] && ! grep -qx "WARPKIT_PTXAS=$ptxas" "$envfile"; then
    { grep -v '^WARPKIT_PTXAS=' "$envfile"; echo "WARPKIT_PTXAS=$ptxas"; } >"$envfile.new"
    mv "$envfile.new" "$envfile"
fi
