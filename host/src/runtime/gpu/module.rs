//! The kernels' GPU modules, one per area (`warpkit_kernels::area`). The build embeds each
//! area's images: machine code for sm_80 and sm_90, and the sm_90 PTX for newer GPUs (PTX of
//! both targets alone where the build had no `ptxas`). An area is loaded on a device the first
//! time one of its kernels is launched there, from the best image the device runs: machine
//! code of its major version first (it loads in milliseconds), else PTX, which the driver
//! compiles.

use crate::error::{Error, Result};
use crate::runtime::module::Module;
use cudarc::driver::{CudaContext, CudaFunction, CudaModule};
use cudarc::nvrtc::Ptx;
use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
pub(crate) use warpkit_kernels::area::Area;

/// The number of areas.
pub(crate) const AREA_COUNT: usize = Area::ALL.len();

/// An area's images are modules' images (the generated index names them so).
pub(crate) use crate::runtime::module::{ImageFormat as Format, ModuleImage as Image};

/// An area's kernels and images, as the build embedded them.
pub(crate) struct AreaImages {
    pub area: Area,
    pub entries: &'static [&'static str],
    pub images: &'static [Image],
}

/// The kernels' module images, by area: built from `kernels-gpu` with the `build-kernels`
/// feature, otherwise the ones checked in under `host/kernels/` (see `host/build/main.rs`).
mod kernels {
    use super::{AREA_COUNT, Area, AreaImages, Format, Image};
    #[cfg(feature = "build-kernels")]
    include!(concat!(env!("OUT_DIR"), "/kernels.rs"));
    #[cfg(not(feature = "build-kernels"))]
    include!("../../../kernels/index.rs");
}

impl Image {
    fn runs_on(&self, (major, minor): (i32, i32)) -> bool {
        let (target_major, target_minor) = ((self.sm / 10) as i32, (self.sm % 10) as i32);
        match self.format {
            Format::Cubin => target_major == major && target_minor <= minor,
            Format::Ptx => (target_major, target_minor) <= (major, minor),
        }
    }

    fn load(&self, ctx: &Arc<CudaContext>) -> std::result::Result<Arc<CudaModule>, String> {
        let bytes = zstd::decode_all(self.zstd).map_err(|e| format!("corrupt image: {e}"))?;
        let image = match self.format {
            Format::Cubin => Ptx::from_binary(bytes),
            Format::Ptx => Ptx::from_src(String::from_utf8(bytes).map_err(|e| format!("corrupt PTX: {e}"))?),
        };
        ctx.load_module(image).map_err(|e| e.to_string())
    }
}

/// The images that run on a GPU of compute capability `cc`, in the order to try them: machine
/// code before PTX, newer targets first.
fn candidates(images: &[Image], cc: (i32, i32)) -> Vec<&Image> {
    let mut runnable: Vec<&Image> = images.iter().filter(|i| i.runs_on(cc)).collect();
    runnable.sort_by_key(|i| (i.format == Format::Ptx, std::cmp::Reverse(i.sm)));
    runnable
}

/// An area's module loaded on one device, with every one of its kernels fetched.
pub(crate) struct LoadedArea {
    /// Kept so the functions stay valid.
    _module: Arc<CudaModule>,
    functions: HashMap<&'static str, Function>,
}

/// One kernel of a loaded module, with what launches learned about it, so that a call asks
/// the driver each question once per device and process, not once per launch (each costs microseconds).
pub(crate) struct Function {
    pub cuda: CudaFunction,
    /// Set once its dynamic shared-memory limit is raised to the device's opt-in maximum.
    pub shared_raised: AtomicBool,
    /// Resident blocks per multiprocessor by (threads, dynamic shared bytes), as the
    /// occupancy query answered.
    pub resident: Mutex<HashMap<(u32, u32), u32>>,
}

impl LoadedArea {
    /// Loads `area` on the device of `ctx`, whose compute capability is `cc`: the first image
    /// that loads, machine code before PTX and newer targets before older ones. An error names
    /// the area and why each image failed.
    pub(crate) fn load(ctx: &Arc<CudaContext>, area: Area, cc: (i32, i32)) -> Result<LoadedArea> {
        let embedded = &kernels::AREAS[area.index()];
        debug_assert_eq!(embedded.area, area);
        LoadedArea::load_images(ctx, (embedded.entries, embedded.images), cc).map_err(|reason| {
            Error::ModuleLoad {
                area: area.name(),
                reason,
            }
        })
    }

