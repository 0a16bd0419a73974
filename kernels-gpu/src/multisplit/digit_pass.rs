//! Multisplit by digit passes, with the seed's three ways of writing: direct, warp-level and
//! block-level.
//!
//! One pass splits stably by a digit of the bucket id, at most [`RADIX`] values: two passes (low
//! digit, then high digit) split by any bucket id below 2^16. A pass is three launches over
//! tiles of [`TILE`] keys:
//! 1. [`histogram`]: each tile's keys of each digit, summed over groups of
//!    [`HISTOGRAM_TILES`] tiles and, within a group, before each tile ([`TableParts`]);
//! 2. an exclusive scan of the group sums (the device scan): where group `g`'s keys of digit
//!    `d` start, and with the prefix within the group, tile `b`'s;
//! 3. [`scatter`]: the tile's keys moved to their places.
//!
//! Every lane loads all its keys first (eight independent loads in flight; the histogram's two
//! or four vector loads on full tiles). The scatter then ranks the tile (`rank_tile`): each
//! warp takes its windows of 32 keys in input order and ranks every key among the warp's keys
//! of the same digit: its peers in the window (by a ballot up to 2 digits, by matching in
//! shared memory above: each lane ORs its bit into its digit's word and reads back who else
//! did), `popc` of the peers below it its rank in the window, and a running count per warp
//! and digit its place after the earlier windows. Stable, since tiles, warps, windows and lanes
//! all follow input order. The seed ranks by a ballot per bit of the digit; matching costs one
//! shared atomic per window whatever the radix, and on the H100 took the split of 2^28 keys
//! into 32 buckets from 115.8 to 148 G keys/s. The histogram needs only the counts
//! (`count_tile`), in any order: full tiles read by 16-byte vectors, counted in registers up
//! to 4 digits, by one shared atomic add per key above.
//!
//! Kernels take a built-in bucket function by launch parameters and compile their body once
//! per function (`with_buckets!`); a bucket at or past `m` raises a flag word for the host
//! and is clamped to the last digit, never written out of bounds.
//!
//! The scatter then writes each key (and value) either straight to its place (direct: scattered
//! stores), or after grouping the warp's keys by digit in shared memory (warp-level: each
//! warp's run of a digit written by consecutive lanes), or after grouping the whole tile
//! (block-level: the longest runs, the best coalescing, the most shared memory).
//!
//! Then, for two passes, [`bounds`] finds where each bucket begins and ends in the split keys;
//! a single pass reads its buckets' offsets from the scan (group 0's starts). Bytes per key and
//! pass: read twice, written once, plus the values' read and write.

use super::bucket::{BitField, BucketFn, Keep, Key, Modulo, MultiplicativeHash, Splitters};
pub use super::counted::COUNTED_RADIX;
use super::counted::{counted_bytes, scatter_counted};
use crate::block::scan::exclusive_scan;
use crate::device::scan::ScanScratch;
use crate::op::Sum;
use crate::policy::SCAN_POLICY;
pub use crate::policy::multisplit::{HISTOGRAM_TILES, THREADS, TILE, WARP_KEYS};
use crate::policy::multisplit::{PREFETCH_AHEAD, WARPS, WINDOWS};
use crate::simt::atomic;
use crate::simt::memory::{is_aligned16, load128, prefetch_l2_block};
use crate::simt::shared::SharedSlice;
use crate::simt::warp::{FULL_MASK, ballot};
use crate::simt::{
    block_x, global_x, grid_threads_x, lane_id, lanemask_lt, sync_threads, sync_warp, thread_x, warp_id,
};
use crate::warp::reduce::reduce as warp_reduce;
use crate::warp::scan::exclusive_scan as warp_exclusive_scan;

/// Digit values of one pass at most.
pub const RADIX: u32 = 256;
// A thread per digit in the histogram's table write and the scatter's starts.
const _: () = assert!(RADIX <= THREADS);
// The block-level write's staged keys cover the match words it is laid over.
const _: () = assert!(TILE as u32 * 4 >= WARPS * RADIX * 4);

/// `kind` of `with_buckets!`: splitters (`ptr`, `a` of them).
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

