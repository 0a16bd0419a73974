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
use warpkit_kernels::block::operator_check as ops;
use warpkit_kernels::kernel::Kernel;
use warpkit_kernels::op::Moments;
use warpkit_kernels::policy::LEVEL_TEST_BLOCK_THREADS;
use warpkit_kernels::simt::check::{self as simt, ATOMIC_SLOTS, COLLECTIVE_OUTPUTS};
use warpkit_kernels::{block, device, warp};

pub use warpkit_kernels::simt::check::CAS_CONTENDERS;

/// Threads per block of every test-kernel launch.
pub const BLOCK_THREADS: u32 = LEVEL_TEST_BLOCK_THREADS;

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

/// An `(input, n, out)` kernel over `T`.
type PerElement<I, O> = unsafe fn(&Device, LaunchShape, (*const I, u64, *mut O)) -> Result<()>;

/// Launches kernel `K` (through a fn pointer, so tables can pick kernels by value).
///
/// # Safety
/// `args` and `shape` meet `K`'s contract.
unsafe fn per_element<I, O, K: Kernel<Args = (*const I, u64, *mut O)>>(
    device: &Device,
    shape: LaunchShape,
    args: (*const I, u64, *mut O),
) -> Result<()> {
    // SAFETY: forwarded to the caller's contract.
    unsafe { device.launch::<K>(shape, args) }
}

/// Element types the level test kernels exist for.
pub trait LevelElement: Pod {
    #[doc(hidden)]
    fn kernel(k: LevelKernel) -> PerElement<Self, Self>;
}

macro_rules! level_element {
    ($t:ty: $wr:ident, $wsi:ident, $wse:ident, $br:ident, $bse:ident) => {
        impl LevelElement for $t {
            fn kernel(k: LevelKernel) -> PerElement<Self, Self> {
                match k {
                    LevelKernel::WarpReduce => per_element::<$t, $t, warp::reduce::$wr>,
                    LevelKernel::WarpScanInclusive => per_element::<$t, $t, warp::scan::$wsi>,
                    LevelKernel::WarpScanExclusive => per_element::<$t, $t, warp::scan::$wse>,
                    LevelKernel::BlockReduce => per_element::<$t, $t, block::reduce::$br>,
                    LevelKernel::BlockScanExclusive => per_element::<$t, $t, block::scan::$bse>,
                }
            }
        }
    };
}
level_element!(u32: warp_reduce_u32, warp_scan_inclusive_u32, warp_scan_exclusive_u32, block_reduce_u32, block_scan_exclusive_u32);
level_element!(f64: warp_reduce_f64, warp_scan_inclusive_f64, warp_scan_exclusive_f64, block_reduce_f64, block_scan_exclusive_f64);

/// Runs an `(input, n, out)` test kernel over `input.len()` elements, one thread each, after
/// checking `out` holds the `out_len` elements every such kernel writes at most.
fn run_per_element<I, O>(
    device: &Device,
    kernel: PerElement<I, O>,
    input: &DeviceBuffer<I>,
    out: &mut DeviceBuffer<O>,
    out_len: usize,
    shared_bytes: u32,
) -> Result<()> {
    check_same_len("test kernel output", out_len, out.len())?;
    let (src, dst) = (device.ptr(input)?, device.ptr_mut(out)?);
    let n = input.len() as u64;
    if n == 0 {
        return Ok(());
    }
    let shape = LaunchShape::linear(n.div_ceil(BLOCK_THREADS as u64), BLOCK_THREADS, shared_bytes);
    // SAFETY: the test kernels read `n` inputs and write at most `out_len` outputs, checked
    // above, with blocks of BLOCK_THREADS and the shared memory their caller names.
    unsafe { kernel(device, shape, (src, n, dst)) }
}

