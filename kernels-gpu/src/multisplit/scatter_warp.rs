//! The warp-level write of a digit pass's scatter: each warp groups its ranked keys (and
//! values) by digit in its own run of shared memory, then writes each digit's run by
//! consecutive lanes. One shared store and load a key (and value) on top of the direct write,
//! for stores that coalesce within each warp's runs; no block-wide step beyond the warp starts.

use super::bucket::{BucketFn, Key};
use super::lane_tile::LaneTile;
use super::pass::Pass;
use super::table::passes_n;
use crate::block::exchange::Staged;
use crate::block::rank::warp_starts;
use crate::op::Sum;
use crate::policy::multisplit::{THREADS, WARPS};
use crate::simt::shared::SharedSlice;
use crate::simt::warp::FULL_MASK;
use crate::simt::{lane_id, sync_threads, sync_threads_or, sync_warp};
use crate::warp::scan::exclusive_scan as warp_exclusive_scan;

/// Writes the block's tile (`ITEMS` windows a lane, from key `tile_first` of `n`) after grouping each warp's keys by digit: a warp scan of its
/// counts gives each digit's start in the warp's staging run (kept in `matches`, which the
/// ranking is done with), the keys go there, and after the warp starts each staged key `j`
/// goes to its digit's start less its staging start, plus `j`.
///
/// # Safety
/// As for `scatter::scatter` with the warp-level write: `counts` and `matches` the ranking's,
/// `w` this warp (`warp_id()`),
/// `start` where the tile's keys of digit `thread_x()` go, `next` carving the staging past
/// both; every thread of the block calls.
#[inline(always)]
pub(super) unsafe fn write_warp_level<
    K: Key,
    V: Copy,
    F: BucketFn<K>,
    const VALUES: bool,
    const ITEMS: usize,
>(
    tile: &LaneTile<K, V, ITEMS>,
    (counts, matches, w): (SharedSlice<u32>, SharedSlice<u32>, u32),
    pass: Pass<F>,
    (tile_first, n, start): (u64, u64, u32),
    mut next: impl FnMut(u32) -> u32,
    out: (*mut K, *mut V),
) {
    let radix = pass.radix;
    let row = w * radix;
    // SAFETY: the caller's contract; every lane reaches each warp collective and every thread
    // each barrier (the radix is uniform); shared slots indexed by a digit (below the radix),
    // by a staging slot (below the warp's count of keys) or by `j` (below the items); global
    // writes below `n` (the tile skips them where a digit's run would pass it: `passes_n`).
    unsafe {
        // Where each digit's keys start in the warp's staging run: a scan of its counts.
        let local = matches;
        let staged = Staged::<K, V, THREADS, ITEMS>::carve(&mut next, VALUES);
        let warp_keys = 32 * ITEMS as u32;
        let mut carry = 0;
        let mut first = 0;
        while first < radix {
            let d = first + lane_id();
            let c = if d < radix { counts.get(row + d) } else { 0 };
            let (before, total) = warp_exclusive_scan(c, Sum);
            if d < radix {
                local.set(row + d, carry + before);
            }
            carry += total;
            first += 32;
        }
        sync_warp(FULL_MASK);
        let base = w * warp_keys;
        for (k, &value) in tile.value.iter().enumerate() {
            if (k as u32) < tile.windows {
                let slot = base + local.get_unchecked(row + tile.ranked.digit(k)) + tile.ranked.rank(k);
                staged.keys.set_unchecked(slot, tile.ranked.key[k]);
                if VALUES {
                    staged.values.set_unchecked(slot, value);
                }
            }
        }
        sync_threads();
        let count = warp_starts::<WARPS>(counts, radix, start);
        let skip = sync_threads_or(passes_n(radix, start, count, n));
        // Each digit's global start less its staging start: where the staged key `j` of that
        // digit goes is this plus `j`.
        let mut d = lane_id();
        while d < radix {
            counts.set(row + d, counts.get(row + d).wrapping_sub(local.get(row + d)));
            d += 32;
        }
        sync_warp(FULL_MASK);
        let warp_first = tile_first + base as u64;
        let items = if skip {
            0
        } else {
            n.saturating_sub(warp_first).min(warp_keys as u64) as u32
        };
        for k in 0..ITEMS as u32 {
            let j = k * 32 + lane_id();
            if j < items {
                // The digit again from the key: cheaper than staging it.
                let key = staged.keys.get_unchecked(base + j);
                let to = counts.get_unchecked(row + pass.digit(key)).wrapping_add(j) as usize;
                *out.0.add(to) = key;
                if VALUES {
                    *out.1.add(to) = staged.values.get_unchecked(base + j);
                }
            }
        }
    }
}
