//! Warp-wide prefix scans by `shfl.up` (Kogge-Stone), over a logical warp of `W` lanes
//! ([`LogicalWarp`]) or the whole warp ([`inclusive_scan`], [`exclusive_scan`]): log2 `W` rounds
//! of shuffle-and-combine.

use super::LogicalWarp;
use crate::launch::LaunchShape;
use crate::num::Element;
use crate::op::{Operator, Sum, Words};
use crate::policy::checks::per_element;
use crate::simt::check::Elements;
use crate::simt::memory::read_or;
use crate::simt::warp::{shfl_idx, shfl_up};
use crate::simt::{WARP_SIZE, global_x};

impl<const W: u32, const APART: bool> LogicalWarp<W, APART> {
    /// Inclusive prefix over the logical warp: its lane `i` gets `v_0 ∘ ... ∘ v_i` (`∘` being
    /// `op`, lower lanes on the left).
    ///
    /// The lanes of a round below its delta read a lane of the group before (outside the
    /// member mask when `W < 32`, an undefined value) and drop what they read, as the 32-lane
    /// scan's do with their own value: no clamp to the group is needed.
    ///
    /// # Safety
    /// All 32 lanes of the warp must call this together; with `APART`, all `W` lanes of the
    /// logical warp (other groups of the warp may be elsewhere).
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub unsafe fn inclusive_scan<T: Words, O: Operator<T>>(v: T, op: O) -> T {
        let (mask, lane) = (Self::mask(), Self::lane());
        let mut v = v;
        let mut delta = 1;
        while delta < W {
            // SAFETY: the whole group is here (caller's contract).
            let below = unsafe { shfl_up(mask, v, delta) };
            if lane >= delta {
                v = op.combine(below, v);
            }
            delta *= 2;
        }
        v
    }

    /// Exclusive prefix over the logical warp and its total: its lane `i` gets
    /// (`v_0 ∘ ... ∘ v_{i-1}`, `v_0 ∘ ... ∘ v_{W-1}`); lane 0's prefix is `op`'s identity.
    ///
    /// Two shuffles more than [`LogicalWarp::inclusive_scan`] (the total from the group's last
    /// lane, the prefix from the lane below); for an invertible operator such as [`Sum`],
    /// the inclusive scan less the lane's own value saves both.
    ///
    /// # Safety
    /// As for [`LogicalWarp::inclusive_scan`].
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub unsafe fn exclusive_scan<T: Words, O: Operator<T>>(v: T, op: O) -> (T, T) {
        if W == 1 {
            return (op.identity(), v);
        }
        let (mask, lane) = (Self::mask(), Self::lane());
        // SAFETY: the whole group is here (caller's contract); the group's last lane is in it.
        unsafe {
            let inclusive = Self::inclusive_scan(v, op);
            let total = shfl_idx(mask, inclusive, Self::first_lane() + W - 1);
            let shifted = shfl_up(mask, inclusive, 1);
            (if lane == 0 { op.identity() } else { shifted }, total)
        }
    }
}

/// Inclusive prefix over the 32 lanes: [`LogicalWarp::inclusive_scan`] over the whole warp.
///
/// # Safety
/// All 32 lanes of the warp must call this together.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub unsafe fn inclusive_scan<T: Words, O: Operator<T>>(v: T, op: O) -> T {
    // SAFETY: the whole warp is here (caller's contract).
    unsafe { LogicalWarp::<WARP_SIZE>::inclusive_scan(v, op) }
}

/// Exclusive prefix over the 32 lanes and the warp's total: [`LogicalWarp::exclusive_scan`]
/// over the whole warp.
///
/// # Safety
/// All 32 lanes of the warp must call this together.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub unsafe fn exclusive_scan<T: Words, O: Operator<T>>(v: T, op: O) -> (T, T) {
    // SAFETY: the whole warp is here (caller's contract).
    unsafe { LogicalWarp::<WARP_SIZE>::exclusive_scan(v, op) }
}

own_kernel! {
    /// Parameters of the warp scans' test kernels: `n` elements of `input`, one a thread, each
    /// warp's scan to `out`.
    pub struct WarpScan<T: Element> {
        #[group]
        pub elements: Elements<T>,
        #[len(elements.n)]
        pub out: *mut T,
    }
    check |p, shape| *shape == p.plan();
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
        per_element(self.elements.n, 0)
    }
}

/// Test kernel body: each warp scans its 32 elements (missing ones count 0), inclusive or
/// exclusive.
///
/// # Safety
/// `input` and `out` hold `n` elements; the launch is [`WarpScan::plan`] (any whole warps).
#[inline(always)]
pub unsafe fn scan_each_warp<T: Element, const INCLUSIVE: bool>(p: WarpScan<T>) {
    let WarpScan {
        elements: Elements { input, n },
        out,
    } = p;
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
