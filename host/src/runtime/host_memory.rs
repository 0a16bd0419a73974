//! Host memory that the emulator's kernels read and write as device memory: aligned like a
//! CUDA allocation, owned like a `Box<[T]>`. Below both the device buffers that hold it and
//! the [`Emulator`](super::emulator::Emulator) that allocates it.

use crate::error::{Error, Result};
use warpkit_kernels::emu::memory::GlobalMemory;

/// `len` elements of `T` in host memory that emulated kernels use as device memory: fenced by
/// guard pages (where the system allows), so that an out-of-bounds access is reported with its
/// thread and address (see [`warpkit_kernels::emu::memory`]).
pub(crate) struct HostMemory<T> {
    memory: GlobalMemory,
    len: usize,
    _elements: std::marker::PhantomData<T>,
}

impl<T: Copy> HostMemory<T> {
    /// Zeroed memory for `len` elements, or a copy of `data`.
    pub(super) fn new(len: usize, data: Option<&[T]>) -> Result<HostMemory<T>> {
        let bytes = len.checked_mul(size_of::<T>()).ok_or(Error::OutOfMemory)?;
        // A user's `Pod` type may ask for more than a CUDA allocation's 16-byte vectors.
        let memory = GlobalMemory::new(bytes, align_of::<T>()).ok_or(Error::OutOfMemory)?;
        let ptr = memory.as_ptr().cast::<T>();
        if let Some(d) = data {
            // SAFETY: `ptr` holds `len == d.len()` elements and does not overlap `d`.
            unsafe { ptr.copy_from_nonoverlapping(d.as_ptr(), d.len()) };
        }
        Ok(HostMemory {
            memory,
            len,
            _elements: std::marker::PhantomData,
        })
    }
}

impl<T> HostMemory<T> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn as_ptr(&self) -> *mut T {
        self.memory.as_ptr().cast()
    }

    /// The elements, for copies to and from the host.
    ///
    /// # Safety
    /// No launch is writing the memory (launches are synchronous, so none is in flight).
    pub unsafe fn as_slice(&self) -> &[T] {
        // SAFETY: `len` initialized elements (zeroed or copied) at `ptr`.
        unsafe { std::slice::from_raw_parts(self.as_ptr(), self.len) }
    }
}
