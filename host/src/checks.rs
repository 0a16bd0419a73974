//! Launchers for the test kernels: the warp- and block-level primitives (with sums and with the
//! multi-word operators argmin and moments), the logical-warp primitives at every width, the
//! SIMT layer's collectives, atomics and math.
//!
//! Warp and block primitives are building blocks of the device algorithms, not calls a user
//! makes on an array; these kernels apply one primitive to every warp (or block) of an array so
//! that tests can compare each level with a CPU reference on every device.

use crate::error::{Error, Result, check_same_len};
use crate::runtime::device::{Device, DeviceBuffer, LaunchShape};
use bytemuck::Pod;
use warpkit_kernels::block::operator_check::{
    ArgMinCheck, MomentsCheck, block_argmin_f32, block_moments_f64, block_scan_moments_f64, warp_argmin_f32,
    warp_moments_f64,
};
use warpkit_kernels::block::reduce::BlockReduce;
use warpkit_kernels::block::scan::BlockScan;
use warpkit_kernels::checks::{LevelKernels, MathKernels};
use warpkit_kernels::grid::math_check::MathCheck;
use warpkit_kernels::kernel::{Checked, Kernel};
use warpkit_kernels::simt::check::{
    ATOMIC_SLOTS, Atomics, Collectives, Elements, ReadAt, simt_check_atomics, simt_check_collectives,
    simt_check_read_at,
};
use warpkit_kernels::warp::histogram::{HistogramBallot, warp_histogram_ballot};
use warpkit_kernels::warp::logical::{
    CHECK_WORDS, LogicalWarpCheck, warp_logical_w1, warp_logical_w2, warp_logical_w4, warp_logical_w8,
    warp_logical_w16, warp_logical_w32,
};
use warpkit_kernels::warp::reduce::WarpReduce;
use warpkit_kernels::warp::scan::WarpScan;

pub use crate::alias::launch::construct_with_contents as alias_construct_with_contents;
pub use crate::convolve::launch::WORDS_WITH_FIELDS as CONVOLVE_JOB_WORDS;
pub use crate::convolve::launch::band_with_jobs as convolve_band_with_jobs;
pub use crate::multisplit::launch::scatter_with_table as multisplit_scatter_with_table;
pub use warpkit_kernels::policy::LEVEL_TEST_BLOCK_THREADS as BLOCK_THREADS;
pub use warpkit_kernels::simt::check::{CAS_CONTENDERS, COLLECTIVE_OUTPUTS};

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

/// Launches the test kernel `K` over `input` into `out`, its parameters `params(input, n, out)`
/// launched by their plan, after checking that `out` holds the `out_len` elements the kernel
/// writes; nothing for an empty input.
fn launch_each<K, I, O>(
    device: &Device,
    (input, out, out_len): (&DeviceBuffer<I>, &mut DeviceBuffer<O>, usize),
    params: impl FnOnce(*const I, u64, *mut O) -> K::Params,
    plan: impl FnOnce(&K::Params) -> LaunchShape,
) -> Result<()>
where
    K: Kernel,
    K::Params: Checked,
{
    check_same_len("test kernel output", out_len, out.len())?;
    if input.is_empty() {
        return Ok(());
    }
    let n = input.len() as u64;
    let mut b = device.bind();
    let p = params(b.read(input)?, n, b.write(out)?);
    b.launch::<K>(plan(&p), p)
}

/// [`launch_each`] of a warp- or block-level test kernel, whose parameters are its input's
/// elements and its output.
fn level<K, T, P>(
    device: &Device,
    io: (&DeviceBuffer<T>, &mut DeviceBuffer<T>, usize),
    params: impl FnOnce(Elements<T>, *mut T) -> P,
    plan: impl FnOnce(&P) -> LaunchShape,
) -> Result<()>
where
    K: Kernel<Params = P>,
    P: Checked,
{
    launch_each::<K, _, _>(
        device,
        io,
        |input, n, out| params(Elements { input, n }, out),
        plan,
    )
}

