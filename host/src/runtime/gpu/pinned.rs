//! Page-locked host memory for [`PinnedBuffer`]s made on a GPU.

use super::Gpu;
use crate::error::Result;
use crate::runtime::pinned::PinnedBuffer;
use bytemuck::Pod;
use cudarc::driver::sys;

impl Gpu {
    /// `len` zeroed elements of page-locked host memory, usable with every context (portable).
    pub(crate) fn alloc_pinned<T: Pod>(&self, len: usize) -> Result<PinnedBuffer<T>> {
        let bytes = len.saturating_mul(size_of::<T>());
        if bytes == 0 {
            return Ok(PinnedBuffer::ordinary(len));
        }
        // SAFETY: the memory is zeroed below before any element is read.
        let mut slice = unsafe {
            self.context()
                .alloc_pinned_with_flags::<u8>(bytes, sys::CU_MEMHOSTALLOC_PORTABLE)?
        };
        // SAFETY: `bytes` bytes at the pointer; all zero bits are a valid `T`. Locked pages are
        // resident, so one thread writes them at memory speed.
        unsafe { slice.as_mut_ptr()?.write_bytes(0, bytes) };
        PinnedBuffer::page_locked(slice)
    }
}