/// Runs level kernel `k` over `input`, writing `out` (of `k.output_len(input.len())`).
pub fn run_level<T: LevelElement>(
    device: &Device,
    k: LevelKernel,
    input: &DeviceBuffer<T>,
    out: &mut DeviceBuffer<T>,
) -> Result<()> {
    let shared = BLOCK_THREADS / 32 * size_of::<T>() as u32; // one slot per warp
    run_per_element(
        device,
        T::kernel(k),
        input,
        out,
        k.output_len(input.len()),
        shared,
    )
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

/// Runs the operator test kernel of `level` among `kernels` (warp, block), writing `words` u32
/// words per segment, after checking `out`; `slot_bytes` is the size of the combined value.
fn run_operator<T>(
    device: &Device,
    (level, kernels): (Level, [PerElement<T, u32>; 2]),
    input: &DeviceBuffer<T>,
    out: &mut DeviceBuffer<u32>,
    words: usize,
    slot_bytes: usize,
) -> Result<()> {
    let kernel = kernels[(level == Level::Block) as usize];
    let results = input.len().div_ceil(level.segment());
    let shared = BLOCK_THREADS / 32 * slot_bytes as u32; // one slot per warp
    run_per_element(device, kernel, input, out, results * words, shared)
}

/// The argmin of each warp or block by `op::ArgMin`: `out[2s..2s + 2]` = (bits of the smallest
/// value, its index) for segment `s`, ties to the smaller index.
pub fn argmin(
    device: &Device,
    level: Level,
    input: &DeviceBuffer<f32>,
    out: &mut DeviceBuffer<u32>,
) -> Result<()> {
    let kernels = [
        per_element::<f32, u32, ops::warp_argmin_f32>,
        per_element::<f32, u32, ops::block_argmin_f32>,
    ];
    run_operator(device, (level, kernels), input, out, 2, size_of::<(f32, u32)>())
}

/// The moments (count, mean, m2) of each warp or block by Chan's combine, [`MOMENTS_WORDS`]
/// words a segment.
pub fn moments(
    device: &Device,
    level: Level,
    input: &DeviceBuffer<f64>,
    out: &mut DeviceBuffer<u32>,
) -> Result<()> {
    let kernels = [
        per_element::<f64, u32, ops::warp_moments_f64>,
        per_element::<f64, u32, ops::block_moments_f64>,
    ];
    let slot = size_of::<Moments<f64>>();
    run_operator(device, (level, kernels), input, out, MOMENTS_WORDS, slot)
}

/// The exclusive scan of moments within each block: for element `i`, the moments of the
/// block's elements before it, [`MOMENTS_WORDS`] words at `out[5i..]`.
pub fn moments_scan(device: &Device, input: &DeviceBuffer<f64>, out: &mut DeviceBuffer<u32>) -> Result<()> {
    let kernel: PerElement<f64, u32> = per_element::<f64, u32, ops::block_scan_moments_f64>;
    let shared = BLOCK_THREADS / 32 * size_of::<Moments<f64>>() as u32;
    run_per_element(device, kernel, input, out, MOMENTS_WORDS * input.len(), shared)
}

/// The lane counts of the logical-warp test kernels ([`logical_warp`]).
pub const LOGICAL_WARP_WIDTHS: [u32; 6] = [1, 2, 4, 8, 16, 32];

/// Words of results per element of [`logical_warp`]; the kernels' docs
/// (`warpkit_kernels::warp::logical::CHECK_WORDS`) say which is what.
pub const LOGICAL_WARP_WORDS: usize = warp::logical::CHECK_WORDS;

/// Every logical-warp primitive (reduce by a sum and by a non-commutative operator, inclusive
/// and exclusive scan, argmin) over the logical warps of `width` lanes (one of
/// [`LOGICAL_WARP_WIDTHS`]): `out` holds [`LOGICAL_WARP_WORDS`] × `input.len()` words.
pub fn logical_warp(
    device: &Device,
    width: u32,
    input: &DeviceBuffer<u32>,
    out: &mut DeviceBuffer<u32>,
) -> Result<()> {
    use warp::logical as l;
    let kernel: PerElement<u32, u32> = match width {
        1 => per_element::<u32, u32, l::warp_logical_w1>,
        2 => per_element::<u32, u32, l::warp_logical_w2>,
        4 => per_element::<u32, u32, l::warp_logical_w4>,
        8 => per_element::<u32, u32, l::warp_logical_w8>,
        16 => per_element::<u32, u32, l::warp_logical_w16>,
        32 => per_element::<u32, u32, l::warp_logical_w32>,
        _ => {
            return Err(Error::UnsupportedMethod {
                method: format!("logical warp of {width} lanes"),
                backend: "the logical-warp test kernels (1, 2, 4, 8, 16 or 32 lanes)".into(),
            });
        }
    };
    run_per_element(device, kernel, input, out, LOGICAL_WARP_WORDS * input.len(), 0)
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
    let n = buckets.len() as u64;
    check_same_len("histogram counts", buckets.len().div_ceil(32) * 32, counts.len())?;
    check_same_len("histogram ranks", buckets.len(), ranks.len())?;
    if bits > 5 {
        return Err(Error::TooLong {
            what: "bucket bits",
            len: bits as u64,
            max: 5,
        });
    }
    let args = (
        device.ptr(buckets)?,
        n,
        bits,
        device.ptr_mut(counts)?,
        device.ptr_mut(ranks)?,
    );
    if n == 0 {
        return Ok(());
    }
    let shape = LaunchShape::linear(n.div_ceil(BLOCK_THREADS as u64), BLOCK_THREADS, 0);
    // SAFETY: lengths checked above; the caller's buckets are below 2^bits (a larger one is
    // counted nowhere, never written out of bounds).
    unsafe { device.launch::<warp::histogram::warp_histogram_ballot>(shape, args) }
}

/// The SIMT collectives check (`simt_check_collectives`): `out` holds
/// [`COLLECTIVE_OUTPUTS`] × `input.len()` words; see the kernel for what each one is.
pub fn simt_collectives(
    device: &Device,
    input: &DeviceBuffer<u32>,
    out: &mut DeviceBuffer<u32>,
) -> Result<()> {
    let kernel: PerElement<u32, u32> = per_element::<u32, u32, simt::simt_check_collectives>;
    run_per_element(
        device,
        kernel,
        input,
        out,
        COLLECTIVE_OUTPUTS * input.len(),
        4 * BLOCK_THREADS,
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
    let n = input.len() as u64;
    let args = (
        device.ptr(input)?,
        n,
        device.ptr_mut(counters)?,
        device.ptr_mut(olds)?,
    );
    if n == 0 {
        return Ok(());
    }
    let shape = LaunchShape::linear(n.div_ceil(BLOCK_THREADS as u64), BLOCK_THREADS, 4);
    // SAFETY: lengths checked above; 4 bytes of shared memory for the block's counter.
    unsafe { device.launch::<simt::simt_check_atomics>(shape, args) }
}

/// Math check kernel for f32 or f64: `out[5i..5i+5]` = (ln, exp, sin, cos, sqrt) of `x[i]`.
pub trait MathElement: Pod {
    #[doc(hidden)]
    const KERNEL: PerElement<Self, Self>;
}
impl MathElement for f32 {
    const KERNEL: PerElement<f32, f32> = per_element::<f32, f32, device::math_check::math_check_f32>;
}
impl MathElement for f64 {
    const KERNEL: PerElement<f64, f64> = per_element::<f64, f64, device::math_check::math_check_f64>;
}

/// Evaluates the SIMT layer's math functions at every `x`; `out` holds 5 × `x.len()`.
pub fn math<T: MathElement>(device: &Device, x: &DeviceBuffer<T>, out: &mut DeviceBuffer<T>) -> Result<()> {
    run_per_element(device, T::KERNEL, x, out, 5 * x.len(), 0)
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
    use crate::multisplit::device::{Params, split};
    let params = Params {
        kind: warpkit_kernels::multisplit::digit_pass::BUCKETS_MODULO,
        splitters: &[],
        ab: modulo as u64,
        m,
        method: Some(method),
    };
    split::<u32, u32>(device, &params, keys, None)
}
