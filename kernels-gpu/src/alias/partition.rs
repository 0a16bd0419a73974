//! Partition: a stable partition of the items into light ones (in index order) followed by
//! heavy ones (in index order), each entry holding its quantized weight beside its index, and
//! the exclusive prefix sums of those weights in that order, which the split and pack search.
//!
//! Tiles of [`PARTITION_TILE`] consecutive items, each pass quantizing its weights again rather
//! than storing them (recomputing is cheaper than 8 bytes of traffic an item):
//! 1. [`tile_total`], a warp a tile: each tile's quantized weight (their sum is the total `Q`
//!    that tells light items from heavy ones, `N·q <= Q`), and the tile's sums of the items
//!    below and in a band of weights around where that threshold falls ([`ProvisionalSums`]).
//! 2. [`tile_counts`], a warp a tile: each tile's light items, their weight and its heavy items'
//!    weight, settled from the provisional sums (no weight read) where `⌊Q/N⌋` lies in the band
//!    and no item of the tile has a side only the threshold tells, else counted from the
//!    weights again; one scan over these three short arrays (one element a tile, see
//!    [`TileScans`]).
//! 3. [`partition`], a block a tile: each tile places its items in shared memory by block-wide
//!    scans of the three quantities and then writes its light run and its heavy run, entries
//!    (or indices only, see [`super::layout`]) and prefix sums, as contiguous, coalesced stores.

use super::ALIAS_BLOCK_THREADS;
use super::layout::EntrySink;
use super::quantizer::{Quantizer, UNIT_BITS};
use super::sweep::{Entry, Shape, Weight};
use crate::block::scan::exclusive_scan;
use crate::launch::LaunchShape;
use crate::op::Sum;
use crate::simt::memory::{is_aligned16, load_vectors};
use crate::simt::shared::SharedSlice;
use crate::simt::warp::{FULL_MASK, shfl_idx};
use crate::simt::{block_x, lane_id, sync_threads, sync_warp, thread_x, warp_id};
use crate::warp;

/// Consecutive items per thread in the partition passes.
pub const PARTITION_ITEMS_PER_THREAD: u64 = 4;

/// Items per tile of the partition passes (a block's in the partition, a warp's in the sums).
pub const PARTITION_TILE: u64 = ALIAS_BLOCK_THREADS as u64 * PARTITION_ITEMS_PER_THREAD;

/// Dynamic shared memory of [`partition`]: the scans' warp slots, then the tile's entries and
/// prefix sums.
pub const fn partition_bytes() -> u32 {
    STAGE_BYTES as u32
}

/// Tiles a block of [`tile_total`] and [`tile_counts`] takes, a warp each: a warp sums a whole
/// tile by shuffles, with no barrier or shared memory, and keeps 8 loads a lane in flight.
pub const SUM_TILES_PER_BLOCK: u64 = WARPS as u64;

/// A tile's items each lane takes where a warp takes the tile.
const LANE_ITEMS: u64 = PARTITION_TILE / 32;

const WARPS: u32 = ALIAS_BLOCK_THREADS / 32;

const SCRATCH_BYTES: u64 = WARPS as u64 * size_of::<LightHeavy>() as u64;

/// Light items, their quantized weight and the heavy items' weight (of a thread's items, or a
/// tile's): one value, so that a block combines all three in one reduction or scan, one
/// barrier and one pass over the warps' slots, rather than three.
type LightHeavy = ((u32, u64), u64);

/// How [`LightHeavy`] values combine.
const SUMS: ((Sum, Sum), Sum) = ((Sum, Sum), Sum);

/// The quantized weights of this thread's items of this block's tile, consecutive (the
/// partition's scans place them in index order), 0 past `n`, and how many of them are items
/// (the first ones). A full tile's loads are issued together, as 16-byte vectors where the
/// weights are aligned (device buffers are); the rest are checked.
///
/// # Safety
/// `weights` holds `n` elements.
#[inline(always)]
unsafe fn my_weights<F: Weight>(weights: *const F, n: u64, z: Quantizer) -> ([u64; ITEMS], u64) {
    let tile_start = block_x() as u64 * PARTITION_TILE;
    let first = tile_start + thread_x() as u64 * PARTITION_ITEMS_PER_THREAD;
    let at = |k: usize| first + k as u64;
    // SAFETY: every index read is below `n` (all of a full tile's are); a thread's items start
    // at a multiple of 4, so 16-byte aligned where the weights are.
    let w: [F; ITEMS] = if tile_start + PARTITION_TILE <= n && is_aligned16(weights) {
        // Unaligned full tiles take the checked loads below, not unchecked scalar ones: with
        // both arms loading the same words, LLVM merged them into scalar loads and no vector
        // load was left.
        unsafe { load_vectors(weights.add(first as usize)) }
    } else {
        core::array::from_fn(|k| {
            if at(k) < n {
                unsafe { *weights.add(at(k) as usize) }
            } else {
                F::ZERO
            }
        })
    };
    let count = n.saturating_sub(first).min(PARTITION_ITEMS_PER_THREAD);
    (w.map(|w| z.quantize(w.to_f64())), count)
}

