//! Launchers for the warp- and block-level test kernels and the SIMT math check.
//!
//! Warp and block primitives are building blocks of the device algorithms, not calls a user
//! makes on an array; these kernels apply one primitive to every warp (or block) of an array so
//! that tests can compare each level with a CPU reference on any engine.

use crate::error::Result;
use crate::gpu::{DeviceBuffer, Gpu, LaunchShape};
use crate::kernels::names;
use cudarc::driver::{DeviceRepr, PushKernelArg};
use warpkit_kernels::policy::LEVEL_TEST_BLOCK_THREADS;

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
    /// Threads per block of every level test launch.
    pub const BLOCK_THREADS: u32 = LEVEL_TEST_BLOCK_THREADS;

    /// Output elements for `n` inputs.
    pub fn output_len(self, n: usize) -> usize {
        match self {
            LevelKernel::WarpReduce => n.div_ceil(32),
            LevelKernel::BlockReduce => n.div_ceil(Self::BLOCK_THREADS as usize),
            _ => n,
        }
    }
}

/// Element types the level test kernels exist for.
pub trait LevelElement: DeviceRepr {
    #[doc(hidden)]
    fn kernel(k: LevelKernel) -> &'static str;
}

macro_rules! level_element {
    ($t:ty: $wr:ident, $wsi:ident, $wse:ident, $br:ident, $bse:ident) => {
        impl LevelElement for $t {
            fn kernel(k: LevelKernel) -> &'static str {
                match k {
                    LevelKernel::WarpReduce => names::$wr,
                    LevelKernel::WarpScanInclusive => names::$wsi,
                    LevelKernel::WarpScanExclusive => names::$wse,
                    LevelKernel::BlockReduce => names::$br,
                    LevelKernel::BlockScanExclusive => names::$bse,
                }
            }
        }
    };
}
level_element!(u32: WARP_REDUCE_U32, WARP_SCAN_INCLUSIVE_U32, WARP_SCAN_EXCLUSIVE_U32, BLOCK_REDUCE_U32, BLOCK_SCAN_EXCLUSIVE_U32);
level_element!(f64: WARP_REDUCE_F64, WARP_SCAN_INCLUSIVE_F64, WARP_SCAN_EXCLUSIVE_F64, BLOCK_REDUCE_F64, BLOCK_SCAN_EXCLUSIVE_F64);

/// Launches a `(input, n, out)` kernel over `n` elements, one thread each.
fn launch_per_element<I: DeviceRepr, O: DeviceRepr>(
    gpu: &Gpu,
    name: &'static str,
    input: &DeviceBuffer<I>,
    out: &mut DeviceBuffer<O>,
    shared_bytes: u32,
) -> Result<()> {
    let n = input.len() as u64;
    if n == 0 {
        return Ok(());
    }
    let threads = LevelKernel::BLOCK_THREADS;
    let (f, config) = gpu.prepare(
        name,
        LaunchShape::linear(n.div_ceil(threads as u64), threads, shared_bytes),
    )?;
    let mut launch = gpu.stream().launch_builder(&f);
    launch.arg(&input.slice).arg(&n).arg(&mut out.slice);
    // SAFETY: callers size `out` for the kernel (checked by `run_level` and `math`), and the
    // kernels read only `n` inputs.
    unsafe { launch.launch(config) }?;
    Ok(())
}

/// Runs level kernel `k` over `input`, writing `out` (of `k.output_len(input.len())`).
pub fn run_level<T: LevelElement>(
    gpu: &Gpu,
    k: LevelKernel,
    input: &DeviceBuffer<T>,
    out: &mut DeviceBuffer<T>,
) -> Result<()> {
    crate::error::check_same_len("level kernel output", k.output_len(input.len()), out.len())?;
    let warps = LevelKernel::BLOCK_THREADS / 32;
    launch_per_element(gpu, T::kernel(k), input, out, warps * size_of::<T>() as u32)
}

/// The ballot/popc warp histogram over buckets `< 2^bits` (`bits <= 5`): for warp `w`,
/// `counts[32w + j]` = elements of bucket `j` (for `j < 2^bits`, others untouched) and
/// `ranks[i]` = element `i`'s rank among same-bucket elements of its warp.
pub fn warp_histogram_ballot(
    gpu: &Gpu,
    buckets: &DeviceBuffer<u32>,
    bits: u32,
    counts: &mut DeviceBuffer<u32>,
    ranks: &mut DeviceBuffer<u32>,
) -> Result<()> {
    use crate::error::{Error, check_same_len};
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
    if n == 0 {
        return Ok(());
    }
    let threads = LevelKernel::BLOCK_THREADS;
    let shape = LaunchShape::linear(n.div_ceil(threads as u64), threads, 0);
    let (f, config) = gpu.prepare(names::WARP_HISTOGRAM_BALLOT, shape)?;
    let mut launch = gpu.stream().launch_builder(&f);
    launch
        .arg(&buckets.slice)
        .arg(&n)
        .arg(&bits)
        .arg(&mut counts.slice)
        .arg(&mut ranks.slice);
    // SAFETY: lengths checked above; the caller's buckets are below 2^bits (a larger one is
    // counted nowhere, never written out of bounds).
    unsafe { launch.launch(config) }?;
    Ok(())
}

/// Math check kernel for f32 or f64: `out[5i..5i+5]` = (ln, exp, sin, cos, sqrt)(x[i]).
pub trait MathElement: DeviceRepr {
    #[doc(hidden)]
    const KERNEL: &'static str;
}
impl MathElement for f32 {
    const KERNEL: &'static str = names::MATH_CHECK_F32;
}
impl MathElement for f64 {
    const KERNEL: &'static str = names::MATH_CHECK_F64;
}

/// Evaluates the SIMT layer's math functions at every `x`; `out` holds 5 × `x.len()`.
pub fn math<T: MathElement>(gpu: &Gpu, x: &DeviceBuffer<T>, out: &mut DeviceBuffer<T>) -> Result<()> {
    crate::error::check_same_len("math output", 5 * x.len(), out.len())?;
    launch_per_element(gpu, T::KERNEL, x, out, 0)
}
