//! [`Backend`]: where a primitive runs on host data. The GPU when one is present, otherwise the
//! CPU, unless the caller picks one (the emulator only ever by choice); the choice is never
//! changed silently after that.

use crate::cpu::Cpu;
use crate::device::Device;
use crate::element::Scalar;
use crate::error::Result;

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
    /// The first CUDA GPU if one can be opened, otherwise the CPU.
    pub fn auto() -> Backend {
        Backend::gpu().unwrap_or(Backend::Cpu(Cpu))
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

    /// Exclusive prefix sums: `out[i] = input[0] + ... + input[i-1]`.
    pub fn exclusive_scan<T: Scalar>(&self, input: &[T]) -> Result<Vec<T>> {
        match self {
            Backend::Device(d) => d.download(&d.exclusive_scan(&d.upload(input)?)?),
            Backend::Cpu(c) => c.exclusive_scan(input),
        }
    }

    /// The sum of all elements.
    pub fn sum<T: Scalar>(&self, input: &[T]) -> Result<T> {
        match self {
            Backend::Device(d) => d.sum(&d.upload(input)?),
            Backend::Cpu(c) => c.sum(input),
        }
    }

    /// `n` words of the Philox stream of `key` from `counter`; equal on every backend and to
    /// [`crate::Philox::new(key, counter)`](crate::Philox::new).
    pub fn philox_words(&self, key: [u32; 2], counter: [u32; 4], n: usize) -> Result<Vec<u32>> {
        match self {
            Backend::Device(d) => {
                let mut out = d.zeros(n)?;
                d.philox_fill(&mut out, key, counter)?;
                d.download(&out)
            }
            Backend::Cpu(c) => {
                let mut out = vec![0; n];
                c.philox_fill(&mut out, key, counter);
                Ok(out)
            }
        }
    }
}
