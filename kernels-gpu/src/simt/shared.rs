//! Dynamic shared memory as typed slices, bounds-checked (`get`, `set`) or, for hot loops whose
//! indices are in range by construction, checked in the emulator only (the `_unchecked`
//! accessors and the atomic `add_unchecked`, `or_unchecked`, `xor_unchecked`).
//!
//! On the GPU, accesses use `ld.shared`/`st.shared` on the slice's shared-window address
//! (128-bit for 16-byte aligned types): generic `ld`/`st` through a `cvta` pointer, all that Rust
//! can name, take the slower generic path and long-scoreboard waits (measured on the H100 in the
//! alias pack, `results/alias.md`). `copy_async` fills a slot straight from global memory.
//!
//! The size is whatever the launch gave (`shared_mem_bytes`), read back from
//! `%dynamic_smem_size`, so a carve that does not fit traps instead of reading another block's
//! memory. In the emulator every access also goes through its race detector, which reports two
//! threads touching the same word between barriers (at least one writing, atomics racing only
//! with plain accesses) without a barrier or `sync_warp` ordering them.

use super::{hw, trap};
use core::marker::PhantomData;

/// Bytes of dynamic shared memory the launch gave this block.
#[inline(always)]
pub fn dynamic_bytes() -> u32 {
    hw::dynamic_smem_bytes()
}

/// 16 bytes of shared memory, aligned so one `ld.shared.v4` (or `.v2` for f64) reads them.
#[derive(Clone, Copy)]
#[repr(C, align(16))]
pub struct Quad<T: Copy>(pub T);

/// `len` elements of `T` in this block's dynamic shared memory, from `byte_offset`.
///
/// Every thread of the block sees the same memory. Reads and writes are plain; ordering them
/// between threads is the caller's job (`sync_threads`, `sync_warp`), as in CUDA.
#[derive(Clone, Copy)]
pub struct SharedSlice<T: Copy> {
    ptr: *mut T,
    /// The same place as a shared-window address, for `ld.shared`/`st.shared`.
    window: u32,
    len: u32,
    _t: PhantomData<T>,
}

