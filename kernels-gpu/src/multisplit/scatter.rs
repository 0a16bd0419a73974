//! The scatter launch of a digit pass: each block loads its tile, ranks it by digit
//! ([`crate::block::rank`]) and writes it out in one of four ways ([`DIRECT`] here,
//! [`WARP_LEVEL`] in `scatter_warp`, [`BLOCK_LEVEL`] in `scatter_block`,
//! [`COUNTED`] in `scatter_counted`). Each key (and value) read once and written
//! once; the group start and the tile's prefix read per digit; the keys of the tile
//! [`PREFETCH_AHEAD`] on prefetched into L2. A block takes one tile of the pass's table, or
//! [`BLOCK_SPAN`] of them in the block-level write.

use super::bucket::{BucketFn, Key};
use super::lane_tile::LaneTile;
use super::pass::{BucketParams, BuiltIn, Pass, WithBuckets};
use super::scatter_block::{moved_bytes, write_block_level};
pub use super::scatter_counted::COUNTED_RADIX;
use super::scatter_counted::{counted_bytes, scatter_counted};
use super::scatter_warp::write_warp_level;
use super::table::{PassTable, TableParts, passes_n};
use crate::block::LaneLoad;
use crate::block::load::WarpStriped;
use crate::block::rank::{rank, warp_starts};
use crate::launch::LaunchShape;
use crate::policy::multisplit::{
    BLOCK_SPAN, BLOCK_WINDOWS, HISTOGRAM_TILES, PREFETCH_AHEAD, THREADS, TILE, WARPS, WINDOWS,
};
use crate::simt::memory::prefetch_l2_block;
use crate::simt::shared::SharedSlice;
use crate::simt::{block_x, sync_threads, sync_threads_or, thread_x, warp_id};
use core::marker::PhantomData;

/// How a scatter writes its tile: each key straight to its place (the direct method), after
/// grouping each warp's keys by digit in shared memory (warp-level), or after grouping the
/// whole tile (block-level).
pub const DIRECT: u32 = 0;
/// See [`DIRECT`].
pub const WARP_LEVEL: u32 = 1;
/// See [`DIRECT`].
pub const BLOCK_LEVEL: u32 = 2;
/// The block-level write of a pass of at most [`COUNTED_RADIX`] digits, ranked by counters
/// instead of by matching (`scatter_counted`): kernels of their own, so that neither ranking
/// pays for the other's registers (one kernel with both ran no faster on the H100).
pub const COUNTED: u32 = 3;

/// Dynamic shared memory of [`scatter`] for a write method and a pass of `radix` digits: the
/// per-warp counts and the ranking's match words (one per warp and digit each); for the
/// warp-level write its staged keys and values (each warp's digit starts reuse the match
/// words); for the block-level write, laid over the match words, the digits' moves, the
/// scan's warp slots and the staged keys and values (`key_bytes` and `value_bytes`
/// each; 0 value bytes when there are no values); for [`COUNTED`] the counters' layout.
/// Every part stays 8-byte aligned.
pub const fn scatter_bytes(write: u32, radix: u32, key_bytes: u32, value_bytes: u32) -> u32 {
    let rows = WARPS * radix * 4;
    // Staged keys and values a window a lane.
    let staged = THREADS * (key_bytes + value_bytes);
    match write {
        DIRECT => 2 * rows,
        WARP_LEVEL => 2 * rows + staged * WINDOWS as u32,
        // Laid over the match words, which it outgrows: staging alone is 8 KB, the match words
        // at most 8 KB.
        COUNTED => counted_bytes(key_bytes, value_bytes),
        _ => rows + moved_bytes(radix) + WARPS * 4 + staged * BLOCK_WINDOWS as u32,
    }
}

/// Tiles of the pass's table one block of write method `write` takes: [`BLOCK_SPAN`] in the
/// block-level write, else one.
pub const fn tiles_per_block(write: u32) -> u64 {
    if write == BLOCK_LEVEL { BLOCK_SPAN } else { 1 }
}

