//! Logical warps: a warp cut into aligned groups of `W` lanes (`W` a power of two up to 32),
//! each group reducing and scanning on its own, as CUB's `WarpReduce<T, LOGICAL_WARP_THREADS>`
//! and `WarpScan` do. Kernels that give a small problem a few lanes (a subset to a team of 2 to
//! 16 lanes, a map node to the 16 lanes of its row) use them instead of shuffle loops of their
//! own.
//!
//! [`LogicalWarp<W>`] names the group of the calling lane; its primitives are in the modules of
//! their kind ([`reduce`](mod@super::reduce), [`scan`](mod@super::scan)), and the 32-lane functions there
//! are its `W = 32` case, so every width runs the same code. Each primitive shuffles only
//! within the group: butterfly (`xor`) offsets and `up` deltas below `W`. By default the whole
//! warp calls each primitive together and the shuffles name all its lanes; `LogicalWarp<W, true>`
//! lets the groups of a warp call at different times (a team that finished its subset while the
//! others go on), each shuffle naming only the group's lanes.
//!
//! The module also exports the test kernels that apply every primitive at each width to an
//! array, which the host's tests compare with CPU references.

use crate::launch::LaunchShape;
use crate::op::{ArgMin, Operator, Sum, Words};
use crate::policy::checks::per_element;
use crate::simt::memory::read_or;
use crate::simt::warp::FULL_MASK;
use crate::simt::{WARP_SIZE, global_x, lane_id};

/// The logical warp of `W` lanes (1, 2, 4, 8, 16 or 32) that holds the calling lane: lanes
/// `first_lane() .. first_lane() + W` of its warp, aligned to `W`.
///
/// A namespace, never built: its functions read the lane index, so they cost nothing to call
/// again (the compiler reuses the one read). A width that is not a power of two at most 32 stops
/// the build where the first of them is used.
///
/// Width 1 is allowed because kernels generic over their team width use it for one lane per
/// problem, where every primitive is the identity on the lane's own value (no shuffle); a
/// compile-time check in an `if W == 1` branch the caller skips would still fire.
///
/// `APART` says whether the groups of a warp may call a primitive at different times. Without
/// it (the default) all 32 lanes of the warp must call together, and each shuffle's member mask
/// is the constant full mask. With it only the group's lanes need to, and the mask is the
/// group's, computed from the lane index: ptxas then cannot tell that the warp is converged and
/// wraps each shuffle in code of its own (the SOM's 16-lane argmin took a third more
/// instructions that way), so take it only where groups really part.
#[derive(Clone, Copy, Debug)]
pub struct LogicalWarp<const W: u32, const APART: bool = false>;

impl<const W: u32, const APART: bool> LogicalWarp<W, APART> {
    /// Evaluated (at compile time) by every primitive of this width.
    const WIDTH: u32 = {
        assert!(
            W.is_power_of_two() && W <= WARP_SIZE,
            "a logical warp is 1, 2, 4, 8, 16 or 32 lanes"
        );
        W
    };

    /// The calling lane's index in its logical warp, `0 .. W`.
    #[inline(always)]
    pub fn lane() -> u32 {
        // At 32 the lane index is already below the width: no `and` in the full-warp code.
        if Self::WIDTH == WARP_SIZE {
            lane_id()
        } else {
            lane_id() & (W - 1)
        }
    }

    /// The first lane of the calling lane's logical warp, in its warp (a multiple of `W`).
    #[inline(always)]
    pub fn first_lane() -> u32 {
        if Self::WIDTH == WARP_SIZE {
            0
        } else {
            lane_id() & !(W - 1)
        }
    }

    /// The member mask of the primitives' warp collectives: the lanes of the calling lane's
    /// logical warp with `APART`, else (and at 32 lanes) [`FULL_MASK`].
    #[inline(always)]
    pub fn mask() -> u32 {
        if Self::WIDTH == WARP_SIZE || !APART {
            FULL_MASK
        } else {
            (u32::MAX >> (WARP_SIZE - W)) << Self::first_lane()
        }
    }
}

/// Composition of affine maps `x ↦ a·x + b` on wrapping `u32`, first map on the left: exactly
/// associative and not commutative, and two words wide, so that a primitive that combined lanes
/// out of order or mixed up a value's words would show in the test kernels' results.
#[derive(Clone, Copy, Debug, Default)]
pub struct Affine;