/// `init` folded by `add` with the quantized weight of each of this lane's items of `tile`,
/// where a warp takes the whole tile: items `lane + 32·k`, so that each load of the warp is
/// one coalesced run, loaded eight at a time; a full tile's unchecked.
///
/// # Safety
/// `weights` holds `n` elements; `tile` starts below `n`.
#[inline(always)]
unsafe fn fold_lane_items<F: Weight, S>(
    weights: *const F,
    n: u64,
    z: Quantizer,
    tile: u64,
    init: S,
    mut add: impl FnMut(S, u64) -> S,
) -> S {
    const BATCH: u64 = 8;
    let first = tile * PARTITION_TILE + lane_id() as u64;
    let full = n - tile * PARTITION_TILE >= PARTITION_TILE;
    let mut sums = init;
    for batch in 0..LANE_ITEMS / BATCH {
        let at = |k: usize| first + (batch * BATCH + k as u64) * 32;
        // SAFETY: every index read is below `n` (all of a full tile's are).
        let w: [F; BATCH as usize] = core::array::from_fn(|k| {
            if full || at(k) < n {
                unsafe { *weights.add(at(k) as usize) }
            } else {
                F::ZERO
            }
        });
        for (k, w) in w.into_iter().enumerate() {
            if full || at(k) < n {
                sums = add(sums, z.quantize(w.to_f64()));
            }
        }
    }
    sums
}

const ITEMS: usize = PARTITION_ITEMS_PER_THREAD as usize;

/// `sums` (light items, their weight, the heavy items' weight) with an item of quantized
/// weight `q` added, light or heavy as `shape` says.
#[inline(always)]
fn add_item(shape: &Shape, ((count, lq), hq): LightHeavy, q: u64) -> LightHeavy {
    if shape.is_light(q) {
        ((count + 1, lq + q), hq)
    } else {
        ((count, lq), hq + q)
    }
}

/// This thread's light items, their weight and its heavy items' weight.
#[inline(always)]
fn my_sums(shape: &Shape, q: &[u64; ITEMS], items: u64) -> LightHeavy {
    // A loop over the whole array with the count tested inside: an iterator cut to `items`
    // put the array in local memory.
    let mut sums = ((0, 0), 0);
    for (k, &q) in q.iter().enumerate() {
        if (k as u64) < items {
            sums = add_item(shape, sums, q);
        }
    }
    sums
}

own_kernel! {
    /// Parameters of [`tile_total`].
    pub struct TileTotal<F: Weight> {
        /// The `n` weights, quantized by `quantizer`.
        #[len(n)]
        pub weights: *const F,
        pub n: u64,
        pub quantizer: Quantizer,
        /// One quantized weight per tile.
        #[len(n.div_ceil(PARTITION_TILE))]
        pub tile_q: *mut u64,
        /// The tiles' [`ProvisionalSums`], where [`tile_counts`] settles them, laid out as
        /// [`TileScans`] reads them (PSA+'s greedy tiles overwrite them unread).
        #[len(TILE_COUNTS as u128 * (u128::from(n.div_ceil(PARTITION_TILE)) + 1))]
        pub sums: *mut u64,
    }
    check |p, shape| *shape == p.plan();
    /// Each tile's quantized weight and its provisional light and heavy sums.
    fn tile_total => alias_tile_total_f32<f32>, alias_tile_total_f64<f64>;
}

/// A tile's light and heavy sums before the total `Q` is known, as [`tile_total`] leaves them
/// in its three [`TileScans`] slots: its items below a band of weights around `2^31` (light
/// wherever the threshold lies in the band) in the low half of the first word and its items in
/// the band in the high half, the weight of the items below the band, the weight of the rest.
///
/// Quantizing scales the weights so that `Q/N` is `2^31·(1 + η) + r`, with `|r| <= 1/2` (the
/// average of the items' roundings to whole units) and `η` the relative error of the total the
/// scale was taken from, so the light test's threshold `⌊Q/N⌋` lies near `2^31`. The band,
/// `2^31 ± F::THRESHOLD_BAND`, is where totals summed in `F` put it: then items below the band
/// are light and items above it heavy, and a tile with no item in the band has its sums
/// already. In f64 the band is the one weight `2^31`, whose items the threshold puts on one
/// side, so every tile's sums settle without a second read of its weights; in f32 (`|η|` up to
/// about `400·2^-24` for 10^8 weights, the band `±2^16` units) the tiles with items in the band
/// are counted again (few, unless many weights lie within `3·10^-5` of the average), and all of
/// them where the threshold lies outside the band.
pub struct ProvisionalSums;

