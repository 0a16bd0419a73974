//! The block-level scatter for passes of up to [`COUNTED_RADIX`] digits, ranked by counters
//! instead of by matching.
//!
//! Each thread holds a run of [`ITEMS`] consecutive keys of the tile (a "blocked" layout, loaded
//! as 16-byte vectors) and keeps one 16-bit counter per digit in shared memory. It counts its
//! keys one after another, each key's rank among the thread's keys of its digit being the
//! counter before the increment. A scan of all counters in digit-major, thread-minor order then
//! gives every (digit, thread) pair the number of the tile's keys placed before it, so a key's
//! slot in the tile grouped by digit is its counter after the scan plus its rank in the thread:
//! stable, since threads hold consecutive runs in input order. No per-window collectives: the
//! matching ranking took about 28 instructions a window of 32 keys in warp barriers, shared
//! atomics and divergence checks, and left the scatter of 2^26 keys into 32 buckets bound by
//! instruction issue on the H100 (results/multisplit.md, fifth session).
//!
//! Counters are packed two to a 32-bit word: digit `d` counts in lane `d % LANES`, in the low
//! half for `d < LANES` and the high half above. The scan adds whole words, both halves at once
//! (a half never exceeds the tile's key count, so no carry crosses between them), and then
//! adds the low halves' total to every high half: the high digits follow all the low ones.
//!
//! The words lie lane-major, thread-minor, with one pad word after each warp's 32 and lanes
//! [`LANE_WORDS`] apart (a multiple of 32), so that shared memory serves both phases without
//! bank conflicts: thread `t`'s word of lane `l` is `l·LANE_WORDS + t + t / 32`. Counting, a
//! warp's 32 threads hit 32 different banks whatever lanes their digits pick (a layout padded
//! per 16 threads cost each count two wavefronts on the H100). In the scan, warp `w` sums
//! lanes `2w` and `2w + 1`, a run of 8 threads' words per lane: the runs of one warp's
//! threads start at banks `8k + w'` for run `k` of warp `w'`, 32 different banks.

use super::bucket::{BucketFn, Key};
use super::pass::Pass;
use crate::block::exchange::Staged;
use crate::block::load::Blocked;
use crate::op::Sum;
use crate::policy::multisplit::{THREADS, TILE, WARPS, WINDOWS as ITEMS};
use crate::simt::shared::SharedSlice;
use crate::simt::{lane_id, sync_threads, thread_x, warp_id};
use crate::warp::scan::exclusive_scan as warp_exclusive_scan;

/// Digits a pass ranked by counters has at most: two to a word, in 16 words a thread.
pub const COUNTED_RADIX: u32 = 32;
const LANES: u32 = COUNTED_RADIX / 2;
/// Words from one lane's counters to the next's: a word a thread and a pad word a warp,
/// rounded up to whole banks.
const LANE_WORDS: u32 = (THREADS + WARPS).next_multiple_of(32);
/// Counter words of the block.
const WORDS: u32 = LANES * LANE_WORDS;
/// Words of a lane that one thread sums in the scan: each warp scans two lanes.
const RUN: u32 = THREADS / 32;
const _: () = assert!(LANES == 2 * WARPS && RUN == 8 && ITEMS <= 8);
/// Each thread's run of [`ITEMS`] consecutive keys (and values) of the tile.
type Run = Blocked<THREADS, ITEMS>;

/// Thread `t`'s counter word of lane `l` ([`LANES`]): the layout of the module docs.
#[inline(always)]
fn counter(l: u32, t: u32) -> u32 {
    l * LANE_WORDS + t + t / 32
}

/// Dynamic shared memory of [`scatter_counted`] with keys and values of these sizes (0 value
/// bytes when there are no values): the counters, each digit's move, the scan's warp slots and
/// the staged tile; every part 8-byte aligned.
pub const fn counted_bytes(key_bytes: u32, value_bytes: u32) -> u32 {
    WORDS * 4 + COUNTED_RADIX * 4 + WARPS * 4 + TILE as u32 * (key_bytes + value_bytes)
}

