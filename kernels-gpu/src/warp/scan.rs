//! Warp-wide prefix scans by `shfl.up` (Kogge-Stone): 5 rounds of shuffle-and-combine.

use crate::num::Element;
use crate::op::{Operator, Sum, Words};
use crate::simt::memory::read_or;
use crate::simt::warp::{FULL_MASK, shfl_idx, shfl_up};
use crate::simt::{WARP_SIZE, global_x, lane_id};

/// Inclusive prefix over the lanes: lane `i` gets `v_0 ∘ ... ∘ v_i` (`∘` being `op`, lower
/// lanes on the left).
///
/// # Safety
/// All 32 lanes of the warp must call this together.
#[inline(always)]
pub unsafe fn inclusive_scan<T: Words, O: Operator<T>>(v: T, op: O) -> T {
    let lane = lane_id();
    let mut v = v;
    let mut delta = 1;
    while delta < WARP_SIZE {
        // SAFETY: the whole warp is here (caller's contract).
        let below = unsafe { shfl_up(FULL_MASK, v, delta) };
        if lane >= delta {
            v = op.combine(below, v);
        }
        delta *= 2;
    }
    v
}

/// Exclusive prefix over the lanes and the warp's total: lane `i` gets
/// (`v_0 ∘ ... ∘ v_{i-1}`, `v_0 ∘ ... ∘ v_31`); lane 0's prefix is `op`'s identity.
///
/// # Safety
/// All 32 lanes of the warp must call this together.
#[inline(always)]
pub unsafe fn exclusive_scan<T: Words, O: Operator<T>>(v: T, op: O) -> (T, T) {
    // SAFETY: the whole warp is here (caller's contract).
    unsafe {
        let inclusive = inclusive_scan(v, op);
        let total = shfl_idx(FULL_MASK, inclusive, WARP_SIZE - 1);
        let shifted = shfl_up(FULL_MASK, inclusive, 1);
        (if lane_id() == 0 { op.identity() } else { shifted }, total)
    }
}

/// Test kernel body: each warp scans its 32 elements (missing ones count 0).
#[inline(always)]
unsafe fn scan_each_warp<T: Element>(input: *const T, n: u64, out: *mut T, inclusive: bool) {
    let i = global_x();
    // SAFETY: `i < n` bounds every access; the whole warp calls the scans.
    unsafe {
        let v = read_or(input, i, n, T::ZERO);
        let r = if inclusive {
            inclusive_scan(v, Sum)
        } else {
            exclusive_scan(v, Sum).0
        };
        if i < n {
            *out.add(i as usize) = r;
        }
    }
}

macro_rules! warp_scan_kernels {
    ($($inclusive:ident, $exclusive:ident: $t:ty),*) => {$(
        $crate::kernel! {
            /// Inclusive scan within each warp's 32 elements.
            ///
            /// # Safety
            /// `input` and `out` hold `n` elements; the block size is a multiple of 32.
            pub unsafe fn $inclusive(input: *const $t, n: u64, out: *mut $t) {
                // SAFETY: forwarded to the launch contract above.
                unsafe { scan_each_warp(input, n, out, true) }
            }

            /// Exclusive scan within each warp's 32 elements.
            ///
            /// # Safety
            /// As for the inclusive kernel.
            pub unsafe fn $exclusive(input: *const $t, n: u64, out: *mut $t) {
                // SAFETY: forwarded to the launch contract above.
                unsafe { scan_each_warp(input, n, out, false) }
            }
        }
    )*};
}
warp_scan_kernels!(
    warp_scan_inclusive_u32, warp_scan_exclusive_u32: u32,
    warp_scan_inclusive_f64, warp_scan_exclusive_f64: f64
);
