//! Per-column moments of a row-major `rows × cols` matrix. A block owns 32 columns (a warp
//! reads 32 consecutive elements of a row: one coalesced access) and a slice of the rows
//! (`gridDim.y` slices where the columns alone make too few blocks); its 8 warps take every
//! 8th row of the slice, each thread folding its column's values into the shifted sums of
//! [`super`]. Warp 0 combines the block's 8 states of each column in warp order and writes the
//! column's partial for the slice, or, with one slice, its words. A second launch combines the
//! slices' partials of each column in slice order.

use super::{SUMMARY_WORDS, Shifted, Summarize, Summary};
use crate::op::Operator;
use crate::simt::shared::SharedSlice;
use crate::simt::{block_idx, global_x, grid_threads_x, lane_id, sync_threads, thread_x, warp_id};

/// Threads of a block of the column kernel.
pub const COLUMN_THREADS: u32 = 256;
/// Warps of a block, the rows it reads at once.
pub const COLUMN_WARPS: u32 = COLUMN_THREADS / 32;
/// Dynamic shared memory of the column kernel: a [`Summary`] a thread.
pub const COLUMN_SHARED_BYTES: u32 = COLUMN_THREADS * size_of::<Summary>() as u32;

/// Writes `s`'s words for column `col` into `out` (`SUMMARY_WORDS` a column).
///
/// # Safety
/// `out` holds the words of column `col`.
#[inline(always)]
unsafe fn write_words(out: *mut f64, col: u64, s: Summary) {
    for (k, w) in s.words().into_iter().enumerate() {
        // SAFETY: the caller's contract.
        unsafe { *out.add(col as usize * SUMMARY_WORDS + k) = w };
    }
}

/// The column kernel's body.
///
/// # Safety
/// See the kernels below.
#[inline(always)]
unsafe fn columns<T: Copy + Into<f64>>(
    input: *const T,
    rows: u64,
    cols: u64,
    slice_rows: u64,
    partials: *mut Summary,
    out: *mut f64,
) {
    let col = block_idx().x as u64 * 32 + lane_id() as u64;
    let slice = block_idx().y as u64;
    let end = ((slice + 1) * slice_rows).min(rows);
    let mut state = Shifted::EMPTY;
    if col < cols {
        let mut r = slice * slice_rows + warp_id() as u64;
        while r < end {
            // SAFETY: `r < rows`, `col < cols`.
            state = state.add(unsafe { *input.add((r * cols + col) as usize) }.into());
            r += COLUMN_WARPS as u64;
        }
    }
    // SAFETY: the launch gives a `Summary` a thread; every thread stores, then reads after the
    // barrier, which the whole block reaches.
    unsafe {
        let states = SharedSlice::<Summary>::carve(0, COLUMN_THREADS);
        states.set(thread_x(), state.summary());
        sync_threads();
        if warp_id() == 0 && col < cols {
            let mut total = Summarize.identity();
            for w in 0..COLUMN_WARPS {
                total = Summarize.combine(total, states.get(w * 32 + lane_id()));
            }
            if partials.is_null() {
                write_words(out, col, total);
            } else {
                *partials.add((slice * cols + col) as usize) = total;
            }
        }
    }
}

macro_rules! column_kernels {
    ($($name:ident: $t:ty),*) => {$(
        crate::kernel! {
            /// Per-column summaries of the `rows × cols` row-major `input`, rows in slices of
            /// `slice_rows`: into `partials[slice * cols + col]`, or with `partials` null (one
            /// slice) as words into `out`.
            ///
            /// # Safety
            /// `input` holds `rows * cols` elements; blocks of `COLUMN_THREADS` with
            /// `COLUMN_SHARED_BYTES`, `cols.div_ceil(32)` in x and `rows.div_ceil(slice_rows)`
            /// in y; `partials` holds a summary per slice and column, or is null and `out`
            /// holds `SUMMARY_WORDS` f64 a column.
            pub unsafe fn $name(
                input: *const $t,
                rows: u64,
                cols: u64,
                slice_rows: u64,
                partials: *mut Summary,
                out: *mut f64,
            ) {
                // SAFETY: forwarded to the launch contract above.
                unsafe { columns::<$t>(input, rows, cols, slice_rows, partials, out) }
            }
        }
    )*};
}
column_kernels!(moments_columns_f32: f32, moments_columns_f64: f64);

crate::kernel! {
    /// Combines each column's `slices` partials (`partials[slice * cols + col]`) in slice order
    /// and writes its words to `out`.
    ///
    /// # Safety
    /// `partials` holds `slices * cols` summaries, `out` `SUMMARY_WORDS` f64 a column; any
    /// one-dimensional grid.
    pub unsafe fn moments_columns_combine(partials: *const Summary, slices: u32, cols: u64, out: *mut f64) {
        let mut col = global_x();
        while col < cols {
            let mut total = Summarize.identity();
            for s in 0..slices as u64 {
                // SAFETY: `s * cols + col < slices * cols`.
                total = Summarize.combine(total, unsafe { *partials.add((s * cols + col) as usize) });
            }
            // SAFETY: `col < cols`.
            unsafe { write_words(out, col, total) };
            col += grid_threads_x();
        }
    }
}
