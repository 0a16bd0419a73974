//! Launchers for the test kernels: the warp- and block-level primitives (with sums and with the
//! multi-word operators argmin and moments), the logical-warp primitives at every width, the
//! SIMT layer's collectives, atomics and math.
//!
//! Warp and block primitives are building blocks of the device algorithms, not calls a user
//! makes on an array; these kernels apply one primitive to every warp (or block) of an array so
//! that tests can compare each level with a CPU reference on every device.

use crate::error::{Error, Result, check_same_len};
use crate::runtime::device::{Device, DeviceBuffer};
use bytemuck::Pod;
use warpkit_kernels::block::operator_check::{
    ArgMinCheck, MomentsCheck, block_argmin_f32, block_moments_f64, block_scan_moments_f64, warp_argmin_f32,
    warp_moments_f64,
};
use warpkit_kernels::block::reduce::BlockReduce;
use warpkit_kernels::block::scan::BlockScan;
use warpkit_kernels::checks::{LevelKernels, MathKernels};
use warpkit_kernels::grid::math_check::MathCheck;
use warpkit_kernels::simt::check::{
    ATOMIC_SLOTS, Atomics, COLLECTIVE_OUTPUTS, Collectives, simt_check_atomics, simt_check_collectives,
};
use warpkit_kernels::warp::histogram::{HistogramBallot, warp_histogram_ballot};
use warpkit_kernels::warp::logical::{
    CHECK_WORDS, LogicalWarpCheck, warp_logical_w1, warp_logical_w2, warp_logical_w4, warp_logical_w8,
    warp_logical_w16, warp_logical_w32,
};
use warpkit_kernels::warp::reduce::WarpReduce;
use warpkit_kernels::warp::scan::WarpScan;

pub use warpkit_kernels::policy::LEVEL_TEST_BLOCK_THREADS as BLOCK_THREADS;
pub use warpkit_kernels::simt::check::CAS_CONTENDERS;

/// A warp- or block-level test kernel and the output length it needs for `n` inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LevelKernel {
    /// `out[w]` = sum of warp `w`'s 32 elements.
    WarpReduce,
    /// Inclusive scan within each warp.
    WarpScanInclusive,
    /// Exclusive scan within each warp.
    WarpScanExclusive,
    /// `out[b]` = sum of block `b`'s elements.
    BlockReduce,
    /// Exclusive scan within each block.
    BlockScanExclusive,
}

impl LevelKernel {
    /// Every level kernel.
    pub const ALL: [LevelKernel; 5] = [
        LevelKernel::WarpReduce,
        LevelKernel::WarpScanInclusive,
        LevelKernel::WarpScanExclusive,
        LevelKernel::BlockReduce,
        LevelKernel::BlockScanExclusive,
    ];

    /// Output elements for `n` inputs.
    pub fn output_len(self, n: usize) -> usize {
        match self {
            LevelKernel::WarpReduce => n.div_ceil(32),
            LevelKernel::BlockReduce => n.div_ceil(BLOCK_THREADS as usize),
            _ => n,
        }
    }
}

/// Element types the level test kernels exist for (u32 and f64).
pub trait LevelElement: Pod + LevelKernels {}
impl LevelElement for u32 {}
impl LevelElement for f64 {}

/// The device addresses of a test kernel's input and output after checking that `out` holds
/// the `out_len` elements the kernel writes at most, with the input's length; `None` for an
/// empty input (nothing to launch).
fn per_element<I, O>(
    device: &Device,
    input: &DeviceBuffer<I>,
    out: &mut DeviceBuffer<O>,
    out_len: usize,
) -> Result<Option<(*const I, u64, *mut O)>> {
    check_same_len("test kernel output", out_len, out.len())?;
    let (src, dst) = (device.ptr(input)?, device.ptr_mut(out)?);
    let n = input.len() as u64;
    Ok((n > 0).then_some((src, n, dst)))
}