    /// Loads one's own `module` as [`LoadedArea::load`] loads an area.
    pub(crate) fn load_module(
        ctx: &Arc<CudaContext>,
        module: &'static Module,
        cc: (i32, i32),
    ) -> Result<LoadedArea> {
        LoadedArea::load_images(ctx, (module.entries, module.images), cc).map_err(|reason| {
            Error::ModuleLoad {
                area: module.name,
                reason,
            }
        })
    }

    /// The module of `entries` from the first of `images` that loads, or why none did.
    fn load_images(
        ctx: &Arc<CudaContext>,
        (entries, images): (&'static [&'static str], &'static [Image]),
        cc: (i32, i32),
    ) -> std::result::Result<LoadedArea, String> {
        let mut failures = Vec::new();
        for image in candidates(images, cc) {
            match image.load(ctx) {
                Ok(module) => {
                    let functions = entries
                        .iter()
                        .map(|&name| {
                            let function = Function {
                                cuda: module.load_function(name)?,
                                shared_raised: AtomicBool::new(false),
                                resident: Mutex::default(),
                            };
                            Ok((name, function))
                        })
                        .collect::<Result<HashMap<_, _>>>()
                        .map_err(|e| e.to_string())?;
                    return Ok(LoadedArea {
                        _module: module,
                        functions,
                    });
                }
                Err(reason) => failures.push(format!("{:?} sm_{}: {reason}", image.format, image.sm)),
            }
        }
        Err(if failures.is_empty() {
            format!("no embedded image runs on compute capability {}.{}", cc.0, cc.1)
        } else {
            failures.join("; ")
        })
    }

    /// The kernel `name` of this area.
    pub(crate) fn function(&self, name: &str) -> Option<&Function> {
        self.functions.get(name)
    }
}

/// Whether the embedded images hold machine code, so that loading an area takes milliseconds
/// rather than a JIT compilation.
pub fn machine_code_embedded() -> bool {
    kernels::MACHINE_CODE
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(format: Format, sm: u32) -> Image {
        Image {
            format,
            sm,
            zstd: &[],
        }
    }

    fn order(images: &[Image], cc: (i32, i32)) -> Vec<(Format, u32)> {
        candidates(images, cc).iter().map(|i| (i.format, i.sm)).collect()
    }

    #[test]
    fn machine_code_of_the_major_version_first_then_ptx() {
        use Format::{Cubin, Ptx};
        let built = [image(Cubin, 80), image(Cubin, 90), image(Ptx, 90)];
        assert_eq!(order(&built, (8, 0)), [(Cubin, 80)]);
        assert_eq!(order(&built, (8, 9)), [(Cubin, 80)]);
        assert_eq!(order(&built, (9, 0)), [(Cubin, 90), (Ptx, 90)]);
        assert_eq!(order(&built, (10, 0)), [(Ptx, 90)]);
        assert_eq!(order(&built, (12, 0)), [(Ptx, 90)]);
        assert!(order(&built, (7, 5)).is_empty());
        let ptx_only = [image(Ptx, 80), image(Ptx, 90)];
        assert_eq!(order(&ptx_only, (8, 6)), [(Ptx, 80)]);
        assert_eq!(order(&ptx_only, (9, 0)), [(Ptx, 90), (Ptx, 80)]);
    }

    #[test]
    fn every_area_embeds_its_kernels_in_order() {
        for (i, embedded) in kernels::AREAS.iter().enumerate() {
            assert_eq!(embedded.area, Area::ALL[i]);
            if embedded.area == Area::Checks && !cfg!(feature = "build-kernels") {
                // The test-only kernels are not checked in: `checks` builds them from source.
                assert!(embedded.images.is_empty());
                continue;
            }
            assert!(!embedded.entries.is_empty(), "{:?} has no kernels", embedded.area);
            assert!(
                embedded
                    .entries
                    .iter()
                    .all(|n| Area::of(n) == Some(embedded.area))
            );
            assert!(embedded.images.iter().any(|i| i.format == Format::Ptx));
            for image in embedded.images {
                let bytes = zstd::decode_all(image.zstd).expect("a valid zstd frame");
                match image.format {
                    Format::Cubin => assert_eq!(&bytes[..4], b"\x7fELF"),
                    Format::Ptx => assert!(String::from_utf8(bytes).is_ok_and(|t| t.contains(".entry"))),
                }
            }
        }
    }
}