impl ProvisionalSums {
    /// An average item's quantized weight, `2^31`.
    const UNIT: u64 = 1 << UNIT_BITS;

    /// `sums` with an item of quantized weight `q` added (the first word packed as described
    /// above: a tile's items fit in 16 bits, so its halves never carry into each other).
    #[inline(always)]
    fn add<F: Weight>(((packed, lq), hq): LightHeavy, q: u64) -> LightHeavy {
        if q < Self::UNIT - F::THRESHOLD_BAND {
            ((packed + 1, lq + q), hq)
        } else {
            let in_band = q <= Self::UNIT + F::THRESHOLD_BAND;
            ((packed + (u32::from(in_band) << 16), lq), hq + q)
        }
    }

    /// For the total and items of `shape`, whether the light test's threshold `⌊Q/N⌋` lies in
    /// the band of `F` or one below it (where the items below the band are light and those
    /// above it heavy), and if so whether it is `2^31` or more (an item of weight `2^31` is
    /// light); `None` elsewhere.
    #[inline(always)]
    pub fn threshold_in_band<F: Weight>(shape: &Shape) -> Option<bool> {
        let (n, total) = (shape.scale, shape.total);
        // `⌊Q/N⌋ >= t` exactly where `Q >= N·t`; below 2^64 for every N < 2^32.
        let at_least = |t: u64| total >= n.saturating_mul(t);
        let band = F::THRESHOLD_BAND;
        let within = at_least(Self::UNIT - band - 1) && !at_least(Self::UNIT + band + 1);
        within.then(|| at_least(Self::UNIT))
    }

    /// A tile's light items, their weight and its heavy items' weight from its provisional
    /// sums `words`, where the threshold lies in the band ([`Self::threshold_in_band`]) and items of
    /// weight `2^31` are light if `unit_light`; `None` for a tile with items in a band wider
    /// than one weight (which side each is on, only its weight tells).
    #[inline(always)]
    pub fn settle<F: Weight>(words: [u64; TILE_COUNTS], unit_light: bool) -> Option<[u64; TILE_COUNTS]> {
        let [packed, lq, hq] = words;
        let (light, band) = (packed & 0xffff, packed >> 16);
        if band != 0 && F::THRESHOLD_BAND != 0 {
            return None;
        }
        // Items in a band of one weight, `2^31`, are light or heavy together. Wrapping: words
        // a checked launch cannot trust must not trap.
        let moved = if unit_light { band } else { 0 };
        let moved_q = moved << UNIT_BITS;
        Some([light + moved, lq.wrapping_add(moved_q), hq.wrapping_sub(moved_q)])
    }
}

const _: () = assert!(PARTITION_TILE < 1 << 16, "a tile's counts fit in 16 bits");

/// Tile `b`'s quantized weight to `tile_q[b]` and its [`ProvisionalSums`] to `sums` (at
/// [`TileScans::slot`]).
///
/// # Safety
/// `weights` holds `n` elements, `tile_q` one per tile, `sums` `TILE_COUNTS·(tiles + 1)`;
/// blocks of [`ALIAS_BLOCK_THREADS`], [`SUM_TILES_PER_BLOCK`] tiles a block.
#[inline(always)]
pub unsafe fn tile_total<F: Weight>(p: TileTotal<F>) {
    let TileTotal {
        weights,
        n,
        quantizer: z,
        tile_q,
        sums,
    } = p;
    let tiles = n.div_ceil(PARTITION_TILE);
    let Some(b) = my_tile(tiles) else {
        return;
    };
    // SAFETY: as the contract above; the warp's lanes all take its tile (the test above is the
    // warp's), so all reach the shuffles.
    unsafe {
        let none = ((0, 0), 0);
        let mine = fold_lane_items(weights, n, z, b, none, ProvisionalSums::add::<F>);
        let ((packed, lq), hq) = warp::reduce(mine, SUMS);
        if lane_id() == 0 {
            *tile_q.add(b as usize) = lq + hq;
            write_sums(sums, tiles, b, [packed as u64, lq, hq]);
        }
    }
}