/// Runs level kernel `k` over `input`, writing `out` (of `k.output_len(input.len())`).
pub fn run_level<T: LevelElement>(
    device: &Device,
    k: LevelKernel,
    input: &DeviceBuffer<T>,
    out: &mut DeviceBuffer<T>,
) -> Result<()> {
    let Some((input, n, out)) = per_element(device, input, out, k.output_len(input.len()))? else {
        return Ok(());
    };
    // SAFETY: each kernel reads the `n` inputs and writes at most `k.output_len(n)` outputs,
    // checked above, launched by its plan.
    unsafe {
        match k {
            LevelKernel::WarpReduce => {
                let p = WarpReduce { input, n, out };
                device.launch_unchecked::<T::WarpReduce>(p.plan(), p)
            }
            LevelKernel::WarpScanInclusive => {
                let p = WarpScan { input, n, out };
                device.launch_unchecked::<T::WarpScanInclusive>(p.plan(), p)
            }
            LevelKernel::WarpScanExclusive => {
                let p = WarpScan { input, n, out };
                device.launch_unchecked::<T::WarpScanExclusive>(p.plan(), p)
            }
            LevelKernel::BlockReduce => {
                let p = BlockReduce { input, n, out };
                device.launch_unchecked::<T::BlockReduce>(p.plan(), p)
            }
            LevelKernel::BlockScanExclusive => {
                let p = BlockScan { input, n, out };
                device.launch_unchecked::<T::BlockScanExclusive>(p.plan(), p)
            }
        }
    }
}

/// Which cooperation an operator test kernel combines over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// Each warp's 32 elements.
    Warp,
    /// Each block's [`BLOCK_THREADS`] elements.
    Block,
}

impl Level {
    /// Elements combined into one result.
    pub fn segment(self) -> usize {
        match self {
            Level::Warp => 32,
            Level::Block => BLOCK_THREADS as usize,
        }
    }
}

/// Words of one [`Moments<f64>`](warpkit_kernels::op::Moments) as the moments test kernels
/// write it: count, mean (low, high), m2 (low, high).
pub const MOMENTS_WORDS: usize = 5;

/// The argmin of each warp or block by `op::ArgMin`: `out[2s..2s + 2]` = (bits of the smallest
/// value, its index) for segment `s`, ties to the smaller index.
pub fn argmin(
    device: &Device,
    level: Level,
    input: &DeviceBuffer<f32>,
    out: &mut DeviceBuffer<u32>,
) -> Result<()> {
    let words = 2 * input.len().div_ceil(level.segment());
    let Some((input, n, out)) = per_element(device, input, out, words)? else {
        return Ok(());
    };
    let p = ArgMinCheck { input, n, out };
    // SAFETY: the kernels read the `n` inputs and write two words a segment, checked above.
    unsafe {
        match level {
            Level::Warp => device.launch_unchecked::<warp_argmin_f32>(p.plan(), p),
            Level::Block => device.launch_unchecked::<block_argmin_f32>(p.plan(), p),
        }
    }
}

/// The moments (count, mean, m2) of each warp or block by Chan's combine, [`MOMENTS_WORDS`]
/// words a segment.
pub fn moments(
    device: &Device,
    level: Level,
    input: &DeviceBuffer<f64>,
    out: &mut DeviceBuffer<u32>,
) -> Result<()> {
    let words = MOMENTS_WORDS * input.len().div_ceil(level.segment());
    let Some((input, n, out)) = per_element(device, input, out, words)? else {
        return Ok(());
    };
    let p = MomentsCheck { input, n, out };
    // SAFETY: the kernels read the `n` inputs and write `MOMENTS_WORDS` words a segment,
    // checked above.
    unsafe {
        match level {
            Level::Warp => device.launch_unchecked::<warp_moments_f64>(p.plan(), p),
            Level::Block => device.launch_unchecked::<block_moments_f64>(p.plan(), p),
        }
    }
}

