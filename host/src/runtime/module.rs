//! [`Module`]: a crate of one's own kernels as `warpkit-builder` embeds it, for
//! [`Device::load`](crate::Device::load). warpkit's own kernels are modules of the same form,
//! one per area, which devices load by themselves.

/// The kernels of one device crate and their images: machine code for some GPU architectures
/// and PTX for the rest. `warpkit-builder` writes one from a `build.rs`, which the host crate
/// includes (`static KERNELS: Module = include!(concat!(env!("OUT_DIR"), "/my_kernels.rs"));`)
/// and loads on each device that launches its kernels ([`Device::load`](crate::Device::load)).
///
/// ```
/// use warpkit::{Device, Module};
///
/// // SAFETY: no entries, so nothing launches from it.
/// static KERNELS: Module = unsafe { Module::new("my_kernels", &[], &[]) };
/// // The emulator runs kernels from the host build of their crate: nothing to load there.
/// Device::emulator().load(&KERNELS)?;
/// # Ok::<(), warpkit::Error>(())
/// ```
pub struct Module {
    pub(crate) name: &'static str,
    pub(crate) entries: &'static [&'static str],
    pub(crate) images: &'static [ModuleImage],
}

impl Module {
    /// The module of `entries` (the names `warpkit_kernels::kernel!` gave them) of the device
    /// crate whose library is `name`, from `images` (a GPU loads the first that runs on it:
    /// machine code of its major version before PTX, newer targets first).
    ///
    /// # Safety
    /// Each image defines every entry as the host build of the same crate declares it (the
    /// same parameters, in order), as `warpkit-builder` makes them: a launch finds a kernel by
    /// its name alone and passes the parameters the host's declaration says.
    pub const unsafe fn new(
        name: &'static str,
        entries: &'static [&'static str],
        images: &'static [ModuleImage],
    ) -> Module {
        Module {
            name,
            entries,
            images,
        }
    }

    /// The device crate's library name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Its kernels' entry points.
    pub fn entries(&self) -> &'static [&'static str] {
        self.entries
    }
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
