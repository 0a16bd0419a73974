//! Device-wide exclusive prefix scan in one pass: decoupled look-back (Merrill and Garland,
//! "Single-pass parallel prefix scan with decoupled look-back", 2016).
//!
//! Each block takes the next tile (a tile id from an atomic counter, so tiles start in order and
//! every tile a block waits on is already running), scans it, publishes its aggregate, then
//! warp 0 walks back over its predecessors' published aggregates and inclusive prefixes, 32 at
//! a time, until it meets an inclusive prefix. Inputs are read once and outputs written once:
//! 2 × `size_of::<T>()` bytes per element plus 24 bytes of tile status per tile.
//!
//! The look-back is paced ([`ScanPolicy::first_look_ns`], [`ScanPolicy::poll_ns`]): a block
//! sleeps before its first read of its predecessors and between reads, as CUB's delay
//! constructors do. Reading at once costs more than the wait: on the H200 (2^28 u32, blocks of
//! 256) the scan took 756 µs reading at once, 685 µs with 1 µs before the first read, 669 µs
//! with 2 µs and 686 µs with 3 or 4 µs, since hundreds of warps polling the same status lines
//! slow the stores they wait for.
//!
//! Tile shape ([`ScanPolicy`]): every warp owns `vectors_per_thread` × 32 consecutive 128-bit
//! vectors, lane-striped so each load and store instruction of the warp covers 512 contiguous
//! bytes. Besides the default kernels, `scan_tuning_u32_*` kernels instantiate other policies
//! and launch bounds (`crate::launch_bounds`) for the tuning benchmark.

use core::marker::PhantomData;

use crate::launch::LaunchShape;
use crate::num::Element;
use crate::op::{Operator, Sum};
use crate::policy::checks::SCAN_TUNING_U32;
use crate::policy::{SCAN_POLICY, ScanPolicy};
use crate::simt::atomic::{
    add_u32, load_acquire_u32, load_relaxed_u64, store_relaxed_u64, store_release_u32,
};
use crate::simt::memory::{is_aligned16, load128, store128};
use crate::simt::shared::SharedSlice;
use crate::simt::warp::{FULL_MASK, all, ballot};
use crate::simt::{WARP_SIZE, block_x, lane_id, nanosleep, sync_threads, thread_x};
use crate::warp;

/// Layout of the scan's scratch buffer (tile status for the decoupled look-back), in bytes.
///
/// `[tile counter: u32, pad] [status words: u64 × tiles] [aggregates: u64 × tiles]
/// [inclusive prefixes: u64 × tiles]`. Only the counter and the status words must be zero
/// before a launch: [`ScanScratch::zeroed_bytes`] of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScanScratch {
    pub tiles: u64,
}

impl ScanScratch {
    pub const fn words_offset(&self) -> u64 {
        8
    }
    pub const fn aggregates_offset(&self) -> u64 {
        self.words_offset() + 8 * self.tiles
    }
    pub const fn inclusive_offset(&self) -> u64 {
        self.aggregates_offset() + 8 * self.tiles
    }
    /// Bytes from the start that must be zero when the kernel starts.
    pub const fn zeroed_bytes(&self) -> u64 {
        self.aggregates_offset()
    }
    pub const fn total_bytes(&self) -> u64 {
        self.inclusive_offset() + 8 * self.tiles
    }
}

const FLAG_EMPTY: u32 = 0;
const FLAG_AGGREGATE: u32 = 1;
const FLAG_INCLUSIVE: u32 = 2;

/// The tile status in the scratch buffer (layout: [`ScanScratch`]), for values of type `T`.
///
/// A tile's status word holds its flag in the low 32 bits. A 4-byte value travels in the high
/// 32 bits of the same word, so one 64-bit load reads flag and value together: each look-back
/// step is one round trip to L2, not two (an acquire load of the flag, then the value). Wider
/// values live in the aggregate and inclusive arrays, published before the flag with release
/// semantics.
struct TileStatus<T> {
    words: *mut u64,
    aggregates: *mut u64,
    inclusive: *mut u64,
    element: PhantomData<T>,
}

impl<T: Element> TileStatus<T> {
    /// Whether the value shares the flag's word.
    const PACKED: bool = size_of::<T>() == 4;