/// The exclusive scan of moments within each block: for element `i`, the moments of the
/// block's elements before it, [`MOMENTS_WORDS`] words at `out[5i..]`.
pub fn moments_scan(device: &Device, input: &DeviceBuffer<f64>, out: &mut DeviceBuffer<u32>) -> Result<()> {
    let words = MOMENTS_WORDS * input.len();
    let Some((input, n, out)) = per_element(device, input, out, words)? else {
        return Ok(());
    };
    let p = MomentsCheck { input, n, out };
    // SAFETY: the kernel reads the `n` inputs and writes `MOMENTS_WORDS` words each, checked
    // above.
    unsafe { device.launch_unchecked::<block_scan_moments_f64>(p.plan(), p) }
}

/// The lane counts of the logical-warp test kernels ([`logical_warp`]).
pub const LOGICAL_WARP_WIDTHS: [u32; 6] = [1, 2, 4, 8, 16, 32];

/// Words of results per element of [`logical_warp`]; the kernels' docs
/// (`warpkit_kernels::warp::logical::CHECK_WORDS`) say which is what.
pub const LOGICAL_WARP_WORDS: usize = CHECK_WORDS;

/// Every logical-warp primitive (reduce by a sum and by a non-commutative operator, inclusive
/// and exclusive scan, argmin) over the logical warps of `width` lanes (one of
/// [`LOGICAL_WARP_WIDTHS`]): `out` holds [`LOGICAL_WARP_WORDS`] × `input.len()` words.
pub fn logical_warp(
    device: &Device,
    width: u32,
    input: &DeviceBuffer<u32>,
    out: &mut DeviceBuffer<u32>,
) -> Result<()> {
    if !LOGICAL_WARP_WIDTHS.contains(&width) {
        return Err(Error::UnsupportedMethod {
            method: format!("logical warp of {width} lanes"),
            backend: "the logical-warp test kernels (1, 2, 4, 8, 16 or 32 lanes)".into(),
        });
    }
    let words = LOGICAL_WARP_WORDS * input.len();
    let Some((input, n, out)) = per_element(device, input, out, words)? else {
        return Ok(());
    };
    let p = LogicalWarpCheck { input, n, out };
    // SAFETY: the kernels read the `n` inputs and write `LOGICAL_WARP_WORDS` words each,
    // checked above.
    unsafe {
        match width {
            1 => device.launch_unchecked::<warp_logical_w1>(p.plan(), p),
            2 => device.launch_unchecked::<warp_logical_w2>(p.plan(), p),
            4 => device.launch_unchecked::<warp_logical_w4>(p.plan(), p),
            8 => device.launch_unchecked::<warp_logical_w8>(p.plan(), p),
            16 => device.launch_unchecked::<warp_logical_w16>(p.plan(), p),
            _ => device.launch_unchecked::<warp_logical_w32>(p.plan(), p),
        }
    }
}

/// The ballot/popc warp histogram over buckets `< 2^bits` (`bits <= 5`): for warp `w`,
/// `counts[32w + j]` = elements of bucket `j` (for `j < 2^bits`, others untouched) and
/// `ranks[i]` = element `i`'s rank among same-bucket elements of its warp.
pub fn warp_histogram_ballot(
    device: &Device,
    buckets: &DeviceBuffer<u32>,
    bits: u32,
    counts: &mut DeviceBuffer<u32>,
    ranks: &mut DeviceBuffer<u32>,
) -> Result<()> {
    check_same_len("histogram counts", buckets.len().div_ceil(32) * 32, counts.len())?;
    check_same_len("histogram ranks", buckets.len(), ranks.len())?;
    if bits > 5 {
        return Err(Error::TooLong {
            what: "bucket bits",
            len: bits as u64,
            max: 5,
        });
    }
    let p = HistogramBallot {
        buckets: device.ptr(buckets)?,
        n: buckets.len() as u64,
        bits,
        counts: device.ptr_mut(counts)?,
        ranks: device.ptr_mut(ranks)?,
    };
    if p.n == 0 {
        return Ok(());
    }
    // SAFETY: lengths checked above; the caller's buckets are below 2^bits (a larger one is
    // counted nowhere, never written out of bounds).
    unsafe { device.launch_unchecked::<warp_histogram_ballot>(p.plan(), p) }
}

