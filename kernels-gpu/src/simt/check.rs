//! Test kernels for the SIMT pieces no algorithm exercises yet: votes, match, the active mask,
//! shuffles within partial masks, `sync_warp` with shared memory, and every atomic on global
//! and shared memory. The host's tests compare them with CPU references on both engines.

use super::atomic::*;
use super::memory::read_or;
use super::shared::SharedSlice;
use super::warp::{FULL_MASK, active_mask, all, any, ballot, match_any_u32, match_any_u64, shfl_xor};
use super::{global_x, lane_id, sync_threads, sync_threads_or, sync_warp, thread_rank, warp_id};
use crate::launch::LaunchShape;
use crate::policy::checks::{LEVEL_TEST_BLOCK_THREADS, per_element};

crate::kernel_group! {
    /// A test kernel's input: `n` elements, one a thread.
    pub struct Elements<T> {
        #[len(n)]
        pub input: *const T,
        pub n: u64,
    }
}

/// Outputs per element of [`collectives`].
pub const COLLECTIVE_OUTPUTS: usize = 9;

/// Slots (u64 each) of the counters of [`atomics`]; u32 atomics use the low half.
pub const ATOMIC_SLOTS: usize = 13;

/// How many elements (the first ones) run the CAS loops of
/// [`atomics`]. Contended CAS loops on one address cost
/// work quadratic in the contenders: 2^24 of them keep an H100 busy for minutes.
pub const CAS_CONTENDERS: u64 = 4096;

own_kernel! {
    /// Parameters of the collectives check: `n` elements of `input`, one a thread,
    /// [`COLLECTIVE_OUTPUTS`] words each to `out`.
    pub struct Collectives {
        #[len(n)]
        pub input: *const u32,
        pub n: u64,
        #[len(COLLECTIVE_OUTPUTS as u64 * n)]
        pub out: *mut u32,
    }
    check |p, shape| *shape == p.plan();
    /// The collectives check (see [`collectives`]).
    fn collectives => simt_check_collectives;
}

own_kernel! {
    /// Parameters of the atomics check: `n` elements of `input`, one a thread, applying every
    /// atomic to the [`ATOMIC_SLOTS`] slots of `counters` and each exchange's old value to
    /// `olds`.
    pub struct Atomics {
        #[len(n)]
        pub input: *const u32,
        pub n: u64,
        #[len(ATOMIC_SLOTS as u64)]
        pub counters: *mut u64,
        #[len(n)]
        pub olds: *mut u32,
    }
    check |p, shape| *shape == p.plan();
    /// The atomics check (see [`atomics`]).
    fn atomics => simt_check_atomics;
}

impl Collectives {
    /// A thread an element, with a word of shared memory a thread.
    pub const fn plan(&self) -> LaunchShape {
        per_element(self.n, 4 * LEVEL_TEST_BLOCK_THREADS)
    }
}

impl Atomics {
    /// A thread an element, with a word of shared memory a block.
    pub const fn plan(&self) -> LaunchShape {
        per_element(self.n, 4)
    }
}

/// For element `i` with value `v` (0 for the lanes past `n`), writes to `out[8i ..]`: the
/// warp's ballot of `v` odd; any `v % 64 == 0`; all `v % 64 != 0`; match-any of `v % 4`;
/// match-any of `(v % 3) << 33` on 64 bits; `v` of lane `lane ^ 1` through a shuffle within
/// each half-warp's own mask; the active mask inside `if lane % 3 == 0` (0 elsewhere); and
/// the value of lane `(lane + 1) % 32` passed through shared memory and `sync_warp`; whether
/// any `v` of the block is 7 modulo 1000 (`sync_threads_or`).
///
/// # Safety
/// `input` holds `n` elements, `out` 9 × `n`; the launch is [`Collectives::plan`] (any blocks
/// of whole warps with 4 bytes of dynamic shared memory a thread).
#[inline(always)]
pub unsafe fn collectives(p: Collectives) {
    let Collectives { input, n, out } = p;
    let i = global_x();
    let lane = lane_id();
    // SAFETY: reads and writes bounded by `n`; every lane of every whole warp runs each
    // collective with a mask naming only lanes that call it.
    unsafe {
        let v = read_or(input, i, n, 0);
        let half = if lane < 16 { 0x0000_ffff } else { 0xffff_0000 };
        let divergent = if lane.is_multiple_of(3) { active_mask() } else { 0 };
        sync_warp(FULL_MASK);
        let slots = SharedSlice::<u32>::carve(0, super::block_dim().volume() as u32);
        slots.set(thread_rank(), v);
        sync_warp(FULL_MASK);
        let neighbour = slots.get(warp_id() * 32 + (lane + 1) % 32);
        let block_any = sync_threads_or(v % 1000 == 7) as u32;
        let results = [
            ballot(FULL_MASK, v & 1 != 0),
            any(FULL_MASK, v.is_multiple_of(64)) as u32,
            all(FULL_MASK, !v.is_multiple_of(64)) as u32,
            match_any_u32(FULL_MASK, v % 4),
            match_any_u64(FULL_MASK, ((v % 3) as u64) << 33),
            shfl_xor(half, v, 1),
            divergent,
            neighbour,
            block_any,
        ];
        if i < n {
            for (k, r) in results.into_iter().enumerate() {
                *out.add(i as usize * COLLECTIVE_OUTPUTS + k) = r;
            }
        }
    }
}

