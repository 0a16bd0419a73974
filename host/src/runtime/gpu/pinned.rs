//! Page-locked host memory for [`PinnedBuffer`]s made on a GPU.

use super::Gpu;
use crate::error::{Error, Result};
use crate::runtime::pinned::PinnedBuffer;
use bytemuck::Pod;
use cudarc::driver::sys;

/// The alignment page-locked allocations have at least.
const PAGE: usize = 4096;

impl Gpu {
    /// `len` zeroed elements of page-locked host memory, usable with every context (portable).
    /// Ordinary memory for no bytes (and zero-sized `T`s) and for types aligned beyond a page.
    pub(crate) fn alloc_pinned<T: Pod>(&self, len: usize) -> Result<PinnedBuffer<T>> {
        let bytes = len
            .checked_mul(size_of::<T>())
            .filter(|&b| b <= isize::MAX as usize)
            .ok_or(Error::HostOutOfMemory { bytes: u64::MAX })?;
        if bytes == 0 || align_of::<T>() > PAGE {
            return PinnedBuffer::ordinary(len);
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
