//! PSA+: each partition tile first runs the sweep over its own items while they sit in shared
//! memory ("greedy packing"), writes those rows, and passes only what it could not finish on to
//! PSA (the paper's GPU variant: greedy packing during the partition, no extra global traffic).
//!
//! A tile's own sweep is the sequential sweep of [`super::sweep`] over the tile's light and heavy
//! items alone, in units of the whole table (a row still holds `Q`, weights are still `N·q`). It
//! stops at the first row that needs an item the tile does not have: a light row when every
//! heavy item of the tile is due, or the row of the tile's last heavy item (whose alias would be
//! the next heavy item). With the cumulative deficit `D(t)` and excess `E(j)` of the tile's
//! items (see [`super::split`]) the stop is closed-form, found by two binary searches:
//! `i* = #{t < L : D(t) < E(H)}` light rows and `j* = #{1 <= m < H : E(m) <= D(i*)}` heavy
//! rows, with spill `D(i*) − E(j*)` on heavy item `j*`.
//!
//! What is left: light items `i*..L` untouched, heavy items `j* + 1..H` untouched, and heavy
//! item `j*` with `N·q − spill` scaled units, light or heavy by that remainder. Its weight need
//! not be a multiple of N, so it travels as `N·q' + rem` (`rem < N` in the entry's padding),
//! and the leftovers' prefix sums are pairs `[Σq, Σrem]`. The leftovers weigh exactly one row
//! each on average over all tiles (each greedy row took exactly one row's worth), so PSA over
//! them with the whole table's row size finishes the table.
//!
//! Greedy packing is tried only in tiles with at least [`GREEDY_MIN_ITEMS`] light and heavy
//! items (the paper's threshold for promising tiles).

use super::ALIAS_BLOCK_THREADS;
use super::partition::{
    PARTITION_TILE, Quantized, StagedTile, TileScans, partition_bytes, plan_tiles, run_fits, stage_tile,
};
use super::split::{heavy_range, search, spill};
use super::sweep::{Cursor, Entry, Row, RowOf, Shape, Weight, rows};
use crate::block::reduce::reduce;
use crate::launch::LaunchShape;
use crate::op::Sum;
use crate::simt::shared::SharedSlice;
use crate::simt::{block_x, thread_x};

/// Light and heavy items a tile needs at least for its greedy sweep to be tried.
pub const GREEDY_MIN_ITEMS: u64 = 8;

/// Per-tile sums the PSA step needs, in this order: light leftovers, heavy leftovers, their
/// quantized weights (light, heavy) and their remainders (light, heavy).
pub const LEFTOVER_SUMS: usize = 6;

/// A tile's items in partitioned order: what the greedy sweep reads.
pub trait TileItems {
    /// Items of the tile.
    fn items(&self) -> u64;
    /// Light items (the first slots).
    fn light(&self) -> u64;
    fn entry(&self, slot: u64) -> Entry;
    /// Quantized weight of the slots before `slot` (`slot <= items`).
    fn prefix(&self, slot: u64) -> u64;
}

impl TileItems for StagedTile {
    fn items(&self) -> u64 {
        self.items
    }
    fn light(&self) -> u64 {
        self.light
    }
    fn entry(&self, slot: u64) -> Entry {
        self.entries.get(slot as u32)
    }
    fn prefix(&self, slot: u64) -> u64 {
        if slot == self.items {
            self.total_q
        } else {
            self.prefix.get(slot as u32)
        }
    }
}

/// Where a tile's greedy sweep stops, and the item it left partly used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Greedy {
    pub stop: Cursor,
    /// Heavy item `stop.heavy` with what it has left, and whether that is light (none when the
    /// tile has no heavy item).
    pub partial: Option<(Entry, bool)>,
}

/// How the greedy stop's two searches run: each finds the number of `k` in `0..count` for
/// which `pred(k)` holds, for a `pred` that holds up to some point and never after.
pub trait Leading {
    fn leading(&self, count: u64, pred: impl Fn(u64) -> bool) -> u64;
}

/// By binary search, in one thread.
pub struct BinarySearch;

impl Leading for BinarySearch {
    #[inline(always)]
    fn leading(&self, count: u64, pred: impl Fn(u64) -> bool) -> u64 {
        let (mut lo, mut hi) = (0, count);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if pred(mid) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }
}

