//! Partition: a stable partition of the items into light ones (in index order) followed by
//! heavy ones (in index order), each entry holding its quantized weight beside its index, and
//! the exclusive prefix sums of those weights in that order, which the split and pack search.
//!
//! Three passes over the weights, each a block per tile of [`PARTITION_TILE`] consecutive items
//! that quantizes its weights again rather than storing them (recomputing is cheaper than 8
//! bytes of traffic an item):
//! 1. [`tile_total`]: each tile's quantized weight; their sum is the total `Q` that tells light
//!    items from heavy ones (`N·q <= Q`).
//! 2. [`tile_counts`]: each tile's light items, their weight and its heavy items' weight; the
//!    host scans these three short arrays (one element a tile).
//! 3. [`partition`]: each tile places its items in shared memory by block-wide scans of the
//!    three quantities and then writes its light run and its heavy run, entries and prefix sums,
//!    as contiguous, coalesced stores.

use super::sweep::{Entry, Shape, Weight};
use super::{ALIAS_BLOCK_THREADS, quantize};
use crate::block::reduce::reduce;
use crate::block::scan::exclusive_scan;
use crate::simt::shared::SharedSlice;
use crate::simt::{block_x, global_x, grid_threads_x, sync_threads, thread_x};

/// Consecutive items per thread in the partition passes.
pub const PARTITION_ITEMS_PER_THREAD: u64 = 4;

/// Items per tile (one block) of the partition passes.
pub const PARTITION_TILE: u64 = ALIAS_BLOCK_THREADS as u64 * PARTITION_ITEMS_PER_THREAD;

/// Dynamic shared memory of [`partition`]: the scans' warp slots, then the tile's entries and
/// prefix sums.
pub const fn partition_bytes() -> u32 {
    (SCRATCH_BYTES + PARTITION_TILE * (size_of::<Entry>() + size_of::<u64>()) as u64) as u32
}

/// Dynamic shared memory of [`tile_total`] and [`tile_counts`]: one u64 per warp.
pub const TILE_SUM_BYTES: u32 = SCRATCH_BYTES as u32;

const SCRATCH_BYTES: u64 = ALIAS_BLOCK_THREADS as u64 / 32 * 8;

/// Grid-stride loop over `0..n`.
#[inline(always)]
fn each(n: u64, mut f: impl FnMut(u64)) {
    let mut i = global_x();
    while i < n {
        f(i);
        i += grid_threads_x();
    }
}

/// How to quantize weights: `quantize(w, shift, scale)` (see [`super::quantize_params`]).
#[derive(Clone, Copy)]
pub struct Quantizer {
    pub shift: i32,
    pub scale: f64,
}

/// The quantized weights of this thread's items of this block's tile (0 past `n`), and how
/// many of them are items.
///
/// # Safety
/// `weights` holds `n` elements.
#[inline(always)]
unsafe fn my_weights<F: Weight>(weights: *const F, n: u64, z: Quantizer) -> ([u64; ITEMS], u64) {
    let first = block_x() as u64 * PARTITION_TILE + thread_x() as u64 * PARTITION_ITEMS_PER_THREAD;
    let q = core::array::from_fn(|k| {
        let i = first + k as u64;
        // SAFETY: `i < n`.
        if i < n {
            quantize(unsafe { *weights.add(i as usize) }.to_f64(), z.shift, z.scale)
        } else {
            0
        }
    });
    (q, n.saturating_sub(first).min(PARTITION_ITEMS_PER_THREAD))
}

const ITEMS: usize = PARTITION_ITEMS_PER_THREAD as usize;

/// This thread's light items, their weight and its heavy items' weight.
#[inline(always)]
fn my_sums(shape: &Shape, q: &[u64; ITEMS], items: u64) -> (u64, u64, u64) {
    let (mut count, mut lq, mut hq) = (0u64, 0u64, 0u64);
    for (k, &q) in q.iter().enumerate() {
        if (k as u64) < items {
            if shape.is_light(q) {
                (count, lq) = (count + 1, lq + q);
            } else {
                hq += q;
            }
        }
    }
    (count, lq, hq)
}