impl<T: Copy> SharedSlice<T> {
    /// Carves `[byte_offset, byte_offset + len * size_of::<T>())` out of the dynamic shared
    /// memory; traps if the launch gave less or the offset is misaligned for `T`.
    ///
    /// # Safety
    /// Slices of different element types over the same bytes must not be used between the
    /// same two barriers.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub unsafe fn carve(byte_offset: u32, len: u32) -> Self {
        let end = byte_offset as u64 + len as u64 * size_of::<T>() as u64;
        if end > dynamic_bytes() as u64 || !(byte_offset as usize).is_multiple_of(align_of::<T>()) {
            trap()
        }
        // SAFETY: `byte_offset` lies inside the launch's dynamic shared memory (checked above).
        let ptr = unsafe { hw::smem_base().add(byte_offset as usize) }.cast::<T>();
        SharedSlice {
            ptr,
            window: hw::smem_window() + byte_offset,
            len,
            _t: PhantomData,
        }
    }

    /// Elements in the slice.
    #[inline(always)]
    pub fn len(&self) -> u32 {
        self.len
    }

    /// Whether the slice holds no elements.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Element `i`; traps if `i` is out of range.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn get(&self, i: u32) -> T {
        self.check(i);
        // SAFETY: `i < len` (checked above).
        unsafe { self.read(i) }
    }

    /// Writes element `i`; traps if `i` is out of range.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn set(&self, i: u32, v: T) {
        self.check(i);
        // SAFETY: `i < len` (checked above).
        unsafe { self.write(i, v) }
    }

    /// Element `i` without the bounds check on the GPU, for hot loops whose index is in range
    /// by construction (the check is a compare and a branch per access, a tenth of the
    /// multisplit scatter's instructions). The emulator still checks.
    ///
    /// # Safety
    /// `i < self.len()`.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub unsafe fn get_unchecked(&self, i: u32) -> T {
        #[cfg(not(target_arch = "nvptx64"))]
        self.check(i);
        // SAFETY: the caller's contract.
        unsafe { self.read(i) }
    }

    /// Writes element `i` without the bounds check on the GPU, as [`SharedSlice::get_unchecked`].
    ///
    /// # Safety
    /// `i < self.len()`.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub unsafe fn set_unchecked(&self, i: u32, v: T) {
        #[cfg(not(target_arch = "nvptx64"))]
        self.check(i);
        // SAFETY: the caller's contract.
        unsafe { self.write(i, v) }
    }

    /// # Safety
    /// `i < len`.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    unsafe fn read(&self, i: u32) -> T {
        #[cfg(not(target_arch = "nvptx64"))]
        hw::shared_access(
            self.ptr.wrapping_add(i as usize).cast(),
            size_of::<T>(),
            hw::AccessKind::Read,
        );
        // SAFETY: `i < len`, inside the carved region, aligned for T (checked by `carve`).
        unsafe { hw::ld_shared(self.window_of(i), self.ptr.add(i as usize)) }
    }

    /// # Safety
    /// `i < len`.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    unsafe fn write(&self, i: u32, v: T) {
        #[cfg(not(target_arch = "nvptx64"))]
        hw::shared_access(
            self.ptr.wrapping_add(i as usize).cast(),
            size_of::<T>(),
            hw::AccessKind::Write,
        );
        // SAFETY: `i < len`, inside the carved region, aligned for T (checked by `carve`).
        unsafe { hw::st_shared(self.window_of(i), self.ptr.add(i as usize), v) }
    }

    /// Starts copying the 16-byte element at `src` (global memory) into element `i` without
    /// passing it through registers, so one thread can have many copies in flight: the value
    /// is there for this thread after [`wait_copies`], for the block after a barrier that
    /// follows it. Traps if `i` is out of range.
    ///
    /// # Safety
    /// `T` is 16 bytes; `src` is valid, 16-byte aligned, in global memory, and not written
    /// until the copy lands; the slice was carved at a 16-byte aligned offset.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub unsafe fn copy_async(&self, i: u32, src: *const T) {
        const { assert!(size_of::<T>() == 16) };
        self.check(i);
        #[cfg(not(target_arch = "nvptx64"))]
        hw::shared_access(
            self.ptr.wrapping_add(i as usize).cast(),
            16,
            hw::AccessKind::Write,
        );
        // SAFETY: `i < len`; the rest is the caller's contract.
        unsafe { hw::copy_async16(self.window_of(i), self.ptr.add(i as usize).cast(), src.cast()) }
    }

    /// As [`SharedSlice::copy_async`], for the 8-byte word at `src` into the first 8 bytes of
    /// element `i` (the rest of the element is left as it was).
    ///
    /// # Safety
    /// `T` is 16 bytes; `src` is valid, 8-byte aligned, in global memory, and not written until
    /// the copy lands; the slice was carved at a 16-byte aligned offset.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub unsafe fn copy_async_front(&self, i: u32, src: *const u64) {
        const { assert!(size_of::<T>() == 16) };
        self.check(i);
        #[cfg(not(target_arch = "nvptx64"))]
        hw::shared_access(self.ptr.wrapping_add(i as usize).cast(), 8, hw::AccessKind::Write);
        // SAFETY: `i < len`; the rest is the caller's contract.
        unsafe { hw::copy_async8(self.window_of(i), self.ptr.add(i as usize).cast(), src.cast()) }
    }

    /// The elements from `from` on, as a slice of their own, unchecked on the GPU as
    /// [`SharedSlice::get_unchecked`]: a hot loop that walks a slice by advancing it reads at
    /// its base plus constants, which the loads take as immediate offsets.
    ///
    /// # Safety
    /// `from <= self.len()`.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub unsafe fn tail_unchecked(&self, from: u32) -> SharedSlice<T> {
        #[cfg(not(target_arch = "nvptx64"))]
        if from > self.len {
            trap()
        }
        SharedSlice {
            ptr: self.ptr.wrapping_add(from as usize),
            window: self.window_of(from),
            len: self.len - from,
            _t: PhantomData,
        }
    }

    /// Generic address of element 0, for atomics (which the race detector does not track).
    #[inline(always)]
    pub fn as_mut_ptr(&self) -> *mut T {
        self.ptr
    }

    /// Element `i`'s shared-window address.
    #[inline(always)]
    fn window_of(&self, i: u32) -> u32 {
        self.window + i * size_of::<T>() as u32
    }

    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    fn check(&self, i: u32) {
        if i >= self.len {
            trap()
        }
    }
}

/// Atomic updates of shared words by `red.shared`: one instruction on the shared-memory path (an
/// atomic through the generic address takes the generic path), serialized only among lanes
/// that hit the same word. The race detector sees them as atomic accesses: they need no order
/// among themselves, but a barrier or `sync_warp` from plain reads and writes of the same
/// words. Unchecked like [`SharedSlice::get_unchecked`]: they serve hot loops.
impl SharedSlice<u32> {
    /// Adds `v` to element `i`.
    ///
    /// # Safety
    /// `i < self.len()` (checked in the emulator only).
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub unsafe fn add_unchecked(&self, i: u32, v: u32) {
        #[cfg(not(target_arch = "nvptx64"))]
        self.check(i);
        // SAFETY: `i < len` (the caller's contract), an aligned word inside the carved region.
        unsafe { hw::red_shared_add_u32(self.window_of(i), self.ptr.add(i as usize), v) }
    }

    /// Sets the bits of `v` in element `i`.
    ///
    /// # Safety
    /// As for [`SharedSlice::add_unchecked`].
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub unsafe fn or_unchecked(&self, i: u32, v: u32) {
        #[cfg(not(target_arch = "nvptx64"))]
        self.check(i);
        // SAFETY: as for `add_unchecked`.
        unsafe { hw::red_shared_or_u32(self.window_of(i), self.ptr.add(i as usize), v) }
    }

    /// Flips the bits of `v` in element `i`.
    ///
    /// # Safety
    /// As for [`SharedSlice::add_unchecked`].
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub unsafe fn xor_unchecked(&self, i: u32, v: u32) {
        #[cfg(not(target_arch = "nvptx64"))]
        self.check(i);
        // SAFETY: as for `add_unchecked`.
        unsafe { hw::red_shared_xor_u32(self.window_of(i), self.ptr.add(i as usize), v) }
    }
}

/// Waits until this thread's [`SharedSlice::copy_async`] copies have landed.
#[inline(always)]
pub fn wait_copies() {
    hw::wait_copies()
}