/// By the whole block: each thread tests every `blockDim`-th `k` and a block sum counts the
/// trues (a tile's counts are at most 1024, so four tests a thread, against some ten dependent
/// steps of a binary search in every thread). The one-slot-per-warp scratch must be free.
pub struct BlockCount(pub SharedSlice<u64>);

impl Leading for BlockCount {
    #[inline(always)]
    fn leading(&self, count: u64, pred: impl Fn(u64) -> bool) -> u64 {
        let mut trues = 0;
        let mut k = thread_x() as u64;
        while k < count {
            trues += pred(k) as u64;
            k += ALIAS_BLOCK_THREADS as u64;
        }
        // SAFETY: the whole block searches together (the callers' contract) with this scratch.
        unsafe { reduce(trues, Sum, self.0) }
    }
}

impl Greedy {
    /// The shape of `tile`'s own sweep, in units of the table `whole`.
    #[inline(always)]
    pub fn shape(tile: &impl TileItems, whole: &Shape) -> Shape {
        Shape {
            n: tile.items(),
            n_light: tile.light(),
            ..*whole
        }
    }

    /// Where `tile`'s greedy sweep stops (at its start if the tile is not worth trying), with
    /// the searches run by `search` (for [`BlockCount`], every thread of the block calls this
    /// together).
    #[inline(always)]
    pub fn of(tile: &impl TileItems, whole: &Shape, search: &impl Leading) -> Greedy {
        let shape = Greedy::shape(tile, whole);
        let (l, h, row) = (shape.n_light, shape.n_heavy(), shape.total as u128);
        let stop = if l < GREEDY_MIN_ITEMS || h < GREEDY_MIN_ITEMS {
            Cursor::at(Default::default(), 0)
        } else {
            let p = |t: u64| shape.scaled(tile.prefix(t));
            let deficit = |t: u64| t as u128 * row - p(t);
            let excess = |j: u64| p(l + j) - p(l) - j as u128 * row;
            let all_heavy = excess(h);
            let i = search.leading(l, |t| deficit(t) < all_heavy);
            let d = deficit(i);
            let j = search.leading(h - 1, |m| excess(m + 1) <= d);
            Cursor {
                light: i,
                heavy: j,
                spill: d - excess(j),
            }
        };
        let partial = (h > 0).then(|| {
            let e = tile.entry(l + stop.heavy);
            let left = shape.weight(e) - stop.spill;
            (shape.entry(e.item, left), left <= row)
        });
        Greedy { stop, partial }
    }

    /// Rows the greedy sweep writes.
    #[inline(always)]
    pub fn rows(&self) -> u64 {
        self.stop.light + self.stop.heavy
    }

    /// Writes rows `from..to` of `tile`'s greedy sweep (within `0..self.rows()`), calling
    /// `write(item, row)` once a row.
    #[inline(always)]
    pub fn write_rows<F: Weight>(
        &self,
        tile: &impl TileItems,
        whole: &Shape,
        from: u64,
        to: u64,
        write: impl FnMut(u32, Row<F>, RowOf),
    ) {
        let shape = Greedy::shape(tile, whole);
        let p = |t: u64| shape.scaled(tile.prefix(t));
        let split_at = |k: u64| {
            let (lo, hi) = heavy_range(&shape, k);
            search(&shape, &p, k, lo, hi)
        };
        let (a, b) = (split_at(from), split_at(to));
        let l = shape.n_light;
        rows(
            &shape,
            a,
            b,
            spill(&shape, &p, a),
            |i| tile.entry(i),
            |j| tile.entry(l + j),
            write,
        );
    }

    /// The partly used item and whether it is light, as 0/1 flags: (light, heavy).
    #[inline(always)]
    fn partial_flags(&self) -> (u64, u64) {
        match self.partial {
            Some((_, true)) => (1, 0),
            Some((_, false)) => (0, 1),
            None => (0, 0),
        }
    }

    /// Light and heavy leftovers.
    #[inline(always)]
    pub fn leftovers(&self, tile: &impl TileItems) -> (u64, u64) {
        let (pl, ph) = self.partial_flags();
        let (l, h) = (tile.light(), tile.items() - tile.light());
        let heavy = if h > 0 { h - self.stop.heavy - 1 + ph } else { 0 };
        (l - self.stop.light + pl, heavy)
    }

