//! [`PinnedBuffer`]: host memory that the GPU's copy engines read and write directly
//! (page-locked), which warpkit's host calls recognize wherever a slice of it is passed: it
//! moves at the link's full speed (about 55 GB/s each way on an H100's PCIe 5 link), where
//! ordinary memory passes through warpkit's staging buffers at the speed of a host copy.
//!
//! Each page-locked allocation is entered in a process-wide registry of address ranges, so that
//! a plain `&[T]` can be told apart without asking the driver.

use super::Gpu;
use crate::error::Result;
use cudarc::driver::{DeviceRepr, PinnedHostSlice, ValidAsZeroBits, sys};
use std::collections::BTreeMap;
use std::ops::{Deref, DerefMut};
use std::sync::Mutex;

/// Start → end address of each live page-locked allocation.
static REGISTRY: Mutex<BTreeMap<usize, usize>> = Mutex::new(BTreeMap::new());

/// Whether all of `s` lies in one [`PinnedBuffer`]'s page-locked memory.
pub(crate) fn is_pinned<T>(s: &[T]) -> bool {
    let start = s.as_ptr() as usize;
    let end = start + size_of_val(s);
    let registry = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
    registry
        .range(..=start)
        .next_back()
        .is_some_and(|(_, &range_end)| end <= range_end)
}

/// `len` elements of host memory, page-locked when made for a GPU (ordinary memory on the
/// emulator and the CPU backend, where nothing is gained by locking it). Dereferences to a
/// slice; pass that slice, or any part of it, to a host call of warpkit and its copies skip the
/// staging buffers.
pub struct PinnedBuffer<T> {
    memory: Memory<T>,
}

enum Memory<T> {
    PageLocked { slice: PinnedHostSlice<T>, ptr: *mut T },
    Ordinary(Vec<T>),
}

// SAFETY: the buffer owns its memory like a `Vec<T>`; the raw pointer is its own allocation's.
unsafe impl<T: Send> Send for PinnedBuffer<T> {}
// SAFETY: as above; shared references give only `&[T]`.
unsafe impl<T: Sync> Sync for PinnedBuffer<T> {}

impl<T: DeviceRepr + ValidAsZeroBits + Copy> PinnedBuffer<T> {
    /// `len` zeros in ordinary memory.
    pub(crate) fn ordinary(len: usize) -> PinnedBuffer<T> {
        // SAFETY: `T: ValidAsZeroBits`.
        let zeros = (0..len).map(|_| unsafe { std::mem::zeroed() }).collect();
        PinnedBuffer {
            memory: Memory::Ordinary(zeros),
        }
    }
}

impl Gpu {
    /// `len` zeroed elements of page-locked host memory, usable with every context (portable).
    pub(crate) fn alloc_pinned<T: DeviceRepr + ValidAsZeroBits + Copy>(
        &self,
        len: usize,
    ) -> Result<PinnedBuffer<T>> {
        if len == 0 {
            return Ok(PinnedBuffer::ordinary(0));
        }
        // SAFETY: the memory is zeroed below before any element is read.
        let mut slice = unsafe {
            self.context()
                .alloc_pinned_with_flags::<T>(len, sys::CU_MEMHOSTALLOC_PORTABLE)?
        };
        let ptr = slice.as_mut_ptr()?;
        // SAFETY: `ptr` holds `len` elements; all zero bits are a valid `T`. Locked pages are
        // resident, so one thread writes them at memory speed.
        unsafe { ptr.write_bytes(0, len) };
        let start = ptr as usize;
        REGISTRY
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(start, start + len * size_of::<T>());
        Ok(PinnedBuffer {
            memory: Memory::PageLocked { slice, ptr },
        })
    }
}

impl<T> PinnedBuffer<T> {
    /// Whether the memory is page-locked (made for a GPU).
    pub fn is_page_locked(&self) -> bool {
        matches!(self.memory, Memory::PageLocked { .. })
    }
}

impl<T> Deref for PinnedBuffer<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        match &self.memory {
            // SAFETY: `len` zero-initialized (or since written) elements at `ptr`, owned here.
            Memory::PageLocked { slice, ptr } => unsafe { std::slice::from_raw_parts(*ptr, slice.len()) },
            Memory::Ordinary(v) => v,
        }
    }
}

impl<T> DerefMut for PinnedBuffer<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        match &mut self.memory {
            // SAFETY: as in `deref`, with `&mut self` the only reference.
            Memory::PageLocked { slice, ptr } => unsafe { std::slice::from_raw_parts_mut(*ptr, slice.len()) },
            Memory::Ordinary(v) => v,
        }
    }
}

impl<T> Drop for PinnedBuffer<T> {
    fn drop(&mut self) {
        // No copy is in flight from or to the memory: warpkit's copies of caller memory finish
        // before they return. The slice's own drop frees it.
        if let Memory::PageLocked { ptr, .. } = &self.memory {
            REGISTRY
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&(*ptr as usize));
        }
    }
}

impl<T> std::fmt::Debug for PinnedBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PinnedBuffer")
            .field("len", &self.len())
            .field("page_locked", &self.is_page_locked())
            .finish()
    }
}