    /// # Safety
    /// `scratch` holds `ScanScratch { tiles }.total_bytes()` bytes, 8-byte aligned.
    unsafe fn new(scratch: *mut u8, tiles: u64) -> Self {
        let layout = ScanScratch { tiles };
        // SAFETY: offsets inside the buffer (caller's contract).
        unsafe {
            TileStatus {
                words: scratch.add(layout.words_offset() as usize).cast(),
                aggregates: scratch.add(layout.aggregates_offset() as usize).cast(),
                inclusive: scratch.add(layout.inclusive_offset() as usize).cast(),
                element: PhantomData,
            }
        }
    }

    /// Publishes `value` for `tile` under `flag`.
    unsafe fn publish(&self, tile: u64, flag: u32, value: T) {
        let tile = tile as usize;
        // SAFETY: `tile < tiles`. Packed: flag and value land in one single-copy-atomic store.
        // Otherwise the release store orders the value before the flag.
        unsafe {
            if Self::PACKED {
                store_relaxed_u64(self.words.add(tile), value.to_bits64() << 32 | flag as u64);
            } else {
                let slot = if flag == FLAG_INCLUSIVE {
                    self.inclusive
                } else {
                    self.aggregates
                };
                store_relaxed_u64(slot.add(tile), value.to_bits64());
                store_release_u32(self.words.add(tile).cast(), flag);
            }
        }
    }

    /// The flag of `tile` and, once it is set, the value it published.
    unsafe fn read(&self, tile: u64) -> (u32, T) {
        let tile = tile as usize;
        // SAFETY: `tile < tiles`; unpacked, the acquire load makes the published value visible.
        unsafe {
            if Self::PACKED {
                let word = load_relaxed_u64(self.words.add(tile));
                return (word as u32, T::from_bits64(word >> 32));
            }
            let flag = load_acquire_u32(self.words.add(tile).cast());
            let value = match flag {
                FLAG_AGGREGATE => load_relaxed_u64(self.aggregates.add(tile)),
                FLAG_INCLUSIVE => load_relaxed_u64(self.inclusive.add(tile)),
                _ => 0,
            };
            (flag, T::from_bits64(value))
        }
    }
}

/// Tiles each lane inspects per look-back step: the warp reads `32 × LOOKBACK_PER_LANE`
/// predecessors per round trip to L2. Measured on the H100 (2^28 u32, 256 × 8 tiles): 1 gives
/// 1.95 TB/s effective, 4 gives 1.60 TB/s (more registers, so fewer resident blocks).
const LOOKBACK_PER_LANE: usize = 1;

/// All tiles before `tile` combined by `op`, computed by the 32 lanes of one warp: first a
/// sleep of `FIRST_NS` (if not 0), then reads of 32 predecessors at a time, a sleep of
/// `POLL_NS` (0: 32 ns doubling to 512 ns) before each read again while some are unpublished.
///
/// # Safety
/// All lanes of the warp call this; `tile > 0`; every tile below `tile` is held by a running
/// or finished block.
#[inline(always)]
unsafe fn look_back<T: Element, O: Operator<T>, const FIRST_NS: u32, const POLL_NS: u32>(
    status: &TileStatus<T>,
    tile: u64,
    op: O,
) -> T {
    const W: usize = LOOKBACK_PER_LANE;
    if FIRST_NS > 0 {
        nanosleep(FIRST_NS);
    }
    let lane = lane_id() as u64;
    // Distance back from `end` of the tile slot (lane, q): lane-major, so distance 1 is lane 0.
    let back = |q: usize| 1 + lane + (q as u64) * WARP_SIZE as u64;
    let mut prefix = op.identity();
    let mut end = tile;
    loop {
        // Slots before tile 0 read as an inclusive identity, which ends the walk.
        let read = |q: usize| {
            if end >= back(q) {
                // SAFETY: `end - back(q) < tile`.
                unsafe { status.read(end - back(q)) }
            } else {
                (FLAG_INCLUSIVE, op.identity())
            }
        };
        let mut slots = [(FLAG_EMPTY, op.identity()); W];
        for (q, slot) in slots.iter_mut().enumerate() {
            *slot = read(q);
        }
        // SAFETY: the whole warp runs these collectives with the full mask.
        unsafe {
            let mut pause = if POLL_NS > 0 { POLL_NS } else { 32 };
            while !all(FULL_MASK, slots.iter().all(|s| s.0 != FLAG_EMPTY)) {
                // Back off: hundreds of warps polling the same lines slow the publishers.
                nanosleep(pause);
                if POLL_NS == 0 {
                    pause = (pause * 2).min(512);
                }
                for (q, slot) in slots.iter_mut().enumerate() {
                    if slot.0 == FLAG_EMPTY {
                        *slot = read(q);
                    }
                }
            }
            // The nearest inclusive prefix, as a distance index (lane + 32 q).
            let mut stop = u64::MAX;
            for (q, slot) in slots.iter().enumerate() {
                let inclusive = ballot(FULL_MASK, slot.0 == FLAG_INCLUSIVE);
                if stop == u64::MAX && inclusive != 0 {
                    stop = (q as u64) * WARP_SIZE as u64 + inclusive.trailing_zeros() as u64;
                }
            }
            let mut own = op.identity();
            for (q, slot) in slots.iter().enumerate() {
                if back(q) - 1 <= stop {
                    own = op.combine(own, slot.1);
                }
            }
            prefix = op.combine(warp::reduce(own, op), prefix);
            if stop != u64::MAX {
                return prefix;
            }
        }
        end -= (W * WARP_SIZE as usize) as u64;
    }
}