/// A lane's keys of tile `tile` (of `THREADS·ITEMS` keys) of `n` at `keys`, for [`rank`] to
/// load.
#[derive(Clone, Copy)]
struct TileKeys<K, const ITEMS: usize> {
    keys: *const K,
    n: u64,
    tile: u64,
    items: PhantomData<[(); ITEMS]>,
}

impl<K: Copy + Default, const ITEMS: usize> LaneLoad<K, ITEMS> for TileKeys<K, ITEMS> {
    /// # Safety
    /// `keys` holds `n` keys.
    #[inline(always)]
    unsafe fn load(self) -> [K; ITEMS] {
        // SAFETY: the contract above.
        unsafe { WarpStriped::<THREADS, ITEMS>::load(self.keys, self.n, self.tile) }
    }

    #[inline(always)]
    fn valid(self) -> u32 {
        WarpStriped::<THREADS, ITEMS>::windows(self.tile, self.n)
    }
}

/// Starts bringing the keys of `count` tiles from tile `tile` (those there are) into L2, a
/// cache line a thread, for a block that reads them later: a block that finds its keys there
/// waits less on them.
///
/// # Safety
/// `keys` holds `n` keys; `count·TILE·size_of::<K>()` bytes are at most a line a thread.
#[inline(always)]
unsafe fn prefetch_tiles<K>(keys: *const K, n: u64, tile: u64, count: u64) {
    if tile * TILE < n {
        let items = (count * TILE).min(n - tile * TILE) as usize;
        // SAFETY: the tiles' keys below `n` (the caller's contract).
        unsafe { prefetch_l2_block(keys.add((tile * TILE) as usize).cast(), items * size_of::<K>()) };
    }
}

