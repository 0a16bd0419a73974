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
//! ```text
//! // The host crate: the module, loaded once on each device that launches its kernels.
//! static KERNELS: warpkit::Module = include!(concat!(env!("OUT_DIR"), "/own_kernels_device.rs"));
//! device.load(&KERNELS)?;
//! ```
//!
//! The build turns on `warpkit-kernels`' `library-only` feature (the device crate must depend on
//! it directly), so the PTX holds the device crate's own kernels alone. In the emulator the same kernels run from the host build of the
//! device crate, with no module to load. The lower-level pieces ([`toolchain`], [`ptxas`],
//! [`ptx`]) are warpkit's own build's too.

pub mod fingerprint;
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
    checked_in: Option<PathBuf>,
    sources: Vec<PathBuf>,
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

/// One image made: its format (`Cubin` or `Ptx`), target and file name.
struct Image {
    format: &'static str,
    target: &'static str,
    file: String,
}

/// The file, in a checked-in folder, that records what its images were made from.
const RECORD: &str = "SOURCES";

impl Builder {
    /// A build of the device crate at `device_crate` (relative to the host crate's manifest, or
    /// absolute).
    pub fn new(device_crate: impl AsRef<Path>) -> Builder {
        Builder {
            device_crate: device_crate.as_ref().to_path_buf(),
            checked_in: None,
            sources: Vec::new(),
        }
    }

    /// Counts the crate at `dir` (relative to the host crate's manifest) among the device
    /// crate's sources: a path dependency whose code the kernels compile (a device library of
    /// one's own; `warpkit-kernels` itself in a checkout of warpkit, whose macros write the
    /// multisplit and scan kernels). A change to its `src` or `Cargo.toml` then rebuilds the
    /// module, and makes checked-in images stale, as a change to the device crate does.
    /// Dependencies from a registry change only with their version, which `Cargo.lock` pins.
    pub fn depends_on(mut self, dir: impl AsRef<Path>) -> Builder {
        self.sources.push(dir.as_ref().to_path_buf());
        self
    }

    /// Keeps the images in `folder` (relative to the host crate's manifest) too, as warpkit
    /// keeps its own, so that the host crate builds where the device toolchain is missing (its
    /// dependents, a CI machine): with the toolchain and `WARPKIT_UPDATE_KERNELS` set, a build
    /// writes the images, their index and the sources' fingerprint there (commit them);
    /// without the toolchain it embeds them if they were made from the device crate's sources
    /// as they are, and refuses them, naming what to run, if not. Where the device crate is
    /// not beside the host crate (the host crate as published) it embeds them as they are.
    pub fn checked_in(self, folder: impl AsRef<Path>) -> Builder {
        Builder {
            checked_in: Some(folder.as_ref().to_path_buf()),
            ..self
        }
    }

