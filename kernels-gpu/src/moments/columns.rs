//! Per-column moments of a row-major `rows × cols` matrix. A block owns 32 columns (a warp
//! reads 32 consecutive elements of a row: one coalesced access) and a slice of the rows
//! (`gridDim.y` slices where the columns alone make too few blocks); its 8 warps take every
//! 8th row of the slice, each thread folding its column's values into the shifted sums of
//! [`super`]. Warp 0 combines the block's 8 states of each column in warp order and writes the
//! column's partial for the slice, or, with one slice, its words. A second launch combines the
//! slices' partials of each column in slice order.

use super::{SUMMARY_WORDS, Shifted, Summarize, Summary};
use crate::launch::{LaunchShape, Limits, grid_extent};
use crate::num::Element;
use crate::op::Operator;
pub use crate::policy::moments::COLUMN_THREADS;
use crate::policy::moments::{
    COLUMN_COMBINE_BLOCKS_PER_SM, COLUMN_COMBINE_THREADS, COLUMN_SLICE_ROWS_PER_WARP, COLUMN_WAVES,
};
use crate::simt::shared::SharedSlice;
use crate::simt::{block_idx, global_x, grid_threads_x, lane_id, sync_threads, thread_x, warp_id};

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

own_kernel! {
    /// Parameters of [`columns`].
    pub struct Columns<T: Element> {
        /// The `rows × cols` row-major matrix.
        #[len(u128::from(rows) * u128::from(cols))]
        pub input: *const T,
        pub rows: u64,
        pub cols: u64,
        /// Rows of each slice (the last may hold fewer).
        pub slice_rows: u64,
        /// A summary per slice and column (`partials[slice * cols + col]`), or null for one
        /// slice, whose words go to `out`.
        #[len(if partials.is_null() { 0 } else { u128::from(rows.div_ceil(slice_rows.max(1))) * u128::from(cols) })]
        pub partials: *mut Summary,
        /// [`SUMMARY_WORDS`] f64 a column.
        #[len(u128::from(cols) * SUMMARY_WORDS as u128)]
        pub out: *mut f64,
    }
    check |p, shape| slice_rows > 0 && *shape == p.plan();
    /// The column kernel of f32 and f64 matrices.
    fn columns => moments_columns_f32<f32>, moments_columns_f64<f64>;
}

impl<T: Element> Columns<T> {
    /// These parameters with the rows cut into slices for a device where `resident` blocks of
    /// the column kernel fit at once: enough slices for [`COLUMN_WAVES`] waves of blocks where
    /// the columns alone make fewer, each slice at least [`COLUMN_SLICE_ROWS_PER_WARP`] rows a
    /// warp, and no more slices than the grid's y dimension holds. The plan's block and shared
    /// memory do not depend on the slices.
    pub const fn sliced(self, resident: u64, limits: &Limits) -> Self {
        let (rows, strips) = (self.rows, self.cols.div_ceil(32));
        let waves = COLUMN_WAVES * resident;
        let most = clamp(
            rows.div_ceil(COLUMN_SLICE_ROWS_PER_WARP * COLUMN_WARPS as u64),
            1,
            limits.max_grid_dim[1] as u64,
        );
        let slice_rows = rows.div_ceil(clamp(waves.div_ceil(strips), 1, most));
        Columns { slice_rows, ..self }
    }

    /// The slices of rows.
    pub const fn slices(&self) -> u64 {
        self.rows.div_ceil(self.slice_rows)
    }

    /// A block of [`COLUMN_THREADS`] with [`COLUMN_SHARED_BYTES`] per 32 columns (x) and slice
    /// of rows (y).
    pub const fn plan(&self) -> LaunchShape {
        let strips = self.cols.div_ceil(32);
        LaunchShape {
            grid: [grid_extent(strips), self.slices() as u32, 1],
            block: [COLUMN_THREADS, 1, 1],
            shared_bytes: COLUMN_SHARED_BYTES,
        }
    }
}

/// `x` within `lo..=hi` (`lo <= hi`).
const fn clamp(x: u64, lo: u64, hi: u64) -> u64 {
    if x < lo {
        lo
    } else if x > hi {
        hi
    } else {
        x
    }
}

/// Per-column summaries of the `rows × cols` row-major `input`, rows in slices of
/// `slice_rows`: into `partials[slice * cols + col]`, or with `partials` null (one slice) as
/// words into `out`.
///
/// # Safety
/// `input` holds `rows * cols` elements; the launch of [`Columns::plan`]: blocks of
/// `COLUMN_THREADS` with `COLUMN_SHARED_BYTES`, `cols.div_ceil(32)` in x and
/// `rows.div_ceil(slice_rows)` in y; `partials` holds a summary per slice and column, or is
/// null and `out` holds `SUMMARY_WORDS` f64 a column.
#[inline(always)]
pub unsafe fn columns<T: Element + Into<f64>>(p: Columns<T>) {
    let Columns {
        input,
        rows,
        cols,
        slice_rows,
        partials,
        out,
    } = p;
    let col = block_idx().x as u64 * 32 + lane_id() as u64;
    let slice = block_idx().y as u64;
    let end = ((slice + 1) * slice_rows).min(rows);
    let mut state = Shifted::EMPTY;
    if col < cols {
        let mut r = slice * slice_rows + warp_id() as u64;
        while r < end {
            // SAFETY: `r < rows`, `col < cols`.
            state = state.add(unsafe { *input.add((r * cols + col) as usize) });
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

own_kernel! {
    /// Parameters of [`columns_combine`].
    pub struct ColumnsCombine {
        /// `slices * cols` summaries (`partials[slice * cols + col]`).
        #[len(u128::from(slices) * u128::from(cols))]
        pub partials: *const Summary,
        pub slices: u32,
        pub cols: u64,
        /// [`SUMMARY_WORDS`] f64 a column.
        #[len(u128::from(cols) * SUMMARY_WORDS as u128)]
        pub out: *mut f64,
    }
    check |p, shape| shape.is_1d();
    /// The combine of the column kernel's slices, of either input type.
    fn columns_combine => moments_columns_combine;
}

impl ColumnsCombine {
    /// A grid-stride loop over the columns, one a thread: blocks of [`COLUMN_COMBINE_THREADS`]
    /// for every column, at most [`COLUMN_COMBINE_BLOCKS_PER_SM`] a multiprocessor.
    pub const fn plan(&self, limits: &Limits) -> LaunchShape {
        let blocks = self.cols.div_ceil(COLUMN_COMBINE_THREADS as u64);
        let most = limits.multiprocessors as u64 * COLUMN_COMBINE_BLOCKS_PER_SM;
        LaunchShape::linear(
            if blocks < most { blocks } else { most },
            COLUMN_COMBINE_THREADS,
            0,
        )
    }
}

/// Combines each column's `slices` partials (`partials[slice * cols + col]`) in slice order
/// and writes its words to `out`.
///
/// # Safety
/// `partials` holds `slices * cols` summaries, `out` `SUMMARY_WORDS` f64 a column; any
/// one-dimensional grid.
#[inline(always)]
pub unsafe fn columns_combine(p: ColumnsCombine) {
    let ColumnsCombine {
        partials,
        slices,
        cols,
        out,
    } = p;
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