/// The tile this warp takes in [`tile_total`] and [`tile_counts`] of `tiles`, if any: the
/// last tile first. The weights' sum just before reads them in grid-stride order, so their end
/// is what it leaves in L2; [`partition`], which reads them after, takes the tiles first to
/// last and finds their start there. (Where [`tile_counts`] reads weights again, a few f32
/// tiles, it goes in the same order; only its own reads of them miss.)
#[inline(always)]
fn my_tile(tiles: u64) -> Option<u64> {
    let k = block_x() as u64 * SUM_TILES_PER_BLOCK + warp_id() as u64;
    (k < tiles).then(|| tiles - 1 - k)
}

/// Tile `b`'s three sums to their [`TileScans::slot`]s.
///
/// # Safety
/// `sums` holds `TILE_COUNTS·(tiles + 1)` words; `b` is below `tiles`.
#[inline(always)]
unsafe fn write_sums(sums: *mut u64, tiles: u64, b: u64, words: [u64; TILE_COUNTS]) {
    for (k, v) in words.into_iter().enumerate() {
        // SAFETY: the caller's contract.
        unsafe { *sums.add(TileScans::slot(tiles, k as u64, b)) = v };
    }
}

/// Exclusive scans over tiles of several per-tile sums, all in one array: sum `k` of tile `b`
/// was input `k·(tiles + 1) + b`, each segment ending in a 0, and one exclusive scan ran over
/// the whole array, so one launch scans every sum.
#[derive(Clone, Copy)]
pub struct TileScans {
    pub scans: *const u64,
    pub tiles: u64,
}

impl TileScans {
    /// Where tile `b`'s sum `k` goes in the input array.
    #[inline(always)]
    pub fn slot(tiles: u64, k: u64, b: u64) -> usize {
        (k * (tiles + 1) + b) as usize
    }

    /// This lane's word of [`TileStarts`] for tile `b`: lane `3k + c` (below 9) loads sum `k`'s
    /// scan at tile 0, past the last tile or at tile `b` (`c` = 0, 1, 2), the others nothing
    /// (lane 7's word, sum 2 over all tiles, goes unused). Loaded as a kernel starts and handed
    /// round by [`TileStarts::of`] once needed, so that their trip to L2 passes behind the
    /// kernel's other loads.
    ///
    /// # Safety
    /// `scans` holds three segments; `b` is at most its tiles.
    #[inline(always)]
    unsafe fn lane_word(&self, b: u64) -> u64 {
        let lane = lane_id();
        let column = match lane % 3 {
            0 => 0,
            1 => self.tiles,
            _ => b,
        };
        if lane < 3 * TILE_COUNTS as u32 {
            // SAFETY: the caller's contract; the column is at most `tiles`.
            unsafe {
                *self
                    .scans
                    .add(TileScans::slot(self.tiles, (lane / 3) as u64, column))
            }
        } else {
            0
        }
    }

    /// Sum `k` over the tiles before `b` (over all of them for `b = tiles`).
    ///
    /// # Safety
    /// `scans` holds the scan described above, with more than `k` segments.
    #[inline(always)]
    pub unsafe fn before(&self, k: u64, b: u64) -> u64 {
        // SAFETY: the caller's contract.
        unsafe {
            (*self.scans.add(TileScans::slot(self.tiles, k, b)))
                .wrapping_sub(*self.scans.add(TileScans::slot(self.tiles, k, 0)))
        }
    }

    /// Sum `k` over every tile.
    ///
    /// # Safety
    /// As for [`TileScans::before`].
    #[inline(always)]
    pub unsafe fn all(&self, k: u64) -> u64 {
        // SAFETY: the caller's contract.
        unsafe { self.before(k, self.tiles) }
    }
}

crate::kernel_group! {
    /// The items a construction's tile kernels read: the `n` weights, their quantizer, and
    /// their total quantized weight, in device memory where the tile totals' sum left it (so
    /// the host queues these kernels without waiting for it).
    pub struct Quantized<F: Weight> {
        #[len(n)]
        pub weights: *const F,
        pub n: u64,
        pub quantizer: Quantizer,
        #[len(1u64)]
        pub total: *const u64,
    }
}

impl<F: Weight> Quantized<F> {
    /// The shape of a sweep over all the items (no light count), with the total read from
    /// device memory.
    ///
    /// # Safety
    /// `total` points to a readable word (the group's reach).
    #[inline(always)]
    pub unsafe fn whole(&self) -> Shape {
        // SAFETY: the caller's contract.
        Shape::whole(self.n, 0, unsafe { *self.total })
    }
}

/// Sums per tile of [`tile_counts`]: light items, their quantized weight, the heavy items'.
pub const TILE_COUNTS: usize = 3;