/// Runs `body` with `f` bound to the built-in bucket function that a launch's parameters name
/// (`kind`, a splitter pointer, `ab = a | b << 32`; see the `BUCKETS_*` kinds). The body is
/// compiled once per function, so a kernel chooses once per launch instead of once per key
/// (the per-key choice cost the histogram a jump table and a sixth of its instructions).
/// Used inside an `unsafe` block whose caller vouches, for splitters, that the pointer holds
/// `a` sorted keys in the launch's memory.
macro_rules! with_buckets {
    ($kind:expr, $splitters:expr, $ab:expr, |$f:ident| $body:expr) => {{
        let (ab, a): (u64, u32) = ($ab, $ab as u32);
        match $kind {
            BUCKETS_SPLITTERS => {
                let $f = Splitters::new($splitters, a);
                $body
            }
            BUCKETS_BIT_FIELD => {
                let $f = BitField {
                    shift: (ab >> 32) as u32,
                    bits: a,
                };
                $body
            }
            BUCKETS_MODULO => {
                let $f = Modulo { m: a };
                $body
            }
            BUCKETS_HASH => {
                let $f = MultiplicativeHash { bits: a };
                $body
            }
            // Each predicate its own arm, so that its body knows which one it tests (one arm
            // for all four chose per key; with these arms and the keys-only scatter, direct
            // compaction of 2^28 keys went from 1.66 to 1.41 ms on the H100).
            BUCKETS_KEEP_BELOW => {
                let $f = Keep::Below(ab);
                $body
            }
            BUCKETS_KEEP_AT_LEAST => {
                let $f = Keep::AtLeast(ab);
                $body
            }
            BUCKETS_KEEP_BIT_SET => {
                let $f = Keep::BitSet(a);
                $body
            }
            _ => {
                let $f = Keep::BitClear(a);
                $body
            }
        }
    }};
}

/// One pass: the digit of bucket `b` is `(b >> shift) % 256`, below `radix`. The host picks
/// `radix = m` for a single pass, or 256 (`shift` 0) then `ceil(m / 256)` (`shift` 8) for two,
/// so the digit is below `radix` for every bucket below `m`.
#[derive(Clone, Copy)]
pub struct Pass<F> {
    pub buckets: F,
    pub shift: u32,
    pub radix: u32,
}

impl<F> Pass<F> {
    /// The pass of `buckets` that `digit = shift | radix << 16` names.
    #[inline(always)]
    pub fn new(buckets: F, digit: u32) -> Self {
        Pass {
            buckets,
            shift: digit & 0xffff,
            radix: digit >> 16,
        }
    }
}

impl<F> Pass<F> {
    /// The digit of bucket `bucket`; clamped below `radix`, so that even a bucket function
    /// that breaks its contract cannot index shared memory or write out of bounds.
    #[inline(always)]
    fn digit_of(&self, bucket: u32) -> u32 {
        ((bucket >> self.shift) & (RADIX - 1)).min(self.radix - 1)
    }

    /// The key's digit.
    #[inline(always)]
    pub(super) fn digit<K: Key>(&self, key: K) -> u32
    where
        F: BucketFn<K>,
    {
        self.digit_of(self.buckets.bucket(key))
    }
}

/// Index of key `k` (of [`WINDOWS`]) of this lane in tile `tile`: warps take runs of
/// [`WARP_KEYS`] keys, lanes consecutive keys of each window.
#[inline(always)]
fn key_index(tile: u64, k: usize) -> u64 {
    tile * TILE + (warp_id() * WARP_KEYS) as u64 + (k as u32 * 32 + lane_id()) as u64
}

/// How many of this lane's windows of tile `tile` hold a key (below `n`): key `k` of the lane
/// is one when `k < lane_windows(tile, n)`. One 32-bit compare a key instead of 64-bit index
/// arithmetic, which cost the scatter registers.
#[inline(always)]
fn lane_windows(tile: u64, n: u64) -> u32 {
    let first = key_index(tile, 0);
    if first >= n {
        0
    } else {
        (n - first).div_ceil(32).min(WINDOWS as u64) as u32
    }
}

/// A lane's keys of the tile after [`rank_tile`]: per window, the key, its digit, and its place
/// among the warp's keys of that digit (below [`WARP_KEYS`]), the two packed in one word to
/// spare registers (the scatter's register count sets its occupancy). Lanes past the end
/// (`k` at or past the lane's windows) hold a digit but count nowhere; every use checks `k`.
struct Ranked<K> {
    key: [K; WINDOWS],
    digit_rank: [u32; WINDOWS],
}

impl<K> Ranked<K> {
    #[inline(always)]
    fn digit(&self, k: usize) -> u32 {
        self.digit_rank[k] >> 16
    }

    #[inline(always)]
    fn rank(&self, k: usize) -> u32 {
        self.digit_rank[k] & 0xffff
    }
}

/// This lane's keys (or values) of tile `tile`, every load issued before the first is used
/// (defaults past `n`).
///
/// # Safety
/// `src` holds `n` elements.
#[inline(always)]
unsafe fn load_tile<T: Copy + Default>(src: *const T, n: u64, tile: u64) -> [T; WINDOWS] {
    let windows = lane_windows(tile, n);
    core::array::from_fn(|k| {
        // SAFETY: element `k` of the lane is below `n`.
        if (k as u32) < windows {
            unsafe { *src.add(key_index(tile, k) as usize) }
        } else {
            T::default()
        }
    })
}

