//! Compiles `kernels-gpu` to PTX (sm_80 and sm_90) with the device toolchain that
//! `scripts/setup.sh` installs, cuts each PTX into one module per area
//! (`warpkit_kernels::area`), assembles every module to machine code for sm_80 and sm_90 with
//! `ptxas`, and generates `kernels.rs` in OUT_DIR: per area, its entry points and its images
//! (zstd-compressed cubins, and the sm_90 PTX for newer GPUs), which the host loads the first
//! time the area is used on a device. Kernels are launched through the types
//! `warpkit_kernels::kernel!` declares, so no kernel is named by an unchecked string.
//!
//! Without `ptxas` the build still works: it embeds the PTX of both targets and warns once
//! that start-up will wait for the driver's JIT compiler. OUT_DIR also receives each module's
//! PTX (`ptx/<area>_<sm>.ptx`) and `ptxas -v` report (`ptxas/<area>_<sm>.txt`), which
//! `scripts/check-ptx.sh` reads.
//!
//! With `WARPKIT_UPDATE_KERNELS` set (`scripts/update-kernels.sh`) it also writes the images,
//! their index and the sources' fingerprint to `host/kernels/`, which the default build embeds.
//!
//! Rebuilds only when a kernel source, the kernels' manifest, the toolchain file or the
//! `ptxas` choice changes; `ptxas` and compression reuse their cached outputs for areas whose
//! PTX did not change.

use crate::area::Area;
use crate::fingerprint;
use crate::launch_bounds;
use std::env;
use std::fmt::Write;
use std::fs;
use std::path::{Path, PathBuf};
use warpkit_builder::ptx::{self, Ptx};
use warpkit_builder::ptxas::{Cache, Ptxas, compress};
use warpkit_builder::toolchain::{self, TARGETS, Toolchain};

/// One embedded image of an area's module: machine code for one architecture, or PTX.
struct Image {
    cubin: bool,
    sm: u32,
    file: PathBuf,
}

/// Builds the images from `kernels-gpu` into OUT_DIR (and into `host/kernels/` when
/// `WARPKIT_UPDATE_KERNELS` is set).
pub fn build(manifest: &Path) {
    let kernels = manifest.parent().unwrap().join("kernels-gpu");
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    let file = toolchain::file();
    println!("cargo:rerun-if-changed={}", kernels.join("src").display());
    println!("cargo:rerun-if-changed={}", kernels.join("Cargo.toml").display());
    println!("cargo:rerun-if-changed={}", file.display());
    println!("cargo:rerun-if-changed={}", manifest.join("build").display());
    println!(
        "cargo:rerun-if-changed={}",
        manifest.parent().unwrap().join("builder/src").display()
    );
    // What the built images are compared with.
    println!(
        "cargo:rerun-if-changed={}",
        manifest.join(fingerprint::FILE).display()
    );
    for var in [
        "WARPKIT_TOOLCHAIN_DIR",
        "PTXAS",
        "CUDA_HOME",
        "PATH",
        "WARPKIT_UPDATE_KERNELS",
        "WARPKIT_CHECK_IMAGES",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }

    let tc = Toolchain::read(&file).unwrap_or_else(|e| panic!("\n\nwarpkit: {e}\n\n"));
    let ptxas = Ptxas::find(tc.ptxas.as_deref());
    if ptxas.is_none() {
        println!(
            "cargo:warning=warpkit: ptxas not found (scripts/setup.sh installs it; or set PTXAS): \
             the kernels are embedded as PTX only, so a process's first use of each kernel area \
             waits for the driver to compile it (tens of seconds without a JIT cache)"
        );
    }
    let cache = Cache::new(out.join("cache"));
    for dir in ["ptx", "ptxas", "images"] {
        // Emptied first: what a build leaves there is exactly what it embedded and checked.
        fs::remove_dir_all(out.join(dir)).ok();
        fs::create_dir_all(out.join(dir)).unwrap();
    }

    let (entries, pieces) = cut_by_area(&tc, &kernels, &out);
    let images = make_images(&pieces, ptxas.as_ref(), &cache, &out);
    cache.prune();
    let source = generated_source(&entries, &images, ptxas.is_some(), |image| {
        format!("{:?}", image.file.display())
    });
    fs::write(out.join("kernels.rs"), source).unwrap();
    if env::var_os("WARPKIT_UPDATE_KERNELS").is_some() {
        check_in(manifest, &tc, ptxas.as_ref(), &entries, &images);
    } else if fingerprint::stale(manifest).is_some() {
        println!(
            "cargo:warning=warpkit: host/kernels/ is older than the kernel sources: run \
             scripts/update-kernels.sh before committing (the default build refuses it)"
        );
    } else if let Some(ptxas) = &ptxas {
        compare_with_checked_in(
            manifest,
            &out.join("images"),
            &tc.rustc_version(),
            ptxas.version(),
        );
    }
}

