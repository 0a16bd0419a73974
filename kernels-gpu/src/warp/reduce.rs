//! Warp-wide reduction by butterfly shuffles: 5 rounds, after which every lane holds the
//! combination of all 32 values.

use crate::num::Element;
use crate::op::{Operator, Sum, Words};
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

/// Test kernel body: `out[w]` = sum of `input[32w .. 32w + 32]` (missing elements count 0).
#[inline(always)]
unsafe fn reduce_each_warp<T: Element>(input: *const T, n: u64, out: *mut T) {
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

macro_rules! warp_reduce_kernels {
    ($($name:ident: $t:ty),*) => {$(
        $crate::kernel! {
            /// Sum of each warp's 32 elements; `out` holds ceil(n / 32) values.
            ///
            /// # Safety
            /// `input` holds `n` elements, `out` ceil(n / 32); the block size is a multiple of 32.
            pub unsafe fn $name(input: *const $t, n: u64, out: *mut $t) {
                // SAFETY: forwarded to the launch contract above.
                unsafe { reduce_each_warp(input, n, out) }
            }
        }
    )*};
}
warp_reduce_kernels!(warp_reduce_u32: u32, warp_reduce_f64: f64);
