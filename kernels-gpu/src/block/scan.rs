//! Block-wide exclusive prefix scan: a warp scan in each warp, warp totals through shared
//! memory, and each thread combines the totals of the warps before its own.

use crate::launch::LaunchShape;
use crate::num::Element;
use crate::op::{Operator, Sum, Words};
use crate::policy::checks::{per_element, per_warp};
use crate::simt::check::Elements;
use crate::simt::memory::read_or;
use crate::simt::shared::SharedSlice;
use crate::simt::{WARP_SIZE, global_x, lane_id, sync_threads, warp_id, warps_per_block};
use crate::warp;

/// Exclusive prefix of `v` by `op` in thread order (thread 0 gets the identity), and the
/// block's total, in every thread. `scratch` needs one slot per warp; it may be reused as soon
/// as this returns.
///
/// # Safety
/// Every thread of the block calls this together; the block size is a multiple of 32.
#[inline(always)]
pub unsafe fn exclusive_scan<T: Words, O: Operator<T>>(v: T, op: O, scratch: SharedSlice<T>) -> (T, T) {
    // SAFETY: the whole block, hence every whole warp, is here (caller's contract).
    unsafe {
        let (prefix, warp_total) = warp::exclusive_scan(v, op);
        if lane_id() == WARP_SIZE - 1 {
            scratch.set(warp_id(), warp_total);
        }
        sync_threads();
        let (mut before, mut total) = (op.identity(), op.identity());
        for i in 0..warps_per_block() {
            if i == warp_id() {
                before = total;
            }
            total = op.combine(total, scratch.get(i));
        }
        sync_threads();
        (op.combine(before, prefix), total)
    }
}

own_kernel! {
    /// Parameters of the block scan's test kernel: `n` elements of `input`, one a thread, the
    /// exclusive scan within each block to `out`.
    pub struct BlockScan<T: Element> {
        #[group]
        pub elements: Elements<T>,
        #[len(elements.n)]
        pub out: *mut T,
    }
    check |p, shape| *shape == p.plan();
    /// Exclusive scan within each block's elements.
    fn scan_each_block => block_scan_exclusive_u32<u32>, block_scan_exclusive_f64<f64>;
}

impl<T: Element> BlockScan<T> {
    /// A thread an element, with a `T` of shared memory a warp.
    pub const fn plan(&self) -> LaunchShape {
        per_element(self.elements.n, per_warp(size_of::<T>()))
    }
}

/// Test kernel body: exclusive scan within each block's elements (one element a thread).
///
/// # Safety
/// `input` and `out` hold `n` elements; the launch is [`BlockScan::plan`] (any blocks of whole
/// warps with a `T` of dynamic shared memory a warp).
#[inline(always)]
pub unsafe fn scan_each_block<T: Element>(p: BlockScan<T>) {
    let BlockScan {
        elements: Elements { input, n },
        out,
    } = p;
    let i = global_x();
    // SAFETY: accesses bounded by `n`; the whole block calls the scan.
    unsafe {
        let scratch = SharedSlice::<T>::carve(0, warps_per_block());
        let v = read_or(input, i, n, T::ZERO);
        let (prefix, _) = exclusive_scan(v, Sum, scratch);
        if i < n {
            *out.add(i as usize) = prefix;
        }
    }
}