/// Compares the images just built (with `ptxas`) with the checked-in ones made from the same
/// sources. With the toolchain `host/kernels/SOURCES` records (the device rustc and `ptxas`
/// versions), they are the same bytes, unless an image was changed by hand: then a difference
/// fails the build under `WARPKIT_CHECK_IMAGES` (which `scripts/test.sh` sets) and warns
/// otherwise. With another toolchain the images may differ, and a difference only warns.
fn compare_with_checked_in(manifest: &Path, built: &Path, rustc: &str, ptxas: &str) {
    let differing = fingerprint::images_differing(manifest, built);
    if differing.is_empty() {
        return;
    }
    let same_toolchain = fingerprint::recorded(manifest, "device rustc").as_deref() == Some(rustc)
        && fingerprint::recorded(manifest, "ptxas").as_deref() == Some(ptxas);
    let message = format!(
        "warpkit: the kernel images built from source differ from the checked-in ones made from \
         the same sources ({}): {}",
        differing.join(", "),
        if same_toolchain {
            "with the toolchain host/kernels/SOURCES records, so a checked-in image was changed"
        } else {
            "another device rustc or ptxas than host/kernels/SOURCES records made them"
        }
    );
    if same_toolchain && env::var_os("WARPKIT_CHECK_IMAGES").is_some() {
        panic!("\n\n{message}\n\n");
    }
    println!("cargo:warning={message}");
}

/// Writes the images every user needs to `host/kernels/` (all but the test-only area), their
/// index and the fingerprint of the sources they were made from: what the default build embeds.
fn check_in(
    manifest: &Path,
    tc: &Toolchain,
    ptxas: Option<&Ptxas>,
    entries: &[String],
    images: &[(Area, Image)],
) {
    let ptxas =
        ptxas.expect("warpkit: the checked-in kernels need machine code: run scripts/setup.sh for ptxas");
    let dir = manifest.join("kernels");
    fs::remove_dir_all(&dir).ok();
    fs::create_dir_all(dir.join("images")).unwrap();
    let mut image_lines = String::new();
    let shipped: Vec<(Area, Image)> = images
        .iter()
        .filter(|(area, _)| *area != Area::Checks)
        .map(|(area, image)| {
            let name = image.file.file_name().unwrap();
            fs::copy(&image.file, dir.join("images").join(name)).unwrap();
            let contents = zstd::decode_all(&fs::read(&image.file).unwrap()[..]).unwrap();
            let line = fingerprint::image_line(&name.to_string_lossy(), &contents);
            writeln!(image_lines, "{line}").unwrap();
            let file = PathBuf::from(name);
            (*area, Image { file, ..*image })
        })
        .collect();
    let index = generated_source(entries, &shipped, true, |image| {
        format!(
            "concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/kernels/images/{}\")",
            image.file.display()
        )
    });
    fs::write(dir.join("index.rs"), index).unwrap();
    let device_rustc = tc.rustc_version();
    let record = format!(
        "# Made by scripts/update-kernels.sh: the fingerprint of the sources the images were made\n\
         # from and the hash of each image (host/build/fingerprint.rs), which builds check. Do not edit.\n\
         fingerprint = {}\ndevice rustc = {device_rustc}\nptxas = {}\n{image_lines}",
        fingerprint::of_sources(manifest.parent().unwrap()),
        ptxas.version()
    );
    fs::write(manifest.join(fingerprint::FILE), record).unwrap();
}

/// One area's PTX for one target.
struct Piece {
    area: Area,
    cpu: &'static str,
    ptx: String,
}

