//! Machine code from PTX with `ptxas`, and the compressed images the crate embeds.
//!
//! Assembling ahead of time spares every process the driver's JIT compilation of the PTX
//! (35-40 s for all kernels on an H100 with no JIT cache). `ptxas` is slow on the large areas
//! (most of a minute for multisplit), so its outputs are cached by a hash of the PTX, the
//! architecture and the `ptxas` version: a change to one area's kernels reassembles that area
//! alone. Images are compressed with zstd; the host decompresses one when its area is first
//! used.

use std::collections::HashSet;
use std::collections::hash_map::DefaultHasher;
use std::env;
use std::fs;
use std::hash::{Hash, Hasher};
use std::path::PathBuf;
use std::process::Command;
use std::sync::Mutex;

/// zstd level of the embedded images: the best ratio whose build time stays in seconds.
const ZSTD_LEVEL: i32 = 19;

/// A `ptxas` that runs, and its version line (part of the cache key).
pub struct Ptxas {
    path: PathBuf,
    version: String,
}

impl Ptxas {
    /// The first `ptxas` that runs among: `$PTXAS`, the toolchain file's `WARPKIT_PTXAS`,
    /// `ptxas` on PATH, `$CUDA_HOME/bin/ptxas`, `/usr/local/cuda/bin/ptxas`.
    pub fn find(from_toolchain: Option<&str>) -> Option<Ptxas> {
        let cuda_home = env::var_os("CUDA_HOME").map(|h| PathBuf::from(h).join("bin/ptxas"));
        let candidates = [
            env::var_os("PTXAS").map(PathBuf::from),
            from_toolchain.map(PathBuf::from),
            Some(PathBuf::from("ptxas")),
            cuda_home,
            Some(PathBuf::from("/usr/local/cuda/bin/ptxas")),
        ];
        candidates.into_iter().flatten().find_map(|path| {
            let out = Command::new(&path).arg("--version").output().ok()?;
            let text = String::from_utf8_lossy(&out.stdout);
            let version = text.lines().rfind(|l| !l.trim().is_empty())?.trim().to_string();
            out.status.success().then_some(Ptxas { path, version })
        })
    }

    /// `ptxas --version`'s last line.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// Assembles `ptx` for `arch` (`sm_90`): the cubin and `ptxas -v`'s report (registers,
    /// stack and spills per kernel), or why not: ptxas's message where it rejects the PTX.
    pub fn assemble(&self, ptx: &str, arch: &str, cache: &Cache) -> Result<(Vec<u8>, String), String> {
        let key = cache.key(&(ptx, arch, &self.version));
        let (cubin, report) = (key.with_extension("cubin"), key.with_extension("txt"));
        if let (Ok(c), Ok(r)) = (fs::read(&cubin), fs::read_to_string(&report)) {
            return Ok((c, r));
        }
        let input = key.with_extension("ptx");
        fs::write(&input, ptx).map_err(|e| at(&input, e))?;
        let out = Command::new(&self.path)
            .args([&format!("-arch={arch}"), "-v", "-o"])
            .arg(&cubin)
            .arg(&input)
            .output()
            .map_err(|e| format!("cannot run {}: {e}", self.path.display()))?;
        let text = String::from_utf8_lossy(&out.stderr).into_owned();
        if !out.status.success() {
            return Err(format!(
                "ptxas rejected the {arch} PTX (kept at {}):\n{text}",
                input.display()
            ));
        }
        fs::remove_file(&input).ok();
        fs::write(&report, &text).map_err(|e| at(&report, e))?;
        Ok((fs::read(&cubin).map_err(|e| at(&cubin, e))?, text))
    }
}

/// An I/O failure on `path`, as a message.
fn at(path: &std::path::Path, e: std::io::Error) -> String {
    format!("{}: {e}", path.display())
}

/// The kernels of a `ptxas -v` report that spill registers to local memory, each with its
/// line (`name: 8 bytes spill stores, 8 bytes spill loads`): worth a warning, since a spill in
/// a loop can cost more than the kernel's own work.
pub fn spills(report: &str) -> Vec<String> {
    let mut function = "";
    let mut found = Vec::new();
    for line in report.lines() {
        if let Some(name) = line.split("Function properties for ").nth(1) {
            function = name.trim();
        } else if line.contains("spill stores") {
            let bytes = |what: &str| {
                let before = line.split(what).next().unwrap_or_default();
                before
                    .split_whitespace()
                    .next_back()
                    .and_then(|n| n.parse::<u64>().ok())
            };
            if bytes("bytes spill stores").unwrap_or(0) + bytes("bytes spill loads").unwrap_or(0) > 0 {
                found.push(format!("{function}: {}", line.trim()));
            }
        }
    }
    found
}

/// `data` compressed with zstd, cached like the cubins (compression at this level takes
/// seconds for the large areas).
pub fn compress(data: &[u8], cache: &Cache) -> Vec<u8> {
    let path = cache.key(&(data, ZSTD_LEVEL)).with_extension("zst");
    if let Ok(c) = fs::read(&path) {
        return c;
    }
    let packed = zstd::bulk::compress(data, ZSTD_LEVEL).expect("zstd compression");
    fs::write(&path, &packed).unwrap();
    packed
}

/// A folder of build outputs named by the hash of their inputs. What a build did not use is
/// removed at its end ([`Cache::prune`]), so the folder holds one build's outputs.
pub struct Cache {
    dir: PathBuf,
    used: Mutex<HashSet<String>>,
}

impl Cache {
    pub fn new(dir: PathBuf) -> Cache {
        fs::create_dir_all(&dir).unwrap();
        Cache {
            dir,
            used: Mutex::default(),
        }
    }

    /// The path (without extension) of the outputs made from `inputs`.
    fn key(&self, inputs: &impl Hash) -> PathBuf {
        let mut h = DefaultHasher::new();
        inputs.hash(&mut h);
        let stem = format!("{:016x}", h.finish());
        self.used.lock().unwrap().insert(stem.clone());
        self.dir.join(stem)
    }

    /// Removes the outputs this build did not ask for.
    pub fn prune(&self) {
        let used = self.used.lock().unwrap();
        for entry in fs::read_dir(&self.dir).into_iter().flatten().flatten() {
            let path = entry.path();
            let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned());
            if !stem.is_some_and(|s| used.contains(&s)) {
                fs::remove_file(path).ok();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::spills;

    #[test]
    fn spilling_kernels_are_named() {
        let report = "ptxas info    : Compiling entry function 'a' for 'sm_90'\n\
                      ptxas info    : Function properties for a\n    \
                      0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n\
                      ptxas info    : Function properties for b\n    \
                      16 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n";
        assert_eq!(
            spills(report),
            ["b: 16 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads"]
        );
    }
}
