//! 128-bit global loads and stores: one `ld.global.v2.b64` / `st.global.v2.b64` a thread, the
//! width that lets a warp move 512 contiguous bytes in one instruction; prefetches into L2.

use super::hw;

/// Whether `p` is 16-byte aligned, so the vector accesses below may use it.
#[inline(always)]
pub fn is_aligned16<T>(p: *const T) -> bool {
    (p as usize) & 15 == 0
}

/// Reads `N` consecutive elements of `T` (`N * size_of::<T>() == 16`) at `p` as one access.
///
/// # Safety
/// `p` must be 16-byte aligned and valid for reading 16 bytes.
#[inline(always)]
pub unsafe fn load128<T: Copy, const N: usize>(p: *const T) -> [T; N] {
    const { assert!(N * core::mem::size_of::<T>() == 16) };
    // SAFETY: the caller guarantees alignment and validity; sizes match (checked above).
    unsafe { core::mem::transmute_copy(&p.cast::<u128>().read()) }
}

/// Writes `N` consecutive elements of `T` (`N * size_of::<T>() == 16`) at `p` as one access.
///
/// # Safety
/// `p` must be 16-byte aligned and valid for writing 16 bytes.
#[inline(always)]
pub unsafe fn store128<T: Copy, const N: usize>(p: *mut T, v: [T; N]) {
    const { assert!(N * core::mem::size_of::<T>() == 16) };
    // SAFETY: the caller guarantees alignment and validity; sizes match (checked above).
    unsafe { p.cast::<u128>().write(core::mem::transmute_copy(&v)) }
}

/// `p[i]` if `i < n`, else `fallback`, without a branch.
///
/// Kernels that read `if i < n`, run a warp or block collective, then write `if i < n` invite
/// LLVM to duplicate the collective into both arms (rustc does not mark functions convergent),
/// and lanes in different copies of a `shfl.sync` hang the warp. Reading through this keeps the
/// first condition out of the control flow.
///
/// # Safety
/// `n > 0` and `p` valid for reading `n` elements.
#[inline(always)]
pub unsafe fn read_or<T: Copy>(p: *const T, i: u64, n: u64, fallback: T) -> T {
    let valid = i < n;
    // SAFETY: the index is `i < n` or 0, both in bounds since `n > 0`.
    let v = unsafe { p.add(if valid { i } else { 0 } as usize).read() };
    if valid { v } else { fallback }
}

/// Reads `N` consecutive elements of `T` at `p` as `N * size_of::<T>() / 16` 16-byte vectors
/// (a whole number of them), for a thread that loads a run of keys or values at once.
///
/// # Safety
/// `p` must be 16-byte aligned and valid for reading `N` elements.
#[inline(always)]
pub unsafe fn load_vectors<T: Copy, const N: usize>(p: *const T) -> [T; N] {
    const { assert!((N * size_of::<T>()).is_multiple_of(16)) };
    let mut run = core::mem::MaybeUninit::<[T; N]>::uninit();
    for v in 0..N * size_of::<T>() / 16 {
        // SAFETY: vector `v` lies within the `N` elements at `p` and is aligned (the caller's
        // contract); the write covers bytes `16v..16v + 16` of `run`, whose `N` elements the
        // loop fills completely.
        unsafe {
            let x: [u64; 2] = load128(p.byte_add(16 * v).cast::<u64>());
            run.as_mut_ptr().cast::<[u64; 2]>().add(v).write_unaligned(x);
        }
    }
    // SAFETY: every byte was written above.
    unsafe { run.assume_init() }
}

/// Starts bringing the L2 cache lines of `bytes` bytes at `p` into L2, one line a thread of
/// the block (threads past the lines do nothing), so that a block that reads them later finds
/// them there.
///
/// # Safety
/// `p .. p + bytes` lies in global memory the kernel may read (PTX does not promise that a
/// prefetch of any other address is harmless).
#[inline(always)]
pub unsafe fn prefetch_l2_block(p: *const u8, bytes: usize) {
    const LINE: usize = 128;
    let line = super::thread_x() as usize;
    if line < bytes.div_ceil(LINE) {
        // SAFETY: the line starts below `p + bytes` (the caller's range).
        unsafe { hw::prefetch_l2(p.add(line * LINE)) };
    }
}
