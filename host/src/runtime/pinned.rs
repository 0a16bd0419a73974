//! [`PinnedBuffer`]: host memory that the GPU's copy engines read and write directly
//! (page-locked), which warpkit's host calls recognize wherever a slice of it is passed: it
//! moves at the link's full speed (about 55 GB/s each way on an H100's PCIe 5 link), where
//! ordinary memory passes through warpkit's staging buffers at the speed of a host copy.
//!
//! Each page-locked allocation is entered in a process-wide registry of address ranges, so that
//! a plain `&[T]` can be told apart without asking the driver.

use crate::error::{Error, Result};
use bytemuck::Pod;
#[cfg(feature = "cuda")]
use cudarc::driver::PinnedHostSlice;
#[cfg(feature = "cuda")]
use std::collections::BTreeMap;
use std::ops::{Deref, DerefMut};
#[cfg(feature = "cuda")]
use std::sync::Mutex;

/// Start → end address of each live page-locked allocation.
#[cfg(feature = "cuda")]
static REGISTRY: Mutex<BTreeMap<usize, usize>> = Mutex::new(BTreeMap::new());

/// Whether all of `s` lies in one [`PinnedBuffer`]'s page-locked memory.
#[cfg(feature = "cuda")]
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
    /// `len` elements at `ptr`, the start of the allocation (page-aligned), which is held for
    /// its drop (that frees the memory).
    #[cfg(feature = "cuda")]
    PageLocked {
        _allocation: PinnedHostSlice<u8>,
        ptr: *mut T,
        len: usize,
    },
    Ordinary(Vec<T>),
}

// SAFETY: the buffer owns its memory like a `Vec<T>`; the raw pointer is its own allocation's.
unsafe impl<T: Send> Send for PinnedBuffer<T> {}
// SAFETY: as above; shared references give only `&[T]`.
unsafe impl<T: Sync> Sync for PinnedBuffer<T> {}

impl<T: Pod> PinnedBuffer<T> {
    /// `len` zeros in ordinary memory (`HostOutOfMemory` where they do not fit).
    pub(crate) fn ordinary(len: usize) -> Result<PinnedBuffer<T>> {
        let mut zeros = Vec::new();
        zeros.try_reserve_exact(len).map_err(|_| Error::HostOutOfMemory {
            bytes: (len as u64).saturating_mul(size_of::<T>() as u64),
        })?;
        zeros.resize(len, T::zeroed());
        Ok(PinnedBuffer {
            memory: Memory::Ordinary(zeros),
        })
    }

    /// `bytes`, page-locked and zeroed, as `bytes.len() / size_of::<T>()` elements (entered in
    /// the registry until the buffer drops). `T` is not zero-sized, and aligned to a page at
    /// most (`Gpu::alloc_pinned` sees to both).
    #[cfg(feature = "cuda")]
    pub(crate) fn page_locked(mut bytes: PinnedHostSlice<u8>) -> Result<PinnedBuffer<T>> {
        let len = bytes.len() / size_of::<T>();
        let ptr = bytes.as_mut_ptr()?.cast::<T>();
        assert!(ptr.is_aligned(), "page-locked memory starts on a page");
        let start = ptr as usize;
        REGISTRY
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(start, start + len * size_of::<T>());
        Ok(PinnedBuffer {
            memory: Memory::PageLocked {
                _allocation: bytes,
                ptr,
                len,
            },
        })
    }
}

impl<T> PinnedBuffer<T> {
    /// Whether the memory is page-locked (made for a GPU).
    pub fn is_page_locked(&self) -> bool {
        match self.memory {
            #[cfg(feature = "cuda")]
            Memory::PageLocked { .. } => true,
            Memory::Ordinary(_) => false,
        }
    }
}

impl<T> Deref for PinnedBuffer<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        match &self.memory {
            // SAFETY: `len` zero-initialized (or since written) elements at `ptr`, owned here.
            #[cfg(feature = "cuda")]
            Memory::PageLocked { ptr, len, .. } => unsafe { std::slice::from_raw_parts(*ptr, *len) },
            Memory::Ordinary(v) => v,
        }
    }
}

impl<T> DerefMut for PinnedBuffer<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        match &mut self.memory {
            // SAFETY: as in `deref`, with `&mut self` the only reference.
            #[cfg(feature = "cuda")]
            Memory::PageLocked { ptr, len, .. } => unsafe { std::slice::from_raw_parts_mut(*ptr, *len) },
            Memory::Ordinary(v) => v,
        }
    }
}

impl<T> Drop for PinnedBuffer<T> {
    fn drop(&mut self) {
        // No copy is in flight from or to the memory: warpkit's copies of caller memory finish
        // before they return. The slice's own drop frees it.
        #[cfg(feature = "cuda")]
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
