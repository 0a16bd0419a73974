//! Moments on a device: a persistent grid writes one partial summary a block
//! (`moments_partials_*`), one block combines them in order (`moments_combine`); for the
//! columns of a matrix, blocks of 32 columns and a slice of rows (`moments_columns_*`), then a
//! combine of each column's slices (`moments_columns_combine`).

use super::Sample;
use crate::error::Result;
use crate::runtime::device::{Device, DeviceBuffer};
use warpkit_kernels::moments::columns::{Columns, ColumnsCombine, moments_columns_combine};
use warpkit_kernels::moments::{Combine, Partials, Summary, moments_combine};

/// The summary words of `data` into `out` (`data` not empty, at most `MAX_LEN` elements; `out`
/// `SUMMARY_WORDS` long: checked by the caller).
pub(super) fn summary_into<F: Sample>(
    d: &Device,
    data: &DeviceBuffer<F>,
    out: &mut DeviceBuffer<f64>,
) -> Result<()> {
    let mut p = Partials {
        input: d.ptr(data)?,
        n: data.len() as u64,
        partials: std::ptr::null_mut(),
    };
    let wide = d.cap_to_resident::<F::Partials>(p.plan(), 1)?;
    let blocks = wide.grid[0] as u64;
    let mut scratch = d.scratch(blocks as usize * size_of::<Summary>())?;
    p.partials = d
        .ptr_mut(scratch.as_mut().expect("scratch allocated"))?
        .cast::<Summary>();
    let q = Combine {
        partials: p.partials.cast_const(),
        count: blocks,
        out: d.ptr_mut(out)?,
    };
    // SAFETY: `n` elements at `input`; a partial per block of the capped grid in the scratch
    // (256-byte aligned, held until both launches are queued), with each plan's block and
    // shared memory; then the combine over those `blocks` partials into `out`'s SUMMARY_WORDS
    // f64.
    unsafe {
        d.launch::<F::Partials>(wide, p)?;
        d.launch::<moments_combine>(q.plan(), q)?;
    }
    Ok(())
}

/// The summary words of each column of the row-major `rows × cols` `data` into `out`
/// (`SUMMARY_WORDS` a column; shapes checked by the caller).
pub(super) fn columns_into<F: Sample>(
    d: &Device,
    data: &DeviceBuffer<F>,
    rows: u64,
    cols: u64,
    out: &mut DeviceBuffer<f64>,
) -> Result<()> {
    let whole = Columns {
        input: d.ptr(data)?,
        rows,
        cols,
        slice_rows: rows,
        partials: std::ptr::null_mut(),
        out: d.ptr_mut(out)?,
    };
    let block = whole.plan();
    let resident = d.resident_blocks::<F::Columns>(block.block[0], block.shared_bytes)?;
    let mut p = whole.sliced(resident, &d.limits().launch);
    let slices = p.slices();
    let mut scratch = d.scratch(if slices > 1 {
        (slices * cols) as usize * size_of::<Summary>()
    } else {
        0
    })?;
    if slices > 1 {
        p.partials = d
            .ptr_mut(scratch.as_mut().expect("scratch allocated"))?
            .cast::<Summary>();
    }
    let q = ColumnsCombine {
        partials: p.partials.cast_const(),
        slices: slices as u32,
        cols,
        out: p.out,
    };
    // SAFETY: `rows * cols` elements at `input`; the plan's block per 32 columns and slice of
    // `slice_rows` rows; with several slices a partial per slice and column in the scratch
    // (held until both launches are queued), else the words straight into `out`, which holds
    // SUMMARY_WORDS a column; then the combine over the same partials.
    unsafe {
        d.launch::<F::Columns>(p.plan(), p)?;
        if slices > 1 {
            d.launch::<moments_columns_combine>(q.plan(&d.limits().launch), q)?;
        }
    }
    Ok(())
}
