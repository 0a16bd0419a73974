//! Exclusive prefix sums over the ranks of a group: the whole is every rank's part in rank
//! order, so each rank scans its part and adds the sum of the parts before it, from an
//! all-gather of the parts' totals: on its backend, adding afterwards ([`exclusive_scan`]), or
//! in its device's memory, the scan starting from that sum ([`exclusive_scan_into`]).

use super::group::{Group, gather_outcomes};
use crate::error::{Result, check_same_len};
use crate::runtime::backend::Backend;
use crate::runtime::device::{Device, DeviceBuffer};
use crate::runtime::element::Scalar;
use warpkit_kernels::op::{Operator, Sum};

/// This rank's part of the exclusive prefix sums of all ranks' parts, concatenated in rank
/// order: its own part's exclusive scan on `backend`, plus the parts before it (summed in rank
/// order). Integers wrap; floats round as the two sums do (not as one scan of the whole).
pub fn exclusive_scan<T: Scalar>(
    group: &(impl Group + ?Sized),
    backend: &Backend,
    part: &[T],
) -> Result<Vec<T>> {
    let mut out = Vec::new();
    let total = backend.exclusive_scan(part).map(|scanned| {
        out = scanned;
        Some(match (out.last(), part.last()) {
            (Some(&before), Some(&last)) => Sum.combine(before, last),
            _ => Sum.identity(),
        })
    });
    let totals = gather_outcomes(group, total)?;
    let offset = Backend::cpu().sum(&totals[..group.rank() as usize])?;
    for x in &mut out {
        *x = Sum.combine(offset, *x);
    }
    Ok(out)
}

/// This rank's part of the exclusive prefix sums of all ranks' parts, as [`exclusive_scan`]
/// gives it, for a part in `device`'s memory, written to `out` (of its length) there: the
/// part's sum on the device, an all-gather of the sums, then one scan of the part starting
/// from the sum of the parts before it ([`Device::exclusive_scan_from_into`]). Floats round as
/// that scan does.
pub fn exclusive_scan_into<T: Scalar>(
    group: &(impl Group + ?Sized),
    device: &Device,
    part: &DeviceBuffer<T>,
    out: &mut DeviceBuffer<T>,
) -> Result<()> {
    let checked = check_same_len("scan output", part.len(), out.len())
        .and_then(|()| device.check_owner(part))
        .and_then(|()| device.check_owner(out));
    let total = checked.and_then(|()| {
        if part.is_empty() {
            Ok(Some(Sum.identity()))
        } else {
            device.sum(part).map(Some)
        }
    });
    let totals = gather_outcomes(group, total)?;
    let offset = Backend::cpu().sum(&totals[..group.rank() as usize])?;
    device.exclusive_scan_from_into(offset, part, out)
}