/// What a tile of [`partition`] takes from the [`TileScans`]: the light items and the light
/// weight before it, all the light items, and all the light weight plus the heavy weight of the
/// tiles before (its heavy items' base, less its own light weight).
#[derive(Clone, Copy)]
struct TileStarts {
    n_light: u64,
    light_start: u64,
    light_base: u64,
    heavy_base: u64,
}

impl TileStarts {
    /// The starts from the warp's [`TileScans::lane_word`]s. Read after the tile's staging,
    /// behind its barrier, the scans had cost the partition two dependent trips to L2
    /// (results/alias.md, 2026-12-06).
    ///
    /// # Safety
    /// The whole warp calls, each lane with its word.
    #[inline(always)]
    unsafe fn of(word: u64) -> TileStarts {
        // SAFETY: the whole warp shuffles (the caller's contract).
        let w = |lane: u32| unsafe { shfl_idx(FULL_MASK, word, lane) };
        let sum = |k: u32, column: u32| w(3 * k + column).wrapping_sub(w(3 * k));
        TileStarts {
            n_light: sum(0, 1),
            light_start: sum(0, 2),
            light_base: sum(1, 2),
            heavy_base: sum(1, 1).wrapping_add(sum(2, 2)),
        }
    }
}

own_kernel! {
    /// Parameters of [`tile_counts`].
    pub struct TileCounts<F: Weight> {
        #[group]
        pub items: Quantized<F>,
        /// The tiles' sums, laid out as [`TileScans`] reads them: [`tile_total`]'s provisional
        /// ones in, the tiles' own out.
        #[len(TILE_COUNTS as u128 * (u128::from(items.n.div_ceil(PARTITION_TILE)) + 1))]
        pub sums: *mut u64,
    }
    check |p, shape| *shape == p.plan();
    /// Each tile's light items, their weight and its heavy items' weight.
    fn tile_counts => alias_tile_counts_f32<f32>, alias_tile_counts_f64<f64>;
}

/// Tile `b`'s light items, their quantized weight and its heavy items' weight to `sums` (at
/// [`TileScans::slot`]), for items of total quantized weight `total`: settled from the
/// [`ProvisionalSums`] [`tile_total`] left there where the total allows, else counted.
///
/// # Safety
/// As for [`tile_total`], with `sums` holding `TILE_COUNTS·(tiles + 1)` words. The sums are
/// these weights' when `sums` holds [`tile_total`]'s words for the same weights and quantizer
/// (any other words give wrong sums, never an access out of bounds).
#[inline(always)]
pub unsafe fn tile_counts<F: Weight>(p: TileCounts<F>) {
    let TileCounts { items: w, sums } = p;
    // SAFETY: `total` holds a word (the family's reaches).
    let (n, shape) = (w.n, unsafe { w.whole() });
    let tiles = n.div_ceil(PARTITION_TILE);
    let Some(b) = my_tile(tiles) else {
        return;
    };
    let threshold = ProvisionalSums::threshold_in_band::<F>(&shape);
    // SAFETY: as the contract above; the warp takes one arm (its lanes read the same words), so
    // all its lanes reach the shuffles.
    unsafe {
        let words = core::array::from_fn(|k| *sums.add(TileScans::slot(tiles, k as u64, b)));
        let settled = threshold.and_then(|unit_light| ProvisionalSums::settle::<F>(words, unit_light));
        let counts = settled.unwrap_or_else(|| {
            let none = ((0, 0), 0);
            let mine = fold_lane_items(w.weights, n, w.quantizer, b, none, |s, q| add_item(&shape, s, q));
            let ((count, lq), hq) = warp::reduce(mine, SUMS);
            [count as u64, lq, hq]
        });
        // Every lane has read the words before lane 0 overwrites them (lanes of a warp need not
        // run in step), so all took the same arm.
        sync_warp(FULL_MASK);
        if lane_id() == 0 {
            write_sums(sums, tiles, b, counts);
        }
    }
}

/// One tile's items in shared memory in the partitioned order (its light items, then its heavy
/// items, each in index order), with exclusive prefix sums of their quantized weights in that
/// order, local to the tile.
#[derive(Clone, Copy)]
pub struct StagedTile {
    /// One slot per warp, free for block-wide sums once the tile is staged.
    pub scratch: SharedSlice<u64>,
    pub entries: SharedSlice<Entry>,
    pub prefix: SharedSlice<u64>,
    /// Items of the tile.
    pub items: u64,
    /// Light items (the first slots).
    pub light: u64,
    /// Quantized weight of the light items and of the whole tile.
    pub light_q: u64,
    pub total_q: u64,
}