own_kernel! {
    #![open(multisplit_scatter_entry)]
    /// Parameters of [`scatter`]: the keys and values, the bucket function (as in
    /// [`super::histogram::Histogram`]), the pass and its scanned table, where the split goes.
    /// The keys-only kernels take null value pointers ([`Scatter::keys_only`]).
    pub struct Scatter<K: Key, V: Copy, B: BucketParams<K>> {
        /// The `n` keys and values (at most `u32::MAX`: places are 32-bit).
        #[len(n)]
        pub keys: *const K,
        #[len(if values.is_null() { 0 } else { n })]
        pub values: *const V,
        pub n: u64,
        #[group]
        pub buckets: B,
        /// The pass, its table's group sums scanned (read only). Any contents keep the
        /// stores in bounds (the direct, warp-level and block-level writes skip a tile whose
        /// run of some digit would pass `n`, the counted one lowers the digit's start to end
        /// within it); only the table the histogram and the scan made puts them right.
        #[group]
        pub pass: PassTable,
        /// Where the `n` keys and values go.
        #[len(n)]
        pub out_keys: *mut K,
        #[len(if out_values.is_null() { 0 } else { n })]
        pub out_values: *mut V,
        /// Where each digit's keys begin in the output (`radix` words), unless null.
        #[len(if offsets.is_null() { 0 } else { pass.radix() as u64 })]
        pub offsets: *mut u32,
    }
    check |p, shape| n <= u32::MAX as u64 && pass.fits(n);
    /// The direct write, keys only (values untouched, their type nominal).
    fn scatter::<_, _, _, DIRECT, false> => multisplit_scatter_direct_u32_keys<u32, u32, BuiltIn<u32>>,
        multisplit_scatter_direct_u64_keys<u64, u32, BuiltIn<u64>>;
    check |p, shape| p.runs_as(shape, DIRECT, false);
    /// The direct write, keys and values of 32 or 64 bits.
    fn scatter::<_, _, _, DIRECT, true> => multisplit_scatter_direct_u32_v32<u32, u32, BuiltIn<u32>>,
        multisplit_scatter_direct_u32_v64<u32, u64, BuiltIn<u32>>, multisplit_scatter_direct_u64_v32<u64, u32, BuiltIn<u64>>,
        multisplit_scatter_direct_u64_v64<u64, u64, BuiltIn<u64>>;
    check |p, shape| p.runs_as(shape, DIRECT, true);
    /// The warp-level write, keys only.
    fn scatter::<_, _, _, WARP_LEVEL, false> => multisplit_scatter_warp_u32_keys<u32, u32, BuiltIn<u32>>,
        multisplit_scatter_warp_u64_keys<u64, u32, BuiltIn<u64>>;
    check |p, shape| p.runs_as(shape, WARP_LEVEL, false);
    /// The warp-level write, keys and values.
    fn scatter::<_, _, _, WARP_LEVEL, true> => multisplit_scatter_warp_u32_v32<u32, u32, BuiltIn<u32>>,
        multisplit_scatter_warp_u32_v64<u32, u64, BuiltIn<u32>>, multisplit_scatter_warp_u64_v32<u64, u32, BuiltIn<u64>>,
        multisplit_scatter_warp_u64_v64<u64, u64, BuiltIn<u64>>;
    check |p, shape| p.runs_as(shape, WARP_LEVEL, true);
    /// The block-level write, keys only.
    fn scatter::<_, _, _, BLOCK_LEVEL, false> => multisplit_scatter_block_u32_keys<u32, u32, BuiltIn<u32>>,
        multisplit_scatter_block_u64_keys<u64, u32, BuiltIn<u64>>;
    check |p, shape| p.runs_as(shape, BLOCK_LEVEL, false);
    /// The block-level write, keys and values.
    fn scatter::<_, _, _, BLOCK_LEVEL, true> => multisplit_scatter_block_u32_v32<u32, u32, BuiltIn<u32>>,
        multisplit_scatter_block_u32_v64<u32, u64, BuiltIn<u32>>, multisplit_scatter_block_u64_v32<u64, u32, BuiltIn<u64>>,
        multisplit_scatter_block_u64_v64<u64, u64, BuiltIn<u64>>;
    check |p, shape| p.runs_as(shape, BLOCK_LEVEL, true);
    /// The block-level write ranked by counters, keys only.
    fn scatter::<_, _, _, COUNTED, false> => multisplit_scatter_counted_u32_keys<u32, u32, BuiltIn<u32>>,
        multisplit_scatter_counted_u64_keys<u64, u32, BuiltIn<u64>>;
    check |p, shape| p.runs_as(shape, COUNTED, false);
    /// The block-level write ranked by counters, keys and values.
    fn scatter::<_, _, _, COUNTED, true> => multisplit_scatter_counted_u32_v32<u32, u32, BuiltIn<u32>>,
        multisplit_scatter_counted_u32_v64<u32, u64, BuiltIn<u32>>, multisplit_scatter_counted_u64_v32<u64, u32, BuiltIn<u64>>,
        multisplit_scatter_counted_u64_v64<u64, u64, BuiltIn<u64>>;
    check |p, shape| p.runs_as(shape, COUNTED, true);
}

impl<K: Key, V: Copy, B: BucketParams<K>> Scatter<K, V, B> {
    /// One block of [`THREADS`] per [`tiles_per_block`] tiles, with [`scatter_bytes`] of the
    /// kernel's write method `write`, the pass's radix, these keys and these values (none when
    /// `values` is null: the keys-only kernels).
    pub const fn plan(&self, write: u32) -> LaunchShape {
        let value_bytes = if self.values.is_null() {
            0
        } else {
            size_of::<V>() as u32
        };
        let key_bytes = size_of::<K>() as u32;
        LaunchShape::linear(
            self.pass.tiles.div_ceil(tiles_per_block(write)),
            THREADS,
            scatter_bytes(write, self.pass.radix(), key_bytes, value_bytes),
        )
    }

    /// Whether `shape` is the plan of write method `write` for these parameters, with both
    /// value pointers set where the entry moves `values`, and the pass's radix one the method
    /// ranks: an entry's check.
    pub fn runs_as(&self, shape: &LaunchShape, write: u32, values: bool) -> bool {
        (!values || !(self.values.is_null() || self.out_values.is_null()))
            && (write != COUNTED || self.pass.radix() <= COUNTED_RADIX)
            && *shape == self.plan(write)
    }

