//! The hardware under the SIMT layer on the GPU: PTX special registers, NVVM intrinsics and
//! inline PTX. The emulator (`crate::emu::hw`) provides the same functions on the host; the
//! modules of [`crate::simt`] call only these.

use super::types::{Dim3, ShflMode, VoteMode};
use core::arch::{asm, nvptx};

macro_rules! dim3_reader {
    ($($(#[$doc:meta])* $name:ident: $x:ident, $y:ident, $z:ident;)*) => {$(
        $(#[$doc])*
        #[inline(always)]
        pub fn $name() -> Dim3 {
            // SAFETY: reading a special register has no preconditions.
            unsafe { Dim3 { x: nvptx::$x() as u32, y: nvptx::$y() as u32, z: nvptx::$z() as u32 } }
        }
    )*};
}

dim3_reader! {
    /// `threadIdx`.
    thread_idx: _thread_idx_x, _thread_idx_y, _thread_idx_z;
    /// `blockIdx`.
    block_idx: _block_idx_x, _block_idx_y, _block_idx_z;
    /// `blockDim`.
    block_dim: _block_dim_x, _block_dim_y, _block_dim_z;
    /// `gridDim`.
    grid_dim: _grid_dim_x, _grid_dim_y, _grid_dim_z;
}

macro_rules! special_u32 {
    ($($(#[$doc:meta])* $name:ident: $reg:literal;)*) => {$(
        $(#[$doc])*
        #[inline(always)]
        pub fn $name() -> u32 {
            let v: u32;
            // SAFETY: reads a special register; no memory is touched.
            unsafe { asm!(concat!("mov.u32 {v}, ", $reg, ";"), v = out(reg32) v, options(pure, nomem, nostack)) };
            v
        }
    )*};
}

special_u32! {
    /// `%laneid`.
    lane_id: "%laneid";
    /// `%lanemask_lt`.
    lanemask_lt: "%lanemask_lt";
    /// `%dynamic_smem_size`: bytes of dynamic shared memory the launch gave this block.
    dynamic_smem_bytes: "%dynamic_smem_size";
}

core::arch::global_asm!(".extern .shared .align 16 .b8 WARPKIT_DYN_SMEM[];");

/// Generic address of the block's dynamic shared memory (Rust 1.96 cannot place a static in
/// `.shared`, hence one external `.shared` array).
#[inline(always)]
pub fn smem_base() -> *mut u8 {
    let p: *mut u8;
    // SAFETY: takes the generic address of the block's dynamic shared memory.
    unsafe {
        asm!("cvta.shared.u64 {p}, WARPKIT_DYN_SMEM;", p = out(reg64) p, options(pure, nomem, nostack))
    };
    p
}

/// The shared-window address (32 bits) of the block's dynamic shared memory, for the
/// `.shared` accesses below (generic ones through [`smem_base`] take the slower generic path).
#[inline(always)]
pub fn smem_window() -> u32 {
    let a: u32;
    // SAFETY: takes the shared-window address of the block's dynamic shared memory.
    unsafe { asm!("mov.u32 {a}, WARPKIT_DYN_SMEM;", a = out(reg32) a, options(pure, nomem, nostack)) };
    a
}

macro_rules! shared_access {
    ($($load:ident, $store:ident: $t:ty, $reg:ident, $width:literal;)*) => {$(
        #[doc = concat!("`ld.shared.", $width, "` at shared-window address `a`.")]
        #[inline(always)]
        unsafe fn $load(a: u32) -> $t {
            let v: $t;
            // SAFETY: the caller's address is in shared memory and aligned.
            unsafe {
                asm!(concat!("ld.shared.", $width, " {v}, [{a}];"), v = out($reg) v, a = in(reg32) a,
                     options(pure, readonly, nostack, preserves_flags))
            };
            v
        }

        #[doc = concat!("`st.shared.", $width, "` at shared-window address `a`.")]
        #[inline(always)]
        unsafe fn $store(a: u32, v: $t) {
            // SAFETY: as above.
            unsafe {
                asm!(concat!("st.shared.", $width, " [{a}], {v};"), a = in(reg32) a, v = in($reg) v,
                     options(nostack, preserves_flags))
            };
        }
    )*};
}

shared_access! {
    ld_shared_16, st_shared_16: u16, reg16, "b16";
    ld_shared_32, st_shared_32: u32, reg32, "b32";
    ld_shared_64, st_shared_64: u64, reg64, "b64";
}

/// `ld.shared.v2.b64` at shared-window address `a` (16-byte aligned).
#[inline(always)]
unsafe fn ld_shared_128(a: u32) -> [u64; 2] {
    let (x, y): (u64, u64);
    // SAFETY: the caller's address is in shared memory and aligned.
    unsafe {
        asm!("ld.shared.v2.b64 {{{x}, {y}}}, [{a}];", x = out(reg64) x, y = out(reg64) y, a = in(reg32) a,
             options(pure, readonly, nostack, preserves_flags))
    };
    [x, y]
}

/// `st.shared.v2.b64` at shared-window address `a` (16-byte aligned).
#[inline(always)]
unsafe fn st_shared_128(a: u32, [x, y]: [u64; 2]) {
    // SAFETY: as above.
    unsafe {
        asm!("st.shared.v2.b64 [{a}], {{{x}, {y}}};", a = in(reg32) a, x = in(reg64) x, y = in(reg64) y,
             options(nostack, preserves_flags))
    };
}

macro_rules! shared_reduce {
    ($($name:ident: $ptx:literal;)*) => {$(
        #[doc = concat!("`", $ptx, "` at shared-window address `a`: an atomic update without the old value.")]
        ///
        /// # Safety
        /// `a` is an aligned word of this block's shared memory (`_p` its generic address).
        #[inline(always)]
        pub unsafe fn $name(a: u32, _p: *mut u32, v: u32) {
            // SAFETY: the caller's contract.
            unsafe {
                asm!(concat!($ptx, " [{a}], {v};"), a = in(reg32) a, v = in(reg32) v,
                     options(nostack, preserves_flags))
            };
        }
    )*};
}

shared_reduce! {
    red_shared_add_u32: "red.shared.add.u32";
    red_shared_or_u32: "red.shared.or.b32";
    red_shared_xor_u32: "red.shared.xor.b32";
}

/// Reads a `T` at shared-window address `a` with `ld.shared`: one access for 2-, 4-, 8- and
/// 16-byte types aligned to their size, two for 8- and 16-byte types aligned to half of it;
/// any other `T` through its generic address `p`.
///
/// # Safety
/// `a` and `p` are the same element of this block's shared memory, aligned for `T`.
#[inline(always)]
pub unsafe fn ld_shared<T: Copy>(a: u32, p: *const T) -> T {
    use core::mem::transmute_copy as bits;
    // SAFETY: the caller's contract; each arm reads exactly `size_of::<T>()` bytes at an
    // alignment `T` guarantees, and the bits are T's own.
    unsafe {
        match (size_of::<T>(), align_of::<T>()) {
            (2, 2..) => bits(&ld_shared_16(a)),
            (4, 4..) => bits(&ld_shared_32(a)),
            (8, 4) => bits(&[ld_shared_32(a), ld_shared_32(a + 4)]),
            (8, 8..) => bits(&ld_shared_64(a)),
            (16, 16..) => bits(&ld_shared_128(a)),
            (16, 8) => bits(&[ld_shared_64(a), ld_shared_64(a + 8)]),
            _ => p.read(),
        }
    }
}

/// Writes `v` at shared-window address `a` with `st.shared`, as [`ld_shared`] reads.
///
/// # Safety
/// As for [`ld_shared`].
#[inline(always)]
pub unsafe fn st_shared<T: Copy>(a: u32, p: *mut T, v: T) {
    use core::mem::transmute_copy as bits;
    // SAFETY: as for `ld_shared`; each arm writes exactly T's bytes.
    unsafe {
        match (size_of::<T>(), align_of::<T>()) {
            (2, 2..) => st_shared_16(a, bits(&v)),
            (4, 4..) => st_shared_32(a, bits(&v)),
            (8, 4) => {
                let [x, y]: [u32; 2] = bits(&v);
                st_shared_32(a, x);
                st_shared_32(a + 4, y);
            }
            (8, 8..) => st_shared_64(a, bits(&v)),
            (16, 16..) => st_shared_128(a, bits(&v)),
            (16, 8) => {
                let [x, y]: [u64; 2] = bits(&v);
                st_shared_64(a, x);
                st_shared_64(a + 8, y);
            }
            _ => p.write(v),
        }
    }
}

/// `cp.async.cg.shared.global`: starts copying 16 bytes from global `src` to the shared-window
/// address `a` without passing through registers.
///
/// # Safety
/// `a` is in this block's shared memory and `src` in global memory, both 16-byte aligned and
/// valid for 16 bytes.
#[inline(always)]
pub unsafe fn copy_async16(a: u32, _dst: *mut u8, src: *const u8) {
    // SAFETY: the caller's contract.
    unsafe {
        asm!("cp.async.cg.shared.global [{a}], [{g}], 16;", a = in(reg32) a, g = in(reg64) src, options(nostack))
    };
}

/// `cp.async.ca.shared.global` of 8 bytes (the `.cg` form copies 16 only): as
/// [`copy_async16`] for an 8-byte word, both addresses 8-byte aligned.
///
/// # Safety
/// `a` is in this block's shared memory and `src` in global memory, both 8-byte aligned and
/// valid for 8 bytes.
#[inline(always)]
pub unsafe fn copy_async8(a: u32, _dst: *mut u8, src: *const u8) {
    // SAFETY: the caller's contract.
    unsafe {
        asm!("cp.async.ca.shared.global [{a}], [{g}], 8;", a = in(reg32) a, g = in(reg64) src, options(nostack))
    };
}

/// `cp.async.wait_all`: this thread's async copies have landed.
#[inline(always)]
pub fn wait_copies() {
    // SAFETY: waits on this thread's own copies; no operands.
    unsafe { asm!("cp.async.wait_all;", options(nostack)) };
}

/// `prefetch.global.L2`: brings the cache line holding `p` into L2, without waiting for it and
/// without a destination register.
///
/// # Safety
/// `p` is an address in global memory the kernel may read.
#[inline(always)]
pub unsafe fn prefetch_l2(p: *const u8) {
    // SAFETY: the caller's contract; a prefetch writes no memory and no register.
    unsafe {
        asm!("prefetch.global.L2 [{p}];", p = in(reg64) p, options(nostack, readonly, preserves_flags))
    };
}

unsafe extern "C" {
    #[link_name = "llvm.nvvm.barrier0.or"]
    fn barrier0_or(pred: i32) -> i32;
    #[link_name = "llvm.nvvm.bar.warp.sync"]
    fn bar_warp_sync(mask: u32);
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
    #[link_name = "llvm.fma.f32"]
    fn llvm_fma_f32(a: f32, b: f32, c: f32) -> f32;
    #[link_name = "llvm.fma.f64"]
    fn llvm_fma_f64(a: f64, b: f64, c: f64) -> f64;
}

/// `a·b + c` rounded once (`fma.rn.f32`). An LLVM intrinsic rather than inline PTX, so that
/// LLVM still schedules and folds around it.
#[inline(always)]
pub fn fma_f32(a: f32, b: f32, c: f32) -> f32 {
    // SAFETY: a pure arithmetic intrinsic.
    unsafe { llvm_fma_f32(a, b, c) }
}

/// `a·b + c` rounded once (`fma.rn.f64`).
#[inline(always)]
pub fn fma_f64(a: f64, b: f64, c: f64) -> f64 {
    // SAFETY: a pure arithmetic intrinsic.
    unsafe { llvm_fma_f64(a, b, c) }
}

/// `bar.sync 0`.
///
/// # Safety
/// Every thread of the block reaches this barrier.
#[inline(always)]
pub unsafe fn sync_threads() {
    // SAFETY: forwarded to the caller's contract.
    unsafe { nvptx::_syncthreads() }
}

/// `barrier.sync 0`: the barrier without `.aligned`.
///
/// # Safety
/// Every thread of the block reaches barrier 0, by this or another barrier instruction.
#[inline(always)]
pub unsafe fn sync_threads_unaligned() {
    // SAFETY: forwarded to the caller's contract; reads and writes no registers.
    unsafe { asm!("barrier.sync 0;", options(nostack)) };
}

/// `bar.red.or.pred`: the barrier, returning whether any thread's `pred` held.
///
/// # Safety
/// Every thread of the block reaches this barrier.
#[inline(always)]
pub unsafe fn sync_threads_or(pred: bool) -> bool {
    // SAFETY: forwarded to the caller's contract.
    unsafe { barrier0_or(pred as i32) != 0 }
}

/// `bar.warp.sync mask`.
///
/// # Safety
/// Every lane in `mask` executes a `sync_warp` with the same mask.
#[inline(always)]
pub unsafe fn sync_warp(mask: u32) {
    // SAFETY: forwarded to the caller's contract.
    unsafe { bar_warp_sync(mask) }
}

/// `fence.acq_rel.gpu`.
#[inline(always)]
pub fn fence_device() {
    // SAFETY: a fence has no operands and no preconditions.
    unsafe { asm!("fence.acq_rel.gpu;", options(nostack)) };
}

/// `fence.acq_rel.cta`.
#[inline(always)]
pub fn fence_block() {
    // SAFETY: as above.
    unsafe { asm!("fence.acq_rel.cta;", options(nostack)) };
}

/// `nanosleep.u32`.
#[inline(always)]
pub fn nanosleep(ns: u32) {
    // SAFETY: a timed suspension with no memory effects.
    unsafe { asm!("nanosleep.u32 {t};", t = in(reg32) ns, options(nomem, nostack)) };
}

/// Where a collective was called from: nothing on the GPU (the emulator keeps the line).
pub type Site = ();

/// The calling site; see [`Site`].
#[inline(always)]
pub fn caller_site() -> Site {}

/// `shfl.sync` over the whole warp: clamp to lane 31 (lane 0 for `up`). `site` is for the
/// emulator's reports.
///
/// # Safety
/// Every lane in `mask` calls this with the same mode and mask; the caller is in `mask`.
#[inline(always)]
pub unsafe fn shfl_at(_site: Site, mode: ShflMode, mask: u32, v: u32, b: u32) -> u32 {
    let (v, b) = (v as i32, b as i32);
    // SAFETY: forwarded to the caller's contract.
    let r = unsafe {
        match mode {
            ShflMode::Idx => shfl_idx_i32(mask, v, b, 0x1f),
            ShflMode::Up => shfl_up_i32(mask, v, b, 0),
            ShflMode::Down => shfl_down_i32(mask, v, b, 0x1f),
            ShflMode::Xor => shfl_bfly_i32(mask, v, b, 0x1f),
        }
    };
    r as u32
}

/// `vote.sync`: the ballot, or 1/0 for any/all.
///
/// # Safety
/// As for [`shfl`].
#[inline(always)]
pub unsafe fn vote(mode: VoteMode, mask: u32, p: bool) -> u32 {
    // SAFETY: forwarded to the caller's contract.
    unsafe {
        match mode {
            VoteMode::Ballot => vote_ballot(mask, p),
            VoteMode::Any => vote_any(mask, p) as u32,
            VoteMode::All => vote_all(mask, p) as u32,
        }
    }
}

/// `match.any.sync.b32`.
///
/// # Safety
/// As for [`shfl`].
#[inline(always)]
pub unsafe fn match_any_u32(mask: u32, v: u32) -> u32 {
    // SAFETY: forwarded to the caller's contract.
    unsafe { match_any_i32(mask, v as i32) }
}

/// `match.any.sync.b64`.
///
/// # Safety
/// As for [`shfl`].
#[inline(always)]
pub unsafe fn match_any_u64(mask: u32, v: u64) -> u32 {
    // SAFETY: forwarded to the caller's contract.
    unsafe { match_any_i64(mask, v as i64) }
}

/// `redux.sync.add.u32` (sm_80 and newer): the sum over the lanes of `mask`, wrapping.
///
/// # Safety
/// As for [`shfl`].
#[inline(always)]
pub unsafe fn redux_add(mask: u32, v: u32) -> u32 {
    let d: u32;
    // SAFETY: forwarded to the caller's contract; reads no memory.
    unsafe {
        asm!(
            "redux.sync.add.u32 {d}, {v}, {m};",
            d = out(reg32) d,
            v = in(reg32) v,
            m = in(reg32) mask,
            options(nomem, nostack)
        )
    };
    d
}

/// `activemask.b32`.
#[inline(always)]
pub fn active_mask() -> u32 {
    let m: u32;
    // SAFETY: `activemask` reads no memory and has no preconditions.
    unsafe { asm!("activemask.b32 {m};", m = out(reg32) m, options(nomem, nostack)) };
    m
}

/// `trap`: ends the kernel; the host sees a launch failure.
#[inline(always)]
pub fn trap() -> ! {
    // SAFETY: `trap` takes no arguments and only ends the kernel.
    unsafe { nvptx::trap() }
}

macro_rules! atomic_rmw {
    ($($name:ident: $t:ty, $reg:ident, $ptx:literal;)*) => {$(
        #[doc = concat!("`", $ptx, "` (GPU scope, relaxed unless named); returns the old value.")]
        ///
        /// # Safety
        /// `p` is valid and aligned, in global or shared memory.
        #[inline(always)]
        pub unsafe fn $name(p: *mut $t, v: $t) -> $t {
            let old: $t;
            // SAFETY: the caller guarantees `p` is a valid, aligned address.
            unsafe {
                asm!(concat!($ptx, " {o}, [{p}], {v};"), o = out($reg) old, p = in(reg64) p,
                     v = in($reg) v, options(nostack));
            }
            old
        }
    )*};
}

atomic_rmw! {
    atomic_add_u32: u32, reg32, "atom.add.u32";
    atomic_add_release_u32: u32, reg32, "atom.release.gpu.add.u32";
    atomic_add_u64: u64, reg64, "atom.add.u64";
    atomic_add_f32: f32, reg32, "atom.add.f32";
    atomic_add_f64: f64, reg64, "atom.add.f64";
    atomic_min_u32: u32, reg32, "atom.min.u32";
    atomic_min_u64: u64, reg64, "atom.min.u64";
    atomic_max_u32: u32, reg32, "atom.max.u32";
    atomic_max_u64: u64, reg64, "atom.max.u64";
    atomic_exchange_u32: u32, reg32, "atom.exch.b32";
    atomic_exchange_u64: u64, reg64, "atom.exch.b64";
}

macro_rules! atomic_cas {
    ($($name:ident: $t:ty, $reg:ident, $ptx:literal;)*) => {$(
        #[doc = concat!("`", $ptx, "`: stores `new` if the value was `expected`; returns the old value.")]
        ///
        /// # Safety
        /// `p` is valid and aligned, in global or shared memory.
        #[inline(always)]
        pub unsafe fn $name(p: *mut $t, expected: $t, new: $t) -> $t {
            let old: $t;
            // SAFETY: the caller guarantees `p` is a valid, aligned address.
            unsafe {
                asm!(concat!($ptx, " {o}, [{p}], {e}, {n};"), o = out($reg) old, p = in(reg64) p,
                     e = in($reg) expected, n = in($reg) new, options(nostack));
            }
            old
        }
    )*};
}

atomic_cas! {
    atomic_cas_u32: u32, reg32, "atom.cas.b32";
    atomic_cas_u64: u64, reg64, "atom.cas.b64";
}

macro_rules! ordered_access {
    ($($load:ident, $store:ident: $t:ty, $reg:ident, $ld:literal, $st:literal;)*) => {$(
        #[doc = concat!("`", $ld, "`.")]
        ///
        /// # Safety
        /// `p` is valid and aligned for a read.
        #[inline(always)]
        pub unsafe fn $load(p: *const $t) -> $t {
            let v: $t;
            // SAFETY: the caller guarantees `p` is valid.
            unsafe { asm!(concat!($ld, " {v}, [{p}];"), v = out($reg) v, p = in(reg64) p, options(nostack)) };
            v
        }

        #[doc = concat!("`", $st, "`.")]
        ///
        /// # Safety
        /// `p` is valid and aligned for a write.
        #[inline(always)]
        pub unsafe fn $store(p: *mut $t, v: $t) {
            // SAFETY: the caller guarantees `p` is valid.
            unsafe { asm!(concat!($st, " [{p}], {v};"), p = in(reg64) p, v = in($reg) v, options(nostack)) };
        }
    )*};
}

ordered_access! {
    load_acquire_u32, store_release_u32: u32, reg32, "ld.acquire.gpu.u32", "st.release.gpu.u32";
    load_relaxed_u64, store_relaxed_u64: u64, reg64, "ld.relaxed.gpu.u64", "st.relaxed.gpu.u64";
}

macro_rules! unary_f32 {
    ($($name:ident: $ptx:literal;)*) => {$(
        #[doc = concat!("`", $ptx, "`.")]
        #[inline(always)]
        pub fn $name(x: f32) -> f32 {
            let y: f32;
            // SAFETY: a register-to-register instruction with no preconditions.
            unsafe { asm!(concat!($ptx, " {y}, {x};"), y = out(reg32) y, x = in(reg32) x, options(pure, nomem, nostack)) };
            y
        }
    )*};
}

unary_f32! {
    lg2_approx_f32: "lg2.approx.f32";
    ex2_approx_f32: "ex2.approx.f32";
    sin_approx_f32: "sin.approx.f32";
    cos_approx_f32: "cos.approx.f32";
    sqrt_f32: "sqrt.rn.f32";
}

/// `sqrt.rn.f64`: correctly rounded.
#[inline(always)]
pub fn sqrt_f64(x: f64) -> f64 {
    let y: f64;
    // SAFETY: a register-to-register instruction with no preconditions.
    unsafe {
        asm!("sqrt.rn.f64 {y}, {x};", y = out(reg64) y, x = in(reg64) x, options(pure, nomem, nostack))
    };
    y
}

/// `v` unchanged, through an instruction LLVM may not move (not `pure`): a value computed
/// before it stays computed there, rather than sunk to its first use.
#[inline(always)]
pub fn pin_u32(mut v: u32) -> u32 {
    // SAFETY: a register move with no preconditions.
    unsafe { asm!("mov.b32 {v}, {v};", v = inout(reg32) v, options(nomem, nostack, preserves_flags)) };
    v
}

/// The high and low words of the 64-bit product of two u32, as `mul.hi.u32` and `mul.lo.u32`
/// (one `IMAD.WIDE.U32` after ptxas). Written in Rust, LLVM keeps the product as a u64 and
/// widens the xors around it to 64 bits (Philox's rounds compiled to twice the instructions).
#[inline(always)]
pub fn mul_hi_lo_u32(a: u32, b: u32) -> (u32, u32) {
    let (hi, lo): (u32, u32);
    // SAFETY: register-to-register instructions with no preconditions.
    unsafe {
        asm!("mul.hi.u32 {hi}, {a}, {b};", "mul.lo.u32 {lo}, {a}, {b};", hi = out(reg32) hi,
            lo = out(reg32) lo, a = in(reg32) a, b = in(reg32) b, options(pure, nomem, nostack))
    };
    (hi, lo)
}
