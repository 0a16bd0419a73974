//! Test kernels for the primitives under multi-word operators: [`ArgMin`] over `(f32, u32)`
//! and Chan's [`MomentsCombine`] over [`Moments<f64>`], reduced over each warp and each block
//! and scanned over each block. Results go out as their 32-bit words (in [`Words`] order), so
//! the host reads any value type through one `u32` buffer.

use crate::block;
use crate::launch::LaunchShape;
use crate::op::{ArgMin, Moments, MomentsCombine, Operator, Words};
use crate::policy::checks::{LEVEL_TEST_BLOCK_THREADS, per_element, per_warp};
use crate::simt::shared::SharedSlice;
use crate::simt::{WARP_SIZE, block_x, global_x, lane_id, thread_rank, warps_per_block};
use crate::warp;

/// Words of one `Moments<f64>`.
const MOMENTS_WORDS: usize = 5;

/// Writes the words of `v` to `out[at..]`.
///
/// # Safety
/// `out` holds `at` plus as many words as `v` has.
#[inline(always)]
unsafe fn store_words<T: Words>(out: *mut u32, at: usize, v: T) {
    let mut k = at;
    v.map_words(|w| {
        // SAFETY: in bounds by the caller's contract.
        unsafe { *out.add(k) = w };
        k += 1;
        w
    });
}

/// This thread's element lifted by `item`, or `op`'s identity past `n`.
///
/// # Safety
/// `input` holds `n` elements.
#[inline(always)]
unsafe fn item_or_identity<T: Copy, A, O: Operator<A>>(
    input: *const T,
    n: u64,
    op: O,
    item: impl Fn(u64, T) -> A,
) -> A {
    let i = global_x();
    // SAFETY: `i < n` bounds the read.
    if i < n {
        item(i, unsafe { *input.add(i as usize) })
    } else {
        op.identity()
    }
}

/// The segments a reduction test combines over.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Segment {
    Warp,
    Block,
}

impl Segment {
    /// Elements one result combines, with the launch of the kernels' plans.
    const fn items(self) -> u64 {
        match self {
            Segment::Warp => WARP_SIZE as u64,
            Segment::Block => LEVEL_TEST_BLOCK_THREADS as u64,
        }
    }
}

/// Each segment's items combined by `op`, as `words` words at `out[segment * words ..]`.
///
/// # Safety
/// `input` holds `n` elements and `out` `words` per segment; whole warps; for blocks, dynamic
/// shared memory holds one `A` per warp.
#[inline(always)]
unsafe fn reduce_each<T: Copy, A: Words, O: Operator<A>>(
    segment: Segment,
    (input, n, out): (*const T, u64, *mut u32),
    words: usize,
    op: O,
    item: impl Fn(u64, T) -> A,
) {
    // SAFETY: the launch contract above; every thread of the block reaches the reductions.
    unsafe {
        let v = item_or_identity(input, n, op, item);
        let (total, index, writer) = match segment {
            Segment::Warp => {
                let i = global_x();
                (warp::reduce(v, op), i / WARP_SIZE as u64, lane_id() == 0 && i < n)
            }
            Segment::Block => {
                let scratch = SharedSlice::<A>::carve(0, warps_per_block());
                (
                    block::reduce(v, op, scratch),
                    block_x() as u64,
                    thread_rank() == 0,
                )
            }
        };
        if writer {
            store_words(out, index as usize * words, total);
        }
    }
}

own_kernel! {
    /// Parameters of the argmin test kernels: `n` f32 elements of `input`, one a thread, each
    /// segment's (value, index) as its two words at `out[2 · segment ..]`.
    pub struct ArgMinCheck {
        #[len(n)]
        pub input: *const f32,
        pub n: u64,
        #[len(2 * n.div_ceil(segment.max(1)))]
        pub out: *mut u32,
        /// Elements each result covers: the entry's segment, which its check compares.
        pub segment: u64,
    }
    check |p, shape| *shape == p.plan();
    /// Each warp's argmin.
    fn argmin_each::<false> => warp_argmin_f32;
    check |p, shape| p.segment == Segment::Warp.items();
    /// Each block's argmin.
    fn argmin_each::<true> => block_argmin_f32;
    check |p, shape| p.segment == Segment::Block.items();
}