/// Builds the PTX of each target and cuts it by area: the entry names (the same for every
/// target) and the pieces, also written to `ptx/<area>_<sm>.ptx`.
fn cut_by_area(tc: &Toolchain, kernels: &Path, out: &Path) -> (Vec<String>, Vec<Piece>) {
    let mut pieces = Vec::new();
    let mut entries: Option<Vec<String>> = None;
    for (cpu, isa) in TARGETS {
        let crate_ = (kernels, "warpkit-kernels", "warpkit_kernels");
        let built = tc.build_ptx(crate_, (cpu, isa), &[], out);
        let path = built.unwrap_or_else(|e| panic!("\n\nwarpkit: {e}\n\n"));
        let text = fs::read_to_string(path).expect("PTX written by the device build");
        let bounds = |name: &str| launch_bounds::of(name).map(|b| (b.max_threads, b.min_blocks_per_sm));
        let text = ptx::with_launch_bounds(&text, bounds, "kernels-gpu/src/launch_bounds.rs");
        let ptx = Ptx::parse(&text);
        let names: Vec<String> = ptx.entries().into_iter().map(String::from).collect();
        let unclaimed: Vec<&String> = names.iter().filter(|n| Area::of(n).is_none()).collect();
        assert!(
            unclaimed.is_empty(),
            "kernels no area claims (see kernels-gpu/src/area.rs): {unclaimed:?}"
        );
        if let Some(prev) = &entries {
            assert_eq!(prev, &names, "the sm_80 and sm_90 PTX define different kernels");
        }
        entries = Some(names);
        for area in Area::ALL {
            let piece = ptx.piece(|name| Area::of(name) == Some(area));
            fs::write(out.join(format!("ptx/{}_{cpu}.ptx", area.name())), &piece).unwrap();
            pieces.push(Piece {
                area,
                cpu,
                ptx: piece,
            });
        }
    }
    (entries.unwrap_or_default(), pieces)
}

/// The images each piece gives, compressed into `images/`: machine code (and `ptxas -v`'s
/// report in `ptxas/`) where there is a `ptxas`, and the PTX of the newest target for newer
/// GPUs, or of every target without `ptxas`. Pieces are assembled in parallel: `ptxas` uses
/// one core.
fn make_images(pieces: &[Piece], ptxas: Option<&Ptxas>, cache: &Cache, out: &Path) -> Vec<(Area, Image)> {
    let newest = TARGETS[TARGETS.len() - 1].0;
    let embed = |piece: &Piece, cubin: bool, bytes: &[u8]| {
        let kind = if cubin { "cubin" } else { "ptx" };
        let file = out.join(format!("images/{}_{}.{kind}.zst", piece.area.name(), piece.cpu));
        fs::write(&file, compress(bytes, cache)).unwrap();
        let sm = piece.cpu.trim_start_matches("sm_").parse().unwrap();
        (piece.area, Image { cubin, sm, file })
    };
    std::thread::scope(|s| {
        let jobs: Vec<_> = pieces
            .iter()
            .map(|piece| {
                s.spawn(move || {
                    let mut made = Vec::new();
                    if let Some(ptxas) = ptxas {
                        let (cubin, report) = ptxas
                            .assemble(&piece.ptx, piece.cpu, cache)
                            .unwrap_or_else(|e| panic!("warpkit: {e}"));
                        let name = format!("ptxas/{}_{}.txt", piece.area.name(), piece.cpu);
                        fs::write(out.join(name), report).unwrap();
                        made.push(embed(piece, true, &cubin));
                    }
                    if ptxas.is_none() || piece.cpu == newest {
                        made.push(embed(piece, false, piece.ptx.as_bytes()));
                    }
                    made
                })
            })
            .collect();
        jobs.into_iter().flat_map(|j| j.join().unwrap()).collect()
    })
}

/// `kernels.rs`: per area, its entry points and its images (see `host/src/runtime/gpu/module.rs`).
/// `include_path` gives the argument of `include_bytes!` that finds an image.
fn generated_source(
    entries: &[String],
    images: &[(Area, Image)],
    machine_code: bool,
    include_path: impl Fn(&Image) -> String,
) -> String {
    let mut generated = String::from(
        "// Generated by host/build/from_source.rs: each area's kernels and module images.\n\
         pub(crate) static AREAS: [AreaImages; AREA_COUNT] = [\n",
    );
    for area in Area::ALL {
        let _ = writeln!(
            generated,
            "    AreaImages {{\n        area: Area::{area:?},\n        entries: &["
        );
        for name in entries.iter().filter(|n| Area::of(n) == Some(area)) {
            let _ = writeln!(generated, "            {name:?},");
        }
        generated += "        ],\n        images: &[\n";
        for (_, image) in images.iter().filter(|(a, _)| *a == area) {
            let format = if image.cubin { "Cubin" } else { "Ptx" };
            let _ = writeln!(
                generated,
                "            Image {{ format: Format::{format}, sm: {}, zstd: include_bytes!({}) }},",
                image.sm,
                include_path(image)
            );
        }
        generated += "        ],\n    },\n";
    }
    generated += "];\n";
    let _ = writeln!(
        generated,
        "/// Whether the images hold machine code (`ptxas` was found at build time).\n\
         pub(crate) const MACHINE_CODE: bool = {machine_code};"
    );
    generated
}
