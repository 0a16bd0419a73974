//! Provides the kernels' module images to the crate, one of two ways:
//!
//! - By default the crate embeds the images checked in under `host/kernels/` (zstd-compressed
//!   cubins for sm_80 and sm_90, and sm_90 PTX for newer GPUs), so a project that depends on
//!   warpkit builds with the ordinary stable toolchain: no Rust-to-PTX toolchain, no CUDA. In
//!   the warpkit repository this script checks that those images were made from the kernel
//!   sources as they are, and are the images recorded then ([`fingerprint`]), and stops the
//!   build with what to run if not.
//! - With the `build-kernels` feature (which the workspace's tests and benches turn on) it
//!   builds them from `kernels-gpu` with the device toolchain that `scripts/setup.sh` installs
//!   ([`from_source`]), and `scripts/update-kernels.sh` copies that build into `host/kernels/`.

mod fingerprint;

#[cfg(feature = "build-kernels")]
#[path = "../../kernels-gpu/src/area.rs"]
#[allow(dead_code)] // the host crate uses the rest
mod area;
#[cfg(feature = "build-kernels")]
mod from_source;
#[cfg(feature = "build-kernels")]
#[path = "../../kernels-gpu/src/launch_bounds.rs"]
#[allow(dead_code)] // the kernels use the rest
mod launch_bounds;

use std::env;
use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    #[cfg(feature = "build-kernels")]
    from_source::build(&manifest);
    #[cfg(not(feature = "build-kernels"))]
    check_checked_in(&manifest);
}

/// In the repository (where `kernels-gpu` sits beside this crate; a packaged copy has no
/// sources to compare with), fails the build if the checked-in images are older than the
/// kernel sources: the host would launch kernels whose parameters no longer match its own.
#[cfg(not(feature = "build-kernels"))]
fn check_checked_in(manifest: &std::path::Path) {
    let repo = manifest.parent().unwrap();
    println!(
        "cargo:rerun-if-changed={}",
        manifest.join(fingerprint::FILE).display()
    );
    if !repo.join("kernels-gpu/Cargo.toml").is_file() {
        return;
    }
    for input in fingerprint::INPUTS {
        println!("cargo:rerun-if-changed={}", repo.join(input).display());
    }
    println!(
        "cargo:rerun-if-changed={}",
        manifest.join("kernels/images").display()
    );
    if let Some((current, recorded)) = fingerprint::stale(manifest) {
        panic!(
            "\n\nwarpkit: the kernel images in host/kernels/ were not made from the kernel sources \
             as they are now (fingerprint {current}, recorded {recorded}).\n\
             Run `scripts/update-kernels.sh` (it sets up the device toolchain if needed), or build \
             with `--features build-kernels`.\n\n"
        );
    }
    let differing = fingerprint::images_differing(manifest, &manifest.join("kernels/images"));
    if !differing.is_empty() {
        panic!(
            "\n\nwarpkit: host/kernels/images/ does not hold the images host/kernels/SOURCES \
             records ({}).\nRun `scripts/update-kernels.sh`, and commit host/kernels/ whole.\n\n",
            differing.join(", ")
        );
    }
}
