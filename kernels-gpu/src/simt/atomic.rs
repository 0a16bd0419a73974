//! Atomics on global or shared memory (generic addressing reaches both), and the acquire and
//! release accesses that publish values between blocks.
//!
//! All read-modify-write operations here are scoped to the GPU, like CUDA's `atomicAdd`
//! family, and relaxed but for [`add_release_u32`]; they return the value before the
//! operation. In the emulator they are host atomics on the same memory.

use super::hw;

macro_rules! forward {
    ($($(#[$doc:meta])* $name:ident => $hw:ident ($($arg:ident: $t:ty),*) -> $r:ty;)*) => {$(
        $(#[$doc])*
        ///
        /// # Safety
        /// `p` must be valid and aligned for reads and writes of its type, in global or shared
        /// memory; all concurrent accesses to it must be atomic.
        #[inline(always)]
        pub unsafe fn $name($($arg: $t),*) -> $r {
            // SAFETY: forwarded to the caller's contract.
            unsafe { hw::$hw($($arg),*) }
        }
    )*};
}

forward! {
    /// `atomicAdd` on u32.
    add_u32 => atomic_add_u32(p: *mut u32, v: u32) -> u32;
    /// `atomicAdd` on u32 with release semantics: the writes this thread saw or made before it
    /// (its block's too, after a `sync_threads`) become visible to a thread whose acquire load
    /// reads this addition's result, or a later one's.
    add_release_u32 => atomic_add_release_u32(p: *mut u32, v: u32) -> u32;
    /// `atomicAdd` on u64.
    add_u64 => atomic_add_u64(p: *mut u64, v: u64) -> u64;
    /// `atomicAdd` on f32.
    add_f32 => atomic_add_f32(p: *mut f32, v: f32) -> f32;
    /// `atomicAdd` on f64.
    add_f64 => atomic_add_f64(p: *mut f64, v: f64) -> f64;
    /// `atomicMin` on u32.
    min_u32 => atomic_min_u32(p: *mut u32, v: u32) -> u32;
    /// `atomicMin` on u64.
    min_u64 => atomic_min_u64(p: *mut u64, v: u64) -> u64;
    /// `atomicMax` on u32.
    max_u32 => atomic_max_u32(p: *mut u32, v: u32) -> u32;
    /// `atomicMax` on u64.
    max_u64 => atomic_max_u64(p: *mut u64, v: u64) -> u64;
    /// `atomicExch` on u32.
    exchange_u32 => atomic_exchange_u32(p: *mut u32, v: u32) -> u32;
    /// `atomicExch` on u64.
    exchange_u64 => atomic_exchange_u64(p: *mut u64, v: u64) -> u64;
    /// `atomicCAS` on u32: stores `new` if the value was `expected`; returns the old value.
    cas_u32 => atomic_cas_u32(p: *mut u32, expected: u32, new: u32) -> u32;
    /// `atomicCAS` on u64.
    cas_u64 => atomic_cas_u64(p: *mut u64, expected: u64, new: u64) -> u64;
    /// A load with acquire semantics at GPU scope: later reads see what the releasing writer
    /// wrote before its matching [`store_release_u32`]. In the emulator, a spin-wait point.
    load_acquire_u32 => load_acquire_u32(p: *const u32) -> u32;
    /// A store with release semantics at GPU scope: it becomes visible only after every
    /// earlier write of this thread.
    store_release_u32 => store_release_u32(p: *mut u32, v: u32) -> ();
    /// A relaxed load at GPU scope: never served from a stale L1 line. In the emulator, a
    /// spin-wait point.
    load_relaxed_u64 => load_relaxed_u64(p: *const u64) -> u64;
    /// A relaxed store at GPU scope.
    store_relaxed_u64 => store_relaxed_u64(p: *mut u64, v: u64) -> ();
}
