//! Typed device buffers: the only way data reaches a warpkit kernel. A buffer belongs to the
//! [`Device`](super::device::Device) that made it: GPU memory from `cudarc`, or host memory the
//! emulator's kernels read and write like device memory.

use super::host_memory::HostMemory;
use cudarc::driver::CudaSlice;

/// Which device a buffer belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Owner {
    Gpu(usize),
    Emulator,
}

pub(crate) enum Memory<T> {
    Cuda {
        slice: CudaSlice<T>,
        /// The device address, as kernels receive it.
        addr: u64,
    },
    Host(HostMemory<T>),
}

/// `len` elements of `T` in device memory, owned; freed (in stream order on a GPU) on drop.
pub struct DeviceBuffer<T> {
    pub(crate) memory: Memory<T>,
    pub(crate) owner: Owner,
}

impl<T> DeviceBuffer<T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        match &self.memory {
            Memory::Cuda { slice, .. } => slice.len(),
            Memory::Host(h) => h.len(),
        }
    }

    /// Whether the buffer holds no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The underlying `cudarc` slice of a GPU buffer, for use with other `cudarc` code.
    pub fn as_cuda_slice(&self) -> Option<&CudaSlice<T>> {
        match &self.memory {
            Memory::Cuda { slice, .. } => Some(slice),
            Memory::Host(_) => None,
        }
    }

    /// The buffer as the `cudarc` slice it is on a GPU, without a copy (`Err(self)` for an
    /// emulator buffer). The slice lives on warpkit's stream ([`Gpu::stream`]): make other
    /// streams wait for it (`CudaStream::join`) before they use the slice.
    ///
    /// [`Gpu::stream`]: crate::Gpu::stream
    pub fn into_cuda_slice(self) -> Result<CudaSlice<T>, DeviceBuffer<T>> {
        match self.memory {
            Memory::Cuda { slice, .. } => Ok(slice),
            memory @ Memory::Host(_) => Err(DeviceBuffer {
                memory,
                owner: self.owner,
            }),
        }
    }

    /// The address kernels receive: a device address on a GPU (never dereferenced on the host),
    /// a host address in the emulator.
    pub(crate) fn kernel_ptr(&self) -> *mut T {
        match &self.memory {
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
