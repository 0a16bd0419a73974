//! Splits: the sweep's state after `k` rows, by a merge-path (co-rank) search over the prefix
//! sums, and the kernels that compute one split per section boundary.
//!
//! The sweep writes heavy item `j`'s row before light item `t`'s exactly when
//! `E(j + 1) <= D(t)`, so its rows are the merge of two increasing sequences, and the state
//! after `k` rows has `j` heavy items done for the largest `j` with
//! `SH[j] + SL[k − j] <= k·Q` (heavy `j − 1` precedes light `k − j`; sums in scaled units). The
//! predicate holds for small `j` and fails beyond the answer, and the answer does not decrease
//! with `k`.
//!
//! `prefix` is the exclusive scan of the partitioned weights with one extra element at the end:
//! `SL[t] = prefix[t]`, `SH[j] = prefix[n_light + j] − prefix[n_light]`. PSA scans quantized
//! weights (u64, `N·q` scaled units each); the PSA step of PSA+ scans pairs (Σq, Σrem), since
//! the items the greedy sweep left partly used weigh `N·q + rem` ([`PrefixWord`]).

use super::ALIAS_BLOCK_THREADS;
use super::sweep::{Entry, Settled, Shape, Split};
use crate::block;
use crate::launch::LaunchShape;
use crate::op::Sum;
use crate::simt::shared::SharedSlice;
use crate::simt::{WARP_SIZE, block_dim_x, block_x, global_x, thread_x};

/// Reads the prefix sums, in scaled units.
pub trait Prefix {
    fn at(&self, t: u64) -> u128;

    /// The spill before the first row: 0 for a whole sweep; a pack block that searches the
    /// prefix sums of its own items (from 0 at its first item) starts where the sweep stands.
    #[inline(always)]
    fn origin(&self) -> u128 {
        0
    }
}

impl<F: Fn(u64) -> u128> Prefix for F {
    #[inline(always)]
    fn at(&self, t: u64) -> u128 {
        self(t)
    }
}

/// An element of the prefix sums in memory: u64 for PSA, `[Σq, Σrem]` for PSA+.
pub trait PrefixWord: Copy {
    const ZERO: Self;
    /// The sum in scaled units.
    fn scaled(self, shape: &Shape) -> u128;
    /// An entry's weight as a summand.
    fn of(e: Entry) -> Self;
    /// Wrapping: a pack block's sum past its last item may wrap (that sum is never read).
    fn add(self, other: Self) -> Self;
    /// Block-wide exclusive prefix of `self` in thread order, as [`block::scan::exclusive_scan`]
    /// (one scan for each word).
    ///
    /// # Safety
    /// As for [`block::scan::exclusive_scan`]; `scratch` holds a u64 per warp.
    unsafe fn block_exclusive_scan(self, scratch: SharedSlice<u64>) -> Self;
}

impl PrefixWord for u64 {
    const ZERO: u64 = 0;
    #[inline(always)]
    fn scaled(self, shape: &Shape) -> u128 {
        shape.scaled(self)
    }
    #[inline(always)]
    fn of(e: Entry) -> u64 {
        e.q
    }
    #[inline(always)]
    fn add(self, other: u64) -> u64 {
        self.wrapping_add(other)
    }
    #[inline(always)]
    unsafe fn block_exclusive_scan(self, scratch: SharedSlice<u64>) -> u64 {
        // SAFETY: the caller's contract.
        unsafe { block::scan::exclusive_scan(self, Sum, scratch).0 }
    }
}

impl PrefixWord for [u64; 2] {
    const ZERO: [u64; 2] = [0; 2];
    #[inline(always)]
    fn scaled(self, shape: &Shape) -> u128 {
        shape.scaled(self[0]) + self[1] as u128
    }
    #[inline(always)]
    fn of(e: Entry) -> [u64; 2] {
        [e.q, e.rem as u64]
    }
    #[inline(always)]
    fn add(self, other: [u64; 2]) -> [u64; 2] {
        [self[0].wrapping_add(other[0]), self[1].wrapping_add(other[1])]
    }
    #[inline(always)]
    unsafe fn block_exclusive_scan(self, scratch: SharedSlice<u64>) -> [u64; 2] {
        // SAFETY: the caller's contract; the scratch is free again when each scan returns.
        unsafe { self.map(|w| block::scan::exclusive_scan(w, Sum, scratch).0) }
    }
}

