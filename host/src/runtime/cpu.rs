//! The CPU backend: the same primitives with rayon, in plain Rust. It serves machines without
//! a GPU and is the reference the GPU kernels are tested against. Each area adds its methods
//! to [`Cpu`] in its own `cpu.rs`; this module holds the engine and its chunking.
//!
//! Work is split into fixed chunks (independent of the thread count), so float results repeat
//! exactly from run to run and machine to machine.

use super::element::Scalar;
use crate::error::Result;

/// Elements per rayon task.
pub(crate) const CHUNK: usize = 1 << 16;

/// The CPU backend (stateless; rayon's global pool runs the work).
#[derive(Clone, Copy, Debug, Default)]
pub struct Cpu;

/// The sum of one chunk, in order.
pub(crate) fn sum_seq<T: Scalar>(xs: &[T]) -> T {
    xs.iter().fold(T::ZERO, |a, &b| a.add(b))
}

/// A vector of `len` elements, all written by `fill` (the allocating form of an `_into` call).
pub(crate) fn filled_by<T: Scalar>(len: usize, fill: impl FnOnce(&mut [T]) -> Result<()>) -> Result<Vec<T>> {
    // Zeros from fresh (calloc'd) pages, not yet touched.
    let mut out = vec![T::ZERO; len];
    prefer_huge_pages(out.as_ptr().cast(), len * size_of::<T>());
    fill(&mut out)?;
    Ok(out)
}

/// Asks Linux to back the untouched allocation of `bytes` at `ptr` with 2 MiB pages (where
/// transparent huge pages are in `madvise` mode, as on the lent GPU machines), so that writing
/// a fresh result of 256 MiB takes 128 page faults instead of 65536. Only the whole 2 MiB
/// pages inside the allocation are advised; elsewhere it does nothing.
pub(crate) fn prefer_huge_pages(ptr: *const u8, bytes: usize) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = (ptr as usize).next_multiple_of(HUGE);
        let end = (ptr as usize).saturating_add(bytes) / HUGE * HUGE;
        if end > start {
            // SAFETY: advice on whole pages of an allocation the caller owns; it changes no
            // contents and its failure (an older kernel) is harmless.
            unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (ptr, bytes);
}
