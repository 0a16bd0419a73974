//! A device crate of one's own, written against `warpkit-kernels` as a user would: three kernel
//! families declared with `kernel!`, each a `repr(C)` parameter struct (pointer fields say
//! how far the kernel reaches with `#[len]`, so the host checks every launch; fields that
//! several families share declared once with `kernel_group!`), a plan for its launch shape,
//! and a body.
//!
//! - [`Largest`]: each block's largest magnitude and where it is, a block reduction by an
//!   operator of this crate's own ([`LargestMagnitude`]) through `warpkit_kernels::block`.
//! - [`Neighbours`]: each thread reads its right-hand neighbour's value through shared memory;
//!   with `barrier` 0 it skips the barrier between the writes and the reads, a race that the
//!   emulator reports (the tests assert it does).
//! - [`Reverse`]: each block reverses its values through shared memory; with `off_by_one` 1 its
//!   first thread reads one slot past the block's, which the emulator reports with the thread.
//! - [`Gather`]: `out[i] = input[indices[i]]`, the indices trusted: a family whose contract
//!   its declaration cannot state, launched `unsafe` after the host checked the indices.
//! - [`Gcd`]: greatest common divisors, an operator of this crate's own for warpkit's
//!   device-wide reduction and scans, declared for them by `operator_kernels!` (`gcd_u32`,
//!   `gcd_u64`); and [`Plus`], a user's copy of the built-in sum (`plus_u32`).
//! - [`Softmax`]: logits to weights, a weight transform of this crate's own for warpkit's
//!   alias tables, declared for them by `alias_kernels!` (`softmax_f64`).
//! - [`Morton`] and [`Fibonacci`]: bucket functions of this crate's own for warpkit's
//!   multisplit, its kernels declared for them by `multisplit_kernels!` (`morton_u32`,
//!   `fibonacci_u32`, `fibonacci_u64`).
//!
//! Compiled for the host, the same code runs in warpkit's emulator (`Device::emulator`), which
//! is how the host crate's `cargo test` runs it without a GPU.
#![cfg_attr(target_arch = "nvptx64", no_std)]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]

use warpkit_kernels::alias::transform::WeightFn;
use warpkit_kernels::block;
use warpkit_kernels::launch::LaunchShape;
use warpkit_kernels::multisplit::bucket::{BucketFn, Key};
use warpkit_kernels::op::Operator;
use warpkit_kernels::simt::math::FastMath;
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

warpkit_kernels::kernel_group! {
    /// A value a thread: `n` values of `input` in, as many to `out`. Declared once for the two
    /// families that move values through shared memory, which name it by a `#[group]` field.
    pub struct Values {
        #[len(n)]
        pub input: *const u32,
        pub n: u64,
        #[len(n)]
        pub out: *mut u32,
    }
}

impl Values {
    /// A thread a value, a word of shared memory a thread.
    pub const fn plan(&self) -> LaunchShape {
        LaunchShape::linear(self.n.div_ceil(THREADS as u64), THREADS, THREADS * 4)
    }

    /// Each thread's value to its slot of shared memory, a barrier where `barrier`, then slot
    /// `from(t)` to thread `t`'s output. The slots are read through the checked `get`: an index
    /// past them traps, on the GPU and in the emulator.
    ///
    /// # Safety
    /// `input` and `out` hold `n` values; the launch is [`Values::plan`]; `barrier` is the same
    /// for the whole block.
    #[inline(always)]
    unsafe fn exchange(self, barrier: bool, from: impl Fn(u32) -> u32) {
        let (i, t) = (global_x(), thread_rank());
        // SAFETY: global accesses below `n`, shared ones within the plan's; every thread of
        // the block reaches the barrier or none does (the caller's contract).
        unsafe {
            let slots = SharedSlice::<u32>::carve(0, THREADS);
            slots.set(t, read_or(self.input, i, self.n, 0));
            if barrier {
                sync_threads();
            }
            let moved = slots.get(from(t));
            if i < self.n {
                *self.out.add(i as usize) = moved;
            }
        }
    }
}

warpkit_kernels::kernel! {
    /// Each value replaced by that of the next thread of its block (the block's first for its
    /// last), with a barrier between the writes and the reads unless `barrier` is 0: a planted
    /// race.
    pub struct Neighbours {
        #[group]
        pub values: Values,
        pub barrier: u32,
    }
    check |p, shape| *shape == p.values.plan();
    /// The neighbour exchange.
    fn neighbours => own_neighbours;
}

