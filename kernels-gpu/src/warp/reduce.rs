//! Warp-wide reduction by butterfly shuffles: 5 rounds, after which every lane holds the
//! combination of all 32 values.

use crate::launch::LaunchShape;
use crate::num::Element;
use crate::op::{Operator, Sum, Words};
use crate::policy::checks::per_element;
use crate::simt::memory::read_or;
use crate::simt::warp::{FULL_MASK, shfl_xor};
use crate::simt::{WARP_SIZE, global_x, lane_id};

/// `v` combined by `op` over the 32 lanes, in every lane.
///
/// Each round combines a lane's value with its butterfly partner's, the lower lane's on the
/// left, so every lane ends with the same bits, lanes combined in order. A commutative operator
/// ([`Operator::COMMUTATIVE`]) skips the ordering.
///
/// # Safety
/// All 32 lanes of the warp must call this together.
#[inline(always)]
pub unsafe fn reduce<T: Words, O: Operator<T>>(v: T, op: O) -> T {
    let mut v = v;
    let mut offset = WARP_SIZE / 2;
    while offset > 0 {
        // SAFETY: the whole warp is here (caller's contract).
        let other = unsafe { shfl_xor(FULL_MASK, v, offset) };
        v = if O::COMMUTATIVE || lane_id() & offset == 0 {
            op.combine(v, other)
        } else {
            op.combine(other, v)
        };
        offset /= 2;
    }
    v
}

crate::kernel! {
    /// Parameters of the warp reduction's test kernel: `n` elements of `input`, one a thread,
    /// each warp's sum to `out` (ceil(n / 32) of them).
    pub struct WarpReduce<T: Element> {
        pub input: *const T,
        pub n: u64,
        pub out: *mut T,
    }
    /// Sum of each warp's 32 elements.
    fn reduce_each_warp => warp_reduce_u32<u32>, warp_reduce_f64<f64>;
}

impl<T: Element> WarpReduce<T> {
    pub const fn plan(&self) -> LaunchShape {
        per_element(self.n, 0)
    }
}

/// Test kernel body: `out[w]` = sum of `input[32w .. 32w + 32]` (missing elements count 0).
///
/// # Safety
/// `input` holds `n` elements, `out` ceil(n / 32); the launch is [`WarpReduce::plan`] (any
/// whole warps).
#[inline(always)]
pub unsafe fn reduce_each_warp<T: Element>(p: WarpReduce<T>) {
    let WarpReduce { input, n, out } = p;
    let i = global_x();
    // SAFETY: `i < n` bounds the read; the whole warp calls `reduce` (launches use whole warps).
    unsafe {
        let v = read_or(input, i, n, T::ZERO);
        let total = reduce(v, Sum);
        if i.is_multiple_of(WARP_SIZE as u64) && i < n {
            *out.add((i / WARP_SIZE as u64) as usize) = total;
        }
    }
}
