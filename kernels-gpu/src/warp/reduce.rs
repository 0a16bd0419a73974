//! Warp-wide reduction by butterfly shuffles, over a logical warp of `W` lanes ([`LogicalWarp`])
//! or the whole warp ([`reduce`]): log2 `W` rounds, after which every lane of the group holds
//! the combination of the group's values, in lane order where the operator is not commutative.

use super::LogicalWarp;
use crate::launch::LaunchShape;
use crate::num::Element;
use crate::op::{ArgMin, Operator, Sum, Words};
use crate::policy::checks::per_element;
use crate::simt::check::Elements;
use crate::simt::memory::read_or;
use crate::simt::warp::shfl_xor;
use crate::simt::{WARP_SIZE, global_x, lane_id};

impl<const W: u32, const APART: bool> LogicalWarp<W, APART> {
    /// `v` combined by `op` over the `W` lanes of the calling lane's logical warp, in every lane
    /// of it.
    ///
    /// Each round combines a lane's value with its butterfly partner's (`xor` by an offset
    /// below `W`, so partners stay in the group). An operator that is not commutative
    /// ([`Operator::COMMUTATIVE`]) takes the offsets from 1 up, so that each round joins two
    /// adjacent blocks of lanes, the lower on the left: every lane ends with the same bits,
    /// `v_0 ∘ ... ∘ v_{W-1}` in lane order. A commutative one takes them from `W / 2` down:
    /// the classic butterfly, whose first rounds join lanes that are not adjacent (which only
    /// commutativity allows), and the tree the grid area's float sums have always had, so
    /// their bits stay as they were.
    ///
    /// # Safety
    /// All 32 lanes of the warp must call this together; with `APART`, all `W` lanes of the
    /// logical warp (other groups of the warp may be elsewhere).
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub unsafe fn reduce<T: Words, O: Operator<T>>(v: T, op: O) -> T {
        let mask = Self::mask();
        let mut v = v;
        for round in 0..W.trailing_zeros() {
            let offset = if O::COMMUTATIVE {
                W >> (round + 1)
            } else {
                1 << round
            };
            // SAFETY: the whole group is here (caller's contract) and the partner is in it.
            let other = unsafe { shfl_xor(mask, v, offset) };
            // `offset < W`: the bit is the same in the lane's index in the warp and in the group.
            v = if O::COMMUTATIVE || lane_id() & offset == 0 {
                op.combine(v, other)
            } else {
                op.combine(other, v)
            };
        }
        v
    }

    /// The smallest `value` of the logical warp and its `index`, in every lane of it, by
    /// [`ArgMin`]: ties go to the smaller index, NaNs rank above every number, so the result
    /// does not depend on which lane holds what.
    ///
    /// # Safety
    /// As for [`LogicalWarp::reduce`].
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub unsafe fn arg_min<F: Words>(value: F, index: u32) -> (F, u32)
    where
        ArgMin: Operator<(F, u32)>,
    {
        // SAFETY: forwarded to the caller's contract.
        unsafe { Self::reduce((value, index), ArgMin) }
    }
}

/// `v` combined by `op` over the 32 lanes, in every lane: [`LogicalWarp::reduce`] over the whole
/// warp.
///
/// # Safety
/// All 32 lanes of the warp must call this together.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub unsafe fn reduce<T: Words, O: Operator<T>>(v: T, op: O) -> T {
    // SAFETY: the whole warp is here (caller's contract).
    unsafe { LogicalWarp::<WARP_SIZE>::reduce(v, op) }
}

own_kernel! {
    /// Parameters of the warp reduction's test kernel: `n` elements of `input`, one a thread,
    /// each warp's sum to `out` (ceil(n / 32) of them).
    pub struct WarpReduce<T: Element> {
        #[group]
        pub elements: Elements<T>,
        #[len(elements.n.div_ceil(WARP_SIZE as u64))]
        pub out: *mut T,
    }
    check |p, shape| *shape == p.plan();
    /// Sum of each warp's 32 elements.
    fn reduce_each_warp => warp_reduce_u32<u32>, warp_reduce_f64<f64>;
}

impl<T: Element> WarpReduce<T> {
    pub const fn plan(&self) -> LaunchShape {
        per_element(self.elements.n, 0)
    }
}

/// Test kernel body: `out[w]` = sum of `input[32w .. 32w + 32]` (missing elements count 0).
///
/// # Safety
/// `input` holds `n` elements, `out` ceil(n / 32); the launch is [`WarpReduce::plan`] (any
/// whole warps).
#[inline(always)]
pub unsafe fn reduce_each_warp<T: Element>(p: WarpReduce<T>) {
    let WarpReduce {
        elements: Elements { input, n },
        out,
    } = p;
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
