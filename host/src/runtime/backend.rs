//! [`Backend`]: where a primitive runs on host data. The GPU when one is present, otherwise the
//! CPU, unless the caller picks one (the emulator only ever by choice); the choice is never
//! changed silently after that. Primitives are methods of it ([`Backend::exclusive_scan`],
//! ...) or take a `&Backend` in their own types ([`crate::alias::AliasTable::new`], ...).

use super::cpu::Cpu;
use super::device::Device;
use crate::error::{Error, Result};

/// An engine that runs warpkit's primitives on host data.
#[derive(Clone, Debug)]
pub enum Backend {
    /// A device: a CUDA GPU or the SIMT emulator. Data is copied to it and back for each call;
    /// keep data on the device with [`Device`]'s buffer methods to avoid that.
    Device(Device),
    /// rayon on the CPU.
    Cpu(Cpu),
}

impl Backend {
    /// The first CUDA GPU if one can be opened, otherwise the CPU
    /// ([`Backend::auto_with_reason`] also says why it took the CPU).
    pub fn auto() -> Backend {
        Backend::auto_with_reason().0
    }

    /// [`Backend::auto`], with the reason no GPU was picked when it falls back to the CPU: no
    /// CUDA driver, no device, a GPU older than sm_80 ([`Error::UnsupportedDevice`]), or a
    /// failure to open it. `None` when the backend is the GPU.
    pub fn auto_with_reason() -> (Backend, Option<Error>) {
        match Backend::gpu() {
            Ok(gpu) => (gpu, None),
            Err(why) => (Backend::Cpu(Cpu), Some(why)),
        }
    }

    /// The first CUDA GPU, or why there is none.
    pub fn gpu() -> Result<Backend> {
        Ok(Backend::Device(Device::gpu(0)?))
    }

    /// The SIMT emulator: the GPU kernels run on the CPU, for tests and debugging.
    pub fn emulator() -> Backend {
        Backend::Device(Device::emulator())
    }

    /// The CPU backend.
    pub fn cpu() -> Backend {
        Backend::Cpu(Cpu)
    }

    /// A one-line description: the GPU's name and compute capability, the emulator, or the
    /// CPU's threads.
    pub fn describe(&self) -> String {
        match self {
            Backend::Device(d) => d.describe(),
            Backend::Cpu(_) => format!("CPU ({} rayon threads)", rayon::current_num_threads()),
        }
    }
}

/// [`Backend::describe`].
impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe())
    }
}
