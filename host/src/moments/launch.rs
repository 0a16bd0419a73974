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
    let n = data.len() as u64;
    let plan = Partials::<F> {
        input: std::ptr::null(),
        n,
        partials: std::ptr::null_mut(),
    }
    .plan();
    let wide = d.cap_to_resident::<F::Partials>(plan, 1)?;
    let blocks = wide.grid[0] as u64;
    let mut scratch = d.scratch(blocks as usize * size_of::<Summary>())?;
    let partials = scratch.as_mut().expect("scratch allocated");
    let mut b = d.bind();
    let p = Partials {
        input: b.read(data)?,
        n,
        partials: b.write(partials)?.cast(),
    };
    b.launch::<F::Partials>(wide, p)?;
    let mut b = d.bind();
    let q = Combine {
        partials: b.read(partials)?.cast(),
        count: blocks,
        out: b.write(out)?,
    };
    b.launch::<moments_combine>(q.plan(), q)
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
    let whole = Columns::<F> {
        input: std::ptr::null(),
        rows,
        cols,
        slice_rows: rows,
        partials: std::ptr::null_mut(),
        out: std::ptr::null_mut(),
    };
    let block = whole.plan();
    let resident = d.resident_blocks::<F::Columns>(block.block[0], block.shared_bytes)?;
    let sliced = whole.sliced(resident, &d.limits().launch);
    let slices = sliced.slices();
    if slices == 1 {
        let mut b = d.bind();
        let p = Columns {
            input: b.read(data)?,
            out: b.write(out)?,
            ..sliced
        };
        return b.launch::<F::Columns>(p.plan(), p);
    }
    let mut scratch = d.scratch((slices * cols) as usize * size_of::<Summary>())?;
    let partials = scratch.as_mut().expect("scratch allocated");
    let mut b = d.bind();
    let p = Columns {
        input: b.read(data)?,
        partials: b.write(partials)?.cast(),
        out: b.write(out)?,
        ..sliced
    };
    b.launch::<F::Columns>(p.plan(), p)?;
    let mut b = d.bind();
    let q = ColumnsCombine {
        partials: b.read(partials)?.cast(),
        slices: slices as u32,
        cols,
        out: b.write(out)?,
    };
    b.launch::<moments_columns_combine>(q.plan(&d.limits().launch), q)
}
