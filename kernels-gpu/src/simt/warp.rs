//! Warp collectives: shuffles, votes, match and the active mask.
//!
//! Every collective takes a member mask. All lanes named in it must call the same collective
//! with the same mask, and the calling lane must be in it; that is why these are `unsafe`.
//! `FULL_MASK` names all 32 lanes. A value of several 32-bit words ([`Words`]) crosses a shuffle
//! one word at a time.
//! A shuffle from a lane outside the mask gives an undefined value on the GPU; the emulator
//! gives [`UNDEFINED_LANE_VALUE`] so that such reads show in the results.

use super::hw;
pub use super::types::{ShflMode, UNDEFINED_LANE_VALUE, VoteMode};
use crate::op::Words;

/// All 32 lanes.
pub const FULL_MASK: u32 = u32::MAX;

#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
unsafe fn shuffle_words<T: Words>(mode: ShflMode, mask: u32, v: T, b: u32) -> T {
    // The caller's line, for the emulator's reports (the closure would hide it).
    let site = hw::caller_site();
    // SAFETY: forwarded to the caller's contract (the module docs).
    v.map_words(|w| unsafe { hw::shfl_at(site, mode, mask, w, b) })
}

/// `__shfl_sync`: the value `src_lane` passed.
///
/// # Safety
/// See the module docs: every lane in `mask` calls this with the same mask.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub unsafe fn shfl_idx<T: Words>(mask: u32, v: T, src_lane: u32) -> T {
    // SAFETY: forwarded to the caller's contract.
    unsafe { shuffle_words(ShflMode::Idx, mask, v, src_lane) }
}

/// `__shfl_up_sync`: the value of lane `lane - delta`, or this lane's own below lane `delta`.
///
/// # Safety
/// See the module docs.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub unsafe fn shfl_up<T: Words>(mask: u32, v: T, delta: u32) -> T {
    // SAFETY: forwarded to the caller's contract.
    unsafe { shuffle_words(ShflMode::Up, mask, v, delta) }
}

/// `__shfl_down_sync`: the value of lane `lane + delta`, or this lane's own above 31 - delta.
///
/// # Safety
/// See the module docs.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub unsafe fn shfl_down<T: Words>(mask: u32, v: T, delta: u32) -> T {
    // SAFETY: forwarded to the caller's contract.
    unsafe { shuffle_words(ShflMode::Down, mask, v, delta) }
}

/// `__shfl_xor_sync`: the value of lane `lane ^ lane_mask` (butterfly).
///
/// # Safety
/// See the module docs.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub unsafe fn shfl_xor<T: Words>(mask: u32, v: T, lane_mask: u32) -> T {
    // SAFETY: forwarded to the caller's contract.
    unsafe { shuffle_words(ShflMode::Xor, mask, v, lane_mask) }
}

/// `__ballot_sync`: bit `i` set where lane `i` (in `mask`) passed `true`.
///
/// # Safety
/// See the module docs.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub unsafe fn ballot(mask: u32, p: bool) -> u32 {
    // SAFETY: forwarded to the caller's contract.
    unsafe { hw::vote(VoteMode::Ballot, mask, p) }
}

/// `__any_sync`.
///
/// # Safety
/// See the module docs.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub unsafe fn any(mask: u32, p: bool) -> bool {
    // SAFETY: forwarded to the caller's contract.
    unsafe { hw::vote(VoteMode::Any, mask, p) != 0 }
}

/// `__all_sync`.
///
/// # Safety
/// See the module docs.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub unsafe fn all(mask: u32, p: bool) -> bool {
    // SAFETY: forwarded to the caller's contract.
    unsafe { hw::vote(VoteMode::All, mask, p) != 0 }
}

/// `__match_any_sync` on 32 bits: the lanes in `mask` that passed the same value as this one.
///
/// # Safety
/// See the module docs.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub unsafe fn match_any_u32(mask: u32, v: u32) -> u32 {
    // SAFETY: forwarded to the caller's contract.
    unsafe { hw::match_any_u32(mask, v) }
}

/// `__match_any_sync` on 64 bits.
///
/// # Safety
/// See the module docs.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub unsafe fn match_any_u64(mask: u32, v: u64) -> u32 {
    // SAFETY: forwarded to the caller's contract.
    unsafe { hw::match_any_u64(mask, v) }
}

/// `__reduce_add_sync`: the sum of `v` over the lanes of `mask` (wrapping), on every one of them;
/// one instruction where a shuffle tree takes five shuffles and five adds.
///
/// # Safety
/// See the module docs.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub unsafe fn reduce_add(mask: u32, v: u32) -> u32 {
    // SAFETY: forwarded to the caller's contract.
    unsafe { hw::redux_add(mask, v) }
}

/// `__activemask()`: the lanes executing this instruction together with this one. The
/// emulator answers with the lanes of the warp that reach the same call site while the rest of
/// the warp waits elsewhere or has exited.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn active_mask() -> u32 {
    hw::active_mask()
}
