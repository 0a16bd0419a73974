//! Block histogram of a tile: each warp counts its lanes' items into one row of bins in shared
//! memory that the whole block shares. Up to [`REGISTER_COUNT_BINS`] bins in registers and two
//! warp sums (no shared traffic a key), above by one shared atomic add an item, serialized only
//! among lanes of the same bin. No barriers inside: the caller zeroes the row first and
//! synchronizes the block before reading it.

use super::LaneLoad;
use crate::op::Sum;
use crate::simt::lane_id;
use crate::simt::shared::SharedSlice;
use crate::warp::reduce::reduce as warp_reduce;

/// Bins up to which [`count_row`] counts in registers; above, by shared atomics.
pub const REGISTER_COUNT_BINS: u32 = 4;

/// Every other byte: the lane's 8-bit counts of bins 0 and 2 (or, shifted, 1 and 3) as 16-bit
/// fields, wide enough for a warp's sum.
const EVEN_BYTES: u32 = 0x00ff_00ff;

/// A bin function for [`count_row`], which also folds a value over the items it sees (a
/// largest key, say): [`count_row`] returns the fold from `Seen::default()`. A trait rather
/// than a closure, for the reason [`DigitFn`](super::DigitFn) gives.
pub trait BinFn<T> {
    /// What the fold carries.
    type Seen: Copy + Default;

    /// The bin of `item`, below the bins, and the fold `seen` after it; `valid` false for items
    /// past the lane's valid ones, which count nowhere.
    fn bin(&self, item: T, valid: bool, seen: Self::Seen) -> (u32, Self::Seen);
}

/// Adds this lane's items that `load` gives (its first `valid` of them) into the block's row
/// `counts[row + b]` (bin `b` of `bins_of.bin(item, valid, seen)`, below `bins`; items past `valid` are
/// passed with `false` and count nowhere, their bin only has to be below `bins`). Up to [`REGISTER_COUNT_BINS`] bins each
/// lane adds its items into the bytes of one u32, a byte a bin (three 32-bit instructions an
/// item: a 64-bit word of 16-bit fields cost twice that in shifts), then spreads them into two
/// words of 16-bit fields for two warp sums, which its first lanes add to the row. Above, one
/// shared atomic add per item. Both replace a ballot per bit of the bin, which cost
/// ceil(log2 bins) votes and their mask arithmetic per window and left the multisplit's
/// histogram issue-bound (Nsight Compute, H100: 82 % SM throughput and 55 % of DRAM bandwidth
/// at 2 bins, 89 % at 32 before the atomics).
///
/// # Safety
/// As `load`'s; `counts` has `row + bins` slots; `bins_of` returns a value below `bins`; the
/// whole warp calls (`bins` uniform over it).
#[inline(always)]
pub unsafe fn count_row<T: Copy, B: BinFn<T>, const ITEMS: usize>(
    load: impl LaneLoad<T, ITEMS>,
    bins: u32,
    (counts, row): (SharedSlice<u32>, u32),
    bins_of: B,
) -> B::Seen {
    // A lane's count of a bin fits its byte, a warp's its 16-bit field.
    const { assert!(ITEMS < 1 << 8 && 32 * ITEMS < 1 << 16) };
    let in_registers = bins <= REGISTER_COUNT_BINS;
    // SAFETY: the load's contract is the caller's; the atomics stay below `row + bins`, as every
    // bin is below `bins` (the caller's contract); the whole warp reaches the warp sums
    // (`in_registers` is uniform).
    unsafe {
        let items = load.load();
        let valid = load.valid();
        let mut seen = B::Seen::default();
        // Two loops rather than a test of `in_registers` a key, and the atomic taken by every
        // item, adding 0 for those past the valid ones, rather than a branch around it: the
        // branches cost the multisplit's histogram 6 of its 14 instructions a key (H200, ncu
        // source counters, 32 bins).
        if in_registers {
            let mut packed = 0u32;
            for (k, &item) in items.iter().enumerate() {
                let valid = (k as u32) < valid;
                let b;
                (b, seen) = bins_of.bin(item, valid, seen);
                packed += (valid as u32) << (b * 8);
            }
            // Fields of bins 0 and 2, and of 1 and 3.
            let even = warp_reduce(packed & EVEN_BYTES, Sum);
            let odd = warp_reduce((packed >> 8) & EVEN_BYTES, Sum);
            let lane = lane_id();
            if lane < bins {
                let fields = if lane.is_multiple_of(2) { even } else { odd };
                counts.add_unchecked(row + lane, (fields >> (lane / 2 * 16)) & 0xffff);
            }
        } else {
            for (k, &item) in items.iter().enumerate() {
                let valid = (k as u32) < valid;
                let b;
                (b, seen) = bins_of.bin(item, valid, seen);
                counts.add_unchecked(row + b, valid as u32);
            }
        }
        seen
    }
}