    /// Compiles, assembles and embeds the device crate (or takes its checked-in images),
    /// writing `$OUT_DIR/<library>.rs`, and tells cargo to run the build again when its
    /// sources change.
    pub fn build(&self) -> Result<Built, Error> {
        let manifest = PathBuf::from(env_var("CARGO_MANIFEST_DIR")?);
        let out = PathBuf::from(env_var("OUT_DIR")?);
        let dir = manifest.join(&self.device_crate);
        let checked_in = self.checked_in.as_ref().map(|f| manifest.join(f));
        if let (false, Some(folder)) = (dir.join("Cargo.toml").exists(), &checked_in) {
            // A host crate as published: its device crate stays in its repository, and the
            // images it was published with are its own.
            println!("cargo:rerun-if-changed={}", folder.display());
            return take_checked_in(folder, None, &out);
        }
        let (package, library) = names(&dir)?;
        let file = toolchain::file();
        // The toolchain's record where it exists, else the first folder above it that does (a
        // missing watched file would run this again on every build).
        let toolchain_watch = file.ancestors().find(|p| p.exists()).unwrap_or(&file);
        let crates: Vec<PathBuf> = std::iter::once(dir.clone())
            .chain(self.sources.iter().map(|s| manifest.join(s)))
            .collect();
        for watched in crates.iter().flat_map(|c| [c.join("src"), c.join("Cargo.toml")]) {
            println!("cargo:rerun-if-changed={}", watched.display());
        }
        println!("cargo:rerun-if-changed={}", toolchain_watch.display());
        for var in [
            "WARPKIT_TOOLCHAIN_DIR",
            "HOME",
            "PATH",
            "PTXAS",
            "CUDA_HOME",
            "WARPKIT_UPDATE_KERNELS",
        ] {
            println!("cargo:rerun-if-env-changed={var}");
        }
        // The device crate's sources (and those it depends on), and this builder's version
        // (the form of what it writes).
        let fingerprints: Vec<String> = crates
            .iter()
            .map(|c| fingerprint::of_sources(c, &["src", "Cargo.toml"], &[]))
            .collect();
        let sources = format!(
            "{} warpkit-builder {}",
            fingerprints.join(" "),
            env!("CARGO_PKG_VERSION")
        );
        if let Some(folder) = &checked_in {
            println!("cargo:rerun-if-changed={}", folder.display());
        }
        let tc = match Toolchain::read(&file) {
            Ok(tc) => tc,
            Err(missing) => {
                let Some(folder) = &checked_in else {
                    return Err(Error(missing));
                };
                let made_from = MadeFrom {
                    package: &package,
                    sources: &sources,
                    missing: &missing,
                };
                return take_checked_in(folder, Some(made_from), &out);
            }
        };
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
        let bounds = ptx::declared_bounds(&text);
        let text = ptx::with_launch_bounds(&text, |entry| bounds.get(entry).copied(), "launch_bounds!");
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
        for entry in bounds.keys().filter(|e| !entries.contains(e)) {
            println!(
                "cargo:warning=warpkit-builder: launch_bounds! names {entry}, which is no kernel of {package}"
            );
        }
        let mut images = Vec::new();
        let mut embed = |format: &'static str, target: &'static str, bytes: &[u8]| -> Result<(), Error> {
            let kind = if format == "Cubin" { "cubin" } else { "ptx" };
            let file = format!("{library}_{target}.{kind}.zst");
            fs::write(out.join(&file), compress(bytes, &cache)).map_err(io)?;
            images.push(Image { format, target, file });
            Ok(())
        };
        if let Some(ptxas) = &ptxas {
            for (target, _) in TARGETS {
                let (cubin, report) = ptxas.assemble(&text, target, &cache).map_err(Error)?;
                for spill in ptxas::spills(&report) {
                    println!("cargo:warning=warpkit-builder: {target}: {spill}");
                }
                embed("Cubin", target, &cubin)?;
            }
        }
        embed("Ptx", cpu, text.as_bytes())?;
        cache.prune();
        let at_out = |file: &str| format!("{:?}", out.join(file).display());
        let module = out.join(format!("{library}.rs"));
        fs::write(
            &module,
            module_source(&package, &library, &entries, &images, at_out),
        )
        .map_err(io)?;
        if let Some(folder) = &checked_in {
            if std::env::var_os("WARPKIT_UPDATE_KERNELS").is_some() {
                check_in(folder, (&package, &library), (&entries, &images), &sources, &out)?;
            } else if recorded(folder, "fingerprint").as_deref() != Some(sources.as_str()) {
                println!(
                    "cargo:warning=warpkit-builder: the images in {} are older than {package}'s \
                     sources: build with WARPKIT_UPDATE_KERNELS=1 before committing",
                    folder.display()
                );
            }
        }
        Ok(Built {
            module,
            entries,
            machine_code: ptxas.is_some(),
        })
    }
}

