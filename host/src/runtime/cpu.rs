//! The CPU backend: the same primitives with rayon, in plain Rust. It serves machines without
//! a GPU and is the reference the GPU kernels are tested against.
//!
//! Work is split into fixed chunks (independent of the thread count), so float results repeat
//! exactly from run to run and machine to machine.

use super::element::Scalar;
use crate::error::Result;
use bytemuck::Pod;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};

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

/// A slice that several rayon tasks write at once, each element by one task, where the tasks'
/// elements are not ranges that `split_at_mut` could hand out (the alias sweeps write rows by
/// item, in an order only the sweep knows). Elements are stored as relaxed atomic words (plain
/// stores on x86-64 and AArch64), so two writes of one element would leave a wrong element,
/// never a data race; elements are [`Pod`], so any words make a valid one.
pub(crate) struct SharedWrites<'a, T> {
    words: &'a [AtomicU64],
    elements: PhantomData<&'a mut [T]>,
}

impl<'a, T: Pod> SharedWrites<'a, T> {
    /// Shared writes into `slice` for as long as it is borrowed. `T` must be whole, aligned
    /// `u64` words (as rows of 8 and 16 bytes are); anything else does not compile.
    pub(crate) fn new(slice: &'a mut [T]) -> SharedWrites<'a, T> {
        const { assert!(size_of::<T>().is_multiple_of(8) && align_of::<T>() >= 8) };
        let words: &'a mut [u64] = bytemuck::cast_slice_mut(slice);
        // SAFETY: `AtomicU64` has the size and bit validity of `u64`; the words are aligned to
        // 8 (as `T` is), and the exclusive borrow of them is held for `'a`.
        let words = unsafe { &*(words as *mut [u64] as *const [AtomicU64]) };
        SharedWrites {
            words,
            elements: PhantomData,
        }
    }
}

impl<T: Copy> SharedWrites<'_, T> {
    /// Stores `value` at `index` (panics past the end, as indexing does).
    pub(crate) fn write(&self, index: usize, value: T) {
        let n = size_of::<T>() / 8;
        let at = &self.words[index * n..][..n];
        let value = [value];
        let src = value.as_ptr().cast::<u64>();
        for (k, word) in at.iter().enumerate() {
            // SAFETY: a `SharedWrites` exists only for `Pod` elements of whole aligned words
            // (`new`), so word `k < n` of `value` is initialized and aligned.
            word.store(unsafe { src.add(k).read() }, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SharedWrites;
    use rayon::prelude::*;

    /// Tasks writing a permutation of the indices leave every element as its one writer wrote
    /// it, for elements of one word and of two.
    #[test]
    fn shared_writes_land_where_each_task_wrote() {
        let n = 100_000u64;
        let at = |i: u64| (i * 7919) % n;
        let mut one = vec![0u64; n as usize];
        let mut two = vec![[0u64; 2]; n as usize];
        let (w1, w2) = (SharedWrites::new(&mut one), SharedWrites::new(&mut two));
        (0..n).into_par_iter().for_each(|i| {
            w1.write(at(i) as usize, i);
            w2.write(at(i) as usize, [i, !i]);
        });
        for i in 0..n {
            assert_eq!(one[at(i) as usize], i);
            assert_eq!(two[at(i) as usize], [i, !i]);
        }
    }
}
