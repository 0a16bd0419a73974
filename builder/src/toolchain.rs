//! The device toolchain that warpkit's `scripts/setup.sh` installs (a Rust able to compile
//! `no_std` crates for `nvptx64-nvidia-cuda`, and `ptxas`), as the file `toolchain.env` records
//! it, and a device crate compiled to PTX with it.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The command that installs the toolchain, named in every error about a missing one.
pub const SET_UP: &str =
    "scripts/setup.sh from the warpkit repository (https://github.com/warpkit-rs/warpkit)";

/// (target CPU, PTX ISA feature) of each PTX a build makes: machine code for these two, and
/// the newest's PTX for later GPUs.
pub const TARGETS: [(&str, &str); 2] = [("sm_80", "+ptx70"), ("sm_90", "+ptx80")];

/// Where set-up records the toolchain: `$WARPKIT_TOOLCHAIN_DIR/toolchain.env`, else
/// `~/.local/share/warpkit/toolchain.env`.
pub fn file() -> PathBuf {
    if let Some(dir) = env::var_os("WARPKIT_TOOLCHAIN_DIR") {
        return PathBuf::from(dir).join("toolchain.env");
    }
    let home = env::var_os("HOME").map(PathBuf::from).unwrap_or_default();
    home.join(".local/share/warpkit/toolchain.env")
}

/// The device toolchain as set-up recorded it.
pub struct Toolchain {
    cargo: String,
    rustc: String,
    path: String,
    /// The `ptxas` that set-up installed, if it recorded one.
    pub ptxas: Option<String>,
}

impl Toolchain {
    /// The toolchain `file` records, or why there is none (the message names the set-up).
    pub fn read(file: &Path) -> Result<Toolchain, String> {
        let text = fs::read_to_string(file).map_err(|_| {
            format!(
                "no device toolchain (Rust -> PTX) was found: {} is missing. Run {SET_UP} once; \
                 it installs the toolchain (Debian packages or rustup) and writes that file",
                file.display()
            )
        })?;
        let find = |key: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(key).and_then(|r| r.strip_prefix('=')))
                .map(|v| v.trim().to_string())
        };
        let get =
            |key: &str| find(key).ok_or_else(|| format!("{} has no {key}; rerun {SET_UP}", file.display()));
        Ok(Toolchain {
            cargo: get("WARPKIT_DEVICE_CARGO")?,
            rustc: get("WARPKIT_DEVICE_RUSTC")?,
            path: get("WARPKIT_DEVICE_PATH")?,
            ptxas: find("WARPKIT_PTXAS"),
        })
    }

    /// The device rustc's `--version` line.
    pub fn rustc_version(&self) -> String {
        Command::new(&self.rustc)
            .arg("--version")
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_default()
    }

    /// Compiles the library of the device crate at `dir` (package `package`, library
    /// `library`) to PTX for `cpu` with PTX ISA feature `ptx_isa` and cargo `features`, in a
    /// target folder under `out`; the PTX's path, or the compiler's message.
    pub fn build_ptx(
        &self,
        (dir, package, library): (&Path, &str, &str),
        (cpu, ptx_isa): (&str, &str),
        features: &[&str],
        out: &Path,
    ) -> Result<PathBuf, String> {
        let target_dir = out.join(format!("{library}-{cpu}"));
        let mut cmd = Command::new(&self.cargo);
        // The outer build's variables would leak its flags, target and lock into the inner build.
        for (key, _) in env::vars_os() {
            let key = key.to_string_lossy().into_owned();
            let outer = (key.starts_with("CARGO") && key != "CARGO_HOME")
                || key.starts_with("RUSTC")
                || key.starts_with("RUSTDOC")
                || key.starts_with("RUSTUP")
                || key == "RUSTFLAGS";
            if outer {
                cmd.env_remove(&key);
            }
        }
        let path = format!("{}:{}", self.path, env::var("PATH").unwrap_or_default());
        let flags = [
            "-Ctarget-cpu=".to_string() + cpu,
            "-Ctarget-feature=".to_string() + ptx_isa,
            "-Zunstable-options".into(),
            "-Cpanic=immediate-abort".into(),
            // Tile loops over register arrays must unroll fully, or the arrays go to local
            // memory (ptxas then reports a stack frame); LLVM's default threshold is too low.
            "-Cllvm-args=-unroll-threshold=1000".into(),
        ];
        cmd.current_dir(dir)
            .env("PATH", path)
            .env("RUSTC", &self.rustc)
            .env("RUSTC_BOOTSTRAP", "1")
            .env("CARGO_PROFILE_RELEASE_PANIC", "abort")
            .env("CARGO_ENCODED_RUSTFLAGS", flags.join("\x1f"))
            .args(["rustc", "--quiet", "--release", "--lib", "--crate-type", "cdylib"])
            .args(["-p", package])
            .args(features.iter().flat_map(|f| ["--features", f]))
            .args(["--target", "nvptx64-nvidia-cuda", "-Zbuild-std=core"])
            .arg("--target-dir")
            .arg(&target_dir);
        let result = cmd
            .output()
            .map_err(|e| format!("cannot run the device cargo {}: {e}; rerun {SET_UP}", self.cargo))?;
        if !result.status.success() {
            return Err(format!(
                "building {package} for {cpu} failed:\n{}",
                String::from_utf8_lossy(&result.stderr)
            ));
        }
        Ok(target_dir.join(format!("nvptx64-nvidia-cuda/release/{library}.ptx")))
    }
}
