//! The histogram launch of a digit pass: each block counts its [`HISTOGRAM_TILES`] tiles' keys
//! of each digit ([`count_row`]) and writes, per digit, each tile's count in the group before it
//! and the group's sum ([`TableParts`]); it also reports a bucket past `m`. One read of each key (two or four 16-byte vectors a lane on whole tiles);
//! `radix·(1 + 1/HISTOGRAM_TILES)` words written a tile.

use super::Tile;
use super::bucket::{BucketFn, Key};
use super::pass::{BucketParams, BuiltIn, Pass, WithBuckets};
use super::table::{PassTable, TableParts};
use crate::block::LaneLoad;
use crate::block::histogram::{BinFn, count_row};
use crate::launch::LaunchShape;
use crate::policy::multisplit::{HISTOGRAM_TILES, THREADS, TILE, WINDOWS};
use crate::simt::atomic;
use crate::simt::memory::is_aligned16;
use crate::simt::shared::SharedSlice;
use crate::simt::{block_x, sync_threads, thread_x};

/// Row stride of [`histogram_by`]'s counts: 4 words past a multiple of 32, so that the table
/// write's reads, a warp's 4 digits of 8 tiles (word `g·stride + d`, bank `4g + d`), fall in 32
/// different banks.
const fn histogram_row(radix: u32) -> u32 {
    radix.next_multiple_of(32) + 4
}

/// Dynamic shared memory of [`histogram_by`] for a pass of `radix` digits: a row of counts per
/// tile.
pub const fn histogram_bytes(radix: u32) -> u32 {
    HISTOGRAM_TILES as u32 * histogram_row(radix) * 4
}

/// A lane's keys of tile `tile` of `n` at `keys`, for counting. With `WHOLE` the tile lies
/// wholly below `n` and `keys` is 16-byte aligned: read by 16-byte vectors of `V` keys
/// ([`WarpStriped::load_unordered`](crate::block::load::WarpStriped::load_unordered)), whose
/// order a count does not mind, and every key is valid, so that the count runs no validity
/// test a key; otherwise key by key, with defaults past `n`.
#[derive(Clone, Copy)]
struct CountedKeys<K, const V: usize, const WHOLE: bool> {
    keys: *const K,
    n: u64,
    tile: u64,
}

impl<K: Key, const V: usize, const WHOLE: bool> LaneLoad<K, WINDOWS> for CountedKeys<K, V, WHOLE> {
    /// # Safety
    /// `keys` holds `n` keys; with `WHOLE`, `(tile + 1)·TILE <= n` and `keys` is 16-byte
    /// aligned.
    #[inline(always)]
    unsafe fn load(self) -> [K; WINDOWS] {
        // SAFETY: the contract above.
        unsafe {
            if WHOLE {
                Tile::load_unordered::<K, V>(self.keys, self.tile)
            } else {
                Tile::load(self.keys, self.n, self.tile)
            }
        }
    }

    #[inline(always)]
    fn valid(self) -> u32 {
        if WHOLE {
            WINDOWS as u32
        } else {
            Tile::windows(self.tile, self.n)
        }
    }
}

/// The digits a pass counts by, folding the largest bucket among valid keys.
impl<K: Key, F: BucketFn<K>> BinFn<K> for Pass<F> {
    type Seen = u32;

    #[inline(always)]
    fn bin(&self, key: K, valid: bool, largest: u32) -> (u32, u32) {
        let bucket = if valid { self.buckets.bucket(key) } else { 0 };
        let largest = largest.max(bucket);
        (self.digit_of(bucket), largest)
    }
}

/// Counts this lane's keys of tile `tile` into the block's row `counts[row + d]` (digit `d`),
/// by [`count_row`]: the ranking of the scatter without the ranks and per warp, which the
/// histogram does not need (one row for the block: no rows to clear and sum per warp). Whole
/// tiles are read by 16-byte vectors of `V` keys and counted without a validity test a key
/// ([`CountedKeys`]). Returns the largest bucket
/// among the lane's keys. The caller zeroes the row first and synchronizes the block before
/// reading it.
///
/// # Safety
/// `keys` holds `n` keys; `counts` has `row + radix` slots; the whole warp calls.
#[inline(always)]
unsafe fn count_tile<K: Key, F: BucketFn<K>, const V: usize>(
    keys: *const K,
    n: u64,
    pass: Pass<F>,
    (counts, row): (SharedSlice<u32>, u32),
    tile: u64,
) -> u32 {
    // A branch a tile, uniform over the block, rather than a validity test a key: whole
    // tiles (below `n`, keys aligned: all but a partial last one) count without one.
    let whole = (tile + 1) * TILE <= n && is_aligned16(keys);
    // SAFETY: reads below `n` (the caller's contract), a whole tile's by aligned vectors; every
    // digit is below the radix, the row's length; the whole warp counts.
    unsafe {
        if whole {
            count_row(
                CountedKeys::<K, V, true> { keys, n, tile },
                pass.radix,
                (counts, row),
                pass,
            )
        } else {
            count_row(
                CountedKeys::<K, V, false> { keys, n, tile },
                pass.radix,
                (counts, row),
                pass,
            )
        }
    }
}

