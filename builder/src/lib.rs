//! Builds a crate of one's own GPU kernels (`#![no_std]`, on `warpkit-kernels`) from a host
//! crate's `build.rs`, the way warpkit builds its own: the device crate compiled to PTX (for
//! sm_80) with the device toolchain that warpkit's `scripts/setup.sh` installs, assembled to
//! machine code for sm_80 and sm_90 with `ptxas` (the PTX kept for newer GPUs, and alone where
//! there is no `ptxas`), compressed, and embedded as a `warpkit::Module` the host loads on a
//! device.
//!
//! ```no_run
//! // The body of `main` in build.rs of the host crate, beside its device crate in `../device`:
//! if let Err(e) = warpkit_builder::Builder::new("../device").build() {
//!     panic!("{e}");
//! }
//! ```
//!
//! ```ignore
//! // The host crate: the module, loaded once on each device that launches its kernels.
//! static KERNELS: warpkit::Module = include!(concat!(env!("OUT_DIR"), "/own_kernels_device.rs"));
//! device.load(&KERNELS)?;
//! ```
//!
//! The build turns on `warpkit-kernels`' `library-only` feature (the device crate must depend on
//! it directly), so the PTX holds the device crate's own kernels alone. In the emulator the same kernels run from the host build of the
//! device crate, with no module to load. The lower-level pieces ([`toolchain`], [`ptxas`],
//! [`ptx`]) are warpkit's own build's too.

pub mod ptx;
pub mod ptxas;
pub mod toolchain;

use ptxas::{Cache, Ptxas, compress};
use std::fmt::Write;
use std::fs;
use std::path::{Path, PathBuf};
use toolchain::{TARGETS, Toolchain};

/// Why a build of a device crate failed: a missing toolchain (the message names the command
/// that installs it), a device crate that does not compile, or no kernels in it.
#[derive(Debug)]
pub struct Error(String);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "warpkit-builder: {}", self.0)
    }
}

impl std::error::Error for Error {}

/// A build of one device crate into a module for the host crate whose `build.rs` runs it.
#[derive(Clone, Debug)]
pub struct Builder {
    device_crate: PathBuf,
}

/// What a build made: the module's file (to `include!`) and its kernels.
#[derive(Clone, Debug)]
pub struct Built {
    /// `$OUT_DIR/<library>.rs`, an expression of type `warpkit::Module`.
    pub module: PathBuf,
    /// The entry points, by name.
    pub entries: Vec<String>,
    /// Whether the module holds machine code (`ptxas` was found), or PTX alone.
    pub machine_code: bool,
}

impl Builder {
    /// A build of the device crate at `device_crate` (relative to the host crate's manifest, or
    /// absolute).
    pub fn new(device_crate: impl AsRef<Path>) -> Builder {
        Builder {
            device_crate: device_crate.as_ref().to_path_buf(),
        }
    }