/// Runs level kernel `k` over `input`, writing `out` (of `k.output_len(input.len())`).
pub fn run_level<T: LevelElement>(
    device: &Device,
    k: LevelKernel,
    input: &DeviceBuffer<T>,
    out: &mut DeviceBuffer<T>,
) -> Result<()> {
    use LevelKernel as L;
    let io = (input, out, k.output_len(input.len()));
    let warp_reduce = |elements, out| WarpReduce { elements, out };
    let warp_scan = |elements, out| WarpScan { elements, out };
    let block_reduce = |elements, out| BlockReduce { elements, out };
    let block_scan = |elements, out| BlockScan { elements, out };
    match k {
        L::WarpReduce => level::<T::WarpReduce, _, _>(device, io, warp_reduce, WarpReduce::plan),
        L::WarpScanInclusive => level::<T::WarpScanInclusive, _, _>(device, io, warp_scan, WarpScan::plan),
        L::WarpScanExclusive => level::<T::WarpScanExclusive, _, _>(device, io, warp_scan, WarpScan::plan),
        L::BlockReduce => level::<T::BlockReduce, _, _>(device, io, block_reduce, BlockReduce::plan),
        L::BlockScanExclusive => {
            level::<T::BlockScanExclusive, _, _>(device, io, block_scan, BlockScan::plan)
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
    let params = |input, n, out, segment| ArgMinCheck {
        input,
        n,
        out,
        segment,
    };
    per_segment::<warp_argmin_f32, block_argmin_f32, _>(
        device,
        level,
        (input, out, 2),
        params,
        ArgMinCheck::plan,
    )
}

/// The moments (count, mean, m2) of each warp or block by Chan's combine, [`MOMENTS_WORDS`]
/// words a segment.
pub fn moments(
    device: &Device,
    level: Level,
    input: &DeviceBuffer<f64>,
    out: &mut DeviceBuffer<u32>,
) -> Result<()> {
    let params = |input, n, out, segment| MomentsCheck {
        input,
        n,
        out,
        segment,
    };
    let io = (input, out, MOMENTS_WORDS);
    per_segment::<warp_moments_f64, block_moments_f64, _>(device, level, io, params, MomentsCheck::plan)
}

/// Launches the warp (`W`) or block (`B`) entry of a test family that writes `words` words a
/// segment of `input`, with parameters `params(input, n, out, segment)`.
fn per_segment<W, B, I>(
    device: &Device,
    level: Level,
    (input, out, words): (&DeviceBuffer<I>, &mut DeviceBuffer<u32>, usize),
    params: impl FnOnce(*const I, u64, *mut u32, u64) -> W::Params,
    plan: impl FnOnce(&W::Params) -> LaunchShape,
) -> Result<()>
where
    W: Kernel,
    B: Kernel<Params = W::Params>,
    W::Params: Checked,
{
    let io = (input, out, words * input.len().div_ceil(level.segment()));
    let segment = level.segment() as u64;
    let params = move |input, n, out| params(input, n, out, segment);
    match level {
        Level::Warp => launch_each::<W, _, _>(device, io, params, plan),
        Level::Block => launch_each::<B, _, _>(device, io, params, plan),
    }
}

/// The exclusive scan of moments within each block: for element `i`, the moments of the
/// block's elements before it, [`MOMENTS_WORDS`] words at `out[5i..]`.
pub fn moments_scan(device: &Device, input: &DeviceBuffer<f64>, out: &mut DeviceBuffer<u32>) -> Result<()> {
    launch_each::<block_scan_moments_f64, _, _>(
        device,
        (input, out, MOMENTS_WORDS * input.len()),
        |input, n, out| MomentsCheck {
            input,
            n,
            out,
            segment: 1,
        },
        MomentsCheck::plan,
    )
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
    let io = (input, out, LOGICAL_WARP_WORDS * input.len());
    let params = |input, n, out| LogicalWarpCheck { input, n, out };
    let plan = LogicalWarpCheck::plan;
    match width {
        1 => launch_each::<warp_logical_w1, _, _>(device, io, params, plan),
        2 => launch_each::<warp_logical_w2, _, _>(device, io, params, plan),
        4 => launch_each::<warp_logical_w4, _, _>(device, io, params, plan),
        8 => launch_each::<warp_logical_w8, _, _>(device, io, params, plan),
        16 => launch_each::<warp_logical_w16, _, _>(device, io, params, plan),
        _ => launch_each::<warp_logical_w32, _, _>(device, io, params, plan),
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
    if buckets.is_empty() {
        return Ok(());
    }
    let mut b = device.bind();
    // A bucket at or past 2^bits is counted nowhere, never written out of bounds.
    let p = HistogramBallot {
        buckets: b.read(buckets)?,
        n: buckets.len() as u64,
        bits,
        counts: b.write(counts)?,
        ranks: b.write(ranks)?,
    };
    b.launch::<warp_histogram_ballot>(p.plan(), p)
}

/// The SIMT collectives check (`simt_check_collectives`): `out` holds
/// [`COLLECTIVE_OUTPUTS`] × `input.len()` words; see the kernel for what each one is.
pub fn simt_collectives(
    device: &Device,
    input: &DeviceBuffer<u32>,
    out: &mut DeviceBuffer<u32>,
) -> Result<()> {
    launch_each::<simt_check_collectives, _, _>(
        device,
        (input, out, COLLECTIVE_OUTPUTS * input.len()),
        |input, n, out| Collectives { input, n, out },
        Collectives::plan,
    )
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
    if input.is_empty() {
        return Ok(());
    }
    let mut b = device.bind();
    let p = Atomics {
        input: b.read(input)?,
        n: input.len() as u64,
        counters: b.write(counters)?,
        olds: b.write(olds)?,
    };
    b.launch::<simt_check_atomics>(p.plan(), p)
}

/// A kernel with a planted bug (`simt_check_read_at`): one lane reads `input[at]` into `out`,
/// past the buffer when `at >= input.len()`, for tests of what a device does with a kernel that
/// faults. The emulator reports the lane, block and address (`Error::Emulator`) and runs on;
/// a GPU reports an illegal address (`Error::DeviceLost`, here or at the next call that waits
/// for it), after which its context refuses all work in this process. Within the buffer it
/// copies the element; nothing for an empty input.
pub fn read_at(
    device: &Device,
    input: &DeviceBuffer<u32>,
    at: u64,
    out: &mut DeviceBuffer<u32>,
) -> Result<()> {
    launch_each::<simt_check_read_at, _, _>(
        device,
        (input, out, 1),
        |input, n, out| ReadAt { input, n, at, out },
        ReadAt::plan,
    )
}

/// Element types of the math check kernel (f32 and f64): `out[5i..5i+5]` = (ln, exp, sin,
/// cos, sqrt) of `x[i]`.
pub trait MathElement: Pod + MathKernels {}
impl MathElement for f32 {}
impl MathElement for f64 {}

/// Evaluates the SIMT layer's math functions at every `x`; `out` holds 5 × `x.len()`.
pub fn math<T: MathElement>(device: &Device, x: &DeviceBuffer<T>, out: &mut DeviceBuffer<T>) -> Result<()> {
    launch_each::<T::Math, _, _>(
        device,
        (x, out, 5 * x.len()),
        |x, n, out| MathCheck { x, n, out },
        MathCheck::plan,
    )
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
        function: crate::multisplit::Buckets::Modulo(modulo),
        m,
        method: Some(method),
    };
    split::<u32, u32, _>(device, &params, keys, None)
}
