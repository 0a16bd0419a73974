//! Warp collectives: shuffles, votes, match and the active mask.
//!
//! Every collective takes a member mask. All lanes named in it must call the same collective
//! with the same mask, and the calling lane must be in it; that is why these are `unsafe`.
//! `FULL_MASK` names all 32 lanes. Values of 64 bits cross a shuffle as two 32-bit halves.

use crate::num::Element;

/// All 32 lanes.
pub const FULL_MASK: u32 = u32::MAX;

unsafe extern "C" {
    #[link_name = "llvm.nvvm.shfl.sync.idx.i32"]
    fn shfl_idx_i32(mask: u32, v: i32, lane: i32, clamp: i32) -> i32;
    #[link_name = "llvm.nvvm.shfl.sync.up.i32"]
    fn shfl_up_i32(mask: u32, v: i32, delta: i32, clamp: i32) -> i32;
    #[link_name = "llvm.nvvm.shfl.sync.down.i32"]
    fn shfl_down_i32(mask: u32, v: i32, delta: i32, clamp: i32) -> i32;
    #[link_name = "llvm.nvvm.shfl.sync.bfly.i32"]
    fn shfl_bfly_i32(mask: u32, v: i32, lane_mask: i32, clamp: i32) -> i32;
    #[link_name = "llvm.nvvm.vote.ballot.sync"]
    fn vote_ballot(mask: u32, p: bool) -> u32;
    #[link_name = "llvm.nvvm.vote.any.sync"]
    fn vote_any(mask: u32, p: bool) -> bool;
    #[link_name = "llvm.nvvm.vote.all.sync"]
    fn vote_all(mask: u32, p: bool) -> bool;
    #[link_name = "llvm.nvvm.match.any.sync.i32"]
    fn match_any_i32(mask: u32, v: i32) -> u32;
    #[link_name = "llvm.nvvm.match.any.sync.i64"]
    fn match_any_i64(mask: u32, v: i64) -> u32;
}

/// `c` operand of shfl for idx/down/bfly over a whole warp (clamp to lane 31).
const CLAMP_HIGH: i32 = 0x1f;
/// `c` operand of shfl.up over a whole warp (clamp to lane 0).
const CLAMP_LOW: i32 = 0;

#[inline(always)]
fn shuffle_words<T: Element>(v: T, f: impl Fn(i32) -> i32) -> T {
    let bits = v.to_bits64();
    let lo = f(bits as u32 as i32) as u32 as u64;
    if core::mem::size_of::<T>() == 4 {
        T::from_bits64(lo)
    } else {
        let hi = f((bits >> 32) as u32 as i32) as u32 as u64;
        T::from_bits64(lo | hi << 32)
    }
}

/// `__shfl_sync`: the value `src_lane` passed.
///
/// # Safety
/// See the module docs: every lane in `mask` calls this with the same mask.
#[inline(always)]
pub unsafe fn shfl_idx<T: Element>(mask: u32, v: T, src_lane: u32) -> T {
    // SAFETY: forwarded to the caller's contract.
    shuffle_words(v, |w| unsafe {
        shfl_idx_i32(mask, w, src_lane as i32, CLAMP_HIGH)
    })
}

/// `__shfl_up_sync`: the value of lane `lane - delta`, or this lane's own below lane `delta`.
///
/// # Safety
/// See the module docs.
#[inline(always)]
pub unsafe fn shfl_up<T: Element>(mask: u32, v: T, delta: u32) -> T {
    // SAFETY: forwarded to the caller's contract.
    shuffle_words(v, |w| unsafe { shfl_up_i32(mask, w, delta as i32, CLAMP_LOW) })
}

/// `__shfl_down_sync`: the value of lane `lane + delta`, or this lane's own above 31 - delta.
///
/// # Safety
/// See the module docs.
#[inline(always)]
pub unsafe fn shfl_down<T: Element>(mask: u32, v: T, delta: u32) -> T {
    // SAFETY: forwarded to the caller's contract.
    shuffle_words(v, |w| unsafe { shfl_down_i32(mask, w, delta as i32, CLAMP_HIGH) })
}

/// `__shfl_xor_sync`: the value of lane `lane ^ lane_mask` (butterfly).
///
/// # Safety
/// See the module docs.
#[inline(always)]
pub unsafe fn shfl_xor<T: Element>(mask: u32, v: T, lane_mask: u32) -> T {
    // SAFETY: forwarded to the caller's contract.
    shuffle_words(v, |w| unsafe {
        shfl_bfly_i32(mask, w, lane_mask as i32, CLAMP_HIGH)
    })
}

/// `__ballot_sync`: bit `i` set where lane `i` (in `mask`) passed `true`.
///
/// # Safety
/// See the module docs.
#[inline(always)]
pub unsafe fn ballot(mask: u32, p: bool) -> u32 {
    // SAFETY: forwarded to the caller's contract.
    unsafe { vote_ballot(mask, p) }
}

/// `__any_sync`.
///
/// # Safety
/// See the module docs.
#[inline(always)]
pub unsafe fn any(mask: u32, p: bool) -> bool {
    // SAFETY: forwarded to the caller's contract.
    unsafe { vote_any(mask, p) }
}

/// `__all_sync`.
///
/// # Safety
/// See the module docs.
#[inline(always)]
pub unsafe fn all(mask: u32, p: bool) -> bool {
    // SAFETY: forwarded to the caller's contract.
    unsafe { vote_all(mask, p) }
}

/// `__match_any_sync` on 32 bits: the lanes in `mask` that passed the same value as this one.
///
/// # Safety
/// See the module docs.
#[inline(always)]
pub unsafe fn match_any_u32(mask: u32, v: u32) -> u32 {
    // SAFETY: forwarded to the caller's contract.
    unsafe { match_any_i32(mask, v as i32) }
}

/// `__match_any_sync` on 64 bits.
///
/// # Safety
/// See the module docs.
#[inline(always)]
pub unsafe fn match_any_u64(mask: u32, v: u64) -> u32 {
    // SAFETY: forwarded to the caller's contract.
    unsafe { match_any_i64(mask, v as i64) }
}

/// `__activemask()`: the lanes executing this instruction together with this one.
#[inline(always)]
pub fn active_mask() -> u32 {
    let m: u32;
    // SAFETY: `activemask` reads no memory and has no preconditions.
    unsafe { core::arch::asm!("activemask.b32 {m};", m = out(reg32) m, options(nomem, nostack)) };
    m
}