    /// Compiles, assembles and embeds the device crate, writing `$OUT_DIR/<library>.rs`, and
    /// tells cargo to run the build again when its sources change.
    pub fn build(&self) -> Result<Built, Error> {
        let manifest = PathBuf::from(env_var("CARGO_MANIFEST_DIR")?);
        let out = PathBuf::from(env_var("OUT_DIR")?);
        let dir = manifest.join(&self.device_crate);
        let (package, library) = names(&dir)?;
        let file = toolchain::file();
        for watched in [dir.join("src"), dir.join("Cargo.toml"), file.clone()] {
            println!("cargo:rerun-if-changed={}", watched.display());
        }
        for var in ["WARPKIT_TOOLCHAIN_DIR", "PTXAS", "CUDA_HOME"] {
            println!("cargo:rerun-if-env-changed={var}");
        }
        let tc = Toolchain::read(&file).map_err(Error)?;
        let ptxas = Ptxas::find(tc.ptxas.as_deref());
        if ptxas.is_none() {
            println!(
                "cargo:warning=warpkit-builder: ptxas not found ({}; or set PTXAS): {library} is \
                 embedded as PTX only, which the driver compiles on first use",
                toolchain::SET_UP
            );
        }
        let cache = Cache::new(out.join(format!("{library}-cache")));
        // One PTX, for the oldest target: ptxas assembles it for every target, and the driver
        // compiles it for newer GPUs. (warpkit's own kernels build a PTX for each target, where
        // LLVM's sm_90 code is faster; a crate of one's own builds once, in half the time.)
        let (cpu, isa) = TARGETS[0];
        let only_ours = ["warpkit-kernels/library-only"];
        let path = tc
            .build_ptx((&dir, &package, &library), (cpu, isa), &only_ours, &out)
            .map_err(Error)?;
        let text = fs::read_to_string(&path).map_err(|e| Error(format!("{}: {e}", path.display())))?;
        let entries: Vec<String> = ptx::Ptx::parse(&text)
            .entries()
            .into_iter()
            .map(String::from)
            .collect();
        if entries.is_empty() {
            return Err(Error(format!(
                "{package} has no kernels (declare them with warpkit_kernels::kernel!)"
            )));
        }
        let mut images = String::new();
        let mut embed = |format: &str, target: &str, bytes: &[u8]| -> Result<(), Error> {
            let kind = if format == "Cubin" { "cubin" } else { "ptx" };
            let file = out.join(format!("{library}_{target}.{kind}.zst"));
            fs::write(&file, compress(bytes, &cache)).map_err(|e| Error(e.to_string()))?;
            let sm: u32 = target
                .trim_start_matches("sm_")
                .parse()
                .expect("a target like sm_90");
            let _ = writeln!(
                images,
                "        ::warpkit::ModuleImage {{ format: ::warpkit::ImageFormat::{format}, sm: {sm}, \
                 zstd: include_bytes!({:?}) }},",
                file.display()
            );
            Ok(())
        };
        if let Some(ptxas) = &ptxas {
            for (target, _) in TARGETS {
                embed("Cubin", target, &ptxas.assemble(&text, target, &cache).0)?;
            }
        }
        embed("Ptx", cpu, text.as_bytes())?;
        cache.prune();
        let mut source = format!(
            "// Generated by warpkit-builder from {package}: its kernels and their images.\n\
             ::warpkit::Module {{\n    name: {library:?},\n    entries: &[\n"
        );
        for name in &entries {
            let _ = writeln!(source, "        {name:?},");
        }
        let _ = write!(source, "    ],\n    images: &[\n{images}    ],\n}}\n");
        let module = out.join(format!("{library}.rs"));
        fs::write(&module, source).map_err(|e| Error(e.to_string()))?;
        Ok(Built {
            module,
            entries,
            machine_code: ptxas.is_some(),
        })
    }
}

fn env_var(key: &str) -> Result<String, Error> {
    std::env::var(key).map_err(|_| Error(format!("{key} is not set: run the builder from a build.rs")))
}

/// The package name in the device crate's manifest and its library's name (the package's,
/// `-` as `_`, unless `[lib] name` says otherwise).
fn names(dir: &Path) -> Result<(String, String), Error> {
    let path = dir.join("Cargo.toml");
    let text = fs::read_to_string(&path).map_err(|e| Error(format!("{}: {e}", path.display())))?;
    let mut section = "";
    let (mut package, mut library) = (None, None);
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line;
        } else if let Some(value) = line
            .strip_prefix("name")
            .and_then(|r| r.trim_start().strip_prefix('='))
        {
            let value = value.trim().trim_matches('"').to_string();
            match section {
                "[package]" => package = Some(value),
                "[lib]" => library = Some(value),
                _ => {}
            }
        }
    }
    let package = package.ok_or_else(|| Error(format!("{} names no package", path.display())))?;
    let library = library.unwrap_or_else(|| package.replace('-', "_"));
    Ok((package, library))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names_of(manifest: &str) -> Result<(String, String), Error> {
        let dir = std::env::temp_dir().join(format!("warpkit-builder-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("Cargo.toml"), manifest).unwrap();
        let found = names(&dir);
        fs::remove_dir_all(&dir).ok();
        found
    }

    #[test]
    fn the_library_is_named_by_the_package_or_its_lib_section() {
        let plain =
            "[package]\nname = \"my-kernels\"\nversion.workspace = true\n\n[dependencies]\nname = 1\n";
        let (package, library) = names_of(plain).unwrap();
        assert_eq!((package.as_str(), library.as_str()), ("my-kernels", "my_kernels"));
        let renamed = "[package]\nname = \"my-kernels\"\n[lib]\nname = \"gpu\"\n";
        assert_eq!(names_of(renamed).unwrap().1, "gpu");
        assert!(names_of("[dependencies]\nx = 1\n").is_err());
    }

    #[test]
    fn a_missing_toolchain_names_the_set_up() {
        let missing = Toolchain::read(Path::new("/nonexistent/toolchain.env"));
        let message = missing.err().expect("no such file");
        assert!(message.contains("scripts/setup.sh"), "{message}");
    }
}
