//! Host memory that the emulator's kernels read and write as device memory: aligned like a
//! CUDA allocation, owned like a `Box<[T]>`. Below both the device buffers that hold it and
//! the [`Emulator`](super::emulator::Emulator) that allocates it.

use crate::error::{Error, Result};
use std::alloc::{Layout, alloc, alloc_zeroed, dealloc};

/// Alignment of emulator buffers: that of `cudaMalloc`, so vectorized paths are taken alike.
const ALIGN: usize = 256;

/// `len` elements of `T` in host memory that emulated kernels use as device memory.
pub(crate) struct HostMemory<T> {
    ptr: *mut T,
    len: usize,
    layout: Layout,
}

// SAFETY: the memory is owned like a `Box<[T]>`; kernels reach it only during launches, which
// the owner's borrows order.
unsafe impl<T: Send> Send for HostMemory<T> {}
// SAFETY: as above.
unsafe impl<T: Sync> Sync for HostMemory<T> {}

impl<T: Copy> HostMemory<T> {
    /// Zeroed memory for `len` elements, or a copy of `data`.
    pub(super) fn new(len: usize, data: Option<&[T]>) -> Result<HostMemory<T>> {
        let bytes = len.checked_mul(size_of::<T>()).ok_or(Error::OutOfMemory)?;
        // A user's `Pod` type may ask for more than a CUDA allocation's alignment.
        let align = ALIGN.max(align_of::<T>());
        let layout = Layout::from_size_align(bytes.max(align), align).map_err(|_| Error::OutOfMemory)?;
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe {
            if data.is_some() {
                alloc(layout)
            } else {
                alloc_zeroed(layout)
            }
        }
        .cast::<T>();
        if ptr.is_null() {
            return Err(Error::OutOfMemory);
        }
        if let Some(d) = data {
            // SAFETY: `ptr` holds `len == d.len()` elements and does not overlap `d`.
            unsafe { ptr.copy_from_nonoverlapping(d.as_ptr(), d.len()) };
        }
        Ok(HostMemory { ptr, len, layout })
    }
}

impl<T> HostMemory<T> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn as_ptr(&self) -> *mut T {
        self.ptr
    }

    /// The elements, for copies to and from the host.
    ///
    /// # Safety
    /// No launch is writing the memory (launches are synchronous, so none is in flight).
    pub unsafe fn as_slice(&self) -> &[T] {
        // SAFETY: `len` initialized elements (zeroed or copied) at `ptr`.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl<T> Drop for HostMemory<T> {
    fn drop(&mut self) {
        // SAFETY: allocated with this layout in `new`.
        unsafe { dealloc(self.ptr.cast(), self.layout) }
    }
}