    /// The parameters of the keys-only kernels for the same keys: null value pointers, of their
    /// nominal type.
    pub const fn keys_only(self) -> Scatter<K, u32, B> {
        Scatter {
            keys: self.keys,
            values: core::ptr::null(),
            n: self.n,
            buckets: self.buckets,
            pass: self.pass,
            out_keys: self.out_keys,
            out_values: core::ptr::null_mut(),
            offsets: self.offsets,
        }
    }
}

/// [`scatter_by`] of the keys (and values, with `VALUES`) under the bucket function and by the
/// pass the parameters name, written as `WRITE` says.
///
/// # Safety
/// As for [`scatter_by`] with the launch of [`Scatter::plan`] for `WRITE`; the bucket
/// parameters as [`BucketParams::with`] says.
#[inline(always)]
pub unsafe fn scatter<K: Key, V: Copy + Default, B: BucketParams<K>, const WRITE: u32, const VALUES: bool>(
    p: Scatter<K, V, B>,
) {
    // SAFETY: forwarded to the launch contract above.
    unsafe { p.buckets.with(ScatterPass::<K, V, B, WRITE, VALUES>(p)) }
}

/// [`scatter`]'s body once its bucket function is known.
struct ScatterPass<K: Key, V: Copy, B: BucketParams<K>, const WRITE: u32, const VALUES: bool>(
    Scatter<K, V, B>,
);

impl<K: Key, V: Copy + Default, B: BucketParams<K>, const WRITE: u32, const VALUES: bool> WithBuckets<K>
    for ScatterPass<K, V, B, WRITE, VALUES>
{
    type Output = ();

    #[inline(always)]
    unsafe fn run<F: BucketFn<K>>(self, f: F) {
        let p = self.0;
        // SAFETY: [`scatter`]'s contract, forwarded.
        unsafe { scatter_by::<_, _, _, _, WRITE, VALUES>(p, Pass::new(f, p.pass.digit)) }
    }
}

/// Moves the block's tiles' keys ([`tiles_per_block`] of them from tile `block_x()·span`)
/// (and values, with `VALUES`) to their places in this pass's order
/// (`pass`, whose digit `p.digit` names), given `table`, [`super::histogram`]'s table with its
/// group sums scanned; `WRITE` picks the write
/// ([`DIRECT`], [`WARP_LEVEL`], [`BLOCK_LEVEL`] or [`COUNTED`]). Unless `offsets` is null, block 0 also
/// stores where each digit's keys begin in the output (`radix` words). Keys-only splits have
/// kernels of their own (`VALUES` false): pairs load their values early, in registers that a
/// keys-only split would pay for in occupancy.
///
/// # Safety
/// `keys` and `out_keys` hold `n` keys, with `VALUES` `values` and `out_values` `n` values
/// (else neither is touched); `table` is this pass's over these keys, scanned; the launch of
/// [`Scatter::plan`] for `WRITE`; a radix of at most [`COUNTED_RADIX`] for [`COUNTED`].
#[inline(always)]
pub unsafe fn scatter_by<
    K: Key,
    V: Copy + Default,
    B: BucketParams<K>,
    F: BucketFn<K>,
    const WRITE: u32,
    const VALUES: bool,
