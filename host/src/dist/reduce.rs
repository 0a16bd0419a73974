//! Sum, minimum, maximum and moments over the ranks of a group: each rank reduces its own part
//! on its own backend, the ranks' results are all-gathered, and every rank combines them in
//! rank order, so that every rank returns the same value. A rank's part may be empty. The
//! forms that take device buffers (`sum_into`, `extreme_of_buffer`, `moments_of_buffer`) read
//! each part once where it lies and move only the ranks' results. A rank whose own reduction
//! fails returns its error and the others `Err(RankFailed)`, none waiting for it.

use super::group::{Group, agree_ok, gather_outcomes};
use crate::error::{Error, Result};
use crate::moments::{SUMMARY_WORDS, Sample, Summary, summary, summary_of_buffer};
use crate::runtime::backend::Backend;
use crate::runtime::device::{Device, DeviceBuffer};
use crate::runtime::element::Scalar;

/// The sum of every rank's `part`: each part's sum on `backend`, then the ranks' sums in rank
/// order (floats: the same value on every rank and for the same parts, though not the one a
/// single backend would give for the whole).
pub fn sum<T: Scalar>(group: &(impl Group + ?Sized), backend: &Backend, part: &[T]) -> Result<T> {
    let sums = gather_outcomes(group, backend.sum(part).map(Some))?;
    Backend::cpu().sum(&sums)
}

/// The sum of every rank's `part`, a buffer of this rank's `device`, into `out` (one element,
/// on `device`) on every rank, without leaving the devices where the group has device
/// collectives (NCCL's): each part's sum on its device, then an all-reduce of the sums. Integers
/// wrap; floats take the group's order of the ranks' sums, the same value on every rank.
pub fn sum_into<T: Scalar, G: Group>(
    group: &G,
    device: &Device,
    part: &DeviceBuffer<T>,
    out: &mut DeviceBuffer<T>,
) -> Result<()> {
    // `out` is checked by the all-reduce, whose first gather carries every rank's checks.
    let local = device.zeros::<T>(1).and_then(|mut local| {
        device.sum_into(part, &mut local)?;
        Ok(local)
    });
    let local = agree_ok(group, local)?;
    group.all_reduce_sum(device, &local, out)
}

/// The least element of all ranks' parts, as [`Backend::min`] (NaN if any is NaN); empty parts
/// are left out, and all empty is `Err(EmptyVector)`.
pub fn min<T: Scalar>(group: &(impl Group + ?Sized), backend: &Backend, part: &[T]) -> Result<T> {
    let local = (!part.is_empty()).then(|| backend.min(part)).transpose();
    Backend::cpu().min(&gather_outcomes(group, local)?)
}

/// The greatest element of all ranks' parts, as [`min`].
pub fn max<T: Scalar>(group: &(impl Group + ?Sized), backend: &Backend, part: &[T]) -> Result<T> {
    let local = (!part.is_empty()).then(|| backend.max(part)).transpose();
    Backend::cpu().max(&gather_outcomes(group, local)?)
}

/// As [`min`] and [`max`] (`least` chooses), for parts in the ranks' device memory: each
/// part read once on its device.
pub fn extreme_of_buffer<T: Scalar>(
    group: &(impl Group + ?Sized),
    device: &Device,
    part: &DeviceBuffer<T>,
    least: bool,
) -> Result<T> {
    let of_part = if least { Device::min } else { Device::max };
    let local = (!part.is_empty()).then(|| of_part(device, part)).transpose();
    let all = gather_outcomes(group, local)?;
    if least {
        Backend::cpu().min(&all)
    } else {
        Backend::cpu().max(&all)
    }
}

/// The [`Summary`] of all ranks' parts: each part's summary, combined in rank order by
/// [`Summary::combine`]; empty parts are left out, and all empty is `Err(EmptyVector)`.
pub fn moments<F: Sample>(group: &(impl Group + ?Sized), backend: &Backend, part: &[F]) -> Result<Summary> {
    let local = (!part.is_empty()).then(|| summary(backend, part)).transpose();
    combine(group, local)
}

/// As [`moments`], for parts in the ranks' device memory: each part's summary on its device
/// (one read of it), then its five words gathered.
pub fn moments_of_buffer<F: Sample>(
    group: &(impl Group + ?Sized),
    device: &Device,
    part: &DeviceBuffer<F>,
) -> Result<Summary> {
    let local = (!part.is_empty())
        .then(|| summary_of_buffer(device, part))
        .transpose();
    combine(group, local)
}

/// Every rank's summary where it has one, combined in rank order on every rank.
fn combine(group: &(impl Group + ?Sized), local: Result<Option<Summary>>) -> Result<Summary> {
    gather_outcomes::<[f64; SUMMARY_WORDS]>(group, local.map(|s| s.map(|s| s.words())))?
        .into_iter()
        .map(Summary::from_words)
        .reduce(Summary::combine)
        .ok_or(Error::EmptyVector {
            what: "every rank's data",
        })
}
