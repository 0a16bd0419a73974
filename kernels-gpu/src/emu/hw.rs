//! The hardware functions of the SIMT layer on the host: the same names and meanings as
//! `crate::simt::ptx`, served by the emulated thread running now.

pub use super::AccessKind;
use super::block::current;
use super::warp::Op;
use super::{Access, Misuse, Site};
use crate::simt::types::{Dim3, ShflMode, VoteMode};
use core::panic::Location;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering, fence};

pub fn thread_idx() -> Dim3 {
    current().idx
}

pub fn block_idx() -> Dim3 {
    current().block().idx
}

pub fn block_dim() -> Dim3 {
    current().block().dim
}

pub fn grid_dim() -> Dim3 {
    current().block().grid
}

pub fn lane_id() -> u32 {
    current().id.lane
}

pub fn lanemask_lt() -> u32 {
    (1u32 << current().id.lane) - 1
}

pub fn dynamic_smem_bytes() -> u32 {
    current().block().shared.len()
}

pub fn smem_base() -> *mut u8 {
    current().block().shared.base()
}

/// Checks an access through a `SharedSlice` with the block's race detector.
#[track_caller]
pub fn shared_access(p: *const u8, bytes: usize, kind: AccessKind) {
    let lane = current();
    let shared = &lane.block().shared;
    let offset = (p as usize - shared.base() as usize) as u32;
    let now = Access {
        thread: lane.id,
        kind,
        site: Location::caller(),
    };
    let checked = lane.with_order(|epoch, syncs| shared.access(offset, bytes as u32, now, epoch, syncs));
    if let Err(race) = checked {
        lane.fault(race);
    }
}

/// # Safety
/// Mirrors the device function; misuse is reported, so nothing is required here.
#[track_caller]
pub unsafe fn sync_threads() {
    current().barrier(Location::caller())
}

/// # Safety
/// As for [`sync_threads`]: the emulator's barrier has no alignment to lose.
#[track_caller]
pub unsafe fn sync_threads_unaligned() {
    current().barrier(Location::caller())
}

/// # Safety
/// As for [`sync_threads`].
#[track_caller]
pub unsafe fn sync_threads_or(pred: bool) -> bool {
    current().barrier_or(Location::caller(), pred)
}

/// # Safety
/// As for [`sync_threads`].
#[track_caller]
pub unsafe fn sync_warp(mask: u32) {
    current().collective(Op::SyncWarp, mask, 0, 0, Location::caller());
}

pub fn fence_device() {
    fence(Ordering::SeqCst)
}

pub fn fence_block() {
    fence(Ordering::SeqCst)
}

pub fn nanosleep(_ns: u32) {
    current().spin()
}

/// The line that called the caller (through `#[track_caller]`), for collectives reached
/// through a closure, which cannot pass it on.
#[track_caller]
pub fn caller_site() -> Site {
    Location::caller()
}

/// `shfl.sync`, reported at `site`.
///
/// # Safety
/// As for [`sync_threads`].
pub unsafe fn shfl_at(site: Site, mode: ShflMode, mask: u32, v: u32, b: u32) -> u32 {
    current().collective(Op::Shfl(mode), mask, v as u64, b, site) as u32
}

/// # Safety
/// As for [`sync_threads`].
#[track_caller]
pub unsafe fn vote(mode: VoteMode, mask: u32, p: bool) -> u32 {
    current().collective(Op::Vote(mode), mask, p as u64, 0, Location::caller()) as u32
}

/// # Safety
/// As for [`sync_threads`].
#[track_caller]
pub unsafe fn match_any_u32(mask: u32, v: u32) -> u32 {
    current().collective(Op::MatchAny, mask, v as u64, 0, Location::caller()) as u32
}

/// # Safety
/// As for [`sync_threads`].
#[track_caller]
pub unsafe fn match_any_u64(mask: u32, v: u64) -> u32 {
    current().collective(Op::MatchAny, mask, v, 0, Location::caller()) as u32
}

/// # Safety
/// As for [`sync_threads`].
#[track_caller]
pub unsafe fn redux_add(mask: u32, v: u32) -> u32 {
    current().collective(Op::ReduxAdd, mask, v as u64, 0, Location::caller()) as u32
}