/// Shared memory of [`stage_tile`] and the scans' warp slots: what [`partition`] launches with.
const STAGE_BYTES: u64 = SCRATCH_BYTES + PARTITION_TILE * (size_of::<Entry>() + size_of::<u64>()) as u64;

/// Quantizes this block's tile of `items` and stages it in shared memory (see [`StagedTile`]).
/// Ends with a barrier, so every thread may read all of it.
///
/// # Safety
/// `items.weights` holds `items.n` elements; every thread of a block of
/// [`ALIAS_BLOCK_THREADS`] calls this together, with at least [`partition_bytes`] of dynamic
/// shared memory.
#[inline(always)]
pub unsafe fn stage_tile<F: Weight>(items: Quantized<F>) -> StagedTile {
    // SAFETY: `total` holds a word (the group's reaches, which the caller's launch checked).
    let shape = unsafe { items.whole() };
    let Quantized {
        weights,
        n,
        quantizer: z,
        ..
    } = items;
    let (b, t) = (block_x() as u64, thread_x() as u64);
    let tile_start = b * PARTITION_TILE;
    // SAFETY: shared memory carved within `partition_bytes`; slots below the tile's items; every
    // thread reaches each scan and the barrier.
    unsafe {
        let sums = SharedSlice::<LightHeavy>::carve(0, WARPS);
        let entries = SharedSlice::<Entry>::carve(SCRATCH_BYTES as u32, PARTITION_TILE as u32);
        let prefix = SharedSlice::<u64>::carve(
            (SCRATCH_BYTES + PARTITION_TILE * size_of::<Entry>() as u64) as u32,
            PARTITION_TILE as u32,
        );
        let (mine, items) = my_weights(weights, n, z);
        let (before, ((tile_light, light_q), heavy_q)) =
            exclusive_scan(my_sums(&shape, &mine, items), SUMS, sums);
        let ((count, mut lq), mut hq) = before;
        let (mut count, tile_light) = (count as u64, tile_light as u64);
        hq += light_q;
        for (k, &q) in mine.iter().enumerate().take(items as usize) {
            let local = t * PARTITION_ITEMS_PER_THREAD + k as u64;
            // Light items take the tile's first slots, heavy ones the rest, each in order.
            let (slot, sum) = if shape.is_light(q) {
                count += 1;
                lq += q;
                (count - 1, lq - q)
            } else {
                hq += q;
                (tile_light + local - count, hq - q)
            };
            entries.set(slot as u32, Entry::new((tile_start + local) as u32, q));
            prefix.set(slot as u32, sum);
        }
        sync_threads();
        StagedTile {
            scratch: SharedSlice::carve(0, WARPS),
            entries,
            prefix,
            items: PARTITION_TILE.min(n - tile_start),
            light: tile_light,
            light_q,
            total_q: light_q + heavy_q,
        }
    }
}

own_kernel! {
    /// Parameters of [`partition`].
    pub struct Partition<F: Weight, E: EntrySink> {
        #[group]
        pub items: Quantized<F>,
        /// The [`TileScans`] of [`tile_counts`]' sums.
        #[len(TILE_COUNTS as u128 * (u128::from(items.n.div_ceil(PARTITION_TILE)) + 1))]
        pub scans: *const u64,
        /// Where the partitioned items go: entries (in [`super::layout::Compact`] form), or
        /// indices only.
        #[len(items.n)]
        pub entries: *mut E,
        /// The `n + 1` prefix sums.
        #[len(u128::from(items.n) + 1)]
        pub prefix: *mut u64,
        /// The count of light items.
        #[len(1u64)]
        pub n_light: *mut u32,
    }
    check |p, shape| items.n <= u32::MAX as u64 && *shape == p.plan();
    /// The partition, weights beside indices.
    fn partition => alias_partition_f32<f32, Entry>, alias_partition_f64<f64, Entry>;
    /// The partition, indices only.
    fn partition => alias_partition_indices_f32<f32, u32>, alias_partition_indices_f64<f64, u32>;
}

/// Whether a run of `len` items from `start` ends within `n`: each tile checks its runs, whose
/// starts come from scans a checked launch cannot trust, before it writes them.
#[inline(always)]
pub fn run_fits(start: u64, len: u64, n: u64) -> bool {
    len <= n && start <= n - len
}

