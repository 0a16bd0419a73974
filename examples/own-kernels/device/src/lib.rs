//! A device crate of one's own, written against `warpkit-kernels` as a user would: two kernel
//! families declared with `kernel!`, each a `repr(C)` parameter struct (pointer fields say
//! how far the kernel reaches with `#[len]`, so the host checks every launch), a plan for its
//! launch shape, and a body.
//!
//! - [`Largest`]: each block's largest magnitude and where it is, a block reduction by an
//!   operator of this crate's own ([`LargestMagnitude`]) through `warpkit_kernels::block`.
//! - [`Neighbours`]: each thread reads its right-hand neighbour's value through shared memory;
//!   with `barrier` 0 it skips the barrier between the writes and the reads, a race that the
//!   emulator reports (the tests assert it does).
//!
//! Compiled for the host, the same code runs in warpkit's emulator (`Device::emulator`), which
//! is how the host crate's `cargo test` runs it without a GPU.
#![cfg_attr(target_arch = "nvptx64", no_std)]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]

use warpkit_kernels::block;
use warpkit_kernels::launch::LaunchShape;
use warpkit_kernels::op::Operator;
use warpkit_kernels::simt::memory::read_or;
use warpkit_kernels::simt::shared::SharedSlice;
use warpkit_kernels::simt::{block_x, global_x, sync_threads, thread_rank, warps_per_block};

/// Threads a block, in both families.
pub const THREADS: u32 = 256;

/// The larger magnitude of two `(value, index)` pairs, the lower index on ties: an operator of
/// one's own for warpkit's warp and block reductions.
#[derive(Clone, Copy, Debug)]
pub struct LargestMagnitude;

impl Operator<(f32, u32)> for LargestMagnitude {
    fn identity(self) -> (f32, u32) {
        (0.0, u32::MAX)
    }

    fn combine(self, a: (f32, u32), b: (f32, u32)) -> (f32, u32) {
        let (ma, mb) = (a.0.abs(), b.0.abs());
        if mb > ma || (mb == ma && b.1 < a.1) { b } else { a }
    }
}

warpkit_kernels::kernel! {
    /// `n` values of `input`, one a thread; block `b`'s largest magnitude to `values[b]` and
    /// its index to `indices[b]`.
    pub struct Largest {
        #[len(n)]
        pub input: *const f32,
        pub n: u64,
        #[len(n.div_ceil(THREADS as u64))]
        pub values: *mut f32,
        #[len(n.div_ceil(THREADS as u64))]
        pub indices: *mut u32,
    }
    check |p, shape| *shape == p.plan();
    /// The block reduction.
    fn largest => own_largest_magnitude;
}

impl Largest {
    /// A thread a value, a pair of words of shared memory a warp.
    pub const fn plan(&self) -> LaunchShape {
        LaunchShape::linear(self.n.div_ceil(THREADS as u64), THREADS, THREADS / 32 * 8)
    }
}

/// Body of [`Largest`].
///
/// # Safety
/// `input` holds `n` values, `values` and `indices` one a block; the launch is
/// [`Largest::plan`].
#[inline(always)]
pub unsafe fn largest(p: Largest) {
    let i = global_x();
    // SAFETY: reads below `n`, a write a block; the whole block calls the reduction, with the
    // shared memory the plan gives it.
    unsafe {
        let scratch = SharedSlice::<(f32, u32)>::carve(0, warps_per_block());
        let mine = (read_or(p.input, i, p.n, 0.0), i as u32);
        let (value, index) = block::reduce(mine, LargestMagnitude, scratch);
        if thread_rank() == 0 {
            *p.values.add(block_x() as usize) = value;
            *p.indices.add(block_x() as usize) = index;
        }
    }
}

warpkit_kernels::kernel! {
    /// `n` values of `input`, one a thread; `out[i]` = the value of thread `i + 1` of the same
    /// block (the first of the block for its last thread), passed through shared memory, with
    /// a barrier between the writes and the reads unless `barrier` is 0 (a planted race).
    pub struct Neighbours {
        #[len(n)]
        pub input: *const u32,
        pub n: u64,
        #[len(n)]
        pub out: *mut u32,
        pub barrier: u32,
    }
    check |p, shape| *shape == p.plan();
    /// The neighbour exchange.
    fn neighbours => own_neighbours;
}

impl Neighbours {
    /// A thread a value, a word of shared memory a thread.
    pub const fn plan(&self) -> LaunchShape {
        LaunchShape::linear(self.n.div_ceil(THREADS as u64), THREADS, THREADS * 4)
    }
}

/// Body of [`Neighbours`].
///
/// # Safety
/// `input` and `out` hold `n` values; the launch is [`Neighbours::plan`].
#[inline(always)]
pub unsafe fn neighbours(p: Neighbours) {
    let (i, t) = (global_x(), thread_rank());
    // SAFETY: accesses below `n` and within the plan's shared memory; `barrier` is the same
    // for the whole block, so every thread reaches the barrier or none does.
    unsafe {
        let slots = SharedSlice::<u32>::carve(0, THREADS);
        slots.set(t, read_or(p.input, i, p.n, 0));
        if p.barrier != 0 {
            sync_threads();
        }
        let right = slots.get((t + 1) % THREADS);
        if i < p.n {
            *p.out.add(i as usize) = right;
        }
    }
}