    /// Leftover `s` of `tile` (light leftovers first: the partly used item if light, then the
    /// untouched light items; then the heavy ones likewise), with the quantized weight and the
    /// remainders of the leftovers of its kind before it in the tile.
    #[inline(always)]
    pub fn leftover(&self, tile: &impl TileItems, s: u64) -> (Entry, [u64; 2]) {
        let (pl, ph) = self.partial_flags();
        let (light_left, _) = self.leftovers(tile);
        let partial = self.partial.map_or(Entry::default(), |(e, _)| e);
        // Untouched leftovers of one kind: `first` is the slot of the first, `flag` whether
        // the partly used item precedes them.
        let run = |k: u64, first: u64, flag: u64| {
            if flag == 1 && k == 0 {
                (partial, [0, 0])
            } else {
                let slot = first + k - flag;
                let q = flag * partial.q + tile.prefix(slot) - tile.prefix(first);
                (tile.entry(slot), [q, flag * partial.rem as u64])
            }
        };
        if s < light_left {
            run(s, self.stop.light, pl)
        } else {
            run(s - light_left, tile.light() + self.stop.heavy + 1, ph)
        }
    }

    /// The tile's [`LEFTOVER_SUMS`].
    #[inline(always)]
    pub fn sums(&self, tile: &impl TileItems) -> [u64; LEFTOVER_SUMS] {
        let (pl, ph) = self.partial_flags();
        let (light, heavy) = self.leftovers(tile);
        let partial = self.partial.map_or(Entry::default(), |(e, _)| e);
        let l = tile.light();
        let light_q = pl * partial.q + tile.prefix(l) - tile.prefix(self.stop.light);
        let heavy_q = if self.partial.is_some() {
            ph * partial.q + tile.prefix(tile.items()) - tile.prefix(l + self.stop.heavy + 1)
        } else {
            0
        };
        let rem = partial.rem as u64;
        [light, heavy, light_q, heavy_q, pl * rem, ph * rem]
    }
}

own_kernel! {
    /// Parameters of [`greedy_tiles`].
    pub struct GreedyTiles<F: Weight> {
        #[group]
        pub items: Quantized<F>,
        /// The tiles' [`LEFTOVER_SUMS`].
        #[len(LEFTOVER_SUMS as u128 * (u128::from(items.n.div_ceil(PARTITION_TILE)) + 1))]
        pub sums: *mut u64,
        /// The `n` rows of the table.
        #[len(items.n)]
        pub table: *mut Row<F>,
    }
    check |p, shape| items.n <= u32::MAX as u64 && *shape == p.plan();
    /// PSA+'s greedy rows within each tile.
    fn greedy_tiles => alias_greedy_tiles_f32<f32>, alias_greedy_tiles_f64<f64>;
}

/// PSA+ pass 2 (in place of PSA's tile counts): stages tile `b`, writes its greedy rows to
/// `table` (each thread a consecutive share of them) and its [`LEFTOVER_SUMS`] to `sums` (at
/// [`TileScans::slot`]).
///
/// # Safety
/// `weights` holds `n` elements, `table` `n` rows, `sums` `LEFTOVER_SUMS·(tiles + 1)`; `total`
/// points to these weights' quantized total; one block of [`ALIAS_BLOCK_THREADS`] per tile with
/// [`super::partition::partition_bytes`] of dynamic shared memory.
#[inline(always)]
pub unsafe fn greedy_tiles<F: Weight>(p: GreedyTiles<F>) {
    let GreedyTiles { items, sums, table } = p;
    // SAFETY: `total` holds a word (the family's reaches).
    let (n, whole) = (items.n, unsafe { items.whole() });
    let (b, t, threads) = (block_x() as u64, thread_x() as u64, ALIAS_BLOCK_THREADS as u64);
    // SAFETY: as the contract above: rows written for the tile's own items, each once (the
    // threads' row ranges partition the greedy rows); sums at `k·(tiles + 1) + b`.
    unsafe {
        let tile = stage_tile(items);
        let greedy = Greedy::of(&tile, &whole, &BlockCount(tile.scratch));
        let k = greedy.rows();
        let (from, to) = (k * t / threads, k * (t + 1) / threads);
        if from < to {
            greedy.write_rows(&tile, &whole, from, to, |item, row: Row<F>, _| {
                row.store(table.add(item as usize))
            });
        }
        if t == 0 {
            let tiles = n.div_ceil(PARTITION_TILE);
            for (k, v) in greedy.sums(&tile).into_iter().enumerate() {
                *sums.add(TileScans::slot(tiles, k as u64, b)) = v;
            }
        }
    }
}