/// Body of [`Neighbours`].
///
/// # Safety
/// As [`Values::exchange`].
#[inline(always)]
pub unsafe fn neighbours(p: Neighbours) {
    // SAFETY: the caller's contract; `barrier` is a launch parameter, so the same for the block.
    unsafe { p.values.exchange(p.barrier != 0, |t| (t + 1) % THREADS) }
}

warpkit_kernels::kernel! {
    /// Each block's values reversed (the last block's as if it were full, so its threads past
    /// `n` drop theirs). With `off_by_one` 1 the reads are shifted one slot up: a planted
    /// out-of-range access by each block's first thread.
    pub struct Reverse {
        #[group]
        pub values: Values,
        pub off_by_one: u32,
    }
    check |p, shape| *shape == p.values.plan();
    /// The reversal.
    fn reverse => own_reverse;
}

/// Body of [`Reverse`].
///
/// # Safety
/// As [`Values::exchange`].
#[inline(always)]
pub unsafe fn reverse(p: Reverse) {
    // SAFETY: the caller's contract.
    unsafe { p.values.exchange(true, |t| THREADS - 1 - t + p.off_by_one) }
}

warpkit_kernels::kernel! {
    /// `out[i] = input[indices[i]]` for the `n` indices, `input` holding `len` values. No
    /// declaration can bound what the indices hold, so the family is not checked (no `#[len]`
    /// nor `check`): its launch is `unsafe` (`Bindings::launch_unchecked`), and an index at or
    /// past `len` is a read out of bounds, which faults on a GPU (`warpkit::Error::DeviceLost`).
    pub struct Gather {
        pub input: *const u32,
        pub len: u64,
        pub indices: *const u32,
        pub n: u64,
        pub out: *mut u32,
    }
    /// The gather.
    fn gather => own_gather;
}

impl Gather {
    /// A thread an index.
    pub const fn plan(&self) -> LaunchShape {
        LaunchShape::linear(self.n.div_ceil(THREADS as u64), THREADS, 0)
    }
}

/// Body of [`Gather`].
///
/// # Safety
/// `indices` and `out` hold `n` elements, `input` `len`, and every index is below `len`.
#[inline(always)]
pub unsafe fn gather(p: Gather) {
    let i = global_x();
    if i < p.n {
        // SAFETY: `i < n`; the index is below `len` (the caller's contract).
        unsafe { *p.out.add(i as usize) = *p.input.add(*p.indices.add(i as usize) as usize) };
    }
}

warpkit_kernels::kernel_group! {
    /// Points of a 2^16 × 2^16 grid, `x` in a key's low 16 bits and `y` in its high 16, by the
    /// Morton (Z-order) index of their cell in a grid of `2^(bits/2)` cells a side: `m =
    /// 2^bits` buckets (`bits` even, at most 16), neighbouring cells in nearby buckets, as a
    /// spatial sort or a build of a bounding-volume hierarchy wants.
    pub struct Morton {
        pub bits: u32,
    }
}

/// `v`'s low 16 bits spread to the even bits of the result.
#[inline(always)]
fn spread_bits(v: u32) -> u32 {
    let v = v & 0xffff;
    let v = (v | v << 8) & 0x00ff_00ff;
    let v = (v | v << 4) & 0x0f0f_0f0f;
    let v = (v | v << 2) & 0x3333_3333;
    (v | v << 1) & 0x5555_5555
}

impl BucketFn<u32> for Morton {
    #[inline(always)]
    fn bucket(&self, key: u32) -> u32 {
        let side = self.bits / 2;
        if side == 0 {
            return 0;
        }
        let (x, y) = ((key & 0xffff) >> (16 - side), key >> 16 >> (16 - side));
        spread_bits(x) | spread_bits(y) << 1
    }
}

warpkit_kernels::kernel_group! {
    /// The top `bits` bits of `key · 2^64/φ`: the same buckets as warpkit's built-in
    /// `Buckets::Hash`, written here as a user would, to measure a bucket function of one's
    /// own against the built-in one.
    pub struct Fibonacci {
        pub bits: u32,
    }
}

