//! Fingerprints of sources and images, to tell whether checked-in images were made from the
//! sources beside them: FNV-1a over the files in path order. A staleness check needs a hash that
//! is stable across Rust releases (std's `DefaultHasher` promises no such thing) and nothing
//! cryptographic, so a few lines here serve better than a hashing crate in every dependent's
//! build. Carriage returns are dropped, so that a checkout with Windows line endings gives the
//! same value.

use std::fs;
use std::path::{Path, PathBuf};

/// The fingerprint of the Rust sources and manifests at `inputs` (paths relative to `root`, files
/// or folders), leaving out `left_out` (relative to `root` too), as 16 hex digits.
pub fn of_sources(root: &Path, inputs: &[&str], left_out: &[&str]) -> String {
    let mut files = Vec::new();
    for input in inputs {
        collect(root, &root.join(input), left_out, &mut files);
    }
    files.sort();
    let mut hash = FNV_START;
    for rel in files {
        let text = fs::read(root.join(&rel)).unwrap_or_default();
        let name = rel.to_string_lossy().replace('\\', "/");
        let bytes = name.as_bytes().iter().chain(&[0]).chain(&text).chain(&[0]);
        hash = fnv(hash, bytes.filter(|&&byte| byte != b'\r'));
    }
    format!("{hash:016x}")
}

/// The value of `key` in the record `file` (`key = value` lines; the record of what checked-in
/// images were made from), if the file and the key are there.
pub fn recorded(file: &Path, key: &str) -> Option<String> {
    let text = fs::read_to_string(file).ok()?;
    let prefix = format!("{key} = ");
    text.lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .map(|v| v.trim().to_string())
}

/// The fingerprint of `bytes` (an image's contents), as 16 hex digits.
pub fn of_bytes(bytes: &[u8]) -> String {
    format!("{:016x}", fnv(FNV_START, bytes.iter()))
}

const FNV_START: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a of `bytes`, continuing from `hash`.
fn fnv<'a>(hash: u64, bytes: impl Iterator<Item = &'a u8>) -> u64 {
    bytes.fold(hash, |h, &byte| {
        (h ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

fn collect(root: &Path, path: &Path, left_out: &[&str], files: &mut Vec<PathBuf>) {
    let rel = path.strip_prefix(root).unwrap_or(path).to_path_buf();
    if left_out.iter().any(|l| rel == Path::new(l)) {
        return;
    }
    if path.is_dir() {
        for entry in fs::read_dir(path).into_iter().flatten().flatten() {
            collect(root, &entry.path(), left_out, files);
        }
    } else if path.is_file() && (rel.extension().is_some_and(|e| e == "rs") || rel.ends_with("Cargo.toml")) {
        // Sources only: an editor's backup or a stray note beside them changes no image, and
        // would make every clean clone refuse what this checkout recorded.
        files.push(rel);
    }
}
