//! Exclusive prefix sums over the ranks of a group: the whole is every rank's part in rank
//! order, so each rank scans its part on its own backend and adds the sum of the parts before
//! it, from an all-gather of the parts' totals.

use super::group::{Group, all_gather};
use crate::error::Result;
use crate::runtime::backend::Backend;
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
    let mut out = backend.exclusive_scan(part)?;
    let total = match (out.last(), part.last()) {
        (Some(&before), Some(&last)) => Sum.combine(before, last),
        _ => Sum.identity(),
    };
    let totals = all_gather(group, &[total])?;
    let offset = Backend::cpu().sum(&totals[..group.rank() as usize])?;
    for x in &mut out {
        *x = Sum.combine(offset, *x);
    }
    Ok(out)
}