/// The SIMT collectives check (`simt_check_collectives`): `out` holds
/// [`COLLECTIVE_OUTPUTS`] × `input.len()` words; see the kernel for what each one is.
pub fn simt_collectives(
    device: &Device,
    input: &DeviceBuffer<u32>,
    out: &mut DeviceBuffer<u32>,
) -> Result<()> {
    let words = COLLECTIVE_OUTPUTS * input.len();
    let Some((input, n, out)) = per_element(device, input, out, words)? else {
        return Ok(());
    };
    let p = Collectives { input, n, out };
    // SAFETY: the kernel reads the `n` inputs and writes `COLLECTIVE_OUTPUTS` words each,
    // checked above.
    unsafe { device.launch_unchecked::<simt_check_collectives>(p.plan(), p) }
}

/// The SIMT atomics check (`simt_check_atomics`): every element applies every atomic to
/// `counters` ([`ATOMIC_SLOTS`] slots) and writes the value its exchange replaced to `olds`.
pub fn simt_atomics(
    device: &Device,
    input: &DeviceBuffer<u32>,
    counters: &mut DeviceBuffer<u64>,
    olds: &mut DeviceBuffer<u32>,
) -> Result<()> {
    check_same_len("atomic counters", ATOMIC_SLOTS, counters.len())?;
    check_same_len("atomic olds", input.len(), olds.len())?;
    let p = Atomics {
        input: device.ptr(input)?,
        n: input.len() as u64,
        counters: device.ptr_mut(counters)?,
        olds: device.ptr_mut(olds)?,
    };
    if p.n == 0 {
        return Ok(());
    }
    // SAFETY: lengths checked above.
    unsafe { device.launch_unchecked::<simt_check_atomics>(p.plan(), p) }
}

/// Element types of the math check kernel (f32 and f64): `out[5i..5i+5]` = (ln, exp, sin,
/// cos, sqrt) of `x[i]`.
pub trait MathElement: Pod + MathKernels {}
impl MathElement for f32 {}
impl MathElement for f64 {}

/// Evaluates the SIMT layer's math functions at every `x`; `out` holds 5 × `x.len()`.
pub fn math<T: MathElement>(device: &Device, x: &DeviceBuffer<T>, out: &mut DeviceBuffer<T>) -> Result<()> {
    let words = 5 * x.len();
    let Some((x, n, out)) = per_element(device, x, out, words)? else {
        return Ok(());
    };
    let p = MathCheck { x, n, out };
    // SAFETY: the kernel reads the `n` inputs and writes five results each, checked above.
    unsafe { device.launch_unchecked::<T::Math>(p.plan(), p) }
}

/// A device multisplit of `keys` by key mod `modulo` that claims only `m` buckets: how the
/// kernels meet a bucket function that breaks its contract. Keys of buckets `>= m` go to the
/// last digit (never out of bounds), and the split ends in [`Error::BucketOutOfRange`] with
/// the largest such bucket. Keys only (the values come back empty).
pub fn multisplit_claiming_buckets(
    device: &Device,
    keys: &[u32],
    modulo: u32,
    m: u32,
    method: crate::multisplit::Method,
) -> Result<crate::multisplit::Split<u32, u32>> {
    use crate::multisplit::launch::{Params, split};
    let params = Params {
        kind: warpkit_kernels::multisplit::digit_pass::BUCKETS_MODULO,
        splitters: &[],
        ab: modulo as u64,
        m,
        method: Some(method),
    };
    split::<u32, u32>(device, &params, keys, None)
}
