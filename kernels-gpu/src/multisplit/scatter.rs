//! The scatter launch of a digit pass: each block loads its tile, ranks it by digit
//! ([`crate::block::rank`]) and writes it out in one of four ways ([`DIRECT`] here,
//! [`WARP_LEVEL`] in `scatter_warp`, [`BLOCK_LEVEL`] in `scatter_block`,
//! [`COUNTED`] in `scatter_counted`). Each key (and value) read once and written
//! once; the group start and the tile's prefix read per digit; the keys of the tile
//! [`PREFETCH_AHEAD`] on prefetched into L2.

use super::Tile;
use super::bucket::{BucketFn, Key};
use super::lane_tile::LaneTile;
use super::pass::{BucketParams, BuiltIn, Pass, WithBuckets};
use super::scatter_block::{moved_bytes, write_block_level};
pub use super::scatter_counted::COUNTED_RADIX;
use super::scatter_counted::{counted_bytes, scatter_counted};
use super::scatter_warp::write_warp_level;
use super::table::{PassTable, TableParts, passes_n};
use crate::block::LaneLoad;
use crate::block::rank::{rank, warp_starts};
use crate::launch::LaunchShape;
use crate::policy::multisplit::{HISTOGRAM_TILES, PREFETCH_AHEAD, THREADS, TILE, WARPS, WINDOWS};
use crate::simt::memory::prefetch_l2_block;
use crate::simt::shared::SharedSlice;
use crate::simt::{block_x, sync_threads, sync_threads_or, thread_x, warp_id};

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
    let staged = TILE as u32 * (key_bytes + value_bytes);
    match write {
        DIRECT => 2 * rows,
        WARP_LEVEL => 2 * rows + staged,
        // Laid over the match words, which it outgrows: staging alone is 8 KB, the match words
        // at most 8 KB.
        COUNTED => counted_bytes(key_bytes, value_bytes),
        _ => rows + moved_bytes(radix) + WARPS * 4 + staged,
    }
}

/// A lane's keys of tile `tile` of `n` at `keys`, for [`rank`] to load.
#[derive(Clone, Copy)]
struct TileKeys<K> {
    keys: *const K,
    n: u64,
    tile: u64,
}

impl<K: Copy + Default> LaneLoad<K, WINDOWS> for TileKeys<K> {
    /// # Safety
    /// `keys` holds `n` keys.
    #[inline(always)]
    unsafe fn load(self) -> [K; WINDOWS] {
        // SAFETY: the contract above.
        unsafe { Tile::load(self.keys, self.n, self.tile) }
    }

    #[inline(always)]
    fn valid(self) -> u32 {
        Tile::windows(self.tile, self.n)
    }
}

/// Starts bringing the keys of tile `tile` (if there is one) into L2, a cache line a thread,
/// for a block that reads them later: a block that finds its keys there waits less on them.
///
/// # Safety
/// `keys` holds `n` keys.
#[inline(always)]
unsafe fn prefetch_tile<K>(keys: *const K, n: u64, tile: u64) {
    if tile * TILE < n {
        let items = TILE.min(n - tile * TILE) as usize;
        // SAFETY: the tile's keys below `n` (the caller's contract).
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
    /// One block of [`THREADS`] per tile, with [`scatter_bytes`] of the kernel's write method
    /// `write`, the pass's radix, these keys and these values (none when `values` is null: the
    /// keys-only kernels).
    pub const fn plan(&self, write: u32) -> LaunchShape {
        let value_bytes = if self.values.is_null() {
            0
        } else {
            size_of::<V>() as u32
        };
        let key_bytes = size_of::<K>() as u32;
        LaunchShape::linear(
            self.pass.tiles,
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

/// Moves tile `b`'s keys (and values, with `VALUES`) to their places in this pass's order
/// (`pass`, whose digit `p.digit` names), given `table`, [`super::histogram`]'s table with its
/// group sums scanned; `WRITE` picks the write
/// ([`DIRECT`], [`WARP_LEVEL`], [`BLOCK_LEVEL`] or [`COUNTED`]). Unless `offsets` is null, block 0 also
/// stores where each digit's keys begin in the output (`radix` words). Keys-only splits have
/// kernels of their own (`VALUES` false): pairs load their values early, in registers that a
/// keys-only split would pay for in occupancy.
///
/// # Safety
/// `keys` and `out_keys` hold `n` keys, with `VALUES` `values` and `out_values` `n` values
/// (else neither is touched); `table` is this pass's over these keys, scanned; one block of
/// [`THREADS`] per tile with [`scatter_bytes`] for `WRITE`, this radix and these keys and
/// values; a radix of at most [`COUNTED_RADIX`] for [`COUNTED`].
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
    let (w, b, radix) = (warp_id(), block_x() as u64, pass.radix);
    let row = w * radix;
    // Where the tile's keys of digit `d = thread_x()` go, loaded first so that the latency
    // passes behind the ranking (it held every warp at the barrier after it).
    let d = thread_x();
    let start = if d < radix {
        let starts = TableParts::new(radix, tiles).starts;
        let group = starts + d as u64 * tiles.div_ceil(HISTOGRAM_TILES) + b / HISTOGRAM_TILES;
        // SAFETY: `table` holds this pass's parts (the contract); the digit is below the radix.
        unsafe { (*table.add(group as usize)).wrapping_add(*table.add((d as u64 * tiles + b) as usize)) }
    } else {
        0
    };
    // The direct scatter does not wait on its loads as long (it holds no tile in shared
    // memory), and the prefetch's registers cost it occupancy.
    if WRITE != DIRECT {
        // SAFETY: `keys` holds `n` keys (the contract).
        unsafe { prefetch_tile(keys, n, b + PREFETCH_AHEAD) };
    }
    if b == 0 && !offsets.is_null() && d < radix {
        // SAFETY: `offsets` holds `radix` words unless null (the contract).
        unsafe { *offsets.add(d as usize) = start };
    }
    if WRITE == COUNTED {
        // SAFETY: the contract above, with this write method's shared memory and radix.
        unsafe { scatter_counted::<K, V, F, VALUES>((keys, values), n, pass, (b, start), out) };
        return;
    }
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
            Tile::load(values, n, b)
        } else {
            [V::default(); WINDOWS]
        };
        let ranked = rank(TileKeys { keys, n, tile: b }, radix, (counts, matches), pass);
        // Again after the ranking rather than kept across it: the code the kernels were
        // measured with (keeping it changes their registers).
        let tile = LaneTile {
            value: lane_values,
            ranked,
            windows: Tile::windows(b, n),
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
            DIRECT => write_direct::<K, V, VALUES>(&tile, (counts, row), radix, (n, start), out),
            WARP_LEVEL => write_warp_level::<K, V, F, VALUES>(
                &tile,
                (counts, matches, w),
                pass,
                (b, n, start),
                next,
                out,
            ),
            _ => write_block_level::<K, V, F, VALUES>(&tile, (counts, row), pass, (b, n, start), next, out),
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
unsafe fn write_direct<K: Copy, V: Copy, const VALUES: bool>(
    tile: &LaneTile<K, V>,
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
