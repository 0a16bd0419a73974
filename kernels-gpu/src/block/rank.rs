//! Stable ranking of a block's keys by digit: each warp takes its windows of 32 keys in input
//! order and ranks every key among the warp's keys of the same digit: its peers in the window
//! (by a ballot up to 2 digits, by matching in shared memory above: each lane ORs its bit into
//! its digit's word and reads back who else did), `popc` of the peers below it its rank in the
//! window, and a running count per warp and digit its place after the earlier windows. Then
//! [`warp_starts`] turns the warps' counts into each warp's start of each digit. Matching costs
//! one shared atomic and three warp barriers a window whatever the radix, where a ballot per
//! bit of the digit costs ceil(log2 radix) votes; on the H100 that took the multisplit of 2^28
//! keys into 32 buckets from 115.8 to 148 G keys/s.

use super::{DigitFn, LaneLoad};
use crate::simt::math::pin;
use crate::simt::shared::SharedSlice;
use crate::simt::warp::{FULL_MASK, ballot};
use crate::simt::{lane_id, lanemask_lt, sync_warp, thread_x, warp_id};

/// A lane's keys after [`rank`]: per window, the key, its digit and its place among the warp's
/// keys of that digit (below `32·ITEMS`), the two packed in one word to spare registers (a
/// kernel's register count sets its occupancy). Lanes past the end hold a digit but count
/// nowhere; every use checks the window.
pub struct Ranked<K, const ITEMS: usize> {
    /// The lane's keys (defaults past the end).
    pub key: [K; ITEMS],
    digit_rank: [u32; ITEMS],
}

impl<K, const ITEMS: usize> Ranked<K, ITEMS> {
    /// The digit of the lane's key `k`.
    #[inline(always)]
    pub fn digit(&self, k: usize) -> u32 {
        self.digit_rank[k] >> 16
    }

    /// The place of the lane's key `k` among the warp's keys of its digit.
    #[inline(always)]
    pub fn rank(&self, k: usize) -> u32 {
        self.digit_rank[k] & 0xffff
    }
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

/// Ranks this lane's keys, which `load` gives with how many of them are keys (the first
/// `windows`; see the module docs), by `digits` (below `radix`); returns them with their ranks
/// and leaves warp `w`'s count of digit `d` in `counts[w·radix + d]`.
/// The caller synchronizes the block before other warps read the counts.
///
/// With `ballots`, up to 2 digits, one ballot per digit gives each lane its peers, and both
/// running counts are the same in every lane. A kernel never launched at 2 digits or fewer may
/// pass `false` (a constant): the ballot path then is not compiled into it, and its registers
/// do not count against the kernel (ptxas kept every window's ballots, digits and counts live
/// there: 77 registers at the peak, where the matching needs 55-60; with it the block-level
/// scatter of u32 keys spilled its table words at 80 registers). Above 2 digits (or without
/// `ballots`), lanes find their peers in shared memory: each ORs its lane bit into its digit's
/// word of `matches`, and after a warp barrier reads back which lanes share
/// the digit; the lowest of them then adds their number to the digit's count and clears the
/// word. That is one atomic per window whatever the radix, where ballots take ceil(log2 radix)
/// votes and their mask arithmetic (measured on the H100 per window of 32 random digits: 5.1 SM
/// cycles against 17.3 for 5 ballots, 8.8 against 26.7 for 8; also against `match.any`, 36 and
/// 54, which serializes over distinct values; at 2 digits the atomics' 16-way conflicts cost 18
/// against a ballot's 4.7).
///
/// # Safety
/// As `load`'s; `counts` and `matches` have `warps·radix` slots; `digits` returns a value below
/// `radix`; the whole warp calls (`radix` uniform over it).
#[inline(always)]
pub unsafe fn rank<K: Copy + Default, const ITEMS: usize>(
    load: impl LaneLoad<K, ITEMS>,
    (radix, ballots): (u32, bool),
    (counts, matches): (SharedSlice<u32>, SharedSlice<u32>),
    digits: impl DigitFn<K>,
) -> Ranked<K, ITEMS> {
    let (lane, below) = (lane_id(), lanemask_lt());
    let row = warp_id() * radix;
    let mut ranked = Ranked {
        key: [K::default(); ITEMS],
        digit_rank: [0; ITEMS],
    };
    // SAFETY: the load's contract is the caller's; shared slots below `row + radix`; the whole
    // warp reaches every ballot and warp barrier (the branch on the radix is uniform).
    unsafe {
        ranked.key = load.load();
        let windows = load.valid();
        if ballots && radix <= 2 {
            let (mut zeros_before, mut ones_before) = (0, 0);
            for k in 0..ITEMS {
                let valid = (k as u32) < windows;
                let digit = if valid { digits.digit(ranked.key[k]) } else { 0 };
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
        for k in 0..ITEMS {
            // Lanes past the end take part with their default key and no bit: no branches.
            let valid = (k as u32) < windows;
            let digit = digits.digit(ranked.key[k]);
            // Below `warps·radix`, the slices' length: the digit is below the radix.
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
            // Packed here, not after the loop (where LLVM moved it, keeping two or three
            // registers a window until then).
            ranked.digit_rank[k] = pin(digit << 16 | (before + rank));
        }
    }
    ranked
}

/// Digit `d = thread_x()`'s count per warp (`counts[w·radix + d]`, `WARPS` warps) becomes
/// `start` plus the count of the warps before (threads past the radix leave the counts alone).
/// One thread per digit: the radix is at most the block's threads. Returns the tile's count of
/// the digit (0 past the radix), so that the caller can test where its run ends.
///
/// # Safety
/// `counts` has `WARPS·radix` slots, final for this tile; the caller synchronizes the block
/// around the call.
#[inline(always)]
pub unsafe fn warp_starts<const WARPS: u32>(counts: SharedSlice<u32>, radix: u32, start: u32) -> u32 {
    let d = thread_x();
    if d >= radix {
        return 0;
    }
    let mut total = 0;
    for w in 0..WARPS {
        // SAFETY: `w·radix + d < WARPS·radix`, the length (the caller's contract).
        unsafe {
            let c = counts.get_unchecked(w * radix + d);
            counts.set_unchecked(w * radix + d, start.wrapping_add(total));
            total += c;
        }
    }
    total
}
