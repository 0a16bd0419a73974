//! Splits: the sweep's state after `k` rows, by a merge-path (co-rank) search over the prefix
//! sums, and the kernels that compute one split per section boundary.
//!
//! The sweep writes heavy item `j`'s row before light item `t`'s exactly when
//! `E(j + 1) <= D(t)`, so its rows are the merge of two increasing sequences, and the state
//! after `k` rows has `j` heavy items done for the largest `j` with
//! `N·(SH[j] + SL[k − j]) <= k·Q` (heavy `j − 1` precedes light `k − j`). The predicate holds
//! for small `j` and fails beyond the answer, and the answer does not decrease with `k`.
//!
//! `prefix` is the exclusive scan of the partitioned quantized weights with one extra zero at
//! the end: `SL[t] = prefix[t]`, `SH[j] = prefix[n_light + j] − prefix[n_light]`.

use super::sweep::{Shape, Split};
use crate::simt::global_x;

/// Reads the prefix sums.
pub trait Prefix {
    fn at(&self, t: u64) -> u64;
}

impl<F: Fn(u64) -> u64> Prefix for F {
    #[inline(always)]
    fn at(&self, t: u64) -> u64 {
        self(t)
    }
}

/// Whether at least `j` heavy items are done after `k` rows.
#[inline(always)]
fn heavy_done(shape: &Shape, prefix: &impl Prefix, k: u64, j: u64) -> bool {
    let base = prefix.at(shape.n_light);
    let sum = prefix.at(k - j) as u128 + (prefix.at(shape.n_light + j) - base) as u128;
    shape.n as u128 * sum <= k as u128 * shape.total as u128
}

/// The range of heavy counts possible after `k` rows.
#[inline(always)]
pub fn heavy_range(shape: &Shape, k: u64) -> (u64, u64) {
    (k.saturating_sub(shape.n_light), k.min(shape.n_heavy()))
}

/// The split after `k` rows, by binary search for the heavy count within `[lo, hi]` (which
/// must contain the answer): the seed's baseline.
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
    let sum = prefix.at(i) as u128 + (prefix.at(shape.n_light + j) - base) as u128;
    (i + j) as u128 * shape.total as u128 - shape.n as u128 * sum
}

/// The first row of section `s` of `rows_per_section` rows.
#[inline(always)]
pub fn section_start(shape: &Shape, s: u64, rows_per_section: u64) -> u64 {
    (s * rows_per_section).min(shape.n)
}

crate::kernel! {
    /// One split per section boundary, `splits[s]` for `s` in `0..=sections`, by binary
    /// search (the seed's baseline split).
    ///
    /// # Safety
    /// `prefix` holds `n + 1` sums, `splits` `sections + 1` entries; `rows_per_section *
    /// sections >= n`.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn alias_split_binary(
        prefix: *const u64,
        n: u64,
        n_light: u64,
        total: u64,
        sections: u64,
        rows_per_section: u64,
        splits: *mut Split,
    ) {
        let s = global_x();
        if s > sections {
            return;
        }
        let shape = Shape { n, n_light, total };
        // SAFETY: indices below n + 1 (prefix) and sections + 1 (splits).
        unsafe {
            let prefix = |t: u64| *prefix.add(t as usize);
            let k = section_start(&shape, s, rows_per_section);
            let (lo, hi) = heavy_range(&shape, k);
            *splits.add(s as usize) = search(&shape, &prefix, k, lo, hi);
        }
    }
}