impl<K: Key> BucketFn<K> for Fibonacci {
    #[inline(always)]
    fn bucket(&self, key: K) -> u32 {
        if self.bits == 0 {
            return 0;
        }
        (key.to_u64().wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - self.bits.min(64))) as u32
    }
}

warpkit_kernels::multisplit_kernels! {
    /// The multisplit of points by Morton cell.
    pub morton_u32: Morton for u32;
    /// The multisplit of u32 keys by [`Fibonacci`] hash.
    pub fibonacci_u32: Fibonacci for u32;
    /// The multisplit of u64 keys by [`Fibonacci`] hash.
    pub fibonacci_u64: Fibonacci for u64;
}

/// The greatest common divisor: associative and commutative, 0 its identity (`gcd(0, x) =
/// x`). An operator of one's own for warpkit's device-wide reduction and scans.
#[derive(Clone, Copy, Debug, Default)]
pub struct Gcd;

macro_rules! gcd_of {
    ($($t:ty),+) => {
        $(impl Operator<$t> for Gcd {
            const COMMUTATIVE: bool = true;

            #[inline(always)]
            fn identity(self) -> $t {
                0
            }

            /// Euclid's algorithm.
            #[inline(always)]
            fn combine(self, a: $t, b: $t) -> $t {
                let (mut a, mut b) = (a, b);
                while b != 0 {
                    (a, b) = (b, a % b);
                }
                a
            }
        })+
    };
}
gcd_of!(u32, u64);

/// Wrapping addition of u32: the operator of warpkit's built-in sums, written here as a user
/// would, to measure a scan of one's own against the built-in one.
#[derive(Clone, Copy, Debug, Default)]
pub struct Plus;

impl Operator<u32> for Plus {
    const COMMUTATIVE: bool = true;

    #[inline(always)]
    fn identity(self) -> u32 {
        0
    }

    #[inline(always)]
    fn combine(self, a: u32, b: u32) -> u32 {
        a.wrapping_add(b)
    }
}

warpkit_kernels::operator_kernels! {
    /// Sums of u32, as a user would declare them.
    pub plus_u32: Plus for u32;
    /// Greatest common divisors of u32.
    pub gcd_u32: Gcd for u32;
    /// Greatest common divisors of u64.
    pub gcd_u64: Gcd for u64;
}

warpkit_kernels::kernel_group! {
    /// Logits to softmax weights at a temperature: `exp((logit - max) / temperature)`, with
    /// `max` the largest logit (so that no weight overflows), as a sampler of tokens or of
    /// actions by their scores wants. A weight transform of one's own for warpkit's alias
    /// tables; f64 `exp` is the same code on the GPU and on the host, so every engine builds
    /// the same table.
    pub struct Softmax {
        pub max: f64,
        pub inv_temperature: f64,
    }
}

impl WeightFn<f64> for Softmax {
    #[inline(always)]
    fn weight(&self, _index: u64, logit: f64) -> f64 {
        ((logit - self.max) * self.inv_temperature).fast_exp()
    }
}

warpkit_kernels::alias_kernels! {
    /// Alias tables of softmax weights.
    pub softmax_f64: Softmax for f64;
}

warpkit_kernels::kernel! {
    /// The same transform as a plain kernel of one's own, a thread an item: what a build from
    /// weights made beforehand would run first (the example's main times it against the fused
    /// build).
    pub struct SoftmaxWeights {
        #[len(n)]
        pub logits: *const f64,
        pub n: u64,
        #[group]
        pub softmax: Softmax,
        #[len(n)]
        pub weights: *mut f64,
    }
    check |p, shape| *shape == p.plan();
    /// Logits to softmax weights.
    fn softmax_weights => own_softmax_weights;
}

impl SoftmaxWeights {
    /// A thread an item.
    pub const fn plan(&self) -> LaunchShape {
        LaunchShape::linear(self.n.div_ceil(THREADS as u64), THREADS, 0)
    }
}

/// Body of [`SoftmaxWeights`].
///
/// # Safety
/// `logits` and `weights` hold `n` elements.
#[inline(always)]
pub unsafe fn softmax_weights(p: SoftmaxWeights) {
    let i = global_x();
    if i < p.n {
        // SAFETY: `i < n`.
        unsafe { *p.weights.add(i as usize) = p.softmax.weight(i, *p.logits.add(i as usize)) };
    }
}
