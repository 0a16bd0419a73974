//! Multisplit by digit passes, with the seed's direct and block-level writes.
//!
//! One pass splits stably by a digit of the bucket id, at most [`RADIX`] values: two passes (low
//! digit, then high digit) split by any bucket id below 2^16. A pass is three launches over
//! tiles of [`TILE`] keys:
//! 1. [`histogram`]: each tile's count of each digit, into a digit-major table `t[d·tiles + b]`;
//! 2. an exclusive scan of the table (the device scan): where tile `b`'s keys of digit `d` start;
//! 3. [`scatter`]: each warp ranks its 256 keys, window by window of 32, among equal digits
//!    (match-any for the peers, popc of the peers before the lane, a running count per warp and
//!    digit in shared memory), and the counts are scanned across warps. Stable, since tiles,
//!    warps, windows and lanes all follow input order. Then either every key (and value) goes
//!    straight to the table's start plus its warp's start plus its rank (the direct method:
//!    scattered stores), or the tile is first grouped by digit in shared memory and each digit's
//!    run written by consecutive threads (block-level: coalesced stores).
//!
//! Then [`bounds`] finds where each bucket begins and ends in the split keys, for the offsets
//! and counts. Bytes per key and pass: read twice, written once, plus the values' read and write.

use super::bucket::{BitField, BucketFn, Keep, Key, Modulo, MultiplicativeHash, Splitters};
use crate::block::scan::exclusive_scan;
use crate::simt::atomic::add_u32;
use crate::simt::shared::SharedSlice;
use crate::simt::warp::{FULL_MASK, match_any_u32};
use crate::simt::{
    block_x, global_x, grid_threads_x, lane_id, lanemask_lt, sync_threads, sync_warp, thread_x, warp_id,
};

/// Digit values of one pass at most.
pub const RADIX: u32 = 256;
/// Threads per block.
pub const THREADS: u32 = 256;
/// Keys per warp: windows of 32, one key a lane each.
pub const WARP_KEYS: u32 = 256;
/// Keys per block.
pub const TILE: u64 = (THREADS / 32 * WARP_KEYS) as u64;
const WINDOWS: usize = (WARP_KEYS / 32) as usize;
const WARPS: u32 = THREADS / 32;

/// Dynamic shared memory of [`histogram`]: one count per digit.
pub const HISTOGRAM_BYTES: u32 = RADIX * 4;

/// The built-in bucket functions, chosen at run time by a kernel parameter (one kernel for all
/// of them: the choice is uniform across the launch, so the branch costs little).
#[derive(Clone, Copy)]
pub enum Builtin<K> {
    Splitters(Splitters<K>),
    BitField(BitField),
    Modulo(Modulo),
    Hash(MultiplicativeHash),
    Keep(Keep),
}

/// `kind` of [`Builtin::from_params`]: splitters (`ptr`, `a` of them).
pub const BUCKETS_SPLITTERS: u32 = 0;
/// `kind`: the bit field of `a` bits from bit `b`.
pub const BUCKETS_BIT_FIELD: u32 = 1;
/// `kind`: modulo `a`.
pub const BUCKETS_MODULO: u32 = 2;
/// `kind`: the multiplicative hash into `2^a` buckets.
pub const BUCKETS_HASH: u32 = 3;
/// `kind`s of compaction ([`Keep`]): keys below, or at or above, `a | b << 32`; keys with bit
/// `a` set, or clear.
pub const BUCKETS_KEEP_BELOW: u32 = 4;
/// See [`BUCKETS_KEEP_BELOW`].
pub const BUCKETS_KEEP_AT_LEAST: u32 = 5;
/// See [`BUCKETS_KEEP_BELOW`].
pub const BUCKETS_KEEP_BIT_SET: u32 = 6;
/// See [`BUCKETS_KEEP_BELOW`].
pub const BUCKETS_KEEP_BIT_CLEAR: u32 = 7;

impl<K: Key> Builtin<K> {
    /// The bucket function a launch's parameters name.
    ///
    /// # Safety
    /// For splitters, `ptr` holds `a` sorted keys in the launch's memory.
    #[inline(always)]
    pub unsafe fn from_params(kind: u32, ptr: *const K, a: u32, b: u32) -> Builtin<K> {
        match kind {
            // SAFETY: the caller's contract.
            BUCKETS_SPLITTERS => Builtin::Splitters(unsafe { Splitters::new(ptr, a) }),
            BUCKETS_BIT_FIELD => Builtin::BitField(BitField { shift: b, bits: a }),
            BUCKETS_MODULO => Builtin::Modulo(Modulo { m: a }),
            BUCKETS_HASH => Builtin::Hash(MultiplicativeHash { bits: a }),
            BUCKETS_KEEP_BELOW => Builtin::Keep(Keep::Below(a as u64 | (b as u64) << 32)),
            BUCKETS_KEEP_AT_LEAST => Builtin::Keep(Keep::AtLeast(a as u64 | (b as u64) << 32)),
            BUCKETS_KEEP_BIT_SET => Builtin::Keep(Keep::BitSet(a)),
            _ => Builtin::Keep(Keep::BitClear(a)),
        }
    }
}