/// The source of a `warpkit::Module` of `entries` and `images`, each image's file found by
/// `include_path` (the argument of its `include_bytes!`).
fn module_source(
    package: &str,
    library: &str,
    entries: &[String],
    images: &[Image],
    include_path: impl Fn(&str) -> String,
) -> String {
    let mut source = format!(
        "// Generated by warpkit-builder from {package}: its kernels and their images.\n\
         // SAFETY: the images were compiled from {package} as its host build declares it.\n\
         unsafe {{ ::warpkit::Module::new({library:?}, &[\n"
    );
    for name in entries {
        let _ = writeln!(source, "        {name:?},");
    }
    source += "], &[\n";
    for image in images {
        let sm = image.target.trim_start_matches("sm_");
        let _ = writeln!(
            source,
            "        ::warpkit::ModuleImage {{ format: ::warpkit::ImageFormat::{}, sm: {sm}, zstd: \
             include_bytes!({}) }},",
            image.format,
            include_path(&image.file)
        );
    }
    source + "]) }\n"
}

/// Writes the images (from `out`), their index and the record of the sources they were made
/// from (`sources`) to `folder`.
fn check_in(
    folder: &Path,
    (package, library): (&str, &str),
    (entries, images): (&[String], &[Image]),
    sources: &str,
    out: &Path,
) -> Result<(), Error> {
    fs::create_dir_all(folder).map_err(io)?;
    // Images of this library that this build no longer makes (a target dropped) go.
    let prefix = format!("{library}_");
    for entry in fs::read_dir(folder).map_err(io)?.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let made = images.iter().any(|i| i.file == name);
        if name.starts_with(&prefix) && name.ends_with(".zst") && !made {
            fs::remove_file(entry.path()).map_err(io)?;
        }
    }
    for image in images {
        fs::copy(out.join(&image.file), folder.join(&image.file)).map_err(io)?;
    }
    let manifest = PathBuf::from(env_var("CARGO_MANIFEST_DIR")?);
    let relative = folder.strip_prefix(&manifest).map_err(|_| {
        Error(format!(
            "{} is not inside the host crate {}",
            folder.display(),
            manifest.display()
        ))
    })?;
    let relative = relative.to_string_lossy().replace('\\', "/");
    let at_manifest = |file: &str| format!("concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/{relative}/{file}\")");
    let index = module_source(package, library, entries, images, at_manifest);
    fs::write(folder.join(format!("{library}.rs")), index).map_err(io)?;
    let record = format!(
        "# Written by warpkit-builder (WARPKIT_UPDATE_KERNELS=1): what the images beside were made from.\n\
         library = {library}\n\
         fingerprint = {sources}\n"
    );
    fs::write(folder.join(RECORD), record).map_err(io)
}

/// What checked-in images must have been made from, where the device crate is at hand: its
/// package, the fingerprint of its sources as they are, and why they are not built instead
/// (`missing`, the toolchain's absence).
struct MadeFrom<'a> {
    package: &'a str,
    sources: &'a str,
    missing: &'a str,
}

/// The images checked in to `folder` as `$OUT_DIR/<library>.rs`: if `made_from` is given,
/// only if they were made from those sources; without it (a published host crate, whose
/// device crate is not beside it) as they are.
fn take_checked_in(folder: &Path, made_from: Option<MadeFrom>, out: &Path) -> Result<Built, Error> {
    let Some(library) = recorded(folder, "library") else {
        let why = made_from.map_or("no device crate beside the host crate".into(), |m| {
            m.missing.to_string()
        });
        return Err(Error(format!("{why}; and {} holds no images", folder.display())));
    };
    let index = folder.join(format!("{library}.rs"));
    let text = fs::read_to_string(&index).map_err(|e| Error(format!("{}: {e}", index.display())))?;
    if let Some(MadeFrom { package, sources, .. }) = made_from {
        let recorded = recorded(folder, "fingerprint").unwrap_or_else(|| "none".into());
        if recorded != sources {
            return Err(Error(format!(
                "the images in {} were not made from {package}'s sources as they are (fingerprint \
                 {sources}, recorded {recorded}): rebuild them where the device toolchain is ({}) \
                 with WARPKIT_UPDATE_KERNELS=1",
                folder.display(),
                toolchain::SET_UP
            )));
        }
    }
    let module = out.join(format!("{library}.rs"));
    fs::write(&module, &text).map_err(io)?;
    let entries = text
        .lines()
        .map(str::trim)
        .filter_map(|l| l.strip_prefix('"').and_then(|l| l.strip_suffix("\",")))
        .map(String::from)
        .collect();
    Ok(Built {
        module,
        entries,
        machine_code: text.contains("ImageFormat::Cubin"),
    })
}