/// The prefix sums at `prefix` as a [`Prefix`].
///
/// # Safety
/// Every index read is within the array.
#[inline(always)]
pub unsafe fn prefix_in<'a, W: PrefixWord + 'a>(shape: &'a Shape, prefix: *const W) -> impl Prefix + 'a {
    // SAFETY: the caller's contract.
    move |t: u64| unsafe { *prefix.add(t as usize) }.scaled(shape)
}

/// Whether at least `j` heavy items are done after `k` rows (`j` within [`heavy_range`]).
#[inline(always)]
pub fn heavy_done(shape: &Shape, prefix: &impl Prefix, k: u64, j: u64) -> bool {
    let base = prefix.at(shape.n_light);
    let sum = prefix
        .at(k - j)
        .wrapping_add(prefix.at(shape.n_light + j).wrapping_sub(base));
    sum <= (k as u128 * shape.total as u128).wrapping_add(prefix.origin())
}

/// The range of heavy counts possible after `k` rows.
#[inline(always)]
pub fn heavy_range(shape: &Shape, k: u64) -> (u64, u64) {
    (k.saturating_sub(shape.n_light), k.min(shape.n_heavy()))
}

/// The split after `k` rows, by binary search for the heavy count within `[lo, hi]` (which
/// must contain the answer): the paper's baseline.
#[inline(always)]
pub fn search(shape: &Shape, prefix: &impl Prefix, k: u64, lo: u64, hi: u64) -> Split {
    let (mut lo, mut hi) = (lo, hi);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if heavy_done(shape, prefix, k, mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    Split {
        light: (k - lo) as u32,
        heavy: lo as u32,
    }
}

/// The sweep's spill at split `s`: `D(i) − E(j)`, non-negative at every split.
#[inline(always)]
pub fn spill(shape: &Shape, prefix: &impl Prefix, s: Split) -> u128 {
    let (i, j) = (s.light as u64, s.heavy as u64);
    let base = prefix.at(shape.n_light);
    let sum = prefix
        .at(i)
        .wrapping_add(prefix.at(shape.n_light + j).wrapping_sub(base));
    // Wrapping: sums from memory need not be a table's (any contents are sound, if wrong).
    ((i + j) as u128 * shape.total as u128)
        .wrapping_add(prefix.origin())
        .wrapping_sub(sum)
}

/// The first row of section `s` of `rows_per_section` rows.
#[inline(always)]
pub fn section_start(shape: &Shape, s: u64, rows_per_section: u64) -> u64 {
    (s * rows_per_section).min(shape.n)
}

own_kernel! {
    /// Parameters of the split kernels.
    pub struct Splits<W: PrefixWord> {
        /// The `shape.n + 1` prefix sums (PSA's, or of the PSA step of PSA+).
        #[len(u128::from(shape.n) + 1)]
        pub prefix: *const W,
        /// The sweep's items and the table's ([`Shape::unsettled`]); its light count and total
        /// are read from `settled`.
        pub shape: Shape,
        #[group]
        pub settled: Settled,
        /// Sections, and rows in each but the last.
        pub sections: u64,
        pub rows_per_section: u64,
        /// One split per section boundary, `sections + 1` in all.
        #[len(u128::from(sections) + 1)]
        pub splits: *mut Split,
    }
    check |p, launch| shape.fits() && *launch == p.plan();
    /// PSA's splits by binary search.
    fn split_binary => alias_split_binary<u64>;
    /// PSA's splits by partial p-ary search.
    fn split_pary => alias_split_pary<u64>;
    /// The splits of the PSA step of PSA+, by binary search.
    fn split_binary => alias_split_binary_plus<[u64; 2]>;
    /// The splits of the PSA step of PSA+, by partial p-ary search.
    fn split_pary => alias_split_pary_plus<[u64; 2]>;
}

/// One split per section boundary, `splits[s]` for `s` in `0..=sections`, by binary search
/// (the paper's baseline split), one thread a boundary.
///
/// # Safety
/// `prefix` holds `n + 1` sums, `splits` `sections + 1` entries, `settled` a word each;
/// `rows_per_section * sections >= n`.
#[inline(always)]
pub unsafe fn split_binary<W: PrefixWord>(p: Splits<W>) {
    // SAFETY: `settled` points to a word each (the family's reaches).
    let shape = &unsafe { p.settled.shape(p.shape) };
    let s = global_x();
    if s > p.sections {
        return;
    }
    // SAFETY: indices below n + 1 (prefix) and sections + 1 (splits).
    unsafe {
        let prefix = prefix_in(shape, p.prefix);
        let k = section_start(shape, s, p.rows_per_section);
        let (lo, hi) = heavy_range(shape, k);
        *p.splits.add(s as usize) = search(shape, &prefix, k, lo, hi);
    }
}

/// [`heavy_done`] for any `j`: true below the range possible after `k` rows, false above it.
#[inline(always)]
fn heavy_done_clamped(shape: &Shape, prefix: &impl Prefix, k: u64, j: u64) -> bool {
    let (lo, hi) = heavy_range(shape, k);
    j <= lo || (j <= hi && heavy_done(shape, prefix, k, j))
}

/// The paper's partial p-ary search for the splits of a block's consecutive boundaries `k` in
/// `[k_min, k_max]`: while the heavy-count range `[lo, hi]` holding every answer is wider than
/// the block, each thread tests one of `p` evenly spaced pivots for `k_min` and for `k_max`,
/// and a block-wide count narrows the range to the pivots that bracket both answers; then each
/// thread binary-searches its own `k` within what is left.
///
/// # Safety
/// Every thread of the block calls this with the same `k_min`, `k_max`; `scratch` holds one
/// u64 per warp.
#[inline(always)]
pub unsafe fn search_pary(
    shape: &Shape,
    prefix: &impl Prefix,
    k: u64,
    k_min: u64,
    k_max: u64,
    scratch: SharedSlice<u64>,
) -> Split {
    let p = block_dim_x() as u64;
    let t = thread_x() as u64;
    let (mut lo, mut hi) = (heavy_range(shape, k_min).0, heavy_range(shape, k_max).1);
    loop {
        let width = hi - lo;
        let pivot = |i: u64| {
            lo + if width < p {
                i.min(width)
            } else {
                width * i / (p - 1)
            }
        };
        let j = pivot(t);
        let (below, above) = (
            heavy_done_clamped(shape, prefix, k_min, j),
            heavy_done_clamped(shape, prefix, k_max, j),
        );
        // Pivots rise with the thread, so the trues are a prefix: count them, both at once.
        // SAFETY: the whole block is here (the caller's contract).
        let counts = unsafe { block::reduce(below as u64 | (above as u64) << 32, Sum, scratch) };
        let (true_min, true_max) = (counts & 0xffff_ffff, counts >> 32);
        let new_lo = if true_min > 0 { pivot(true_min - 1) } else { lo };
        let new_hi = if true_max < p {
            pivot(true_max).saturating_sub(1).max(new_lo)
        } else {
            hi
        };
        let done = width < p || (new_lo, new_hi) == (lo, hi);
        (lo, hi) = (new_lo, new_hi);
        if done {
            break;
        }
    }
    let (own_lo, own_hi) = heavy_range(shape, k);
    search(shape, prefix, k, lo.max(own_lo), hi.min(own_hi))
}

/// One split per section boundary by the paper's partial p-ary search (see [`search_pary`]):
/// each block finds `blockDim.x` consecutive splits.
///
/// # Safety
/// As for [`split_binary`], with one u64 of dynamic shared memory per warp.
#[inline(always)]
pub unsafe fn split_pary<W: PrefixWord>(p: Splits<W>) {
    // SAFETY: `settled` points to a word each (the family's reaches).
    let shape = &unsafe { p.settled.shape(p.shape) };
    let first = block_x() as u64 * block_dim_x() as u64;
    let s = (first + thread_x() as u64).min(p.sections);
    let last = (first + block_dim_x() as u64 - 1).min(p.sections);
    // SAFETY: indices below n + 1 (prefix) and sections + 1 (splits); every thread of the
    // block reaches the search (threads past the end search the last boundary again).
    unsafe {
        let prefix = prefix_in(shape, p.prefix);
        let scratch = SharedSlice::<u64>::carve(0, block_dim_x().div_ceil(WARP_SIZE));
        let k = |s: u64| section_start(shape, s, p.rows_per_section);
        let split = search_pary(shape, &prefix, k(s), k(first.min(p.sections)), k(last), scratch);
        if first + (thread_x() as u64) <= p.sections {
            *p.splits.add(s as usize) = split;
        }
    }
}

impl<W: PrefixWord> Splits<W> {
    /// One thread a section boundary, with the p-ary search's u64 of shared memory per warp
    /// (which the binary search leaves unused).
    pub const fn plan(&self) -> LaunchShape {
        let blocks = super::partition::blocks_for(self.sections + 1);
        LaunchShape::linear(blocks, ALIAS_BLOCK_THREADS, ALIAS_BLOCK_THREADS / 32 * 8)
    }
}
