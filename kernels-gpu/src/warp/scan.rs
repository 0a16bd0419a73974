//! Warp-wide prefix scans by `shfl.up` (Kogge-Stone): 5 rounds of shuffle-and-combine.

use crate::launch::LaunchShape;
use crate::num::Element;
use crate::op::{Operator, Sum, Words};
use crate::policy::checks::per_element;
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

crate::kernel! {
    /// Parameters of the warp scans' test kernels: `n` elements of `input`, one a thread, each
    /// warp's scan to `out`.
    pub struct WarpScan<T: Element> {
        pub input: *const T,
        pub n: u64,
        pub out: *mut T,
    }
    /// Inclusive scan within each warp's 32 elements.
    fn scan_each_warp::<u32, true> => warp_scan_inclusive_u32<u32>;
    /// Exclusive scan within each warp's 32 elements.
    fn scan_each_warp::<u32, false> => warp_scan_exclusive_u32<u32>;
    /// Inclusive scan within each warp's 32 elements.
    fn scan_each_warp::<f64, true> => warp_scan_inclusive_f64<f64>;
    /// Exclusive scan within each warp's 32 elements.
    fn scan_each_warp::<f64, false> => warp_scan_exclusive_f64<f64>;
}

impl<T: Element> WarpScan<T> {
    pub const fn plan(&self) -> LaunchShape {
        per_element(self.n, 0)
    }
}

/// Test kernel body: each warp scans its 32 elements (missing ones count 0), inclusive or
/// exclusive.
///
/// # Safety
/// `input` and `out` hold `n` elements; the launch is [`WarpScan::plan`] (any whole warps).
#[inline(always)]
pub unsafe fn scan_each_warp<T: Element, const INCLUSIVE: bool>(p: WarpScan<T>) {
    let WarpScan { input, n, out } = p;
    let i = global_x();
    // SAFETY: `i < n` bounds every access; the whole warp calls the scans.
    unsafe {
        let v = read_or(input, i, n, T::ZERO);
        let r = if INCLUSIVE {
            inclusive_scan(v, Sum)
        } else {
            exclusive_scan(v, Sum).0
        };
        if i < n {
            *out.add(i as usize) = r;
        }
    }
}
