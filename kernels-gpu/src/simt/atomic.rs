//! Atomics on global or shared memory (generic addressing reaches both), and the acquire and
//! release accesses that publish values between blocks.
//!
//! All read-modify-write operations here are relaxed and scoped to the GPU, like CUDA's
//! `atomicAdd` family; they return the value before the operation.

use core::arch::asm;

macro_rules! atomic_rmw {
    ($($(#[$doc:meta])* $name:ident: $t:ty, $reg:ident, $ptx:literal;)*) => {$(
        $(#[$doc])*
        ///
        /// # Safety
        /// `p` must be valid and aligned for reads and writes of its type, in global or shared
        /// memory; all concurrent accesses to it must be atomic.
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
    /// `atomicAdd` on u32.
    add_u32: u32, reg32, "atom.add.u32";
    /// `atomicAdd` on u64.
    add_u64: u64, reg64, "atom.add.u64";
    /// `atomicAdd` on f32.
    add_f32: f32, reg32, "atom.add.f32";
    /// `atomicAdd` on f64.
    add_f64: f64, reg64, "atom.add.f64";
    /// `atomicMin` on u32.
    min_u32: u32, reg32, "atom.min.u32";
    /// `atomicMin` on u64.
    min_u64: u64, reg64, "atom.min.u64";
    /// `atomicMax` on u32.
    max_u32: u32, reg32, "atom.max.u32";
    /// `atomicMax` on u64.
    max_u64: u64, reg64, "atom.max.u64";
    /// `atomicExch` on u32.
    exchange_u32: u32, reg32, "atom.exch.b32";
}

macro_rules! atomic_cas {
    ($($(#[$doc:meta])* $name:ident: $t:ty, $reg:ident, $ptx:literal;)*) => {$(
        $(#[$doc])*
        ///
        /// # Safety
        /// As for the other atomics: `p` valid and aligned, all concurrent accesses atomic.
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
    /// `atomicCAS` on u32: stores `new` if the value was `expected`; returns the old value.
    cas_u32: u32, reg32, "atom.cas.b32";
    /// `atomicCAS` on u64.
    cas_u64: u64, reg64, "atom.cas.b64";
}

/// A load with acquire semantics at GPU scope: later reads see what the releasing writer wrote
/// before its matching [`store_release_u32`].
///
/// # Safety
/// `p` must be valid and aligned for a read.
#[inline(always)]
pub unsafe fn load_acquire_u32(p: *const u32) -> u32 {
    let v: u32;
    // SAFETY: the caller guarantees `p` is valid.
    unsafe { asm!("ld.acquire.gpu.u32 {v}, [{p}];", v = out(reg32) v, p = in(reg64) p, options(nostack)) };
    v
}

/// A store with release semantics at GPU scope: it becomes visible only after every earlier
/// write of this thread.
///
/// # Safety
/// `p` must be valid and aligned for a write.
#[inline(always)]
pub unsafe fn store_release_u32(p: *mut u32, v: u32) {
    // SAFETY: the caller guarantees `p` is valid.
    unsafe { asm!("st.release.gpu.u32 [{p}], {v};", p = in(reg64) p, v = in(reg32) v, options(nostack)) };
}

/// A relaxed load at GPU scope: never served from a stale L1 line.
///
/// # Safety
/// `p` must be valid and aligned for a read.
#[inline(always)]
pub unsafe fn load_relaxed_u64(p: *const u64) -> u64 {
    let v: u64;
    // SAFETY: the caller guarantees `p` is valid.
    unsafe { asm!("ld.relaxed.gpu.u64 {v}, [{p}];", v = out(reg64) v, p = in(reg64) p, options(nostack)) };
    v
}

/// A relaxed store at GPU scope.
///
/// # Safety
/// `p` must be valid and aligned for a write.
#[inline(always)]
pub unsafe fn store_relaxed_u64(p: *mut u64, v: u64) {
    // SAFETY: the caller guarantees `p` is valid.
    unsafe { asm!("st.relaxed.gpu.u64 [{p}], {v};", p = in(reg64) p, v = in(reg64) v, options(nostack)) };
}