impl Operator<(u32, u32)> for Affine {
    #[inline(always)]
    fn identity(self) -> (u32, u32) {
        (1, 0)
    }
    #[inline(always)]
    fn combine(self, (a1, b1): (u32, u32), (a2, b2): (u32, u32)) -> (u32, u32) {
        (a2.wrapping_mul(a1), a2.wrapping_mul(b1).wrapping_add(b2))
    }
}

/// Words each element's results take in the output of the test kernels:
///
/// | words | what (over the element's logical warp) |
/// |-------|----------------------------------------|
/// | 0 | [`LogicalWarp::reduce`] by [`Sum`] of the elements |
/// | 1, 2 | [`LogicalWarp::reduce`] by [`Affine`] of the maps `(x \| 1, x)` |
/// | 3, 4 | [`LogicalWarp::inclusive_scan`] by [`Affine`] |
/// | 5, 6 | [`LogicalWarp::exclusive_scan`] by [`Affine`]: the prefix |
/// | 7, 8 | [`LogicalWarp::exclusive_scan`] by [`Affine`]: the total |
/// | 9, 10 | [`LogicalWarp::arg_min`] of `((x >> 26) as f32, index)`: value bits, index |
///
/// Elements past the end take each operator's identity; every lane writes its own results, so
/// a reduction missing from a lane of the group shows.
pub const CHECK_WORDS: usize = 11;

own_kernel! {
    /// Parameters of the logical-warp test kernels: `n` elements of `input`, one a thread,
    /// [`CHECK_WORDS`] words of results each to `out`.
    pub struct LogicalWarpCheck {
        #[len(n)]
        pub input: *const u32,
        pub n: u64,
        #[len(CHECK_WORDS as u64 * n)]
        pub out: *mut u32,
    }
    check |p, shape| *shape == p.plan();
    /// Every primitive at 1 lane (the identity, no shuffle).
    fn check_each::<1> => warp_logical_w1;
    /// Every primitive at 2 lanes.
    fn check_each::<2> => warp_logical_w2;
    /// Every primitive at 4 lanes.
    fn check_each::<4> => warp_logical_w4;
    /// Every primitive at 8 lanes.
    fn check_each::<8> => warp_logical_w8;
    /// Every primitive at 16 lanes.
    fn check_each::<16> => warp_logical_w16;
    /// Every primitive at 32 lanes (the whole warp).
    fn check_each::<32> => warp_logical_w32;
}

impl LogicalWarpCheck {
    /// A thread an element, in the level tests' blocks (whole warps).
    pub const fn plan(&self) -> LaunchShape {
        per_element(self.n, 0)
    }
}

/// Test kernel body: every primitive over the logical warps of `W` lanes, [`CHECK_WORDS`] words
/// per element at `out[CHECK_WORDS * i ..]`.
///
/// # Safety
/// `input` holds `n` elements, `out` `CHECK_WORDS * n` words; the launch is
/// [`LogicalWarpCheck::plan`] (whole warps).
#[inline(always)]
pub unsafe fn check_each<const W: u32>(p: LogicalWarpCheck) {
    let LogicalWarpCheck { input, n, out } = p;
    let i = global_x();
    let live = i < n;
    // SAFETY: `i < n` bounds the read and the writes; every lane of the warp (launches are of
    // whole warps) reaches every primitive.
    unsafe {
        let x = read_or(input, i, n, 0);
        let map = if live { (x | 1, x) } else { Affine.identity() };
        let arg = if live {
            ((x >> 26) as f32, i as u32)
        } else {
            ArgMin.identity()
        };
        let sum = LogicalWarp::<W>::reduce(x, Sum);
        let composed = LogicalWarp::<W>::reduce(map, Affine);
        let inclusive = LogicalWarp::<W>::inclusive_scan(map, Affine);
        let exclusive = LogicalWarp::<W>::exclusive_scan(map, Affine);
        let (value, index) = LogicalWarp::<W>::arg_min(arg.0, arg.1);
        if live {
            let words = (sum, (composed, (inclusive, (exclusive, (value, index)))));
            let mut at = CHECK_WORDS * i as usize;
            words.map_words(|w| {
                *out.add(at) = w;
                at += 1;
                w
            });
        }
    }
}