#[track_caller]
pub fn active_mask() -> u32 {
    current().active_mask(Location::caller())
}

#[track_caller]
pub fn trap() -> ! {
    let lane = current();
    lane.fault(Misuse::Trap {
        thread: lane.id,
        message: format!("trap at {}", Location::caller()),
    })
}

macro_rules! host_rmw {
    ($($name:ident: $t:ty, $atomic:ident, |$a:ident, $v:ident| $op:expr;)*) => {$(
        /// # Safety
        /// `p` is valid and aligned; every concurrent access to it is atomic.
        pub unsafe fn $name(p: *mut $t, $v: $t) -> $t {
            // SAFETY: the caller's contract.
            let $a = unsafe { $atomic::from_ptr(p.cast()) };
            $op
        }
    )*};
}

/// `atom.add` on a float: a compare-and-swap loop on its bits.
macro_rules! float_add {
    ($a:ident, $v:ident, $f:ty) => {
        <$f>::from_bits(
            $a.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |old| {
                Some((<$f>::from_bits(old) + $v).to_bits())
            })
            .unwrap_or_else(|old| old),
        )
    };
}

host_rmw! {
    atomic_add_u32: u32, AtomicU32, |a, v| a.fetch_add(v, Ordering::Relaxed);
    atomic_add_release_u32: u32, AtomicU32, |a, v| a.fetch_add(v, Ordering::Release);
    atomic_add_u64: u64, AtomicU64, |a, v| a.fetch_add(v, Ordering::Relaxed);
    atomic_add_f32: f32, AtomicU32, |a, v| float_add!(a, v, f32);
    atomic_add_f64: f64, AtomicU64, |a, v| float_add!(a, v, f64);
    atomic_min_u32: u32, AtomicU32, |a, v| a.fetch_min(v, Ordering::Relaxed);
    atomic_min_u64: u64, AtomicU64, |a, v| a.fetch_min(v, Ordering::Relaxed);
    atomic_max_u32: u32, AtomicU32, |a, v| a.fetch_max(v, Ordering::Relaxed);
    atomic_max_u64: u64, AtomicU64, |a, v| a.fetch_max(v, Ordering::Relaxed);
    atomic_exchange_u32: u32, AtomicU32, |a, v| a.swap(v, Ordering::Relaxed);
    atomic_exchange_u64: u64, AtomicU64, |a, v| a.swap(v, Ordering::Relaxed);
}

macro_rules! host_cas {
    ($($name:ident: $t:ty, $atomic:ident;)*) => {$(
        /// # Safety
        /// `p` is valid and aligned; every concurrent access to it is atomic.
        pub unsafe fn $name(p: *mut $t, expected: $t, new: $t) -> $t {
            // SAFETY: the caller's contract.
            let a = unsafe { $atomic::from_ptr(p) };
            a.compare_exchange(expected, new, Ordering::Relaxed, Ordering::Relaxed)
                .unwrap_or_else(|old| old)
        }
    )*};
}

host_cas! {
    atomic_cas_u32: u32, AtomicU32;
    atomic_cas_u64: u64, AtomicU64;
}

/// The emulator addresses shared memory by host pointers only.
pub fn smem_window() -> u32 {
    0
}

/// # Safety
/// `p` is valid and aligned for a read.
pub unsafe fn ld_shared<T: Copy>(_a: u32, p: *const T) -> T {
    // SAFETY: the caller's contract.
    unsafe { p.read() }
}

/// # Safety
/// `p` is valid and aligned for a write.
pub unsafe fn st_shared<T: Copy>(_a: u32, p: *mut T, v: T) {
    // SAFETY: the caller's contract.
    unsafe { p.write(v) }
}

/// Checked by the race detector as an atomic access.
///
/// # Safety
/// `p` is a valid, aligned word of the block's shared memory; every concurrent access to it is
/// atomic.
#[track_caller]
pub unsafe fn red_shared_add_u32(_a: u32, p: *mut u32, v: u32) {
    shared_access(p.cast(), 4, AccessKind::Atomic);
    // SAFETY: the caller's contract.
    unsafe { AtomicU32::from_ptr(p) }.fetch_add(v, Ordering::Relaxed);
}

