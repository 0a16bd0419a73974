//! The blocks' candidates of online training, exchanged without a grid barrier. Each step, a
//! block posts its best cell as one or two 64-bit words that carry the step's tag in their top
//! bit, and every block reads all the posts, one thread a block, each thread polling its
//! block's words until they carry the tag. The step's result is then in hand after one trip
//! through L2 from the last post, where a barrier takes an arrival (a fence and an atomic), a
//! poll that sees the last arrival, and a read of the candidates after it.
//!
//! Why a tag of one bit is enough: the posts alternate between two halves, even steps and odd,
//! and a half's tag flips every time the half is used, so that a word in it holds either the
//! step's post or the post of two steps before, whose tag differs. A block cannot post step
//! `t + 2` before every block has posted step `t + 1`, which each block does only after all its
//! threads have read the posts of step `t` (they leave their polls on the values read, and a
//! block barrier stands between), so no post is overwritten before it is read. A thread reads
//! the same words at each use of a half (block `b` is always read by thread `b mod blockDim`),
//! and the reads of one thread to one address never go back to an older value, so what a thread
//! takes for the step's post is not an older one. Zeroed words carry the tag of no step yet:
//! steps 0 and 1 wait for the top bit set.
//!
//! No acquire is needed: a post is the whole message, and the blocks read no other data that
//! another block writes. L1 keeps its lines (an acquire would invalidate them each step).

use super::bmu::Accumulator;
use crate::block::reduce::reduce_holding;
use crate::op::{ArgMin, Min, Operator, Words};
use crate::simt::atomic::{load_relaxed_u64, store_relaxed_u64};
use crate::simt::shared::SharedSlice;
use crate::simt::{block_dim_x, block_x, grid_dim_x, thread_x};

/// The top bit of a word, which carries the tag.
const TAG: u64 = 1 << 63;

/// The most words a candidate takes.
pub const MAX_WORDS: u32 = 2;

/// A candidate `(distance, cell)` as blocks and warps combine it (its key) and as the words a
/// block posts. Distances are sums of squares of finite values, never negative nor NaN, so the
/// sign bit is free for the tag.
pub trait Posted: Accumulator {
    /// Words a candidate takes, at most [`MAX_WORDS`].
    const WORDS: u32;
    /// The candidate as it is combined: [`Posted::Pick`] on keys chooses as [`ArgMin`] on
    /// candidates (the lower distance, then the lower cell).
    type Key: Words;
    /// The operator that combines keys.
    type Pick: Operator<Self::Key> + Copy + Default;
    /// The key of `best`.
    fn key(best: (Self, u32)) -> Self::Key;
    /// The cell of a key.
    fn cell(key: Self::Key) -> u32;
    /// `key` as words with `tag` (0 or the top bit) in each one's top bit; the words past
    /// [`Posted::WORDS`] are not posted.
    fn to_words(key: Self::Key, tag: u64) -> [u64; MAX_WORDS as usize];
    /// The key that [`Posted::to_words`] made these words of, whatever their tags.
    fn from_words(words: [u64; MAX_WORDS as usize]) -> Self::Key;
}

/// One word, the distance's bits above the cell: as integers, these order as `ArgMin` orders
/// candidates, so blocks and warps combine them by an integer minimum.
impl Posted for f32 {
    const WORDS: u32 = 1;
    type Key = u64;
    type Pick = Min;
    #[inline(always)]
    fn key((distance, cell): (f32, u32)) -> u64 {
        u64::from(distance.to_bits()) << 32 | u64::from(cell)
    }
    #[inline(always)]
    fn cell(key: u64) -> u32 {
        key as u32
    }
    #[inline(always)]
    fn to_words(key: u64, tag: u64) -> [u64; 2] {
        [key | tag, 0]
    }
    #[inline(always)]
    fn from_words([word, _]: [u64; 2]) -> u64 {
        word & !TAG
    }
}

/// Two words: the distance's bits, then the cell.
impl Posted for f64 {
    const WORDS: u32 = 2;
    type Key = (f64, u32);
    type Pick = ArgMin;
    #[inline(always)]
    fn key(best: (f64, u32)) -> (f64, u32) {
        best
    }
    #[inline(always)]
    fn cell((_, cell): (f64, u32)) -> u32 {
        cell
    }
    #[inline(always)]
    fn to_words((distance, cell): (f64, u32), tag: u64) -> [u64; 2] {
        [distance.to_bits() | tag, u64::from(cell) | tag]
    }
    #[inline(always)]
    fn from_words([distance, cell]: [u64; 2]) -> (f64, u32) {
        (f64::from_bits(distance & !TAG), cell as u32)
    }
}

/// The posts of a launch: `2 · MAX_WORDS · gridDim.x` words (the first `2 · WORDS · gridDim.x`
/// used), zero when it starts.
#[derive(Clone, Copy)]
pub struct Posts {
    pub words: *mut u64,
}

impl Posts {
    /// Where step `t`'s posts of candidates of `A` start (its half, [`Posted::WORDS`] a block)
    /// and the tag they carry.
    #[inline(always)]
    fn half<A: Posted>(self, t: u32) -> (*mut u64, u64) {
        let half = (t % 2) as usize * (A::WORDS * grid_dim_x()) as usize;
        let tag = if t & 2 == 0 { TAG } else { 0 };
        (self.words.wrapping_add(half), tag)
    }

    /// Posts this block's candidate for step `t`.
    ///
    /// # Safety
    /// One thread of the block calls it, once a step, with steps in order; `words` as in
    /// [`Posts`].
    #[inline(always)]
    pub unsafe fn post<A: Posted>(self, t: u32, best: A::Key) {
        let (half, tag) = self.half::<A>(t);
        let words = A::to_words(best, tag);
        // SAFETY: the caller's contract; this block's words of the half.
        unsafe {
            let at = half.add((A::WORDS * block_x()) as usize);
            for (k, &w) in words.iter().enumerate().take(A::WORDS as usize) {
                store_relaxed_u64(at.add(k), w);
            }
        }
    }

    /// The key of the best of all blocks' candidates for step `t`, to every thread of the
    /// block, once every block has posted it; `slots` holds a key a warp.
    ///
    /// # Safety
    /// The whole block calls it, after step `t − 2`'s and before step `t + 1`'s, with slots
    /// that no thread uses until the block's next barrier after this call; every block posts
    /// step `t`.
    #[inline(always)]
    pub unsafe fn gather<A: Posted>(self, t: u32, slots: SharedSlice<A::Key>) -> A::Key {
        let pick = A::Pick::default();
        let (half, tag) = self.half::<A>(t);
        // SAFETY: the caller's contract; the words of blocks below the grid's.
        unsafe {
            let mut found = pick.identity();
            let mut b = thread_x();
            while b < grid_dim_x() {
                let at = half.add((A::WORDS * b) as usize);
                // The words past the candidate's keep the tag.
                let mut words = [tag; MAX_WORDS as usize];
                loop {
                    for (k, w) in words.iter_mut().enumerate().take(A::WORDS as usize) {
                        *w = load_relaxed_u64(at.add(k));
                    }
                    if words.iter().all(|w| w & TAG == tag) {
                        break;
                    }
                }
                found = pick.combine(found, A::from_words(words));
                b += block_dim_x();
            }
            reduce_holding(found, pick, slots)
        }
    }
}