/// This lane's keys of a full tile, for counting only: read as 16-byte vectors of `V` keys
/// (`V · size_of::<K>() = 16`), so that the lane holds runs of `V` consecutive keys instead of
/// one key a window, which a count does not mind. Two loads a lane for u32 keys, four for u64,
/// instead of eight.
///
/// # Safety
/// Tile `tile` lies wholly below the length of `keys`, which is 16-byte aligned.
#[inline(always)]
unsafe fn load_full_tile<K: Key, const V: usize>(keys: *const K, tile: u64) -> [K; WINDOWS] {
    const { assert!(WINDOWS.is_multiple_of(V) && V * size_of::<K>() == 16) };
    let lane = lane_id() as u64;
    let warp_first = key_index(tile, 0) - lane;
    let mut key = [K::default(); WINDOWS];
    for (r, run) in key.chunks_exact_mut(V).enumerate() {
        let at = warp_first + (r * 32 * V) as u64 + lane * V as u64;
        // SAFETY: within the tile (the caller's contract); 16-byte aligned since the tile and
        // the run start at multiples of 16 bytes.
        let loaded: [K; V] = unsafe { load128(keys.add(at as usize)) };
        run.copy_from_slice(&loaded);
    }
    key
}

/// Zeroes this warp's row (`radix` slots from `row`) of each slice, then waits for the whole
/// warp.
///
/// # Safety
/// The slots lie in every slice; all 32 lanes call.
#[inline(always)]
unsafe fn clear_warp_rows(slices: &[SharedSlice<u32>], row: u32, radix: u32) {
    let mut d = lane_id();
    while d < radix {
        for slice in slices {
            slice.set(row + d, 0);
        }
        d += 32;
    }
    // SAFETY: the caller's contract: the whole warp is here.
    unsafe { sync_warp(FULL_MASK) };
}

/// Digits up to which the histogram counts in registers; above, by shared atomics.
const REGISTER_COUNT_RADIX: u32 = 4;

/// Every other byte: the lane's 8-bit counts of digits 0 and 2 (or, shifted, 1 and 3) as
/// 16-bit fields, wide enough for a warp's sum (at most [`WARP_KEYS`]).
const EVEN_BYTES: u32 = 0x00ff_00ff;
const _: () = assert!(WINDOWS < 1 << 8 && WARP_KEYS < 1 << 16 && REGISTER_COUNT_RADIX == 4);

/// Counts this lane's keys of tile `tile` into the block's row `counts[row + d]` (digit `d`),
/// as [`rank_tile`] does but without the ranks and per warp, which the histogram does not need
/// (one row for the block: no rows to clear and sum per warp). Up to [`REGISTER_COUNT_RADIX`]
/// digits in registers: each lane adds its keys into the bytes of one u32, a byte a digit
/// (three 32-bit instructions a key: a 64-bit word of 16-bit fields cost twice that in
/// shifts), then spreads them into two words of 16-bit fields for two warp sums, which its
/// first lanes add to the block's row. Above, one shared atomic add per key. Both replace the
/// seed's ballots, which cost ceil(log2 radix) votes and their mask arithmetic per window and
/// left the histogram issue-bound (Nsight Compute, H100: 82 % SM throughput and 55 % of DRAM
/// bandwidth at m = 2, 89 % at m = 32 before the atomics); an atomic is one instruction,
/// serialized only among lanes of the same digit. Full tiles are read by 16-byte vectors of
/// `V` keys ([`load_full_tile`]). Returns the largest bucket among the lane's keys. The caller
/// zeroes the row first and synchronizes the block before reading it.
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
    let radix = pass.radix;
    let in_registers = radix <= REGISTER_COUNT_RADIX;
    // SAFETY: reads below `n` (the caller's contract); the atomics stay below `row + radix`,
    // as every digit is below the radix; the whole warp reaches the warp sum (`in_registers`
    // is uniform).
    unsafe {
        let full = (tile + 1) * TILE <= n && is_aligned16(keys);
        let key = if full {
            load_full_tile::<K, V>(keys, tile)
        } else {
            load_tile(keys, n, tile)
        };
        let windows = lane_windows(tile, n);
        let (mut packed, mut largest) = (0u32, 0);
        for (k, &key) in key.iter().enumerate() {
            let valid = (k as u32) < windows;
            let bucket = if valid { pass.buckets.bucket(key) } else { 0 };
            largest = largest.max(bucket);
            let digit = pass.digit_of(bucket);
            if in_registers {
                packed += (valid as u32) << (digit * 8);
            } else if valid {
                counts.add_unchecked(row + digit, 1);
            }
        }
        if in_registers {
            // Fields of digits 0 and 2, and of 1 and 3.
            let even = warp_reduce(packed & EVEN_BYTES, Sum);
            let odd = warp_reduce((packed >> 8) & EVEN_BYTES, Sum);
            let lane = lane_id();
            if lane < radix {
                let fields = if lane.is_multiple_of(2) { even } else { odd };
                counts.add_unchecked(row + lane, (fields >> (lane / 2 * 16)) & 0xffff);
            }
        }
        largest
    }
}