/// Index of the first element of vector `k` of this thread, relative to the tile start.
#[inline(always)]
fn vector_start(warp: u32, lane: u32, k: usize, vpt: usize, vec: usize) -> u64 {
    ((warp as u64 * vpt as u64 + k as u64) * WARP_SIZE as u64 + lane as u64) * vec as u64
}

own_kernel! {
    #![open(grid_scan_entry)]
    /// Parameters of the device-wide scans: `n` elements of `input` scanned into `output`
    /// after `first`, with the tile status of `tiles` tiles in `scratch`.
    pub struct Scan<T: Element> {
        #[len(n)]
        pub input: *const T,
        #[len(n)]
        pub output: *mut T,
        /// Elements, at least 1.
        pub n: u64,
        /// The tile status, laid out as [`ScanScratch`] for `tiles` (8-byte aligned), its
        /// first [`ScanScratch::zeroed_bytes`] zero.
        #[len(ScanScratch { tiles }.total_bytes())]
        #[zeroed(ScanScratch { tiles }.zeroed_bytes())]
        pub scratch: *mut u8,
        /// Tiles of the launch's policy ([`ScanPolicy::tiles`]).
        pub tiles: u64,
        /// The bits ([`Element::to_bits64`]) of what the scan starts from, combined before the
        /// first element: the operator's identity for a scan of `input` alone, or the total of
        /// what comes before it (a rank's offset, say).
        pub first: u64,
    }
    check |p, shape| n > 0 && tiles <= u32::MAX as u64 && scratch.addr().is_multiple_of(8);
    /// Exclusive prefix sums of u32 (wrapping).
    fn scan_tile::<u32, Sum, 4, B, VPT, TICKET, false, FIRST, POLL> => scan_exclusive_u32<u32>;
    check |p, shape| p.runs_as(shape, SCAN_POLICY);
    /// Exclusive prefix sums of u64 (wrapping).
    fn scan_tile::<u64, Sum, 2, B, VPT, TICKET, false, FIRST, POLL> => scan_exclusive_u64<u64>;
    check |p, shape| p.runs_as(shape, SCAN_POLICY);
    /// Exclusive prefix sums of f32.
    fn scan_tile::<f32, Sum, 4, B, VPT, TICKET, false, FIRST, POLL> => scan_exclusive_f32<f32>;
    check |p, shape| p.runs_as(shape, SCAN_POLICY);
    /// Exclusive prefix sums of f64.
    fn scan_tile::<f64, Sum, 2, B, VPT, TICKET, false, FIRST, POLL> => scan_exclusive_f64<f64>;
    check |p, shape| p.runs_as(shape, SCAN_POLICY);
    /// Exclusive prefix sums of i32 (wrapping).
    fn scan_tile::<i32, Sum, 4, B, VPT, TICKET, false, FIRST, POLL> => scan_exclusive_i32<i32>;
    check |p, shape| p.runs_as(shape, SCAN_POLICY);
    /// Exclusive prefix sums of i64 (wrapping).
    fn scan_tile::<i64, Sum, 2, B, VPT, TICKET, false, FIRST, POLL> => scan_exclusive_i64<i64>;
    check |p, shape| p.runs_as(shape, SCAN_POLICY);
    /// Inclusive prefix sums of u32 (wrapping).
    fn scan_tile::<u32, Sum, 4, B, VPT, TICKET, true, FIRST, POLL> => scan_inclusive_u32<u32>;
    check |p, shape| p.runs_as(shape, SCAN_POLICY);
    /// Inclusive prefix sums of u64 (wrapping).
    fn scan_tile::<u64, Sum, 2, B, VPT, TICKET, true, FIRST, POLL> => scan_inclusive_u64<u64>;
    check |p, shape| p.runs_as(shape, SCAN_POLICY);
    /// Inclusive prefix sums of f32.
    fn scan_tile::<f32, Sum, 4, B, VPT, TICKET, true, FIRST, POLL> => scan_inclusive_f32<f32>;
    check |p, shape| p.runs_as(shape, SCAN_POLICY);
    /// Inclusive prefix sums of f64.
    fn scan_tile::<f64, Sum, 2, B, VPT, TICKET, true, FIRST, POLL> => scan_inclusive_f64<f64>;
    check |p, shape| p.runs_as(shape, SCAN_POLICY);
    /// Inclusive prefix sums of i32 (wrapping).
    fn scan_tile::<i32, Sum, 4, B, VPT, TICKET, true, FIRST, POLL> => scan_inclusive_i32<i32>;
    check |p, shape| p.runs_as(shape, SCAN_POLICY);
    /// Inclusive prefix sums of i64 (wrapping).
    fn scan_tile::<i64, Sum, 2, B, VPT, TICKET, true, FIRST, POLL> => scan_inclusive_i64<i64>;
    check |p, shape| p.runs_as(shape, SCAN_POLICY);
    /// A tuning candidate: the exclusive u32 scan under its entry of [`SCAN_TUNING_U32`].
    fn scan_tile::<u32, Sum, 4, 256, 8, true, false, 0, 0> => scan_tuning_u32_b256_v8_ticket<u32>;
    check |p, shape| p.runs_as(shape, ScanPolicy::of(256, 8, true).paced(0, 0));
    /// A tuning candidate: the exclusive u32 scan under its entry of [`SCAN_TUNING_U32`].
    fn scan_tile::<u32, Sum, 4, 256, 8, true, false, 1000, 500> => scan_tuning_u32_b256_v8_w1000_p500<u32>;
    check |p, shape| p.runs_as(shape, ScanPolicy::of(256, 8, true).paced(1000, 500));
    /// A tuning candidate: the exclusive u32 scan under its entry of [`SCAN_TUNING_U32`].
    fn scan_tile::<u32, Sum, 4, 256, 8, true, false, 2000, 250> => scan_tuning_u32_b256_v8_w2000_p250<u32>;
    check |p, shape| p.runs_as(shape, ScanPolicy::of(256, 8, true).paced(2000, 250));
    /// A tuning candidate: the exclusive u32 scan under its entry of [`SCAN_TUNING_U32`].
    fn scan_tile::<u32, Sum, 4, 256, 8, true, false, 2000, 1000> => scan_tuning_u32_b256_v8_w2000_p1000<u32>;
    check |p, shape| p.runs_as(shape, ScanPolicy::of(256, 8, true).paced(2000, 1000));
    /// A tuning candidate: the exclusive u32 scan under its entry of [`SCAN_TUNING_U32`].
    fn scan_tile::<u32, Sum, 4, 256, 8, true, false, 3000, 500> => scan_tuning_u32_b256_v8_w3000_p500<u32>;
    check |p, shape| p.runs_as(shape, ScanPolicy::of(256, 8, true).paced(3000, 500));
    /// A tuning candidate: the exclusive u32 scan under its entry of [`SCAN_TUNING_U32`].
    fn scan_tile::<u32, Sum, 4, 256, 8, true, false, 4000, 500> => scan_tuning_u32_b256_v8_w4000_p500<u32>;
    check |p, shape| p.runs_as(shape, ScanPolicy::of(256, 8, true).paced(4000, 500));
    /// A tuning candidate: the exclusive u32 scan under its entry of [`SCAN_TUNING_U32`].
    fn scan_tile::<u32, Sum, 4, 256, 8, false, false, 2000, 500> => scan_tuning_u32_b256_v8_ordered_w2000_p500<u32>;
    check |p, shape| p.runs_as(shape, ScanPolicy::of(256, 8, false).paced(2000, 500));
    /// A tuning candidate: the exclusive u32 scan under its entry of [`SCAN_TUNING_U32`].
    fn scan_tile::<u32, Sum, 4, 256, 8, true, false, 2000, 500> => scan_tuning_u32_b256_v8_w2000_p500<u32>;
    check |p, shape| p.runs_as(shape, ScanPolicy::of(256, 8, true).paced(2000, 500));
}

