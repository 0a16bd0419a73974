//! Block-wide reduction: a warp reduce in each warp, one shared slot per warp, then every
//! thread combines the warp totals in warp order (so floats give the same bits in every thread
//! and every run).

use crate::num::Element;
use crate::op::{Operator, Sum, Words};
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
        sync_threads();
        total
    }
}

#[inline(always)]
unsafe fn reduce_each_block<T: Element>(input: *const T, n: u64, out: *mut T) {
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

macro_rules! block_reduce_kernels {
    ($($name:ident: $t:ty),*) => {$(
        $crate::kernel! {
            /// Test kernel: `out[b]` = sum of block `b`'s elements, one element a thread.
            ///
            /// # Safety
            /// `input` holds `n` elements, `out` one per block; dynamic shared memory holds one
            /// element per warp.
            pub unsafe fn $name(input: *const $t, n: u64, out: *mut $t) {
                // SAFETY: forwarded to the launch contract above.
                unsafe { reduce_each_block(input, n, out) }
            }
        }
    )*};
}
block_reduce_kernels!(block_reduce_u32: u32, block_reduce_f64: f64);