/// Loads and ranks this lane's keys of tile `tile` (see the module docs), and leaves warp `w`'s
/// count of digit `d` in `counts[w·radix + d]`. The caller synchronizes the block before other
/// warps read the counts.
///
/// Up to 2 digits, one ballot per digit gives each lane its peers, and both running counts are
/// the same in every lane. Above, lanes find their peers in shared memory: each ORs its lane bit
/// into its digit's word of `matches`, and after a warp barrier reads back which lanes share
/// the digit; the lowest of them then adds their number to the digit's count and clears the
/// word. That is one atomic per window whatever the radix, where the seed's ballots take
/// ceil(log2 radix) votes and their mask arithmetic (measured on the H100 per window of 32
/// random digits: 5.1 SM cycles against 17.3 for 5 ballots, 8.8 against 26.7 for 8; also
/// against `match.any`, 36 and 54, which serializes over distinct values; at 2 digits the
/// atomics' 16-way conflicts cost 18 against a ballot's 4.7).
///
/// # Safety
/// `keys` holds `n` keys; `counts` and `matches` have `WARPS·radix` slots; every thread of the
/// block calls.
#[inline(always)]
unsafe fn rank_tile<K: Key, F: BucketFn<K>>(
    keys: *const K,
    n: u64,
    pass: Pass<F>,
    (counts, matches): (SharedSlice<u32>, SharedSlice<u32>),
    tile: u64,
) -> Ranked<K> {
    let (radix, lane, below) = (pass.radix, lane_id(), lanemask_lt());
    let row = warp_id() * radix;
    let mut ranked = Ranked {
        key: [K::default(); WINDOWS],
        digit_rank: [0; WINDOWS],
    };
    // SAFETY: reads below `n` (the caller's contract); shared slots below `row + radix`; the
    // whole warp reaches every ballot and warp barrier (the branch on the radix is uniform).
    unsafe {
        ranked.key = load_tile(keys, n, tile);
        let windows = lane_windows(tile, n);
        if radix <= 2 {
            let (mut zeros_before, mut ones_before) = (0, 0);
            for k in 0..WINDOWS {
                let valid = (k as u32) < windows;
                let digit = if valid { pass.digit(ranked.key[k]) } else { 0 };
                let ones = ballot(FULL_MASK, valid && digit == 1);
                let zeros = ballot(FULL_MASK, valid && digit == 0);
                let (peers, before) = if digit == 1 {
                    (ones, ones_before)
                } else {
                    (zeros, zeros_before)
                };
                zeros_before += zeros.count_ones();
                ones_before += ones.count_ones();
                ranked.digit_rank[k] = digit << 16 | (before + (peers & below).count_ones());
            }
            if lane < radix {
                counts.set(row + lane, if lane == 1 { ones_before } else { zeros_before });
            }
            return ranked;
        }
        clear_warp_rows(&[counts, matches], row, radix);
        for k in 0..WINDOWS {
            // Lanes past the end take part with their default key and no bit: no branches.
            let valid = (k as u32) < windows;
            let digit = pass.digit(ranked.key[k]);
            // Below `WARPS·radix`, the slices' length: the digit is below the radix.
            let slot = row + digit;
            matches.or_unchecked(slot, (valid as u32) << lane);
            sync_warp(FULL_MASK);
            let (peers, before) = (matches.get_unchecked(slot), counts.get_unchecked(slot));
            sync_warp(FULL_MASK);
            let rank = (peers & below).count_ones();
            if valid && rank == 0 {
                counts.set_unchecked(slot, before + peers.count_ones());
                matches.set_unchecked(slot, 0);
            }
            sync_warp(FULL_MASK);
            ranked.digit_rank[k] = digit << 16 | (before + rank);
        }
    }
    ranked
}

/// Row stride of [`histogram`]'s counts: 4 words past a multiple of 32, so that the table
/// write's reads, a warp's 4 digits of 8 tiles (word `g·stride + d`, bank `4g + d`), fall in 32
/// different banks.
const fn histogram_row(radix: u32) -> u32 {
    radix.next_multiple_of(32) + 4
}

