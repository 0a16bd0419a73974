//! The block-level write of a digit pass's scatter: the whole tile grouped by digit in shared
//! memory, then written out a slot a thread at a time ([`Staged::write_out`]), so each digit's
//! run of the tile goes out by consecutive threads: the longest runs, the best coalescing, the
//! most shared memory (a tile of keys and of values, laid over the ranking's match words). One
//! block scan of the digit counts and one shared store and load a key on top of the direct write.

use super::bucket::{BucketFn, Key};
use super::lane_tile::LaneTile;
use super::pass::Pass;
use super::table::passes_n;
use crate::block::exchange::Staged;
use crate::block::rank::warp_starts;
use crate::block::scan::exclusive_scan;
use crate::op::Sum;
use crate::policy::multisplit::{THREADS, TILE, WARPS};
use crate::simt::shared::SharedSlice;
use crate::simt::{sync_threads, sync_threads_or, thread_x};

// The block-level write's staged keys cover the match words it is laid over.
const _: () = assert!(TILE as u32 * 4 >= WARPS * super::pass::RADIX * 4);

/// Bytes of the block-level write's digit moves: a word a digit, rounded up to keep the parts
/// after them 8-byte aligned.
pub(super) const fn moved_bytes(radix: u32) -> u32 {
    radix.next_multiple_of(2) * 4
}

/// Writes the block's tile of `THREADS·ITEMS` keys from key `first` (of `n`) after grouping it by digit: the tile's count of each digit,
/// a block scan of them for each digit's start in the staged tile and each warp's, the keys
/// (and values) to their slots, and [`Staged::write_out`] with each digit's global start less
/// its staged start.
///
/// # Safety
/// As for `scatter::scatter` with the block-level write: `counts` the ranking's warp counts
/// (this warp's row from `row`, `warp_id()·radix`),
/// `start` where the tile's keys of digit `thread_x()` go, `next` carving past the counts;
/// every thread of the block calls.
#[inline(always)]
pub(super) unsafe fn write_block_level<
    K: Key,
    V: Copy,
    F: BucketFn<K>,
    const VALUES: bool,
    const ITEMS: usize,
>(
    tile: &LaneTile<K, V, ITEMS>,
    (counts, row): (SharedSlice<u32>, u32),
    pass: Pass<F>,
    (first, n, start): (u64, u64, u32),
    mut next: impl FnMut(u32) -> u32,
    out: (*mut K, *mut V),
) {
    let (d, radix) = (thread_x(), pass.radix);
    // SAFETY: the caller's contract; every thread reaches each barrier (the radix is uniform);
    // shared slots indexed by a digit (below the radix) or a staging slot (below the tile's
    // keys); global writes below `n` (the tile skips them where a digit's run would pass it:
    // `passes_n`).
    unsafe {
        // Each digit's global start less its start in the staged tile.
        let moved = SharedSlice::<u32>::carve(next(moved_bytes(radix)), radix);
        let scratch = SharedSlice::<u32>::carve(next(WARPS * 4), WARPS);
        let staged = Staged::<K, V, THREADS, ITEMS>::carve(&mut next, VALUES);
        sync_threads();
        // The tile's count of digit `d = thread_x()` (the radix is at most THREADS), its start
        // in the staged tile, and each warp's start there: one shared read a key fewer than
        // adding the tile start while staging. Threads past the radix read the last digit's
        // column and count nothing, without a branch: LLVM copied the scan's barriers into both
        // arms of one here, and `bar.sync` (an aligned barrier) in a warp that diverges over it
        // hung the H100.
        let column: u32 = (0..WARPS)
            .map(|w| counts.get_unchecked(w * radix + d.min(radix - 1)))
            .sum();
        let tile_count = column * (d < radix) as u32;
        let (before, _) = exclusive_scan(tile_count, Sum, scratch);
        warp_starts::<WARPS>(counts, radix, before);
        if d < radix {
            moved.set(d, start.wrapping_sub(before));
        }
        let skip = sync_threads_or(passes_n(radix, start, tile_count, n));
        for (k, &value) in tile.value.iter().enumerate() {
            if (k as u32) < tile.windows {
                let slot = counts.get_unchecked(row + tile.ranked.digit(k)) + tile.ranked.rank(k);
                staged.keys.set_unchecked(slot, tile.ranked.key[k]);
                if VALUES {
                    staged.values.set_unchecked(slot, value);
                }
            }
        }
        sync_threads();
        let items = if skip {
            0
        } else {
            (n - first).min(Staged::<K, V, THREADS, ITEMS>::TILE as u64) as u32
        };
        staged.write_out::<VALUES>(moved, pass, items, out);
    }
}
