//! Dynamic shared memory as typed, bounds-checked slices.
//!
//! Rust 1.96 has no attribute that places a static in `.shared`, so the module declares one
//! external `.shared` array and takes its generic address; its size is whatever the launch
//! gave (`shared_mem_bytes`), read back from `%dynamic_smem_size` so a carve that does not fit
//! traps instead of reading another block's memory.

use core::marker::PhantomData;

core::arch::global_asm!(".extern .shared .align 16 .b8 WARPKIT_DYN_SMEM[];");

/// Bytes of dynamic shared memory the launch gave this block.
#[inline(always)]
pub fn dynamic_bytes() -> u32 {
    let n: u32;
    // SAFETY: reads a special register.
    unsafe {
        core::arch::asm!("mov.u32 {n}, %dynamic_smem_size;", n = out(reg32) n,
                         options(pure, nomem, nostack))
    };
    n
}

#[inline(always)]
fn base() -> *mut u8 {
    let p: *mut u8;
    // SAFETY: takes the generic address of the block's dynamic shared memory.
    unsafe {
        core::arch::asm!("cvta.shared.u64 {p}, WARPKIT_DYN_SMEM;", p = out(reg64) p,
                         options(pure, nomem, nostack))
    };
    p
}

/// `len` elements of `T` in this block's dynamic shared memory, from `byte_offset`.
///
/// Every thread of the block sees the same memory. Reads and writes are plain; ordering them
/// between threads is the caller's job (`sync_threads`, `sync_warp`), as in CUDA.
#[derive(Clone, Copy)]
pub struct SharedSlice<T: Copy> {
    ptr: *mut T,
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
    pub unsafe fn carve(byte_offset: u32, len: u32) -> Self {
        let end = byte_offset as u64 + len as u64 * core::mem::size_of::<T>() as u64;
        if end > dynamic_bytes() as u64 || byte_offset as usize % core::mem::align_of::<T>() != 0 {
            // SAFETY: ends the kernel; nothing is read or written.
            unsafe { core::arch::nvptx::trap() }
        }
        // SAFETY: `byte_offset` lies inside the launch's dynamic shared memory (checked above).
        let ptr = unsafe { base().add(byte_offset as usize) }.cast::<T>();
        SharedSlice {
            ptr,
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
    pub fn get(&self, i: u32) -> T {
        self.check(i);
        // SAFETY: `i < len`, inside the carved region.
        unsafe { self.ptr.add(i as usize).read() }
    }

    /// Writes element `i`; traps if `i` is out of range.
    #[inline(always)]
    pub fn set(&self, i: u32, v: T) {
        self.check(i);
        // SAFETY: `i < len`, inside the carved region.
        unsafe { self.ptr.add(i as usize).write(v) }
    }

    /// Generic address of element 0, for atomics.
    #[inline(always)]
    pub fn as_mut_ptr(&self) -> *mut T {
        self.ptr
    }

    #[inline(always)]
    fn check(&self, i: u32) {
        if i >= self.len {
            // SAFETY: ends the kernel.
            unsafe { core::arch::nvptx::trap() }
        }
    }
}