/// Dynamic shared memory of [`histogram`] for a pass of `radix` digits: a row of counts per
/// tile.
pub const fn histogram_bytes(radix: u32) -> u32 {
    HISTOGRAM_TILES as u32 * histogram_row(radix) * 4
}

/// Where the parts of a pass's table lie, in words from its start, for `tiles` tiles of keys
/// in groups of [`HISTOGRAM_TILES`] (a histogram block's): first each tile's keys of each
/// digit in the tiles of its group before it (`radix·tiles` words), then the parts below. Each
/// part is 256-byte aligned, as the scan's 16-byte vectors want. The scan runs over the group
/// sums, a table [`HISTOGRAM_TILES`] times smaller than one entry a tile: it took 13 of the
/// 412 µs that split 2^26 keys into 32 buckets on the H100 when it scanned a word a tile and
/// digit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableParts {
    /// Each group's start of each digit: the device scan of the sums (`radix·groups` words).
    pub starts: u64,
    /// Each group's count of each digit (`radix·groups` words).
    pub sums: u64,
    /// The scan's tile status ([`ScanScratch`] of `status_tiles` tiles), whose part that must
    /// start at zero [`histogram`] clears: a memset a call less.
    pub status: u64,
    pub status_tiles: u64,
    /// Words in all.
    pub words: u64,
}

impl TableParts {
    pub const fn new(radix: u32, tiles: u64) -> Self {
        let groups = radix as u64 * tiles.div_ceil(HISTOGRAM_TILES);
        let group_words = groups.next_multiple_of(64);
        let starts = (radix as u64 * tiles).next_multiple_of(64);
        let status_tiles = groups.div_ceil(SCAN_POLICY.tile_items(4) as u64);
        let status = starts + 2 * group_words;
        TableParts {
            starts,
            sums: starts + group_words,
            status,
            status_tiles,
            words: status + ScanScratch { tiles: status_tiles }.total_bytes().div_ceil(4),
        }
    }
}