/// The default policy's parts, as const generics of [`scan_tile`].
const B: u32 = SCAN_POLICY.block_threads;
const VPT: usize = SCAN_POLICY.vectors_per_thread as usize;
const TICKET: bool = SCAN_POLICY.ticket;
const FIRST: u32 = SCAN_POLICY.first_look_ns;
const POLL: u32 = SCAN_POLICY.poll_ns;

/// Whether a block of `policy` fits the launch bounds of the entries `name` begins (a kernel
/// launched with more threads than its bound fails to launch).
const fn within_bounds(name: &str, policy: ScanPolicy) -> bool {
    match crate::launch_bounds::of(name) {
        Some(bounds) => policy.block_threads <= bounds.max_threads,
        None => true,
    }
}

const _: () = {
    assert!(
        within_bounds("scan_exclusive_", SCAN_POLICY),
        "the policy exceeds the launch bounds"
    );
    assert!(
        within_bounds("scan_inclusive_", SCAN_POLICY),
        "the policy exceeds the launch bounds"
    );
    let mut i = 0;
    while i < SCAN_TUNING_U32.len() {
        let (name, policy) = SCAN_TUNING_U32[i];
        assert!(
            within_bounds(name, policy),
            "a tuning policy exceeds its launch bounds"
        );
        i += 1;
    }
};

