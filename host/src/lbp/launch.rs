//! Histograms on a device: one launch of `lbp_histogram_*` over every signal's tiles, after
//! zeroing the output; a batch's signal and tile offsets go up in one small buffer.

use super::Signal;
use crate::error::Result;
use crate::runtime::device::{Device, DeviceBuffer};
use warpkit_kernels::lbp::Plan;
use warpkit_kernels::lbp::histogram::Histogram;

/// The histograms of the signals `offsets` cuts `data` into, into `out` (checked by the
/// caller).
pub(super) fn histograms_into<T: Signal>(
    d: &Device,
    data: &DeviceBuffer<T>,
    offsets: &[usize],
    n: u32,
    out: &mut DeviceBuffer<u32>,
) -> Result<()> {
    let plan = Plan::of(n);
    d.zero_prefix(out, out.len())?;
    let signals = offsets.len() - 1;
    let (bounds, tiles) = match signals {
        1 => (None, plan.tiles(n, data.len() as u64)),
        _ => {
            let mut bounds: Vec<u64> = offsets.iter().map(|&o| o as u64).collect();
            let mut tiles = 0;
            bounds.push(0);
            for w in offsets.windows(2) {
                tiles += plan.tiles(n, (w[1] - w[0]) as u64);
                bounds.push(tiles);
            }
            (Some(d.upload(&bounds)?), tiles)
        }
    };
    let mut b = d.bind();
    let p = Histogram {
        input: b.read(data)?,
        n,
        len: data.len() as u64,
        signals: signals as u32,
        bounds: match &bounds {
            Some(bounds) => b.read(bounds)?,
            None => std::ptr::null(),
        },
        hist: b.write(out)?,
    };
    let launch = d.cap_to_resident::<T::Histogram>(p.plan(tiles), 1)?;
    b.launch::<T::Histogram>(launch, p)
}