impl<K: Key> BucketFn<K> for Builtin<K> {
    #[inline(always)]
    fn bucket(&self, key: K) -> u32 {
        match self {
            Builtin::Splitters(f) => f.bucket(key),
            Builtin::BitField(f) => f.bucket(key),
            Builtin::Modulo(f) => f.bucket(key),
            Builtin::Hash(f) => f.bucket(key),
            Builtin::Keep(f) => f.bucket(key),
        }
    }
}

/// One pass: the digit of bucket `b` is `(b >> shift) % radix`.
#[derive(Clone, Copy)]
pub struct Pass<F> {
    pub buckets: F,
    pub shift: u32,
    pub radix: u32,
}

impl<K: Key> Pass<Builtin<K>> {
    /// The pass a launch's parameters name: the bucket function's `kind`, `splitters` and
    /// `ab = a | b << 32` (see [`Builtin::from_params`]), and `digit = shift | radix << 16`.
    ///
    /// # Safety
    /// As for [`Builtin::from_params`].
    #[inline(always)]
    pub unsafe fn from_params(kind: u32, splitters: *const K, ab: u64, digit: u32) -> Self {
        Pass {
            // SAFETY: the caller's contract.
            buckets: unsafe { Builtin::from_params(kind, splitters, ab as u32, (ab >> 32) as u32) },
            shift: digit & 0xffff,
            radix: digit >> 16,
        }
    }
}

impl<F> Pass<F> {
    #[inline(always)]
    fn digit<K: Key>(&self, key: K) -> u32
    where
        F: BucketFn<K>,
    {
        (self.buckets.bucket(key) >> self.shift) % self.radix
    }
}

/// Index of key `k` (of [`WINDOWS`]) of this lane in the block's tile: warps take runs of
/// [`WARP_KEYS`] keys, lanes consecutive keys of each window.
#[inline(always)]
fn key_index(k: usize) -> u64 {
    block_x() as u64 * TILE + (warp_id() * WARP_KEYS) as u64 + (k as u32 * 32 + lane_id()) as u64
}

/// Tile `b`'s count of each digit to `table[d·tiles + b]`.
///
/// # Safety
/// `keys` holds `n` keys; `table` `radix·tiles`; one block of [`THREADS`] per tile with
/// [`HISTOGRAM_BYTES`]; `radix <= RADIX`.
#[inline(always)]
pub unsafe fn histogram<K: Key, F: BucketFn<K>>(
    keys: *const K,
    n: u64,
    pass: Pass<F>,
    tiles: u64,
    table: *mut u32,
) {
    // SAFETY: as the contract above; every thread reaches both barriers.
    unsafe {
        let counts = SharedSlice::<u32>::carve(0, RADIX);
        let mut d = thread_x();
        while d < pass.radix {
            counts.set(d, 0);
            d += THREADS;
        }
        sync_threads();
        for k in 0..WINDOWS {
            let i = key_index(k);
            if i < n {
                add_u32(
                    counts
                        .as_mut_ptr()
                        .add(pass.digit(*keys.add(i as usize)) as usize),
                    1,
                );
            }
        }
        sync_threads();
        let mut d = thread_x();
        while d < pass.radix {
            *table.add((d as u64 * tiles + block_x() as u64) as usize) = counts.get(d);
            d += THREADS;
        }
    }
}

/// How a scatter writes its tile: each key straight to its place (the direct method), or first
/// grouped by digit in shared memory and then written as contiguous runs (block-level).
pub const DIRECT: bool = false;
/// See [`DIRECT`].
pub const BLOCK_LEVEL: bool = true;

/// Dynamic shared memory of [`scatter`]: the per-warp counts, and for the block-level write
/// the digits' tile and global starts, the scan's warp slots, and the staged keys and values
/// (`key_bytes` and `value_bytes` each; 0 value bytes when there are no values).
pub const fn scatter_bytes(block_level: bool, key_bytes: u32, value_bytes: u32) -> u32 {
    let counts = WARPS * RADIX * 4;
    if !block_level {
        return counts;
    }
    counts + 2 * RADIX * 4 + WARPS * 4 + TILE as u32 * (key_bytes + value_bytes)
}