/// The value of `key` in `folder`'s record.
fn recorded(folder: &Path, key: &str) -> Option<String> {
    fingerprint::recorded(&folder.join(RECORD), key)
}

fn io(e: std::io::Error) -> Error {
    Error(e.to_string())
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
    fn a_module_lists_its_entries_and_includes_its_images() {
        let images = [
            Image {
                format: "Cubin",
                target: "sm_90",
                file: "k_sm_90.cubin.zst".into(),
            },
            Image {
                format: "Ptx",
                target: "sm_80",
                file: "k_sm_80.ptx.zst".into(),
            },
        ];
        let entries = ["my_kernel".to_string()];
        let source = module_source("k-device", "k", &entries, &images, |f| format!("{f:?}"));
        assert!(
            source.contains("Module::new(\"k\", &[") && source.contains("\n        \"my_kernel\",\n"),
            "{source}"
        );
        assert!(source.contains("ImageFormat::Cubin, sm: 90, zstd: include_bytes!(\"k_sm_90.cubin.zst\")"));
        assert!(source.contains("ImageFormat::Ptx, sm: 80, zstd: include_bytes!(\"k_sm_80.ptx.zst\")"));
    }

    #[test]
    fn checked_in_images_are_taken_when_fresh_or_published() {
        let root = std::env::temp_dir().join(format!("warpkit-builder-taken-{}", std::process::id()));
        let (folder, out) = (root.join("kernels"), root.join("out"));
        fs::create_dir_all(&folder).unwrap();
        fs::create_dir_all(&out).unwrap();
        let index = module_source("k-device", "k", &["k_entry".to_string()], &[], |f| {
            format!("{f:?}")
        });
        fs::write(folder.join("k.rs"), &index).unwrap();
        fs::write(
            folder.join(RECORD),
            "library = k\nfingerprint = abc warpkit-builder 0.1.0\n",
        )
        .unwrap();
        let made_from = |sources| MadeFrom {
            package: "k-device",
            sources,
            missing: "no toolchain",
        };
        let fresh = take_checked_in(&folder, Some(made_from("abc warpkit-builder 0.1.0")), &out).unwrap();
        assert_eq!(fresh.entries, ["k_entry"]);
        assert_eq!(fs::read_to_string(out.join("k.rs")).unwrap(), index);
        let stale = take_checked_in(&folder, Some(made_from("abd warpkit-builder 0.1.0")), &out);
        assert!(stale.is_err_and(|e| e.0.contains("not made from")));
        // A published host crate: no device crate to compare with.
        assert_eq!(take_checked_in(&folder, None, &out).unwrap().entries, ["k_entry"]);
        fs::remove_file(folder.join(RECORD)).unwrap();
        assert!(take_checked_in(&folder, None, &out).is_err_and(|e| e.0.contains("holds no images")));
        fs::remove_dir_all(&root).ok();
    }

    #[test]
    fn a_missing_toolchain_names_the_set_up() {
        let missing = Toolchain::read(Path::new("/nonexistent/toolchain.env"));
        let message = missing.err().expect("no such file");
        assert!(message.contains("scripts/setup.sh"), "{message}");
    }
}