own_kernel! {
    #![open(multisplit_histogram_entry)]
    /// Parameters of [`histogram`]: the keys, their bucket function, the pass, its table, and
    /// where a bucket at or past `m` is reported.
    pub struct Histogram<K: Key, B: BucketParams<K>> {
        /// The `n` keys.
        #[len(n)]
        pub keys: *const K,
        pub n: u64,
        #[group]
        pub buckets: B,
        #[group]
        pub pass: PassTable,
        /// The buckets the caller claims, and, unless null, where a bucket at or past `m` is
        /// raised to (`tag << 32 | bucket`, an atomic max).
        pub m: u32,
        #[len(!largest.is_null() as u64)]
        pub largest: *mut u64,
        pub tag: u32,
    }
    check |p, shape| pass.fits(n) && *shape == p.plan();
    /// The histogram of u32 keys (whole tiles read by 16-byte vectors of 4).
    fn histogram::<_, _, 4> => multisplit_histogram_u32<u32, BuiltIn<u32>>;
    /// The histogram of u64 keys (whole tiles read by 16-byte vectors of 2).
    fn histogram::<_, _, 2> => multisplit_histogram_u64<u64, BuiltIn<u64>>;
}

impl<K: Key, B: BucketParams<K>> Histogram<K, B> {
    /// One block of [`THREADS`] per [`HISTOGRAM_TILES`] tiles, with [`histogram_bytes`] of the
    /// pass's radix.
    pub const fn plan(&self) -> LaunchShape {
        LaunchShape::linear(
            self.pass.tiles.div_ceil(HISTOGRAM_TILES),
            THREADS,
            histogram_bytes(self.pass.radix()),
        )
    }
}

/// [`histogram_by`] of the keys under the bucket function and by the pass the parameters name,
/// whole tiles read by `V`-key vectors.
///
/// # Safety
/// As for [`histogram_by`] with the launch of [`Histogram::plan`]; the bucket parameters as
/// [`BucketParams::with`] says.
#[inline(always)]
pub unsafe fn histogram<K: Key, B: BucketParams<K>, const V: usize>(p: Histogram<K, B>) {
    // SAFETY: forwarded to the launch contract above.
    unsafe { p.buckets.with(CountPass::<K, B, V>(p)) }
}

/// [`histogram`]'s body once its bucket function is known.
struct CountPass<K: Key, B: BucketParams<K>, const V: usize>(Histogram<K, B>);

impl<K: Key, B: BucketParams<K>, const V: usize> WithBuckets<K> for CountPass<K, B, V> {
    type Output = ();

    #[inline(always)]
    unsafe fn run<F: BucketFn<K>>(self, f: F) {
        let Histogram {
            keys,
            n,
            pass: PassTable { digit, tiles, table },
            m,
            largest,
            tag,
            ..
        } = self.0;
        // SAFETY: [`histogram`]'s contract, forwarded.
        unsafe { histogram_by::<_, _, V>(keys, n, Pass::new(f, digit), tiles, table, (m, largest, tag)) }
    }
}

/// For the block's [`HISTOGRAM_TILES`] tiles (group `g`): tile `b`'s keys of digit `d` in the
/// group's tiles before it to `table[d·tiles + b]`, and the group's count of `d` to its sums
/// (`table[sums + d·groups + g]`, [`TableParts`]). Unless
/// `largest` is null, a key whose
/// bucket is `m` or more raises `*largest` to `tag << 32 | bucket` (an atomic max): the
/// host's report of a bucket function that broke its contract (its keys went to the last
/// digit), marked with the call's tag so that the word needs no clearing between calls.
///
/// # Safety
/// `keys` holds `n` keys; `table` the [`TableParts`] words of this radix and these tiles;
/// `largest` one u64 or null; one block of [`THREADS`] per [`HISTOGRAM_TILES`] tiles with
/// [`histogram_bytes`] of this radix; `radix <= RADIX`.
#[inline(always)]
pub unsafe fn histogram_by<K: Key, F: BucketFn<K>, const V: usize>(
    keys: *const K,
    n: u64,
    pass: Pass<F>,
    tiles: u64,
    table: *mut u32,
    (m, largest, tag): (u32, *mut u64, u32),
) {
    const G: u32 = HISTOGRAM_TILES as u32;
    let (radix, stride) = (pass.radix, histogram_row(pass.radix));
    let first = block_x() as u64 * HISTOGRAM_TILES;
    // SAFETY: as the contract above; every thread reaches the barriers and, for each tile,
    // every warp the counting (the tile bound is uniform); shared slots below `G·stride`.
    unsafe {
        let counts = SharedSlice::<u32>::carve(0, G * stride);
        let mut i = thread_x();
        while i < G * stride {
            counts.set(i, 0);
            i += THREADS;
        }
        sync_threads();
        let mut mine = 0;
        for g in 0..G {
            let tile = first + g as u64;
            if tile < tiles {
                mine = mine.max(count_tile::<K, F, V>(keys, n, pass, (counts, g * stride), tile));
            }
        }
        if mine >= m && !largest.is_null() {
            atomic::max_u64(largest, (tag as u64) << 32 | mine as u64);
        }
        sync_threads();
        // Entry (digit d, tile g) by thread d·G + g: consecutive threads write a digit's
        // consecutive tiles, each reading the digit's counts in all the group's tiles (tiles
        // past the end counted nothing), the first of them also writing the group's sum.
        let parts = TableParts::new(radix, tiles);
        let (sums, groups) = (parts.sums, tiles.div_ceil(HISTOGRAM_TILES));
        let mut i = thread_x();
        while i < G * radix {
            let (d, g) = (i / G, i % G);
            let (mut before, mut total) = (0, 0);
            for h in 0..G {
                let c = counts.get(h * stride + d);
                before += if h < g { c } else { 0 };
                total += c;
            }
            let tile = first + g as u64;
            if tile < tiles {
                *table.add((d as u64 * tiles + tile) as usize) = before;
            }
            if g == 0 {
                *table.add((sums + d as u64 * groups + block_x() as u64) as usize) = total;
            }
            i += THREADS;
        }
    }
}