/// Moves tile `b`'s keys (and values, unless `values` is null) to their places in this pass's
/// order, given `starts`, the exclusive scan of [`histogram`]'s table; `BLOCK` picks the write
/// ([`DIRECT`] or [`BLOCK_LEVEL`]).
///
/// # Safety
/// `keys` and `out_keys` hold `n` keys, `values` and `out_values` `n` values (or `values` is
/// null); `starts` is the scan of this pass's table over these keys; one block of [`THREADS`]
/// per tile with [`scatter_bytes`] for `BLOCK` and these keys and values.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn scatter<K: Key, V: Copy + Default, F: BucketFn<K>, const BLOCK: bool>(
    keys: *const K,
    values: *const V,
    n: u64,
    pass: Pass<F>,
    tiles: u64,
    starts: *const u32,
    out_keys: *mut K,
    out_values: *mut V,
) {
    let (w, b) = (warp_id(), block_x() as u64);
    // SAFETY: as the contract above; every lane reaches each warp collective and every thread
    // each barrier; shared slots indexed below their carved lengths.
    unsafe {
        let counts = SharedSlice::<u32>::carve(0, WARPS * RADIX);
        let mut c = thread_x();
        while c < WARPS * RADIX {
            counts.set(c, 0);
            c += THREADS;
        }
        sync_threads();
        let mut mine = [(K::default(), 0u32, 0u32); WINDOWS];
        for (k, slot) in mine.iter_mut().enumerate() {
            let i = key_index(k);
            let key = if i < n {
                *keys.add(i as usize)
            } else {
                K::default()
            };
            // Lanes past the end share a digit no key has, and count nothing.
            let digit = if i < n { pass.digit(key) } else { RADIX };
            let peers = match_any_u32(FULL_MASK, digit);
            let slot_index = w * RADIX + digit;
            let base = if i < n { counts.get(slot_index) } else { 0 };
            sync_warp(FULL_MASK);
            if i < n && peers & lanemask_lt() == 0 {
                counts.set(slot_index, base + peers.count_ones());
            }
            sync_warp(FULL_MASK);
            *slot = (key, digit, base + (peers & lanemask_lt()).count_ones());
        }
        sync_threads();
        // Each digit's count per warp becomes the count of the warps before; the tile's count
        // of digit `t` stays with thread `t`.
        let mut tile_count = 0;
        let mut d = thread_x();
        while d < pass.radix {
            let mut run = 0;
            for v in 0..WARPS {
                let c = counts.get(v * RADIX + d);
                counts.set(v * RADIX + d, run);
                run += c;
            }
            if d == thread_x() {
                tile_count = run;
            }
            d += THREADS;
        }
        sync_threads();
        let global = |digit: u32| *starts.add((digit as u64 * tiles + b) as usize);
        if !BLOCK {
            for (k, &(key, digit, rank)) in mine.iter().enumerate() {
                let i = key_index(k);
                if i < n {
                    let at = (global(digit) + counts.get(w * RADIX + digit) + rank) as usize;
                    *out_keys.add(at) = key;
                    if !values.is_null() {
                        *out_values.add(at) = *values.add(i as usize);
                    }
                }
            }
            return;
        }
        // Block-level: the tile's keys grouped by digit in shared memory, then each run of a
        // digit written to its global place by consecutive threads.
        let mut at = WARPS * RADIX * 4;
        let mut next = |bytes: u32| {
            let here = at;
            at += bytes;
            here
        };
        let local_start = SharedSlice::<u32>::carve(next(RADIX * 4), RADIX);
        let global_start = SharedSlice::<u32>::carve(next(RADIX * 4), RADIX);
        let scratch = SharedSlice::<u32>::carve(next(WARPS * 4), WARPS);
        let staged_keys = SharedSlice::<K>::carve(next(TILE as u32 * size_of::<K>() as u32), TILE as u32);
        let value_slots = if values.is_null() { 0 } else { TILE as u32 };
        let staged_values = SharedSlice::<V>::carve(next(value_slots * size_of::<V>() as u32), value_slots);
        let (before, _) = exclusive_scan(tile_count, scratch);
        if thread_x() < pass.radix {
            local_start.set(thread_x(), before);
            global_start.set(thread_x(), global(thread_x()));
        }
        sync_threads();
        for (k, &(key, digit, rank)) in mine.iter().enumerate() {
            let i = key_index(k);
            if i < n {
                let slot = local_start.get(digit) + counts.get(w * RADIX + digit) + rank;
                staged_keys.set(slot, key);
                if !values.is_null() {
                    staged_values.set(slot, *values.add(i as usize));
                }
            }
        }
        sync_threads();
        let items = TILE.min(n - b * TILE) as u32;
        let mut j = thread_x();
        while j < items {
            // The digit again from the key: cheaper in shared memory than staging it.
            let key = staged_keys.get(j);
            let digit = pass.digit(key);
            let to = (global_start.get(digit) + (j - local_start.get(digit))) as usize;
            *out_keys.add(to) = key;
            if !values.is_null() {
                *out_values.add(to) = staged_values.get(j);
            }
            j += THREADS;
        }
    }
}