/// Writes tile `b`'s entries (to either layout) and their prefix sums in the partitioned order,
/// given the [`TileScans`] of [`tile_counts`]' sums, and `n_light` and `prefix[n] = total` from
/// block 0.
///
/// # Safety
/// `weights` holds `n > 0` elements, `entries` `n`, `prefix` `n + 1`, `scans` the tiles' three
/// segments; one block of [`ALIAS_BLOCK_THREADS`] per tile with [`partition_bytes`] of dynamic
/// shared memory. The scans' contents need not be right (a tile whose runs would pass `n`
/// writes nothing); the partition is, when they are the scans of these weights' tile counts.
#[inline(always)]
pub unsafe fn partition<F: Weight, E: EntrySink>(p: Partition<F, E>) {
    let Partition {
        items,
        scans,
        entries,
        prefix,
        n_light: n_light_out,
    } = p;
    // SAFETY: `total` holds a word (the family's reaches).
    let (n, total) = (items.n, unsafe { *items.total });
    let (b, t) = (block_x() as u64, thread_x() as u64);
    let scans = TileScans {
        scans,
        tiles: n.div_ceil(PARTITION_TILE),
    };
    // SAFETY: as the contract above: entries and prefix sums written at positions below `n`
    // (the tiles' runs partition `0..n`; a tile whose runs would not fit writes nothing); the
    // scans read at tile `b` below the tiles (a block a tile); every lane of each warp reaches
    // the shuffles (whole warps, no return before them).
    unsafe {
        let word = scans.lane_word(b);
        let tile = stage_tile(items);
        let TileStarts {
            n_light,
            light_start,
            light_base,
            heavy_base,
        } = TileStarts::of(word);
        let heavy_start = n_light.wrapping_add(b * PARTITION_TILE).wrapping_sub(light_start);
        // Local sums to global ones: light ones from 0, heavy ones after all the light weight.
        let heavy_base = heavy_base.wrapping_sub(tile.light_q);
        let fits = run_fits(light_start, tile.light, n)
            && run_fits(heavy_start, tile.items - tile.light, n)
            && n_light <= heavy_start;
        let items = if fits { tile.items } else { 0 };
        let mut slot = t;
        while slot < items {
            let entry = tile.entries.get(slot as u32);
            let (at, base) = if slot < tile.light {
                E::put_light(entries, light_start + slot, entry);
                (light_start + slot, light_base)
            } else {
                let at = heavy_start + slot - tile.light;
                E::put_heavy(entries, at, n_light, entry);
                (at, heavy_base)
            };
            *prefix.add(at as usize) = base.wrapping_add(tile.prefix.get(slot as u32));
            slot += ALIAS_BLOCK_THREADS as u64;
        }
        if b == 0 && t == 0 {
            *prefix.add(n as usize) = total;
            *n_light_out = n_light as u32;
        }
    }
}

/// One block of [`ALIAS_BLOCK_THREADS`] per tile of `n` items, with `shared_bytes` each: the
/// shape of every pass over the tiles but the sums'.
pub const fn plan_tiles(n: u64, shared_bytes: u32) -> LaunchShape {
    LaunchShape::linear(n.div_ceil(PARTITION_TILE), ALIAS_BLOCK_THREADS, shared_bytes)
}

/// The shape of the tile sums' passes over `n` items: a warp a tile.
pub const fn plan_tile_sums(n: u64) -> LaunchShape {
    let tiles = n.div_ceil(PARTITION_TILE);
    LaunchShape::linear(tiles.div_ceil(SUM_TILES_PER_BLOCK), ALIAS_BLOCK_THREADS, 0)
}

impl<F: Weight> TileTotal<F> {
    pub const fn plan(&self) -> LaunchShape {
        plan_tile_sums(self.n)
    }
}

impl<F: Weight> TileCounts<F> {
    pub const fn plan(&self) -> LaunchShape {
        plan_tile_sums(self.items.n)
    }
}

impl<F: Weight, E: EntrySink> Partition<F, E> {
    pub const fn plan(&self) -> LaunchShape {
        plan_tiles(self.items.n, partition_bytes())
    }
}

/// Blocks for a grid-stride pass over `n` items (at least one).
pub const fn blocks_for(n: u64) -> u64 {
    let b = n.div_ceil(ALIAS_BLOCK_THREADS as u64);
    if b == 0 { 1 } else { b }
}

own_kernel! {
    /// Parameters of [`check_sum`].
    pub struct CheckSum<F: Weight> {
        /// The `n` weights.
        #[len(n)]
        pub weights: *const F,
        pub n: u64,
        /// One partial sum per block.
        #[len(shape.grid[0])]
        pub partials: *mut F,
        /// The least index of a bad weight; the caller starts it at `u64::MAX`.
        #[len(1u64)]
        pub first_bad: *mut u64,
    }
    check |p, shape| shape.is_linear(crate::policy::REDUCE_BLOCK_THREADS, crate::grid::reduce::Reduce::<F>::SHARED_BYTES);
    fn check_sum::<f32, 4> => alias_check_sum_f32<f32>;
    fn check_sum::<f64, 2> => alias_check_sum_f64<f64>;
}