>(
    p: Scatter<K, V, B>,
    pass: Pass<F>,
) {
    let Scatter {
        keys,
        values,
        n,
        pass: PassTable { tiles, table, .. },
        out_keys,
        out_values,
        offsets,
        ..
    } = p;
    let table = table.cast_const();
    let out = (out_keys, out_values);
    let radix = pass.radix;
    // The block's first tile of the table.
    let span = tiles_per_block(WRITE);
    let b = block_x() as u64 * span;
    // Where the tile's keys of digit `d = thread_x()` go: the group's start and the tile's
    // prefix, loaded first and added only after the ranking, so that the loads' latency passes
    // behind it. (Added at once, inside a branch on the digit, they held each warp about 6 % of
    // the block-level scatter's time at 256 digits on the H200: ncu's source counters.) Threads
    // with a digit load them, and in the block-level write (radix above 32) the others too, at
    // the last digit: the form tested and measured on the H200 (a branch there measured alike;
    // in the counted write, whose warps past the first have no digit, loads by every thread
    // cost 7 % more instructions).
    let d = thread_x();
    let (group_start, tile_prefix) = if WRITE == BLOCK_LEVEL || d < radix {
        let column = d.min(radix - 1) as u64;
        let starts = TableParts::new(radix, tiles).starts;
        let group = starts + column * tiles.div_ceil(HISTOGRAM_TILES) + b / HISTOGRAM_TILES;
        // SAFETY: `table` holds this pass's parts (the contract); the column is below the radix.
        unsafe {
            (
                *table.add(group as usize),
                *table.add((column * tiles + b) as usize),
            )
        }
    } else {
        (0, 0)
    };
    let start_after_ranking = || {
        let start = if d < radix {
            group_start.wrapping_add(tile_prefix)
        } else {
            0
        };
        if b == 0 && !offsets.is_null() && d < radix {
            // SAFETY: `offsets` holds `radix` words unless null (the contract).
            unsafe { *offsets.add(d as usize) = start };
        }
        start
    };
    // The direct scatter does not wait on its loads as long (it holds no tile in shared
    // memory), and the prefetch's registers cost it occupancy.
    if WRITE != DIRECT {
        // SAFETY: `keys` holds `n` keys (the contract).
        unsafe { prefetch_tiles(keys, n, b + PREFETCH_AHEAD, span) };
    }
    // SAFETY (each arm): the contract above, with this write method's shared memory, radix and
    // tile.
    match WRITE {
        COUNTED => unsafe {
            scatter_counted::<K, V, F, VALUES>((keys, values), n, pass, (b, start_after_ranking), out)
        },
        BLOCK_LEVEL => unsafe {
            scatter_ranked::<K, V, F, WRITE, VALUES, BLOCK_WINDOWS>(
                (keys, values),
                n,
                pass,
                start_after_ranking,
                out,
            )
        },
        // The direct write adds its start before the ranking, as it always did (the form measured
        // with its 48-register bound, `MULTISPLIT_DIRECT_KEYS`; deferred, it went unmeasured).
        DIRECT => unsafe {
            let start = start_after_ranking();
            scatter_ranked::<K, V, F, WRITE, VALUES, WINDOWS>((keys, values), n, pass, || start, out)
        },
        _ => unsafe {
            scatter_ranked::<K, V, F, WRITE, VALUES, WINDOWS>(
                (keys, values),
                n,
                pass,
                start_after_ranking,
                out,
            )
        },
    }
}

/// [`scatter_by`] for the writes that rank by [`rank`]: the block's tile of `THREADS·ITEMS`
/// keys (tile `block_x()` of that size), ranked, then written by `WRITE`; `start` gives where
/// the tile's keys of digit `thread_x()` go, called once they are ranked.
///
/// # Safety
/// As for [`scatter_by`]; `ITEMS` is [`WINDOWS`] but for [`BLOCK_LEVEL`], which takes
/// [`BLOCK_WINDOWS`].
#[inline(always)]
unsafe fn scatter_ranked<
    K: Key,
    V: Copy + Default,
    F: BucketFn<K>,
    const WRITE: u32,
    const VALUES: bool,
    const ITEMS: usize,