/// Checked by the race detector as an atomic access.
///
/// # Safety
/// As for [`red_shared_add_u32`].
#[track_caller]
pub unsafe fn red_shared_or_u32(_a: u32, p: *mut u32, v: u32) {
    shared_access(p.cast(), 4, AccessKind::Atomic);
    // SAFETY: the caller's contract.
    unsafe { AtomicU32::from_ptr(p) }.fetch_or(v, Ordering::Relaxed);
}

/// Checked by the race detector as an atomic access.
///
/// # Safety
/// As for [`red_shared_add_u32`].
#[track_caller]
pub unsafe fn red_shared_xor_u32(_a: u32, p: *mut u32, v: u32) {
    shared_access(p.cast(), 4, AccessKind::Atomic);
    // SAFETY: the caller's contract.
    unsafe { AtomicU32::from_ptr(p) }.fetch_xor(v, Ordering::Relaxed);
}

/// The copy happens at once (the emulator has no copy engine to overlap).
///
/// # Safety
/// `dst` and `src` are valid for 16 bytes and do not overlap.
pub unsafe fn copy_async16(_a: u32, dst: *mut u8, src: *const u8) {
    // SAFETY: the caller's contract.
    unsafe { core::ptr::copy_nonoverlapping(src, dst, 16) }
}

/// As [`copy_async16`], for 8 bytes.
///
/// # Safety
/// `dst` and `src` are valid for 8 bytes and do not overlap.
pub unsafe fn copy_async8(_a: u32, dst: *mut u8, src: *const u8) {
    // SAFETY: the caller's contract.
    unsafe { core::ptr::copy_nonoverlapping(src, dst, 8) }
}

pub fn wait_copies() {}

/// The emulator has no cache to fill.
///
/// # Safety
/// None needed here; the GPU's version wants an address the kernel may read.
pub unsafe fn prefetch_l2(_p: *const u8) {}

/// # Safety
/// `p` is valid and aligned for a read; concurrent accesses are atomic.
pub unsafe fn load_acquire_u32(p: *const u32) -> u32 {
    // SAFETY: the caller's contract.
    let v = unsafe { AtomicU32::from_ptr(p.cast_mut()) }.load(Ordering::Acquire);
    current().spin();
    v
}

/// # Safety
/// `p` is valid and aligned for a write; concurrent accesses are atomic.
pub unsafe fn store_release_u32(p: *mut u32, v: u32) {
    // SAFETY: the caller's contract.
    unsafe { AtomicU32::from_ptr(p) }.store(v, Ordering::Release)
}

/// # Safety
/// `p` is valid and aligned for a read; concurrent accesses are atomic.
pub unsafe fn load_relaxed_u64(p: *const u64) -> u64 {
    // SAFETY: the caller's contract.
    let v = unsafe { AtomicU64::from_ptr(p.cast_mut()) }.load(Ordering::Relaxed);
    current().spin();
    v
}

/// # Safety
/// `p` is valid and aligned for a write; concurrent accesses are atomic.
pub unsafe fn store_relaxed_u64(p: *mut u64, v: u64) {
    // SAFETY: the caller's contract.
    unsafe { AtomicU64::from_ptr(p) }.store(v, Ordering::Relaxed)
}

pub fn lg2_approx_f32(x: f32) -> f32 {
    x.log2()
}

pub fn ex2_approx_f32(x: f32) -> f32 {
    x.exp2()
}

pub fn sin_approx_f32(x: f32) -> f32 {
    x.sin()
}

pub fn cos_approx_f32(x: f32) -> f32 {
    x.cos()
}

pub fn sqrt_f32(x: f32) -> f32 {
    x.sqrt()
}

pub fn sqrt_f64(x: f64) -> f64 {
    x.sqrt()
}

#[inline(always)]
pub fn fma_f32(a: f32, b: f32, c: f32) -> f32 {
    a.mul_add(b, c)
}

#[inline(always)]
pub fn fma_f64(a: f64, b: f64, c: f64) -> f64 {
    a.mul_add(b, c)
}

#[inline(always)]
pub fn pin_u32(v: u32) -> u32 {
    v
}

#[inline(always)]
pub fn mul_hi_lo_u32(a: u32, b: u32) -> (u32, u32) {
    let p = a as u64 * b as u64;
    ((p >> 32) as u32, p as u32)
}
