//! Typed device buffers: the only way data reaches a warpkit kernel. A buffer belongs to the
//! [`Device`](super::device::Device) that made it: GPU memory from `cudarc`, or host memory the
//! emulator's kernels read and write like device memory.

use super::host_memory::HostMemory;
use super::ledger::Lease;
#[cfg(feature = "cuda")]
use crate::error::{Error, Result};
#[cfg(feature = "cuda")]
use cudarc::driver::{CudaSlice, CudaStream};
#[cfg(feature = "cuda")]
use std::sync::Arc;

/// Which device a buffer belongs to: a GPU handle (its ordinal and its number in the process,
/// see `Gpu::identity`) or the emulator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Owner {
    #[cfg(feature = "cuda")]
    Gpu {
        ordinal: usize,
        handle: u64,
    },
    Emulator,
}

pub(crate) enum Memory<T> {
    /// GPU memory, untyped in `cudarc` (its element traits are not required of `T`: warpkit's
    /// buffers hold `bytemuck::Pod` values, plain bytes to the driver).
    #[cfg(feature = "cuda")]
    Cuda {
        bytes: CudaSlice<u8>,
        /// The device address, as kernels receive it.
        addr: u64,
        /// The number of `T`s.
        len: usize,
    },
    Host(HostMemory<T>),
}

/// `len` elements of `T` in device memory, owned; freed (in stream order on a GPU) on drop.
pub struct DeviceBuffer<T> {
    pub(crate) memory: Memory<T>,
    pub(crate) owner: Owner,
    /// Its bytes in its device's ledger, until it is dropped.
    pub(crate) _lease: Lease,
}

impl<T> DeviceBuffer<T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        match &self.memory {
            #[cfg(feature = "cuda")]
            Memory::Cuda { len, .. } => *len,
            Memory::Host(h) => h.len(),
        }
    }

    /// Whether the buffer holds no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The buffer as a `cudarc` slice on `stream` (any stream of the GPU's context, from any
    /// `cudarc` context object, for use with other `cudarc` code), without a copy: `stream`
    /// first waits for the work warpkit submitted so far, and the slice is freed in order on
    /// it. `Err(WrongDevice)` (the buffer dropped) for an emulator buffer or
    /// a stream of another context.
    #[cfg(feature = "cuda")]
    pub fn into_cuda_slice(self, stream: &Arc<CudaStream>) -> Result<CudaSlice<T>> {
        let (bytes, len) = match self.memory {
            Memory::Cuda { bytes, len, .. } if bytes.context().cu_ctx() == stream.context().cu_ctx() => {
                (bytes, len)
            }
            _ => {
                return Err(Error::WrongDevice {
                    buffer: format!("{:?}", self.owner),
                    device: "a cudarc stream of another context".into(),
                });
            }
        };
        stream.join(bytes.stream())?;
        let ptr = bytes.leak();
        // SAFETY: `ptr` holds `len` elements of `T`, owned by nobody since the leak.
        Ok(unsafe { stream.upgrade_device_ptr(ptr, len) })
    }

    /// The address kernels receive: a device address on a GPU (never dereferenced on the host),
    /// a host address in the emulator.
    pub(crate) fn kernel_ptr(&self) -> *mut T {
        match &self.memory {
            #[cfg(feature = "cuda")]
            Memory::Cuda { addr, .. } => *addr as usize as *mut T,
            Memory::Host(h) => h.as_ptr(),
        }
    }
}

impl<T> std::fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceBuffer")
            .field("len", &self.len())
            .field("owner", &self.owner)
            .finish()
    }
}
