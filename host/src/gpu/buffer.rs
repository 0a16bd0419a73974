//! Typed device buffers: the only way data reaches a warpkit kernel.

use super::Gpu;
use crate::error::Result;
use cudarc::driver::{CudaSlice, DeviceRepr, ValidAsZeroBits};

/// `len` elements of `T` in device memory, owned; freed (in stream order) on drop.
pub struct DeviceBuffer<T> {
    pub(crate) slice: CudaSlice<T>,
}

impl<T> DeviceBuffer<T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.slice.len()
    }

    /// Whether the buffer holds no elements.
    pub fn is_empty(&self) -> bool {
        self.slice.len() == 0
    }

    /// The underlying `cudarc` slice, for use with other `cudarc` code.
    pub fn as_cuda_slice(&self) -> &CudaSlice<T> {
        &self.slice
    }
}

impl Gpu {
    /// Copies `data` to a new device buffer.
    pub fn upload<T: DeviceRepr>(&self, data: &[T]) -> Result<DeviceBuffer<T>> {
        Ok(DeviceBuffer {
            slice: self.stream().clone_htod(data)?,
        })
    }

    /// A new buffer of `len` zeroed elements.
    pub fn zeros<T: DeviceRepr + ValidAsZeroBits>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        Ok(DeviceBuffer {
            slice: self.stream().alloc_zeros(len)?,
        })
    }

    /// A new buffer of `len` copies of `value` (tests poison outputs this way).
    pub fn filled<T: DeviceRepr + Clone>(&self, len: usize, value: T) -> Result<DeviceBuffer<T>> {
        self.upload(&vec![value; len])
    }

    /// Copies a device buffer back to a `Vec`, waiting for the work before it.
    pub fn download<T: DeviceRepr>(&self, buffer: &DeviceBuffer<T>) -> Result<Vec<T>> {
        Ok(self.stream().clone_dtoh(&buffer.slice)?)
    }
}
