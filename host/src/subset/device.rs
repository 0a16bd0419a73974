//! K-subsets on a device (GPU or emulator): one launch of the kernel of the method's shape
//! (`warpkit_kernels::subset::sample`), blocks of 256 threads whose warps walk the subsets
//! grid-stride a tile at a time, after the mask is copied in.

use super::{Shape, Subsets};
use crate::error::{Error, Result};
use crate::runtime::device::{Device, DeviceBuffer, LaunchShape};
use warpkit_kernels::kernel::Kernel;
use warpkit_kernels::subset::sample::*;

/// Threads per block of every sampling kernel.
const THREADS: u32 = 256;

/// Where a launch writes.
pub(super) enum Output<'a> {
    Bits(&'a mut DeviceBuffer<u32>),
    Positions(&'a mut DeviceBuffer<u16>),
}

/// Draws subsets `0 .. count` of `subsets` into `out` (of the right length, checked by the
/// caller).
pub(super) fn draw(d: &Device, subsets: &Subsets, seed: u64, count: usize, out: Output) -> Result<()> {
    let mask = d.upload(subsets.mask())?;
    let (bits, positions) = match out {
        Output::Bits(b) => (d.ptr_mut(b)?, std::ptr::null_mut()),
        Output::Positions(p) => (std::ptr::null_mut(), d.ptr_mut(p)?),
    };
    if count == 0 {
        return Ok(());
    }
    let args: SampleArgs = (
        bits,
        positions,
        count as u64,
        d.ptr(&mask)?,
        subsets.words() as u32,
        subsets.n,
        subsets.k,
        seed,
    );
    let method = subsets.method();
    let shape = method.shape(subsets.words()).ok_or_else(|| Error::UnfitMethod {
        method: format!("{method:?}"),
        words: subsets.words(),
    })?;
    match (shape.lanes, shape.words) {
        (1, 1) => launch::<subset_lanes1_words1>(d, shape, count, args),
        (1, 2) => launch::<subset_lanes1_words2>(d, shape, count, args),
        (1, 4) => launch::<subset_lanes1_words4>(d, shape, count, args),
        (1, 8) => launch::<subset_lanes1_words8>(d, shape, count, args),
        (1, 16) => launch::<subset_lanes1_words16>(d, shape, count, args),
        (1, _) => launch::<subset_lanes1_words32>(d, shape, count, args),
        (2, _) => launch::<subset_lanes2_words1>(d, shape, count, args),
        (4, _) => launch::<subset_lanes4_words1>(d, shape, count, args),
        (8, _) => launch::<subset_lanes8_words1>(d, shape, count, args),
        (16, _) => launch::<subset_lanes16_words1>(d, shape, count, args),
        (_, 1) => launch::<subset_lanes32_words1>(d, shape, count, args),
        (_, 2) => launch::<subset_lanes32_words2>(d, shape, count, args),
        _ => launch::<subset_lanes32_words4>(d, shape, count, args),
    }
}

/// Launches `K` on enough blocks for `count` subsets, at most four times the blocks the device
/// holds at once.
fn launch<K: Kernel<Params = SampleArgs>>(
    d: &Device,
    shape: Shape,
    count: usize,
    args: SampleArgs,
) -> Result<()> {
    let per_block = (THREADS / shape.lanes) as u64;
    let resident = d.resident_blocks::<K>(THREADS, 0)?;
    let blocks = (count as u64).div_ceil(per_block).min(4 * resident);
    // SAFETY: the mask holds `words <= lanes * words per lane` words with `n >= k` elements
    // (checked by `Subsets::new` and `Method::shape`); exactly one output is non-null and holds
    // `count` subsets (checked by the caller); blocks are whole warps.
    unsafe { d.launch::<K>(LaunchShape::linear(blocks, THREADS, 0), args) }
}