own_kernel! {
    /// Parameters of the moments test kernels: `n` f64 elements of `input`, one a thread, the
    /// words of [`Moments<f64>`] (5 a value) to `out`.
    pub struct MomentsCheck {
        #[len(n)]
        pub input: *const f64,
        pub n: u64,
        #[len(MOMENTS_WORDS as u64 * n.div_ceil(segment.max(1)))]
        pub out: *mut u32,
        /// Elements each result covers: the entry's segment (1 for the scan), which its check
        /// compares.
        pub segment: u64,
    }
    check |p, shape| *shape == p.plan();
    /// Each warp's moments, at `out[5 · warp ..]`.
    fn moments_each::<false> => warp_moments_f64;
    check |p, shape| p.segment == Segment::Warp.items();
    /// Each block's moments, at `out[5 · block ..]`.
    fn moments_each::<true> => block_moments_f64;
    check |p, shape| p.segment == Segment::Block.items();
    /// The exclusive scan of each block's moments (the moments of the block's elements before
    /// each one), at `out[5i ..]`.
    fn moments_scan => block_scan_moments_f64;
    check |p, shape| p.segment == 1;
}

impl ArgMinCheck {
    /// A thread an element, with a combined value of shared memory a warp.
    pub const fn plan(&self) -> LaunchShape {
        per_element(self.n, per_warp(size_of::<(f32, u32)>()))
    }
}

impl MomentsCheck {
    /// A thread an element, with a combined value of shared memory a warp.
    pub const fn plan(&self) -> LaunchShape {
        per_element(self.n, per_warp(size_of::<Moments<f64>>()))
    }
}

/// The segment of a reduction test: each block's, or each warp's.
const fn segment(block: bool) -> Segment {
    if block { Segment::Block } else { Segment::Warp }
}

/// Test kernel body: each warp's (or, with `BLOCK`, block's) argmin by [`ArgMin`].
///
/// # Safety
/// `input` holds `n` elements and `out` two words a segment; the launch is
/// [`ArgMinCheck::plan`] (any blocks of whole warps with its shared memory).
#[inline(always)]
pub unsafe fn argmin_each<const BLOCK: bool>(p: ArgMinCheck) {
    let ArgMinCheck { input, n, out, .. } = p;
    // SAFETY: forwarded to the launch contract above.
    unsafe { reduce_each(segment(BLOCK), (input, n, out), 2, ArgMin, |i, x| (x, i as u32)) }
}

/// Test kernel body: each warp's (or, with `BLOCK`, block's) moments by [`MomentsCombine`].
///
/// # Safety
/// `input` holds `n` elements and `out` `MOMENTS_WORDS` words a segment; the launch is
/// [`MomentsCheck::plan`] (any blocks of whole warps with its shared memory).
#[inline(always)]
pub unsafe fn moments_each<const BLOCK: bool>(p: MomentsCheck) {
    let MomentsCheck { input, n, out, .. } = p;
    // SAFETY: forwarded to the launch contract above.
    unsafe {
        reduce_each(
            segment(BLOCK),
            (input, n, out),
            MOMENTS_WORDS,
            MomentsCombine,
            |_, x| Moments::<f64>::of(x),
        )
    }
}

/// Test kernel body: the exclusive scan of each block's moments, `MOMENTS_WORDS` words at
/// `out[5i..]`.
///
/// # Safety
/// `input` holds `n` elements, `out` 5 n words; the launch is [`MomentsCheck::plan`].
#[inline(always)]
pub unsafe fn moments_scan(p: MomentsCheck) {
    let MomentsCheck { input, n, out, .. } = p;
    let op = MomentsCombine;
    let i = global_x();
    // SAFETY: accesses bounded by `n`; the whole block calls the scan.
    unsafe {
        let scratch = SharedSlice::carve(0, warps_per_block());
        let v = item_or_identity(input, n, op, |_, x| Moments::<f64>::of(x));
        let (prefix, _) = block::exclusive_scan(v, op, scratch);
        if i < n {
            store_words(out, MOMENTS_WORDS * i as usize, prefix);
        }
    }
}
