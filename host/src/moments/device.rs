//! Moments on a device: a persistent grid writes one partial summary a block
//! (`moments_partials_*`), one block combines them in order (`moments_combine`); for the
//! columns of a matrix, blocks of 32 columns and a slice of rows (`moments_columns_*`), then a
//! combine of each column's slices (`moments_columns_combine`).

use super::Sample;
use crate::error::Result;
use crate::runtime::device::{Device, DeviceBuffer, LaunchShape};
use warpkit_kernels::moments::columns::{
    COLUMN_SHARED_BYTES, COLUMN_THREADS, COLUMN_WARPS, moments_columns_combine,
};
use warpkit_kernels::moments::{SHARED_BYTES, Summary as Partial, moments_combine};
use warpkit_kernels::policy::{REDUCE_BLOCK_THREADS, REDUCE_UNROLL, vector_len};

/// The summary words of `data` into `out` (`data` not empty, at most `MAX_LEN` elements; `out`
/// `SUMMARY_WORDS` long: checked by the caller).
pub(super) fn summary_into<F: Sample>(
    d: &Device,
    data: &DeviceBuffer<F>,
    out: &mut DeviceBuffer<f64>,
) -> Result<()> {
    let n = data.len() as u64;
    let src = d.ptr(data)?;
    let resident = d.resident_blocks::<F::Partials>(REDUCE_BLOCK_THREADS, SHARED_BYTES)?;
    let per_block = (REDUCE_BLOCK_THREADS * REDUCE_UNROLL * vector_len(size_of::<F>())) as u64;
    let blocks = n.div_ceil(per_block).clamp(1, resident);
    let out_ptr = d.ptr_mut(out)?;
    let mut scratch = d.scratch(blocks as usize * size_of::<Partial>())?;
    let partials = d
        .ptr_mut(scratch.as_mut().expect("scratch allocated"))?
        .cast::<Partial>();
    // SAFETY: `n` elements at `src`; a partial per block in the scratch (256-byte aligned,
    // held until both launches are queued); blocks of REDUCE_BLOCK_THREADS with SHARED_BYTES;
    // then one such block over the `blocks` partials into `out`'s SUMMARY_WORDS f64.
    unsafe {
        let wide = LaunchShape::linear(blocks, REDUCE_BLOCK_THREADS, SHARED_BYTES);
        d.launch::<F::Partials>(wide, (src, n, partials))?;
        let single = LaunchShape::linear(1, REDUCE_BLOCK_THREADS, SHARED_BYTES);
        d.launch::<moments_combine>(single, (partials.cast_const(), blocks, out_ptr))?;
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
    let src = d.ptr(data)?;
    let out_ptr = d.ptr_mut(out)?;
    // Two waves of blocks where the columns alone make fewer, each slice at least a few rows a
    // warp.
    let strips = cols.div_ceil(32);
    let waves = 2 * d.resident_blocks::<F::Columns>(COLUMN_THREADS, COLUMN_SHARED_BYTES)?;
    let most = rows.div_ceil(4 * COLUMN_WARPS as u64).clamp(1, 65535);
    let slice_rows = rows.div_ceil(waves.div_ceil(strips).clamp(1, most));
    let slices = rows.div_ceil(slice_rows);
    let mut scratch = d.scratch(if slices > 1 {
        (slices * cols) as usize * size_of::<Partial>()
    } else {
        0
    })?;
    let partials = match slices {
        1 => std::ptr::null_mut(),
        _ => d
            .ptr_mut(scratch.as_mut().expect("scratch allocated"))?
            .cast::<Partial>(),
    };
    let shape = LaunchShape {
        grid: [u32::try_from(strips).unwrap_or(u32::MAX), slices as u32, 1],
        block: [COLUMN_THREADS, 1, 1],
        shared_bytes: COLUMN_SHARED_BYTES,
    };
    // SAFETY: `rows * cols` elements at `src`; a block per 32 columns and slice of
    // `slice_rows` rows; with several slices a partial per slice and column in the scratch
    // (held until both launches are queued), else the words straight into `out`, which holds
    // SUMMARY_WORDS a column; then the combine over the same partials.
    unsafe {
        d.launch::<F::Columns>(shape, (src, rows, cols, slice_rows, partials, out_ptr))?;
        if slices > 1 {
            let blocks = cols
                .div_ceil(256)
                .min(d.limits().launch.multiprocessors as u64 * 8);
            let args = (partials.cast_const(), slices as u32, cols, out_ptr);
            d.launch::<moments_columns_combine>(LaunchShape::linear(blocks, 256, 0), args)?;
        }
    }
    Ok(())
}