/// For keys split by bucket, where each bucket begins (`begin[b]`) and ends (`end[b]`); buckets
/// with no keys keep what the caller stored (0 and 0).
///
/// # Safety
/// `keys` holds `n` keys in bucket order; `begin` and `end` hold one word per bucket.
#[inline(always)]
pub unsafe fn bounds<K: Key, F: BucketFn<K>>(
    keys: *const K,
    n: u64,
    buckets: F,
    begin: *mut u32,
    end: *mut u32,
) {
    let mut i = global_x();
    // SAFETY: reads below `n`; each bucket's begin and end are written by one thread each (the
    // keys of a bucket are contiguous).
    unsafe {
        while i < n {
            let b = buckets.bucket(*keys.add(i as usize));
            if i == 0 || buckets.bucket(*keys.add(i as usize - 1)) != b {
                *begin.add(b as usize) = i as u32;
            }
            if i + 1 == n || buckets.bucket(*keys.add(i as usize + 1)) != b {
                *end.add(b as usize) = (i + 1) as u32;
            }
            i += grid_threads_x();
        }
    }
}

macro_rules! direct_kernels {
    ($($k:ty => $histogram:ident, $bounds:ident, $($scatter:ident: $v:ty, $block:expr),*;)*) => {$(
        $crate::kernel! {
            /// [`histogram`] of these keys, by the pass the parameters name
            /// ([`Pass::from_params`]).
            ///
            /// # Safety
            /// As for [`histogram`] and [`Builtin::from_params`].
            #[allow(clippy::too_many_arguments)]
            pub unsafe fn $histogram(
                keys: *const $k,
                n: u64,
                kind: u32,
                splitters: *const $k,
                ab: u64,
                digit: u32,
                tiles: u64,
                table: *mut u32,
            ) {
                // SAFETY: forwarded to the launch contract above.
                unsafe { histogram(keys, n, Pass::from_params(kind, splitters, ab, digit), tiles, table) }
            }
        }
        $crate::kernel! {
            /// [`bounds`] of these split keys under the bucket function the parameters name.
            ///
            /// # Safety
            /// As for [`bounds`] and [`Builtin::from_params`].
            pub unsafe fn $bounds(
                keys: *const $k,
                n: u64,
                kind: u32,
                splitters: *const $k,
                ab: u64,
                begin: *mut u32,
                end: *mut u32,
            ) {
                // SAFETY: forwarded to the launch contract above.
                unsafe {
                    let f = Builtin::from_params(kind, splitters, ab as u32, (ab >> 32) as u32);
                    bounds(keys, n, f, begin, end)
                }
            }
        }
        $($crate::kernel! {
            /// [`scatter`] of these keys and values (none where `values` is null), by the pass
            /// the parameters name, written as `$block` says.
            ///
            /// # Safety
            /// As for [`scatter`] and [`Builtin::from_params`].
            #[allow(clippy::too_many_arguments)]
            pub unsafe fn $scatter(
                keys: *const $k,
                values: *const $v,
                n: u64,
                kind: u32,
                splitters: *const $k,
                ab: u64,
                digit: u32,
                tiles: u64,
                starts: *const u32,
                out_keys: *mut $k,
                out_values: *mut $v,
            ) {
                // SAFETY: forwarded to the launch contract above.
                unsafe {
                    let pass = Pass::from_params(kind, splitters, ab, digit);
                    scatter::<_, _, _, $block>(keys, values, n, pass, tiles, starts, out_keys, out_values)
                }
            }
        })*
    )*};
}
direct_kernels! {
    u32 => multisplit_histogram_u32, multisplit_bounds_u32,
        multisplit_scatter_direct_u32_v32: u32, DIRECT,
        multisplit_scatter_direct_u32_v64: u64, DIRECT,
        multisplit_scatter_block_u32_v32: u32, BLOCK_LEVEL,
        multisplit_scatter_block_u32_v64: u64, BLOCK_LEVEL;
    u64 => multisplit_histogram_u64, multisplit_bounds_u64,
        multisplit_scatter_direct_u64_v32: u32, DIRECT,
        multisplit_scatter_direct_u64_v64: u64, DIRECT,
        multisplit_scatter_block_u64_v32: u32, BLOCK_LEVEL,
        multisplit_scatter_block_u64_v64: u64, BLOCK_LEVEL;
}