/// Block-level scatter of tile `b` for a pass of at most [`COUNTED_RADIX`] digits (see the
/// module docs); `start` gives where the tile's keys of digit `thread_x()` go (any value for
/// threads past the radix), called once the keys are counted.
///
/// # Safety
/// As for `scatter::scatter`, with [`counted_bytes`] of dynamic shared memory and
/// `pass.radix <= COUNTED_RADIX`; every thread of the block calls.
#[inline(always)]
pub(super) unsafe fn scatter_counted<K: Key, V: Copy + Default, F: BucketFn<K>, const VALUES: bool>(
    (keys, values): (*const K, *const V),
    n: u64,
    pass: Pass<F>,
    (b, start): (u64, impl FnOnce() -> u32),
    out: (*mut K, *mut V),
) {
    let t = thread_x();
    let items = TILE.min(n - b * TILE) as u32;
    // The thread's keys below `n`, a prefix of its run.
    let mine = items.saturating_sub(t * ITEMS as u32).min(ITEMS as u32);
    // SAFETY: as the contract above; every thread reaches each barrier (branches on `t` hold
    // none); counters indexed below `WORDS` (halves below `2·WORDS`: a digit's lane below
    // `LANES`), moves below the radix, staging slots below the tile's keys.
    unsafe {
        let key: [K; ITEMS] = Run::load(keys, n, b);
        let value: [V; ITEMS] = if VALUES {
            Run::load(values, n, b)
        } else {
            [V::default(); ITEMS]
        };
        let counters = SharedSlice::<u32>::carve(0, WORDS);
        let halves = SharedSlice::<u16>::carve(0, 2 * WORDS);
        let moved = SharedSlice::<u32>::carve(WORDS * 4, COUNTED_RADIX);
        let scratch = SharedSlice::<u32>::carve(WORDS * 4 + COUNTED_RADIX * 4, WARPS);
        let mut at = WORDS * 4 + COUNTED_RADIX * 4 + WARPS * 4;
        let staged = Staged::<K, V, THREADS, ITEMS>::carve(
            &mut |bytes| {
                at += bytes;
                at - bytes
            },
            VALUES,
        );

        for l in 0..LANES {
            counters.set_unchecked(counter(l, t), 0);
        }
        sync_threads();

        // Count: `ranks` keeps each key's rank among the thread's keys of its digit, 3 bits
        // a key (below ITEMS), so that the ranks take one register; the key's counter is
        // found again from its digit.
        let own = 2 * counter(0, t);
        let half = |k: K| {
            let d = pass.digit(k);
            own + d % LANES * 2 * LANE_WORDS + d / LANES
        };
        let mut ranks = 0u32;
        for (i, &k) in key.iter().enumerate() {
            let h = half(k);
            let rank = halves.get_unchecked(h);
            halves.set_unchecked(h, rank + (i < mine as usize) as u16);
            ranks |= (rank as u32) << (3 * i);
        }
        sync_threads();

        // Scan the counters in (lane, thread) order: lane j of warp w sums threads 8j..8j+8
        // of lanes 2w and 2w + 1, two warp scans and the warps' totals give each run its
        // exclusive prefix, and the low halves' total goes to every high half.
        let (w, j) = (warp_id(), lane_id());
        // A run of 8 threads' words lies within one warp's 32: its words are consecutive.
        let word = |l: u32, i: usize| counter(l, RUN * j) + i as u32;
        let run =
            |l: u32| -> [u32; RUN as usize] { core::array::from_fn(|i| counters.get_unchecked(word(l, i))) };
        let (low, high) = (run(2 * w), run(2 * w + 1));
        let (low_before, low_total) = warp_exclusive_scan(low.iter().sum::<u32>(), Sum);
        let (high_before, high_total) = warp_exclusive_scan(high.iter().sum::<u32>(), Sum);
        if j == 0 {
            scratch.set(w, low_total + high_total);
        }
        sync_threads();
        let (mut before, mut total) = (0, 0);
        for v in 0..WARPS {
            let s = scratch.get(v);
            before += if v < w { s } else { 0 };
            total += s;
        }
        let write_back = |l: u32, counts: [u32; RUN as usize], mut prefix: u32| {
            for (i, c) in counts.into_iter().enumerate() {
                counters.set_unchecked(word(l, i), prefix);
                prefix += c;
            }
        };
        let before = before + (total << 16);
        write_back(2 * w, low, before + low_before);
        write_back(2 * w + 1, high, before + low_total + high_before);
        sync_threads();

        // Digit `t`'s first slot in the staged tile is thread 0's counter of it. The tile's
        // keys of digit `t` and the later ones lie in slots `first..items` and, for the table
        // the scan made, go after `start` in the output within `n`; a start past that is
        // lowered to end there, so that no table's contents send a store out of bounds (the
        // tile vote the other writes take cost this one 4 % of its time: ncu, 2^26 keys, m = 2).
        let start = start();
        if t < pass.radix {
            let first = halves.get_unchecked(2 * counter(t % LANES, 0) + t / LANES) as u32;
            // `n <= u32::MAX` (the scatter's check) and `first <= items <= n`.
            let latest = n as u32 - (items - first);
            moved.set_unchecked(t, start.min(latest).wrapping_sub(first));
        }
        for i in 0..ITEMS {
            if i < mine as usize {
                let slot = halves.get_unchecked(half(key[i])) as u32 + (ranks >> (3 * i) & 7);
                staged.keys.set_unchecked(slot, key[i]);
                if VALUES {
                    staged.values.set_unchecked(slot, value[i]);
                }
            }
        }
        sync_threads();
        staged.write_out::<VALUES>(moved, pass, items, out);
    }
}