/// Tile `b`'s quantized weight to `tile_q[b]`.
///
/// # Safety
/// `weights` holds `n` elements, `tile_q` one per tile; one block of [`ALIAS_BLOCK_THREADS`]
/// per tile with [`TILE_SUM_BYTES`] of dynamic shared memory.
#[inline(always)]
pub unsafe fn tile_total<F: Weight>(weights: *const F, n: u64, z: Quantizer, tile_q: *mut u64) {
    // SAFETY: as the contract above; every thread reaches the reduction.
    unsafe {
        let q: u64 = my_weights(weights, n, z).0.iter().sum();
        let total = reduce(q, SharedSlice::carve(0, ALIAS_BLOCK_THREADS / 32));
        if thread_x() == 0 {
            *tile_q.add(block_x() as usize) = total;
        }
    }
}

/// Tile `b`'s light items to `light[b]`, their quantized weight to `light_q[b]` and its heavy
/// items' to `heavy_q[b]`, for items of total quantized weight `total`.
///
/// # Safety
/// As for [`tile_total`], with three outputs of one element per tile.
#[inline(always)]
pub unsafe fn tile_counts<F: Weight>(
    weights: *const F,
    n: u64,
    z: Quantizer,
    total: u64,
    [light, light_q, heavy_q]: [*mut u64; 3],
) {
    let shape = Shape { n, n_light: 0, total };
    // SAFETY: as the contract above; every thread reaches the reductions.
    unsafe {
        let (q, items) = my_weights(weights, n, z);
        let (count, lq, hq) = my_sums(&shape, &q, items);
        let scratch = SharedSlice::carve(0, ALIAS_BLOCK_THREADS / 32);
        let (count, lq, hq) = (reduce(count, scratch), reduce(lq, scratch), reduce(hq, scratch));
        if thread_x() == 0 {
            let b = block_x() as usize;
            (*light.add(b), *light_q.add(b), *heavy_q.add(b)) = (count, lq, hq);
        }
    }
}

/// Writes tile `b`'s entries and their prefix sums in the partitioned order, given the
/// exclusive scans over tiles of [`tile_counts`]' outputs (`tiles + 1` elements each, the
/// last one the grand total), and `n_light` and `prefix[n] = total` from block 0.
///
/// # Safety
/// `weights` holds `n > 0` elements, `entries` `n`, `prefix` `n + 1`; the scans are those of
/// these weights; one block of [`ALIAS_BLOCK_THREADS`] per tile with [`partition_bytes`] of
/// dynamic shared memory.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn partition<F: Weight>(
    weights: *const F,
    n: u64,
    z: Quantizer,
    total: u64,
    [light_before, light_q_before, heavy_q_before]: [*const u64; 3],
    tiles: u64,
    entries: *mut Entry,
    prefix: *mut u64,
    n_light_out: *mut u32,
) {
    let shape = Shape { n, n_light: 0, total };
    let (b, t) = (block_x() as u64, thread_x() as u64);
    let tile_start = b * PARTITION_TILE;
    // SAFETY: as the contract above: scans of `tiles + 1` elements, entries and prefix sums
    // written at positions below `n` (the tiles' runs partition `0..n`), shared memory carved
    // within `partition_bytes`, every thread reaching each scan and barrier.
    unsafe {
        let scratch = SharedSlice::<u64>::carve(0, ALIAS_BLOCK_THREADS / 32);
        let staged = SharedSlice::<Entry>::carve(SCRATCH_BYTES as u32, PARTITION_TILE as u32);
        let staged_prefix = SharedSlice::<u64>::carve(
            (SCRATCH_BYTES + PARTITION_TILE * size_of::<Entry>() as u64) as u32,
            PARTITION_TILE as u32,
        );
        let (mine, items) = my_weights(weights, n, z);
        let (count, lq, hq) = my_sums(&shape, &mine, items);
        let (mut count, tile_light) = exclusive_scan(count, scratch);
        let (mut lq, _) = exclusive_scan(lq, scratch);
        let (mut hq, _) = exclusive_scan(hq, scratch);
        let n_light = *light_before.add(tiles as usize);
        // Prefix sums: light ones from 0, heavy ones after all the light weight.
        lq += *light_q_before.add(b as usize);
        hq += *light_q_before.add(tiles as usize) + *heavy_q_before.add(b as usize);
        for (k, &q) in mine.iter().enumerate().take(items as usize) {
            let local = t * PARTITION_ITEMS_PER_THREAD + k as u64;
            let entry = Entry {
                q,
                item: (tile_start + local) as u32,
            };
            // Light items take the tile's first slots, heavy ones the rest, each in order.
            let (slot, sum) = if shape.is_light(q) {
                count += 1;
                lq += q;
                (count - 1, lq - q)
            } else {
                hq += q;
                (tile_light + local - count, hq - q)
            };
            staged.set(slot as u32, entry);
            staged_prefix.set(slot as u32, sum);
        }
        sync_threads();
        let items = PARTITION_TILE.min(n - tile_start);
        let light_start = *light_before.add(b as usize);
        let heavy_start = n_light + tile_start - light_start;
        let mut slot = t;
        while slot < items {
            let at = if slot < tile_light {
                light_start + slot
            } else {
                heavy_start + slot - tile_light
            };
            *entries.add(at as usize) = staged.get(slot as u32);
            *prefix.add(at as usize) = staged_prefix.get(slot as u32);
            slot += ALIAS_BLOCK_THREADS as u64;
        }
        if b == 0 && t == 0 {
            *prefix.add(n as usize) = total;
            *n_light_out = n_light as u32;
        }
    }
}