impl<T: Element> Scan<T> {
    /// A block per tile under [`SCAN_POLICY`], the policy of `scan_exclusive_*` and
    /// `scan_inclusive_*`.
    pub const fn plan(&self) -> LaunchShape {
        self.plan_with(SCAN_POLICY)
    }

    /// A block per tile under `policy`, the policy the kernel was built for (a tuning
    /// candidate's, from [`SCAN_TUNING_U32`]).
    pub const fn plan_with(&self, policy: ScanPolicy) -> LaunchShape {
        LaunchShape::linear(self.tiles, policy.block_threads, policy.shared_bytes())
    }

    /// Whether `shape` and the tiles are those of `policy` for these elements: an entry's
    /// check, with the policy it was built for (a block of another size would misplace its
    /// shared memory, a block past the tiles its tile status).
    pub const fn runs_as(&self, shape: &LaunchShape, policy: ScanPolicy) -> bool {
        let plan = self.plan_with(policy);
        self.tiles == policy.tiles(size_of::<T>(), self.n)
            && shape.grid[0] == plan.grid[0]
            && shape.is_linear(plan.block[0], plan.shared_bytes)
    }
}

/// The exclusive (or, with `INCLUSIVE`, inclusive) scan by `O` of one tile per block under
/// policy `P` (given as its parts, since const generics cannot take a struct): `V` elements of
/// `T` make 16 bytes, `VPT` vectors a thread. The look-back combines predecessors newest
/// first, so `O` must be commutative (checked at compile time); a value travels through the
/// tile status in 64 bits (4-byte values beside their flag).
///
/// # Safety
/// `input` and `output` hold `n > 0` elements; `scratch` is laid out as [`ScanScratch`] for
/// `tiles = ceil(n / tile_items)` with counter and status words zeroed; the launch is
/// [`Scan::plan_with`] the policy of `THREADS`, `VPT` and `TICKET`.
#[inline(always)]
pub unsafe fn scan_tile<
    T: Element,
    O: Operator<T> + Default,
    const V: usize,
    const THREADS: u32,
    const VPT: usize,
    const TICKET: bool,
    const INCLUSIVE: bool,
    const FIRST_NS: u32,
    const POLL_NS: u32,
