//! [`Module`]: a crate of one's own kernels as `warpkit-builder` embeds it, for
//! [`Device::load`](crate::Device::load). warpkit's own kernels are modules of the same form,
//! one per area, which devices load by themselves.

/// The kernels of one device crate and their images: machine code for some GPU architectures
/// and PTX for the rest. `warpkit-builder` writes one from a `build.rs`, which the host crate
/// includes (`static KERNELS: Module = include!(concat!(env!("OUT_DIR"), "/my_kernels.rs"));`)
/// and loads on each device that launches its kernels:
///
/// ```
/// use warpkit::{Device, Module};
///
/// static KERNELS: Module = Module { name: "my_kernels", entries: &[], images: &[] };
/// let device = Device::gpu(0).unwrap_or_else(|_| Device::emulator());
/// if device.as_gpu().is_none() {
///     device.load(&KERNELS)?; // the emulator runs kernels from the host build: nothing to load
/// }
/// # Ok::<(), warpkit::Error>(())
/// ```
pub struct Module {
    /// The device crate's library name.
    pub name: &'static str,
    /// Its kernels' entry points (the names `warpkit_kernels::kernel!` gave them).
    pub entries: &'static [&'static str],
    /// Its images, compressed; a GPU loads the first that runs on it (machine code of its
    /// major version before PTX, newer targets first).
    pub images: &'static [ModuleImage],
}

/// One image of a [`Module`], compressed with zstd.
pub struct ModuleImage {
    /// Machine code or PTX.
    pub format: ImageFormat,
    /// The target, as in 90 for sm_90.
    pub sm: u32,
    /// The image, compressed.
    pub zstd: &'static [u8],
}

/// What a [`ModuleImage`] holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ImageFormat {
    /// Machine code (a cubin): runs on the GPUs of its major version from its minor one up.
    Cubin,
    /// PTX: the driver compiles it for any GPU at least as new as its target.
    Ptx,
}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Module")
            .field("name", &self.name)
            .field("entries", &self.entries)
            .field("images", &self.images)
            .finish()
    }
}

/// The format, target and compressed size (not the bytes).
impl std::fmt::Debug for ModuleImage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?} sm_{} ({} bytes)", self.format, self.sm, self.zstd.len())
    }
}