macro_rules! partition_kernels {
    ($($f:ty => $total:ident, $counts:ident, $partition:ident;)*) => {$(
        $crate::kernel! {
            /// [`tile_total`] of these weights.
            ///
            /// # Safety
            /// As for [`tile_total`].
            pub unsafe fn $total(weights: *const $f, n: u64, shift: i32, scale: f64, tile_q: *mut u64) {
                // SAFETY: forwarded to the launch contract above.
                unsafe { tile_total(weights, n, Quantizer { shift, scale }, tile_q) }
            }
        }
        $crate::kernel! {
            /// [`tile_counts`] of these weights.
            ///
            /// # Safety
            /// As for [`tile_counts`].
            #[allow(clippy::too_many_arguments)]
            pub unsafe fn $counts(
                weights: *const $f,
                n: u64,
                shift: i32,
                scale: f64,
                total: u64,
                light: *mut u64,
                light_q: *mut u64,
                heavy_q: *mut u64,
            ) {
                let z = Quantizer { shift, scale };
                // SAFETY: forwarded to the launch contract above.
                unsafe { tile_counts(weights, n, z, total, [light, light_q, heavy_q]) }
            }
        }
        $crate::kernel! {
            /// [`partition`] of these weights.
            ///
            /// # Safety
            /// As for [`partition`].
            #[allow(clippy::too_many_arguments)]
            pub unsafe fn $partition(
                weights: *const $f,
                n: u64,
                shift: i32,
                scale: f64,
                total: u64,
                light_before: *const u64,
                light_q_before: *const u64,
                heavy_q_before: *const u64,
                tiles: u64,
                entries: *mut Entry,
                prefix: *mut u64,
                n_light: *mut u32,
            ) {
                let z = Quantizer { shift, scale };
                let scans = [light_before, light_q_before, heavy_q_before];
                // SAFETY: forwarded to the launch contract above.
                unsafe { partition(weights, n, z, total, scans, tiles, entries, prefix, n_light) }
            }
        }
    )*};
}
partition_kernels! {
    f32 => alias_tile_total_f32, alias_tile_counts_f32, alias_partition_f32;
    f64 => alias_tile_total_f64, alias_tile_counts_f64, alias_partition_f64;
}

/// Blocks for a grid-stride pass over `n` items (at least one).
pub const fn blocks_for(n: u64) -> u64 {
    let b = n.div_ceil(ALIAS_BLOCK_THREADS as u64);
    if b == 0 { 1 } else { b }
}

macro_rules! check_kernels {
    ($($name:ident: $f:ty),*) => {$(
        $crate::kernel! {
            /// Lowers `first_bad` to the index of every weight that is negative, NaN or
            /// infinite (the caller starts it at `u64::MAX`).
            ///
            /// # Safety
            /// `weights` holds `n` elements; `first_bad` is one u64.
            pub unsafe fn $name(weights: *const $f, n: u64, first_bad: *mut u64) {
                // SAFETY: `i < n`; `first_bad` is only touched atomically.
                each(n, |i| unsafe {
                    let w = *weights.add(i as usize);
                    if !(w >= 0.0 && w.is_finite()) {
                        crate::simt::atomic::min_u64(first_bad, i);
                    }
                });
            }
        }
    )*};
}
check_kernels!(alias_check_weights_f32: f32, alias_check_weights_f64: f64);