/// The first pass of the weights' sum (as `reduce_sum` with `V`-element vectors, the same
/// order, so the same bits) that also lowers `first_bad` to the index of every weight that is
/// negative, NaN or infinite.
///
/// # Safety
/// As for `reduce_sum`; `first_bad` is one u64.
#[inline(always)]
pub unsafe fn check_sum<F: Weight, const V: usize>(p: CheckSum<F>) {
    // SAFETY: forwarded.
    unsafe { checked_partials::<F, V, false>(p.weights, p.n, p.partials, p.first_bad, |_, w| w) }
}

/// [`check_sum`] of the weights `weight(i, input[i])`, with one load in flight a thread if
/// `ONE_BY_ONE` (the same bits; see `reduce_partials`).
///
/// # Safety
/// As for [`check_sum`], with `input` holding `n` elements.
#[inline(always)]
pub unsafe fn checked_partials<F: Weight, const V: usize, const ONE_BY_ONE: bool>(
    input: *const F,
    n: u64,
    partials: *mut F,
    first_bad: *mut u64,
    mut weight: impl FnMut(u64, F) -> F,
) {
    let mut first = u64::MAX;
    // SAFETY: forwarded to the caller's contract; `first_bad` is only touched atomically.
    unsafe {
        crate::grid::reduce::reduce_partials::<F, F, _, V, ONE_BY_ONE>(input, n, partials, Sum, |i, x| {
            let w = weight(i, x);
            let x = w.to_f64();
            if !(x >= 0.0 && x.is_finite()) {
                first = first.min(i);
            }
            w
        });
        if first != u64::MAX {
            crate::simt::atomic::min_u64(first_bad, first);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tile of the given weights settled at a total of `N·t + r`, against counting it.
    fn settles_as_counted<F: Weight>(t: u64, r: u64, weights: &[u64]) {
        let n = 1000u64;
        let shape = Shape::whole(n, 0, n * t + r);
        let none = ((0u32, 0u64), 0u64);
        let counted = weights.iter().fold(none, |s, &q| add_item(&shape, s, q));
        let ((packed, lq), hq) = weights.iter().fold(none, |s, &q| ProvisionalSums::add::<F>(s, q));
        let band = ProvisionalSums::UNIT - F::THRESHOLD_BAND..=ProvisionalSums::UNIT + F::THRESHOLD_BAND;
        let in_range = (*band.start() - 1..=*band.end()).contains(&t);
        assert_eq!(
            ProvisionalSums::threshold_in_band::<F>(&shape).is_some(),
            in_range,
            "t = {t}"
        );
        let settled = ProvisionalSums::threshold_in_band::<F>(&shape)
            .and_then(|unit_light| ProvisionalSums::settle::<F>([packed as u64, lq, hq], unit_light));
        let banded = weights.iter().any(|q| band.contains(q));
        assert_eq!(
            settled.is_some(),
            in_range && (F::THRESHOLD_BAND == 0 || !banded),
            "t = {t}"
        );
        if let Some(sums) = settled {
            let ((count, lq), hq) = counted;
            assert_eq!(
                sums,
                [count as u64, lq, hq],
                "t = {t}, r = {r}, weights {weights:?}"
            );
        }
    }

    /// Every threshold from two below the band to one above it, with weights at the band's
    /// edges and beside them: settled sums are the counted ones, and a tile settles exactly
    /// where the threshold is in range and (for a band wider than one weight) no item is in it.
    fn settle_agrees_with_the_light_test<F: Weight>() {
        let (unit, band) = (ProvisionalSums::UNIT, F::THRESHOLD_BAND);
        let edges = [
            unit - band - 2,
            unit - band - 1,
            unit - band,
            unit,
            unit + band,
            unit + band + 1,
        ];
        for t in unit - band - 2..=unit + band + 1 {
            if band > 2 && !edges.contains(&t) {
                continue;
            }
            for r in [0, 999] {
                settles_as_counted::<F>(t, r, &[1, unit - band - 1, unit + band + 1, 5 * unit]);
                settles_as_counted::<F>(t, r, &edges);
                settles_as_counted::<F>(t, r, &[unit; 7]);
            }
        }
    }

    #[test]
    fn settle_agrees_with_the_light_test_f64() {
        settle_agrees_with_the_light_test::<f64>();
    }

    #[test]
    fn settle_agrees_with_the_light_test_f32() {
        settle_agrees_with_the_light_test::<f32>();
    }
}