/// Every atomic, by every element `i < n` with value `v`, on `counters` (slots of 8 bytes):
/// 0 add_u32 1; 1 min_u32 v; 2 max_u32 v; 3 add_u64 v; 4 min_u64 and 5 max_u64 of
/// `v << 20 | i`; 6 add_f32 `v % 2`; 7 add_f64 `v >> 8` (both exact below 2^24 elements); for
/// the first [`CAS_CONTENDERS`] elements, 8 a CAS loop adding 1 (u32) and 9 a CAS loop adding
/// v (u64); 10 exchange_u32 `i + 1`, the old value to `olds[i]`; 11 the block's count
/// from add_u32 on a shared counter, added once per block; 12 exchange_u64 `i + 1`.
///
/// # Safety
/// `input` and `olds` hold `n` elements, `counters` 13 slots, 8-byte aligned; the launch is
/// [`Atomics::plan`] (any blocks with 4 bytes of dynamic shared memory).
#[inline(always)]
pub unsafe fn atomics(p: Atomics) {
    let Atomics {
        input,
        n,
        counters,
        olds,
    } = p;
    let i = global_x();
    let word = |slot: usize| counters.wrapping_add(slot).cast::<u32>();
    // SAFETY: every access is to a counter slot, `olds[i]` with `i < n`, or the block's
    // shared counter; the barriers are reached by every thread.
    unsafe {
        let shared = SharedSlice::<u32>::carve(0, 1);
        if thread_rank() == 0 {
            shared.set(0, 0);
        }
        sync_threads();
        if i < n {
            let v = *input.add(i as usize);
            add_u32(word(0), 1);
            min_u32(word(1), v);
            max_u32(word(2), v);
            add_u64(counters.add(3), v as u64);
            min_u64(counters.add(4), (v as u64) << 20 | i);
            max_u64(counters.add(5), (v as u64) << 20 | i);
            add_f32(word(6).cast(), (v % 2) as f32);
            add_f64(counters.add(7).cast(), (v >> 8) as f64);
            if i < CAS_CONTENDERS {
                let mut seen = 0;
                loop {
                    let old = cas_u32(word(8), seen, seen + 1);
                    if old == seen {
                        break;
                    }
                    seen = old;
                }
                let mut seen = 0;
                loop {
                    let old = cas_u64(counters.add(9), seen, seen + v as u64);
                    if old == seen {
                        break;
                    }
                    seen = old;
                }
            }
            *olds.add(i as usize) = exchange_u32(word(10), i as u32 + 1);
            add_u32(shared.as_mut_ptr(), 1);
            exchange_u64(counters.add(12), i + 1);
        }
        sync_threads();
        if thread_rank() == 0 {
            add_u64(counters.add(11), shared.get(0) as u64);
        }
    }
}

own_kernel! {
    /// Parameters of the planted fault: one thread reads `input[at]`, where `at` may lie past
    /// the buffer's `n` elements, and writes what it read to `out`.
    pub struct ReadAt {
        #[len(n)]
        pub input: *const u32,
        pub n: u64,
        pub at: u64,
        #[len(1u64)]
        pub out: *mut u32,
    }
    check |p, shape| *shape == p.plan();
    /// The planted fault (see [`read_at`]).
    fn read_at => simt_check_read_at;
}

impl ReadAt {
    /// One block of one warp.
    pub const fn plan(&self) -> LaunchShape {
        LaunchShape::linear(1, 32, 0)
    }
}

/// A kernel with a planted bug, for the tests of what a device does with a kernel that
/// faults: lane 5 reads `input[at]` whatever `at` is (past the buffer when `at >= n`: an
/// out-of-bounds read that a GPU reports as an illegal address and the emulator with the lane
/// and address) and writes it to `out`.
///
/// # Safety
/// None that the kernel keeps: it reads out of bounds when `at >= n`, by design (the launch
/// contract its parameters declare holds, so the host launches it).
#[inline(always)]
pub unsafe fn read_at(p: ReadAt) {
    let ReadAt { input, at, out, .. } = p;
    if lane_id() == 5 {
        // SAFETY: none when `at >= n`: the planted read.
        unsafe { *out = core::ptr::read_volatile(input.wrapping_add(at as usize)) };
    }
}