/// For the block's [`HISTOGRAM_TILES`] tiles (group `g`): tile `b`'s keys of digit `d` in the
/// group's tiles before it to `table[d·tiles + b]`, and the group's count of `d` to its sums
/// (`table[sums + d·groups + g]`, [`TableParts`]), and clears the scan's tile status. Unless
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
pub unsafe fn histogram<K: Key, F: BucketFn<K>, const V: usize>(
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
        if block_x() == 0 {
            let status = table.add(parts.status as usize);
            let words = ScanScratch {
                tiles: parts.status_tiles,
            }
            .zeroed_bytes()
                / 4;
            let mut i = thread_x() as u64;
            while i < words {
                *status.add(i as usize) = 0;
                i += THREADS as u64;
            }
        }
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

/// Digit `d = thread_x()`'s count per warp (`counts[w·radix + d]`) becomes `start` plus the
/// count of the warps before (threads past the radix leave the counts alone). One thread per
/// digit: the radix is at most [`THREADS`].
///
/// # Safety
/// `counts` has `WARPS·radix` slots, final for this tile; the caller synchronizes the block
/// around the call.
#[inline(always)]
unsafe fn warp_starts(counts: SharedSlice<u32>, radix: u32, start: u32) {
    let d = thread_x();
    if d >= radix {
        return;
    }
    let mut run = start;
    for w in 0..WARPS {
        // SAFETY: `w·radix + d < WARPS·radix`, the length (the caller's contract).
        unsafe {
            let c = counts.get_unchecked(w * radix + d);
            counts.set_unchecked(w * radix + d, run);
            run += c;
        }
    }
}

/// How a scatter writes its tile: each key straight to its place (the direct method), after
/// grouping each warp's keys by digit in shared memory (warp-level), or after grouping the
/// whole tile (block-level).
pub const DIRECT: u32 = 0;
/// See [`DIRECT`].
pub const WARP_LEVEL: u32 = 1;
/// See [`DIRECT`].
pub const BLOCK_LEVEL: u32 = 2;
/// The block-level write of a pass of at most [`COUNTED_RADIX`] digits, ranked by counters
/// instead of by matching (module `counted`): kernels of their own, so that neither ranking
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

/// Bytes of the block-level write's digit moves: a word a digit, rounded up to keep the parts
/// after them 8-byte aligned.
const fn moved_bytes(radix: u32) -> u32 {
    radix.next_multiple_of(2) * 4
}

/// The tile's staging slots in shared memory, carved by `next` (which hands out byte offsets):
/// [`TILE`] keys, and as many values unless there are none.
///
/// # Safety
/// `next` hands out offsets within the launch's dynamic shared memory, 8-byte aligned.
#[inline(always)]
pub(super) unsafe fn staging<K: Copy, V: Copy>(
    next: &mut impl FnMut(u32) -> u32,
    with_values: bool,
) -> (SharedSlice<K>, SharedSlice<V>) {
    let slots = if with_values { TILE as u32 } else { 0 };
    // SAFETY: the caller's contract.
    unsafe {
        let keys = SharedSlice::<K>::carve(next(TILE as u32 * size_of::<K>() as u32), TILE as u32);
        (
            keys,
            SharedSlice::<V>::carve(next(slots * size_of::<V>() as u32), slots),
        )
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

/// Moves tile `b`'s keys (and values, with `VALUES`) to their places in this pass's order,
/// given `table`, [`histogram`]'s table with its group sums scanned; `WRITE` picks the write
/// ([`DIRECT`], [`WARP_LEVEL`], [`BLOCK_LEVEL`] or [`COUNTED`]). Unless `offsets` is null, block 0 also
/// stores where each digit's keys begin in the output (`radix` words). Keys-only splits have
/// kernels of their own (`VALUES` false): pairs load their values early, in registers that a
/// keys-only split would pay for in occupancy.
///
/// # Safety
/// `keys` and `out_keys` hold `n` keys, with `VALUES` `values` and `out_values` `n` values
/// (else neither is touched); `table` is this pass's over these keys, scanned; one
/// block of [`THREADS`] per tile with [`scatter_bytes`] for `WRITE`, this radix and these keys
/// and values; a radix of at most [`COUNTED_RADIX`] for [`COUNTED`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn scatter<K: Key, V: Copy + Default, F: BucketFn<K>, const WRITE: u32, const VALUES: bool>(
    keys: *const K,
    values: *const V,
    n: u64,
    pass: Pass<F>,
    tiles: u64,
    table: *const u32,
    out: (*mut K, *mut V),
    offsets: *mut u32,
) {
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
    // warp's or the tile's count of keys; by `j`, below the items); global writes at places
    // the scan gives, below `n`.
    unsafe {
        let row_bytes = WARPS * radix * 4;
        let counts = SharedSlice::<u32>::carve(0, WARPS * radix);
        let matches = SharedSlice::<u32>::carve(row_bytes, WARPS * radix);
        // The lane's values, loaded first so that their latency passes behind the ranking
        // (loaded just before each store, they held every store back).
        let lane_values = if VALUES {
            load_tile(values, n, b)
        } else {
            [V::default(); WINDOWS]
        };
        let ranked = rank_tile(keys, n, pass, (counts, matches), b);
        let windows = lane_windows(b, n);
        // Past the counts: `matches`, which the ranking is done with; the warp-level write
        // keeps it (its rows hold each warp's staging starts), the block-level write lays its
        // own slots over it after a barrier.
        let mut at = if WRITE == WARP_LEVEL {
            2 * row_bytes
        } else {
            row_bytes
        };
        let mut next = |bytes: u32| {
            let here = at;
            at += bytes;
            here
        };
        match WRITE {
            DIRECT => {
                sync_threads();
                warp_starts(counts, radix, start);
                sync_threads();
                for (k, &value) in lane_values.iter().enumerate() {
                    if (k as u32) < windows {
                        let to = (counts.get_unchecked(row + ranked.digit(k)) + ranked.rank(k)) as usize;
                        *out.0.add(to) = ranked.key[k];
                        if VALUES {
                            *out.1.add(to) = value;
                        }
                    }
                }
            }
            WARP_LEVEL => {
                // Where each digit's keys start in the warp's staging run: a scan of its counts.
                let local = matches;
                let (staged_keys, staged_values) = staging::<K, V>(&mut next, VALUES);
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
                let base = w * WARP_KEYS;
                for (k, &value) in lane_values.iter().enumerate() {
                    if (k as u32) < windows {
                        let slot = base + local.get_unchecked(row + ranked.digit(k)) + ranked.rank(k);
                        staged_keys.set_unchecked(slot, ranked.key[k]);
                        if VALUES {
                            staged_values.set_unchecked(slot, value);
                        }
                    }
                }
                sync_threads();
                warp_starts(counts, radix, start);
                sync_threads();
                // Each digit's global start less its staging start: where the staged key `j`
                // of that digit goes is this plus `j`.
                let mut d = lane_id();
                while d < radix {
                    counts.set(row + d, counts.get(row + d).wrapping_sub(local.get(row + d)));
                    d += 32;
                }
                sync_warp(FULL_MASK);
                let warp_first = b * TILE + base as u64;
                let items = n.saturating_sub(warp_first).min(WARP_KEYS as u64) as u32;
                for k in 0..WINDOWS as u32 {
                    let j = k * 32 + lane_id();
                    if j < items {
                        // The digit again from the key: cheaper than staging it.
                        let key = staged_keys.get_unchecked(base + j);
                        let to = counts.get_unchecked(row + pass.digit(key)).wrapping_add(j) as usize;
                        *out.0.add(to) = key;
                        if VALUES {
                            *out.1.add(to) = staged_values.get_unchecked(base + j);
                        }
                    }
                }
            }
            _ => {
                // Each digit's global start less its start in the staged tile.
                let moved = SharedSlice::<u32>::carve(next(moved_bytes(radix)), radix);
                let scratch = SharedSlice::<u32>::carve(next(WARPS * 4), WARPS);
                let (staged_keys, staged_values) = staging::<K, V>(&mut next, VALUES);
                sync_threads();
                // The tile's count of digit `d = thread_x()` (the radix is at most THREADS),
                // its start in the staged tile, and each warp's start there: one shared read a
                // key fewer than adding the tile start while staging. Threads past the radix
                // read the last digit's column and count nothing, without a branch: LLVM
                // copied the scan's barriers into both arms of one here, and `bar.sync` (an
                // aligned barrier) in a warp that diverges over it hung the H100.
                let column: u32 = (0..WARPS)
                    .map(|w| counts.get_unchecked(w * radix + d.min(radix - 1)))
                    .sum();
                let tile_count = column * (d < radix) as u32;
                let (before, _) = exclusive_scan(tile_count, Sum, scratch);
                warp_starts(counts, radix, before);
                if d < radix {
                    moved.set(d, start.wrapping_sub(before));
                }
                sync_threads();
                for (k, &value) in lane_values.iter().enumerate() {
                    if (k as u32) < windows {
                        let slot = counts.get_unchecked(row + ranked.digit(k)) + ranked.rank(k);
                        staged_keys.set_unchecked(slot, ranked.key[k]);
                        if VALUES {
                            staged_values.set_unchecked(slot, value);
                        }
                    }
                }
                sync_threads();
                let items = TILE.min(n - b * TILE) as u32;
                write_staged::<K, V, F, VALUES>((staged_keys, staged_values), moved, pass, items, out);
            }
        }
    }
}

/// The block-level write-out: the tile's first `items` staged keys (and values), grouped by
/// digit, each to `moved[digit] + j` for staging slot `j` (`moved` being each digit's global
/// start less its start in the staged tile), a key a thread at a time in slot order so that
/// each digit's run is written by consecutive threads.
///
/// # Safety
/// The staged slots and moves are final (a barrier after they were written); the places they
/// give are within `out`; `moved` has a word for every digit of the pass.
#[inline(always)]
pub(super) unsafe fn write_staged<K: Key, V: Copy, F: BucketFn<K>, const VALUES: bool>(
    (staged_keys, staged_values): (SharedSlice<K>, SharedSlice<V>),
    moved: SharedSlice<u32>,
    pass: Pass<F>,
    items: u32,
    out: (*mut K, *mut V),
) {
    // SAFETY: the caller's contract; slots below `items`, within the staging.
    let write = |j: u32| unsafe {
        let key = staged_keys.get_unchecked(j);
        let to = moved.get_unchecked(pass.digit(key)).wrapping_add(j) as usize;
        *out.0.add(to) = key;
        if VALUES {
            *out.1.add(to) = staged_values.get_unchecked(j);
        }
    };
    // A full tile (all but the last) writes without a bound check a key.
    let slots = (0..TILE as u32 / THREADS).map(|k| k * THREADS + thread_x());
    if items == TILE as u32 {
        slots.for_each(write);
    } else {
        slots.filter(|&j| j < items).for_each(write);
    }
}

/// For keys split by bucket, where each bucket begins (`begin[b]`) and ends (`end[b]`); buckets
/// with no keys keep what the caller stored (0 and 0). Keys in a bucket `>= m` (a broken bucket
/// function, which the histogram reports) are passed over.
///
/// # Safety
/// `keys` holds `n` keys in bucket order; `begin` and `end` hold `m` words.
#[inline(always)]
pub unsafe fn bounds<K: Key, F: BucketFn<K>>(
    keys: *const K,
    n: u64,
    buckets: F,
    m: u32,
    (begin, end): (*mut u32, *mut u32),
) {
    let mut i = global_x();
    // SAFETY: reads below `n`; writes below `m`; each bucket's begin and end are written by one
    // thread each (the keys of a bucket are contiguous).
    unsafe {
        while i < n {
            let b = buckets.bucket(*keys.add(i as usize));
            if b >= m {
                i += grid_threads_x();
                continue;
            }
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
    ($($k:ty, $vector:literal => $histogram:ident, $bounds:ident, $($scatter:ident: $v:ty, $write:expr, $values:expr),*;)*) => {$(
        $crate::kernel! {
            /// [`histogram`] of these keys, by the pass the parameters name (the bucket function
            /// of `with_buckets!`, `digit` of [`Pass::new`]), checking buckets against `m`
            /// (into `largest`, marked with `tag`).
            ///
            /// # Safety
            /// As for [`histogram`]; splitters as `with_buckets!` says.
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
                m: u32,
                largest: *mut u64,
                tag: u32,
            ) {
                // SAFETY: forwarded to the launch contract above.
                unsafe {
                    with_buckets!(kind, splitters, ab, |f| {
                        let pass = Pass::new(f, digit);
                        histogram::<_, _, $vector>(keys, n, pass, tiles, table, (m, largest, tag))
                    })
                }
            }
        }
        $crate::kernel! {
            /// [`bounds`] of these split keys under the bucket function the parameters name.
            ///
            /// # Safety
            /// As for [`bounds`]; splitters as `with_buckets!` says.
            #[allow(clippy::too_many_arguments)]
            pub unsafe fn $bounds(
                keys: *const $k,
                n: u64,
                kind: u32,
                splitters: *const $k,
                ab: u64,
                m: u32,
                begin: *mut u32,
                end: *mut u32,
            ) {
                // SAFETY: forwarded to the launch contract above.
                unsafe { with_buckets!(kind, splitters, ab, |f| bounds(keys, n, f, m, (begin, end))) }
            }
        }
        $($crate::kernel! {
            /// [`scatter`] of these keys, and values unless the kernel is a keys-only one
            /// (`_keys`: `values` and `out_values` untouched), by the pass the parameters name,
            /// written as `$write` says; bucket offsets to `offsets` unless it is null.
            ///
            /// # Safety
            /// As for [`scatter`]; splitters as `with_buckets!` says.
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
                table: *const u32,
                out_keys: *mut $k,
                out_values: *mut $v,
                offsets: *mut u32,
            ) {
                // SAFETY: forwarded to the launch contract above.
                unsafe {
                    let out = (out_keys, out_values);
                    with_buckets!(kind, splitters, ab, |f| {
                        let pass = Pass::new(f, digit);
                        scatter::<_, _, _, $write, $values>(keys, values, n, pass, tiles, table, out, offsets)
                    })
                }
            }
        })*
    )*};
}
direct_kernels! {
    u32, 4 => multisplit_histogram_u32, multisplit_bounds_u32,
        multisplit_scatter_direct_u32_keys: u32, DIRECT, false,
        multisplit_scatter_direct_u32_v32: u32, DIRECT, true,
        multisplit_scatter_direct_u32_v64: u64, DIRECT, true,
        multisplit_scatter_warp_u32_keys: u32, WARP_LEVEL, false,
        multisplit_scatter_warp_u32_v32: u32, WARP_LEVEL, true,
        multisplit_scatter_warp_u32_v64: u64, WARP_LEVEL, true,
        multisplit_scatter_block_u32_keys: u32, BLOCK_LEVEL, false,
        multisplit_scatter_block_u32_v32: u32, BLOCK_LEVEL, true,
        multisplit_scatter_block_u32_v64: u64, BLOCK_LEVEL, true,
        multisplit_scatter_counted_u32_keys: u32, COUNTED, false,
        multisplit_scatter_counted_u32_v32: u32, COUNTED, true,
        multisplit_scatter_counted_u32_v64: u64, COUNTED, true;
    u64, 2 => multisplit_histogram_u64, multisplit_bounds_u64,
        multisplit_scatter_direct_u64_keys: u32, DIRECT, false,
        multisplit_scatter_direct_u64_v32: u32, DIRECT, true,
        multisplit_scatter_direct_u64_v64: u64, DIRECT, true,
        multisplit_scatter_warp_u64_keys: u32, WARP_LEVEL, false,
        multisplit_scatter_warp_u64_v32: u32, WARP_LEVEL, true,
        multisplit_scatter_warp_u64_v64: u64, WARP_LEVEL, true,
        multisplit_scatter_block_u64_keys: u32, BLOCK_LEVEL, false,
        multisplit_scatter_block_u64_v32: u32, BLOCK_LEVEL, true,
        multisplit_scatter_block_u64_v64: u64, BLOCK_LEVEL, true,
        multisplit_scatter_counted_u64_keys: u32, COUNTED, false,
        multisplit_scatter_counted_u64_v32: u32, COUNTED, true,
        multisplit_scatter_counted_u64_v64: u64, COUNTED, true;
}
