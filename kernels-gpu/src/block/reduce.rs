//! Block-wide reduction: a warp reduce in each warp, one shared slot per warp, then every
//! thread combines the warp totals in warp order (so floats give the same bits in every thread
//! and every run).

use crate::launch::LaunchShape;
use crate::num::Element;
use crate::op::{Operator, Sum, Words};
use crate::policy::checks::{LEVEL_TEST_BLOCK_THREADS, per_element, per_warp};
use crate::simt::check::Elements;
use crate::simt::memory::read_or;
use crate::simt::shared::SharedSlice;
use crate::simt::{block_x, global_x, lane_id, sync_threads, thread_rank, warp_id, warps_per_block};
use crate::warp;

/// `v` combined by `op` over the block (threads in order), in every thread. `scratch` needs one
/// slot per warp; it may be reused as soon as this returns.
///
/// # Safety
/// Every thread of the block calls this together; the block size is a multiple of 32.
#[inline(always)]
pub unsafe fn reduce<T: Words, O: Operator<T>>(v: T, op: O, scratch: SharedSlice<T>) -> T {
    // SAFETY: the caller's contract; the barrier ends the reads of `scratch`.
    unsafe {
        let total = reduce_holding(v, op, scratch);
        sync_threads();
        total
    }
}

/// As [`reduce`] with one block barrier instead of two: threads may still read `scratch` when
/// this returns, so it holds `scratch` until the block's next barrier (a kernel that alternates
/// two scratches between reductions needs no other).
///
/// # Safety
/// As [`reduce`], and no thread writes `scratch` after this call until the block's next barrier.
#[inline(always)]
pub unsafe fn reduce_holding<T: Words, O: Operator<T>>(v: T, op: O, scratch: SharedSlice<T>) -> T {
    // SAFETY: the whole block, hence every whole warp, is here (caller's contract).
    unsafe {
        let w = warp::reduce(v, op);
        if lane_id() == 0 {
            scratch.set(warp_id(), w);
        }
        sync_threads();
        let mut total = op.identity();
        for i in 0..warps_per_block() {
            total = op.combine(total, scratch.get(i));
        }
        total
    }
}

own_kernel! {
    /// Parameters of the block reduction's test kernel: `n` elements of `input`, one a thread,
    /// each block's sum to `out` (one a block).
    pub struct BlockReduce<T: Element> {
        #[group]
        pub elements: Elements<T>,
        #[len(elements.n.div_ceil(LEVEL_TEST_BLOCK_THREADS as u64))]
        pub out: *mut T,
    }
    check |p, shape| *shape == p.plan();
    /// Sum of each block's elements.
    fn reduce_each_block => block_reduce_u32<u32>, block_reduce_f64<f64>;
}

impl<T: Element> BlockReduce<T> {
    /// A thread an element, with a `T` of shared memory a warp.
    pub const fn plan(&self) -> LaunchShape {
        per_element(self.elements.n, per_warp(size_of::<T>()))
    }
}

/// Test kernel body: `out[b]` = sum of block `b`'s elements, one element a thread.
///
/// # Safety
/// `input` holds `n` elements, `out` one per block; the launch is [`BlockReduce::plan`] (any
/// blocks of whole warps with a `T` of dynamic shared memory a warp).
#[inline(always)]
pub unsafe fn reduce_each_block<T: Element>(p: BlockReduce<T>) {
    let BlockReduce {
        elements: Elements { input, n },
        out,
    } = p;
    let i = global_x();
    // SAFETY: accesses bounded by `n` and the block count; the whole block calls `reduce`.
    unsafe {
        let scratch = SharedSlice::<T>::carve(0, warps_per_block());
        let v = read_or(input, i, n, T::ZERO);
        let total = reduce(v, Sum, scratch);
        if thread_rank() == 0 {
            *out.add(block_x() as usize) = total;
        }
    }
}
