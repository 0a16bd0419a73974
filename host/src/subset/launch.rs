//! K-subsets on a device (GPU or emulator): one launch of the kernel of the algorithm and the
//! method's shape (`warpkit_kernels::subset::sample`), whose warps walk the subsets grid-stride
//! a tile at a time, after the mask is copied in.

use super::{Algorithm, Shape, Subsets};
use crate::error::{Error, Result};
use crate::runtime::bindings::Bindings;
use crate::runtime::device::{Device, DeviceBuffer};
use warpkit_kernels::kernel::Kernel;
use warpkit_kernels::subset::sample::*;

/// Where a launch writes.
pub(super) enum Output<'a> {
    Bits(&'a mut DeviceBuffer<u32>),
    Positions(&'a mut DeviceBuffer<u16>),
}

/// Draws subsets `0 .. count` of `subsets` into `out` (of the right length, checked by the
/// caller).
pub(super) fn draw(d: &Device, subsets: &Subsets, seed: u64, count: usize, out: Output) -> Result<()> {
    let mask = d.upload(subsets.mask())?;
    let mut b = d.bind();
    let (bits, indices) = match out {
        Output::Bits(o) => (b.write(o)?, std::ptr::null_mut()),
        Output::Positions(o) => (std::ptr::null_mut(), b.write(o)?),
    };
    if count == 0 {
        return Ok(());
    }
    let p = Sample {
        bits,
        indices,
        count: count as u64,
        mask: b.read(&mask)?,
        words: subsets.words() as u32,
        n: subsets.n,
        k: subsets.k,
        seed,
    };
    let method = subsets.method();
    let shape = method.shape(subsets.words()).ok_or_else(|| Error::UnfitMethod {
        method: format!("{method:?}"),
        words: subsets.words(),
    })?;
    if subsets.algorithm() == Algorithm::Mend {
        return match shape.words {
            1 => launch_mend::<subset_mend_words1>(d, b, shape, p),
            2 => launch_mend::<subset_mend_words2>(d, b, shape, p),
            _ => launch_mend::<subset_mend_words4>(d, b, shape, p),
        };
    }
    match (shape.lanes, shape.words) {
        (1, 1) => launch::<subset_lanes1_words1>(d, b, shape, p),
        (1, 2) => launch::<subset_lanes1_words2>(d, b, shape, p),
        (1, 4) => launch::<subset_lanes1_words4>(d, b, shape, p),
        (1, 8) => launch::<subset_lanes1_words8>(d, b, shape, p),
        (1, 16) => launch::<subset_lanes1_words16>(d, b, shape, p),
        (1, _) => launch::<subset_lanes1_words32>(d, b, shape, p),
        (2, _) => launch::<subset_lanes2_words1>(d, b, shape, p),
        (4, _) => launch::<subset_lanes4_words1>(d, b, shape, p),
        (8, _) => launch::<subset_lanes8_words1>(d, b, shape, p),
        (16, _) => launch::<subset_lanes16_words1>(d, b, shape, p),
        (_, 1) => launch::<subset_lanes32_words1>(d, b, shape, p),
        (_, 2) => launch::<subset_lanes32_words2>(d, b, shape, p),
        _ => launch::<subset_lanes32_words4>(d, b, shape, p),
    }
}

/// Launches `K`, the kernel of teams of `shape.lanes` lanes, with the buffers bound in `b`, as
/// its plan says, capped at the blocks the device holds at once.
fn launch<K: Kernel<Params = Sample>>(d: &Device, b: Bindings, shape: Shape, p: Sample) -> Result<()> {
    let launch = d.cap_to_resident::<K>(p.plan(shape.lanes), SUBSET_RESIDENT_WAVES)?;
    b.launch::<K>(launch, p)
}

/// Launches `K`, a coins-then-mend kernel of `shape.words` words a lane, as [`launch`] does.
fn launch_mend<K: Kernel<Params = Sample>>(d: &Device, b: Bindings, shape: Shape, p: Sample) -> Result<()> {
    let launch = d.cap_to_resident::<K>(p.plan_mend(shape.words), SUBSET_RESIDENT_WAVES)?;
    b.launch::<K>(launch, p)
}