own_kernel! {
    /// Parameters of [`partition_leftovers`].
    pub struct PartitionLeftovers<F: Weight> {
        #[group]
        pub items: Quantized<F>,
        /// The [`TileScans`] of [`greedy_tiles`]' sums.
        #[len(LEFTOVER_SUMS as u128 * (u128::from(items.n.div_ceil(PARTITION_TILE)) + 1))]
        pub scans: *const u64,
        /// The leftovers' entries and `[Σq, Σrem]` prefix sums (room for `n` and `n + 1`).
        #[len(items.n)]
        pub entries: *mut Entry,
        #[len(u128::from(items.n) + 1)]
        pub prefix: *mut [u64; 2],
        /// Light leftovers and all leftovers.
        #[len(2u64)]
        pub counts: *mut u32,
    }
    check |p, shape| items.n <= u32::MAX as u64 && *shape == p.plan();
    /// PSA+'s leftovers, partitioned.
    fn partition_leftovers => alias_partition_leftovers_f32<f32>, alias_partition_leftovers_f64<f64>;
}

/// PSA+ pass 3 (in place of PSA's partition): stages tile `b` again, finds the same greedy
/// stop, and writes its leftovers, entries and `[Σq, Σrem]` prefix sums, after the leftovers
/// of the tiles before it (light ones from 0, heavy ones after every light one), given the
/// [`TileScans`] of pass 2's sums. Block 0 also writes the closing prefix sum and `counts =
/// [light leftovers, all leftovers]`.
///
/// # Safety
/// As for [`greedy_tiles`], with `scans` the tiles' segments, `entries` `n` and `prefix` `n +
/// 1` (room for every leftover) and `counts` two words. Any scans keep the stores in bounds
/// (a tile whose runs would pass `n` writes nothing); right ones give the leftovers.
#[inline(always)]
pub unsafe fn partition_leftovers<F: Weight>(p: PartitionLeftovers<F>) {
    // SAFETY: `total` holds a word (the family's reaches).
    let (n, whole) = (p.items.n, unsafe { p.items.whole() });
    let (b, t) = (block_x() as u64, thread_x() as u64);
    let scans = TileScans {
        scans: p.scans,
        tiles: n.div_ceil(PARTITION_TILE),
    };
    // SAFETY: as the contract above; leftovers land at distinct positions below the
    // leftovers' count.
    unsafe {
        let before = |k: u64, b: u64| scans.before(k, b);
        let all = |k: u64| scans.all(k);
        let tile = stage_tile(p.items);
        let greedy = Greedy::of(&tile, &whole, &BlockCount(tile.scratch));
        let (light_left, heavy_left) = greedy.leftovers(&tile);
        let light_at = (before(0, b), [before(2, b), before(4, b)]);
        let heavy_at = (
            all(0).wrapping_add(before(1, b)),
            [
                all(2).wrapping_add(before(3, b)),
                all(4).wrapping_add(before(5, b)),
            ],
        );
        let fits = run_fits(light_at.0, light_left, n) && run_fits(heavy_at.0, heavy_left, n);
        let left_here = if fits { light_left + heavy_left } else { 0 };
        let mut s = t;
        while s < left_here {
            let (entry, [q, rem]) = greedy.leftover(&tile, s);
            let ((at, [q0, rem0]), k) = if s < light_left {
                (light_at, s)
            } else {
                (heavy_at, s - light_left)
            };
            *p.entries.add((at + k) as usize) = entry;
            *p.prefix.add((at + k) as usize) = [q0.wrapping_add(q), rem0.wrapping_add(rem)];
            s += ALIAS_BLOCK_THREADS as u64;
        }
        if b == 0 && t == 0 {
            let left = all(0).wrapping_add(all(1));
            if left <= n {
                *p.prefix.add(left as usize) = [all(2).wrapping_add(all(3)), all(4).wrapping_add(all(5))];
            }
            *p.counts = all(0) as u32;
            *p.counts.add(1) = left as u32;
        }
    }
}

impl<F: Weight> GreedyTiles<F> {
    pub const fn plan(&self) -> LaunchShape {
        plan_tiles(self.items.n, partition_bytes())
    }
}

impl<F: Weight> PartitionLeftovers<F> {
    pub const fn plan(&self) -> LaunchShape {
        plan_tiles(self.items.n, partition_bytes())
    }
}
