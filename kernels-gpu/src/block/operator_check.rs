//! Test kernels for the primitives under multi-word operators: [`ArgMin`] over `(f32, u32)`
//! and Chan's [`MomentsCombine`] over [`Moments<f64>`], reduced over each warp and each block
//! and scanned over each block. Results go out as their 32-bit words (in [`Words`] order), so
//! the host reads any value type through one `u32` buffer.

use crate::block;
use crate::op::{ArgMin, Moments, MomentsCombine, Operator, Words};
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

macro_rules! reduce_kernels {
    ($($name:ident: $segment:ident, $t:ty, $words:expr, $op:expr, $item:expr;)*) => {$(
        $crate::kernel! {
            /// Test kernel: each segment's items combined by the operator, as words at
            /// `out[segment * words ..]` (see the module docs).
            ///
            /// # Safety
            /// `input` holds `n` elements and `out` the words of each segment; whole warps;
            /// dynamic shared memory holds one combined value per warp.
            pub unsafe fn $name(input: *const $t, n: u64, out: *mut u32) {
                // SAFETY: forwarded to the launch contract above.
                unsafe { reduce_each(Segment::$segment, (input, n, out), $words, $op, $item) }
            }
        }
    )*};
}
reduce_kernels! {
    warp_argmin_f32: Warp, f32, 2, ArgMin, |i, x| (x, i as u32);
    block_argmin_f32: Block, f32, 2, ArgMin, |i, x| (x, i as u32);
    warp_moments_f64: Warp, f64, MOMENTS_WORDS, MomentsCombine, |_, x| Moments::<f64>::of(x);
    block_moments_f64: Block, f64, MOMENTS_WORDS, MomentsCombine, |_, x| Moments::<f64>::of(x);
}

crate::kernel! {
    /// Test kernel: the exclusive scan of each block's moments (the moments of the block's
    /// elements before each one), its words at `out[5i..]`.
    ///
    /// # Safety
    /// `input` holds `n` elements, `out` 5 n words; dynamic shared memory holds one
    /// `Moments<f64>` a warp.
    pub unsafe fn block_scan_moments_f64(input: *const f64, n: u64, out: *mut u32) {
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
}