>(
    (keys, values): (*const K, *const V),
    n: u64,
    pass: Pass<F>,
    start: impl FnOnce() -> u32,
    out: (*mut K, *mut V),
) {
    let (w, tile_index, radix) = (warp_id(), block_x() as u64, pass.radix);
    let row = w * radix;
    let first = tile_index * WarpStriped::<THREADS, ITEMS>::TILE;
    // SAFETY: as the contract above; every lane reaches each warp collective and every thread
    // each barrier (the write method and the radix are uniform); shared slots indexed below their carved
    // lengths (unchecked ones: by a digit, below the radix; by a staging slot, below the
    // warp's or the tile's count of keys; by `j`, below the items); global writes below `n`
    // (each write method keeps a digit's start within `n`, whatever the table holds).
    unsafe {
        let row_bytes = WARPS * radix * 4;
        let counts = SharedSlice::<u32>::carve(0, WARPS * radix);
        let matches = SharedSlice::<u32>::carve(row_bytes, WARPS * radix);
        // The lane's values, loaded first so that their latency passes behind the ranking
        // (loaded just before each store, they held every store back).
        let lane_values = if VALUES {
            WarpStriped::<THREADS, ITEMS>::load(values, n, tile_index)
        } else {
            [V::default(); ITEMS]
        };
        let load = TileKeys::<K, ITEMS> {
            keys,
            n,
            tile: tile_index,
            items: PhantomData,
        };
        // The block-level write is never launched at 2 digits or fewer (the counted one is):
        // its keys-only kernels leave the ballot path out. The pairs kernels keep it: without
        // it they fit in fewer registers, run more blocks an SM, and were 5-8 % slower on the
        // H100 at 256-65536 digits.
        let ballots = WRITE != BLOCK_LEVEL || VALUES;
        let ranked = rank(load, (radix, ballots), (counts, matches), pass);
        let start = start();
        // Again after the ranking rather than kept across it: the code the kernels were
        // measured with (keeping it changes their registers).
        let tile = LaneTile {
            value: lane_values,
            ranked,
            windows: WarpStriped::<THREADS, ITEMS>::windows(tile_index, n),
        };
        // Past the counts: `matches`, which the ranking is done with; the warp-level write
        // keeps it (its rows hold each warp's staging starts), the block-level write lays its
        // own slots over it after a barrier.
        let mut at = if WRITE == WARP_LEVEL {
            2 * row_bytes
        } else {
            row_bytes
        };
        let next = |bytes: u32| {
            let here = at;
            at += bytes;
            here
        };
        match WRITE {
            DIRECT => write_direct::<K, V, VALUES, ITEMS>(&tile, (counts, row), radix, (n, start), out),
            WARP_LEVEL => write_warp_level::<K, V, F, VALUES, ITEMS>(
                &tile,
                (counts, matches, w),
                pass,
                (first, n, start),
                next,
                out,
            ),
            _ => write_block_level::<K, V, F, VALUES, ITEMS>(
                &tile,
                (counts, row),
                pass,
                (first, n, start),
                next,
                out,
            ),
        }
    }
}

/// The direct write: each key (and value) straight to its place, the tile's start of its digit
/// plus the warps' before and its rank: a scattered store a key.
///
/// # Safety
/// As for [`scatter`], with `counts` the warps' counts of the ranking, `row` this warp's
/// (`warp_id()·radix`) and `start` where the tile's keys of digit `thread_x()` go, of `n`;
/// every thread of the block calls.
#[inline(always)]
unsafe fn write_direct<K: Copy, V: Copy, const VALUES: bool, const ITEMS: usize>(
    tile: &LaneTile<K, V, ITEMS>,
    (counts, row): (SharedSlice<u32>, u32),
    radix: u32,
    (n, start): (u64, u32),
    out: (*mut K, *mut V),
) {
    // SAFETY: the caller's contract; every thread reaches both barriers; counts indexed by a
    // digit below the radix; global writes below `n` (the tile skips them where a digit's run
    // would pass it: `passes_n`).
    unsafe {
        sync_threads();
        let count = warp_starts::<WARPS>(counts, radix, start);
        let windows = if sync_threads_or(passes_n(radix, start, count, n)) {
            0
        } else {
            tile.windows
        };
        for (k, &value) in tile.value.iter().enumerate() {
            if (k as u32) < windows {
                let to = (counts.get_unchecked(row + tile.ranked.digit(k)) + tile.ranked.rank(k)) as usize;
                *out.0.add(to) = tile.ranked.key[k];
                if VALUES {
                    *out.1.add(to) = value;
                }
            }
        }
    }
}