>(
    p: Scan<T>,
) {
    const { assert!(O::COMMUTATIVE, "the look-back combines tiles out of order") };
    let Scan {
        input,
        output,
        n,
        scratch,
        tiles,
        first,
    } = p;
    let seed = T::from_bits64(first);
    let op = O::default();
    let policy = ScanPolicy::of(THREADS, VPT as u32, TICKET).paced(FIRST_NS, POLL_NS);
    let warps = THREADS / WARP_SIZE;
    let thread = thread_x();
    let (warp, lane) = (thread / WARP_SIZE, thread % WARP_SIZE);
    // SAFETY: every pointer below stays inside the buffers of the launch contract; barriers
    // and warp collectives are reached by every thread of the block.
    unsafe {
        let smem = SharedSlice::<u64>::carve(0, policy.shared_bytes() / 8);
        let status = TileStatus::<T>::new(scratch, tiles);
        let (prefix_slot, tile_slot) = (warps, warps + 1);
        let tile = if TICKET {
            if thread == 0 {
                smem.set(tile_slot, add_u32(scratch.cast::<u32>(), 1) as u64);
            }
            sync_threads();
            smem.get(tile_slot)
        } else {
            block_x() as u64
        };
        let tile_items = policy.tile_items(size_of::<T>()) as u64;
        let start = tile * tile_items;
        let vectorized = start + tile_items <= n && is_aligned16(input) && is_aligned16(output as *const T);

        let mut items = [[op.identity(); V]; VPT];
        for (k, vector) in items.iter_mut().enumerate() {
            let first = start + vector_start(warp, lane, k, VPT, V);
            if vectorized {
                *vector = load128(input.add(first as usize));
            } else {
                for (j, item) in vector.iter_mut().enumerate() {
                    if first + (j as u64) < n {
                        *item = *input.add(first as usize + j);
                    }
                }
            }
        }

        // Per vector: its total, its exclusive prefix among the warp's lanes, the warp's total.
        let mut prefixes = [op.identity(); VPT];
        let mut warp_total = op.identity();
        for (k, vector) in items.iter().enumerate() {
            let sum = vector.iter().fold(op.identity(), |a, &b| op.combine(a, b));
            let (prefix, total) = warp::exclusive_scan(sum, op);
            prefixes[k] = op.combine(warp_total, prefix);
            warp_total = op.combine(warp_total, total);
        }
        if lane == 0 {
            smem.set(warp, warp_total.to_bits64());
        }
        sync_threads();
        let (mut warp_offset, mut aggregate) = (op.identity(), op.identity());
        for w in 0..warps {
            if w == warp {
                warp_offset = aggregate;
            }
            aggregate = op.combine(aggregate, T::from_bits64(smem.get(w)));
        }

        if warp == 0 {
            let tile_prefix = if tile == 0 {
                if lane == 0 {
                    status.publish(0, FLAG_INCLUSIVE, op.combine(seed, aggregate));
                }
                seed
            } else {
                if lane == 0 {
                    status.publish(tile, FLAG_AGGREGATE, aggregate);
                }
                let p = look_back::<T, O, FIRST_NS, POLL_NS>(&status, tile, op);
                if lane == 0 {
                    status.publish(tile, FLAG_INCLUSIVE, op.combine(p, aggregate));
                }
                p
            };
            if lane == 0 {
                smem.set(prefix_slot, tile_prefix.to_bits64());
            }
        }
        sync_threads();
        let base = op.combine(T::from_bits64(smem.get(prefix_slot)), warp_offset);

        for (k, vector) in items.iter().enumerate() {
            let mut running = op.combine(base, prefixes[k]);
            let mut out = [op.identity(); V];
            for (o, &x) in out.iter_mut().zip(vector.iter()) {
                let before = running;
                running = op.combine(running, x);
                *o = if INCLUSIVE { running } else { before };
            }
            let first = start + vector_start(warp, lane, k, VPT, V);
            if vectorized {
                store128(output.add(first as usize), out);
            } else {
                for (j, &o) in out.iter().enumerate() {
                    if first + (j as u64) < n {
                        *output.add(first as usize + j) = o;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ScanScratch;

    #[test]
    fn scratch_regions_do_not_overlap_and_are_aligned() {
        for tiles in [1u64, 2, 3, 65536, 65537] {
            let s = ScanScratch { tiles };
            assert!(s.aggregates_offset() >= s.zeroed_bytes());
            assert_eq!(s.words_offset() % 8, 0);
            assert_eq!(s.total_bytes(), s.aggregates_offset() + 16 * tiles);
        }
    }
}
