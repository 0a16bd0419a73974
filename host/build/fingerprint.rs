//! A fingerprint of everything the kernel images are made from: the device crate's Rust sources
//! and manifest and the build code that cuts and assembles them (the emulator, which never
//! reaches the device, is left out; so is the lock file: after a `cargo update` that moves
//! libm, run `scripts/update-kernels.sh`). The build that writes `host/kernels/` records it
//! there with a hash of each image's contents; the default build compares the first with the
//! sources it finds and the second with the images it embeds, and a build from source compares
//! the images it made with the checked-in ones.
//!
//! The hashes are `warpkit_builder::fingerprint`'s.

use std::fs;
use std::path::Path;
use warpkit_builder::fingerprint;

/// Paths, relative to the repository root, whose contents make the images.
pub const INPUTS: [&str; 7] = [
    "kernels-gpu/src",
    "kernels-gpu/Cargo.toml",
    "host/build",
    "builder/src/fingerprint.rs",
    "builder/src/ptx.rs",
    "builder/src/ptxas.rs",
    "builder/src/toolchain.rs",
];

/// What the fingerprint does not cover, relative to the repository root.
const LEFT_OUT: [&str; 1] = ["kernels-gpu/src/emu"];

/// The file, relative to the host crate, that records the fingerprint of the checked-in images.
pub const FILE: &str = "kernels/SOURCES";

/// The fingerprint of the sources under `repo`, as 16 hex digits.
pub fn of_sources(repo: &Path) -> String {
    fingerprint::of_sources(repo, &INPUTS, &LEFT_OUT)
}

/// The record line of image `name` (a file name under `images/`) whose decompressed contents are
/// `contents`: the contents, not the zstd stream, so that another zstd gives the same line.
pub fn image_line(name: &str, contents: &[u8]) -> String {
    format!("image {name} = {}", fingerprint::of_bytes(contents))
}

/// The images recorded in the host crate `manifest`'s record that `images` (a folder of
/// compressed images) lacks or holds with other contents.
pub fn images_differing(manifest: &Path, images: &Path) -> Vec<String> {
    let text = fs::read_to_string(manifest.join(FILE)).unwrap_or_default();
    let recorded = text.lines().filter(|l| l.starts_with("image "));
    recorded
        .filter_map(|line| {
            let name = line.strip_prefix("image ")?.split_once(" = ")?.0;
            let contents = fs::read(images.join(name))
                .ok()
                .and_then(|z| zstd::decode_all(&z[..]).ok());
            contents
                .is_none_or(|c| image_line(name, &c) != line)
                .then(|| name.to_string())
        })
        .collect()
}

/// `Some((current, recorded))` when the images checked in under the host crate `manifest` were
/// not made from the sources of the repository around it (`recorded` is "none" without a record).
pub fn stale(manifest: &Path) -> Option<(String, String)> {
    let recorded = recorded(manifest, "fingerprint").unwrap_or_else(|| "none".into());
    let current = of_sources(manifest.parent().unwrap());
    (current != recorded).then_some((current, recorded))
}

/// The value of `key` in the host crate `manifest`'s record (`key = value` lines).
pub fn recorded(manifest: &Path, key: &str) -> Option<String> {
    fingerprint::recorded(&manifest.join(FILE), key)
}
