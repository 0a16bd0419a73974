//! A batch-training epoch after the best-matching-unit search: every cell's new weights are the
//! average of all nodes weighted by a Gaussian of the map distance between the cell and each
//! node's best cell. With the Gaussian separable over a rectangular map, that is
//!
//! 1. [`accumulate`] (`som_accumulate`): per cell, the sum of the nodes that chose it and their
//!    count, one plane a dimension plus a count plane (`plane · cells + cell`), in 64-bit fixed
//!    point;
//! 2. [`smooth_rows`] (`som_smooth_rows`): each plane smoothed along the map's rows;
//! 3. [`smooth_columns`] (`som_smooth_columns`): then along its columns, and each weight set to
//!    its smoothed sum over the smoothed count (left as it was where no node falls within the
//!    window).
//!
//! The sums are integers so that their order does not matter: node `x` of dimension `p` adds
//! `trunc(x · scale[p])`, with `scale[p]` a power of two chosen from the dimension's largest
//! magnitude ([`magnitudes`], `som_magnitudes`, once a training call) so that no sum can pass
//! 2^62 (for 12000 nodes, a step near 2^-47 of the largest value: far finer than an f32 where a
//! dimension's values are of one magnitude; an outlier 2^40 times the rest leaves them 7 bits).
//! The atomics may land in any order and every engine still gets the same bits, which is what
//! makes training reproducible from a seed. The smoothing is f64, each tap one FMA, taps in
//! increasing map order: the host's reference repeats it exactly.
//!
//! Cost for 12000 nodes of 12 on a 200 × 200 map: the atomics are 156000 (a few µs); each
//! smoothing pass is at most `planes · cells · (2·radius + 1)` FMAs read from L1 and L2.

use crate::launch::{LaunchShape, fits_u32};
pub use crate::policy::som::MAGNITUDE_RUN;
use crate::policy::som::{BATCH_MAX_BLOCKS, BATCH_THREADS};
use crate::simt::atomic::{add_u64, max_u32};
use crate::simt::math::FastMath;
use crate::simt::{global_x, grid_threads_x};

/// One output of a smoothing pass: `Σ gaussian(|i − at|) · value(i)` for `i` in
/// `at − radius ..= at + radius` within `0 .. len`, in increasing `i`, each tap an FMA. The
/// host's reference calls it too.
#[inline(always)]
pub fn smooth(
    at: u32,
    len: u32,
    radius: u32,
    gaussian: impl Fn(u32) -> f64,
    value: impl Fn(u32) -> f64,
) -> f64 {
    let first = at.saturating_sub(radius);
    let last = (at as u64 + radius as u64).min(len as u64 - 1) as u32;
    let mut sum = 0.0f64;
    for i in first..=last {
        sum = gaussian(i.abs_diff(at)).fma(value(i), sum);
    }
    sum
}

/// The power of two a dimension's node values are scaled by, `2^k`: with `2^(e + 1)` above its
/// largest magnitude (`e` the exponent field of its f32 bits, `largest_bits`) and `count` nodes
/// at most `2^b`, `k = 61 − b − e`, so that each scaled value stays below `2^(62 − b)` and their
/// sum below 2^62.
#[inline(always)]
pub fn scale_exponent(largest_bits: u32, count: u32) -> i32 {
    let e = (largest_bits >> 23) as i32 - 127;
    let b = 32 - (count.max(1) - 1).leading_zeros() as i32;
    61 - b - e
}

/// `2^k` for `k` in −1022 ..= 1023, exactly.
#[inline(always)]
pub fn power_of_two(k: i32) -> f64 {
    f64::from_bits(((1023 + k) as u64) << 52)
}

/// A node's value in fixed point: `x · scale` (exact: `scale` is a power of two) truncated.
#[inline(always)]
pub fn fixed(x: f32, scale: f64) -> i64 {
    (x as f64 * scale) as i64
}

/// Dimension `p`'s fixed-point scale for `count` nodes whose largest magnitudes' bits are in
/// `largest`, and its inverse (1 for the count plane, `p == dim`).
///
/// # Safety
/// `largest` holds `dim` values.
#[inline(always)]
unsafe fn scales(largest: *const u32, count: u32, p: u32, dim: u32) -> (f64, f64) {
    if p == dim {
        return (1.0, 1.0);
    }
    // SAFETY: `p < dim`.
    let k = scale_exponent(unsafe { *largest.add(p as usize) }, count);
    (power_of_two(k), power_of_two(-k))
}

/// The launch of a batch kernel over `work` items (a thread each, grid-stride past
/// [`BATCH_MAX_BLOCKS`] blocks).
const fn batch_plan(work: u32) -> LaunchShape {
    let blocks = (work as u64).div_ceil(BATCH_THREADS as u64);
    let blocks = if blocks < BATCH_MAX_BLOCKS {
        blocks
    } else {
        BATCH_MAX_BLOCKS
    };
    LaunchShape::linear(blocks, BATCH_THREADS, 0)
}

own_kernel! {
    /// Parameters of [`magnitudes`].
    pub struct Magnitudes {
        /// `count · dim` f32, row-major.
        #[len(u128::from(count) * u128::from(dim))]
        pub nodes: *const f32,
        pub count: u32,
        pub dim: u32,
        /// `dim` words, zeroed before.
        #[len(dim)]
        pub largest: *mut u32,
    }
    check |p, shape| dim > 0 && fits_u32(count as u64, dim as u64) && shape.is_1d();
    /// Each dimension's largest magnitude.
    fn magnitudes => som_magnitudes;
}

impl Magnitudes {
    /// The launch: a thread a run of [`MAGNITUDE_RUN`] nodes of a dimension.
    pub const fn plan(&self) -> LaunchShape {
        batch_plan(self.count.div_ceil(MAGNITUDE_RUN) * self.dim)
    }
}

/// The largest magnitude of each dimension of the nodes, as f32 bits (which order non-negative
/// floats as integers), max-ed into `largest` (zeroed before).
///
/// # Safety
/// `nodes` holds `count · dim` f32 (`dim > 0`, fitting 32 bits), `largest` `dim` words; any
/// one-dimensional grid.
#[inline(always)]
pub unsafe fn magnitudes(p: Magnitudes) {
    let Magnitudes {
        nodes,
        count,
        dim,
        largest,
    } = p;
    let runs = count.div_ceil(MAGNITUDE_RUN);
    let mut e = global_x();
    while e < runs as u64 * dim as u64 {
        let (run, p) = ((e / dim as u64) as u32, (e % dim as u64) as u32);
        let mut bits = 0;
        for node in run * MAGNITUDE_RUN..((run + 1) * MAGNITUDE_RUN).min(count) {
            // SAFETY: `node < count`, `p < dim`.
            let x = unsafe { *nodes.add(node as usize * dim as usize + p as usize) };
            bits = bits.max(x.abs().to_bits());
        }
        // SAFETY: `p < dim`.
        unsafe { max_u32(largest.add(p as usize), bits) };
        e += grid_threads_x();
    }
}

own_kernel! {
    /// Parameters of [`accumulate`].
    pub struct Accumulate {
        /// `count · dim` f32, row-major.
        #[len(u128::from(count) * u128::from(dim))]
        pub nodes: *const f32,
        pub count: u32,
        pub dim: u32,
        /// Each node's best cell; one not below `cells` is skipped.
        #[len(count)]
        pub best: *const u32,
        /// The `dim` largest magnitudes' bits ([`magnitudes`]).
        #[len(dim)]
        pub largest: *const u32,
        pub cells: u32,
        /// `(dim + 1) · cells` sums, zeroed before.
        #[len((u128::from(dim) + 1) * u128::from(cells))]
        pub sums: *mut u64,
    }
    check |p, shape| fits_u32(dim as u64 + 1, count as u64) && fits_u32(dim as u64 + 1, cells as u64) && shape.is_1d();
    /// The nodes summed per cell, in fixed point.
    fn accumulate => som_accumulate;
}

impl Accumulate {
    /// The launch: a thread a node and plane.
    pub const fn plan(&self) -> LaunchShape {
        batch_plan(self.count * (self.dim + 1))
    }
}

/// Adds node `i`'s value of dimension `p` in fixed point (scaled by
/// [`scale_exponent`]`(largest[p], count)`) to `sums[p · cells + best[i]]`, and 1 to
/// `sums[dim · cells + best[i]]` (the count plane), as wrapping 64-bit integers (two's
/// complement: negative sums come out right as `i64`).
///
/// # Safety
/// `nodes` holds `count · dim` f32, `best` `count` indices (any: a node whose index is not
/// below `cells` is left out), `largest` `dim` values, `sums` `(dim + 1) · cells` words;
/// `(dim + 1) · count` and `(dim + 1) · cells` fit in 32 bits; any one-dimensional grid.
#[inline(always)]
pub unsafe fn accumulate(p: Accumulate) {
    let Accumulate {
        nodes,
        count,
        dim,
        best,
        largest,
        cells,
        sums,
    } = p;
    let planes = dim + 1;
    let mut e = global_x();
    while e < count as u64 * planes as u64 {
        let (node, p) = ((e / planes as u64) as u32, (e % planes as u64) as u32);
        // SAFETY: `node < count`, `p <= dim`, `cell < cells`.
        unsafe {
            let value = if p < dim {
                let x = *nodes.add(node as usize * dim as usize + p as usize);
                fixed(x, scales(largest, count, p, dim).0) as u64
            } else {
                1
            };
            // A cell past the map (never from the search) is skipped, not written out of
            // bounds: the sums stay in bounds whatever `best` holds.
            let cell = *best.add(node as usize);
            if cell < cells {
                add_u64(sums.add(p as usize * cells as usize + cell as usize), value);
            }
        }
        e += grid_threads_x();
    }
}

crate::kernel_group! {
    /// The smoothing's Gaussian: its `radius + 1` taps, from the centre out.
    pub struct Gaussian {
        #[len(u128::from(radius) + 1)]
        pub table: *const f64,
        pub radius: u32,
    }
}

own_kernel! {
    /// Parameters of [`smooth_rows`].
    pub struct SmoothRows {
        /// `planes · rows · cols` sums ([`accumulate`]).
        #[len(u128::from(planes) * u128::from(rows) * u128::from(cols))]
        pub sums: *const u64,
        /// The `planes − 1` largest magnitudes' bits the sums were scaled by.
        #[len(u128::from(planes).saturating_sub(1))]
        pub largest: *const u32,
        /// Nodes summed.
        pub count: u32,
        pub rows: u32,
        pub cols: u32,
        pub planes: u32,
        #[group]
        pub gaussian: Gaussian,
        /// `planes · rows · cols` values.
        #[len(u128::from(planes) * u128::from(rows) * u128::from(cols))]
        pub out: *mut f64,
    }
    check |p, shape| fits_u32(planes as u64 * rows as u64, cols as u64) && shape.is_1d();
    /// The planes smoothed along the map's rows.
    fn smooth_rows => som_smooth_rows;
}

impl SmoothRows {
    /// The launch: a thread a plane and cell.
    pub const fn plan(&self) -> LaunchShape {
        batch_plan(self.planes * (self.rows * self.cols))
    }
}

/// Smooths each plane of `sums` (integers, scaled back as [`accumulate`] scaled them for
/// `count` nodes) along the rows of a `rows × cols` map: `out[p · cells + r · cols + c]` is the
/// sum over `c'` within `radius` of `c` of `table[|c − c'|] · value(p, r, c')`.
///
/// # Safety
/// `sums` and `out` hold `planes · rows · cols` values (fitting 32 bits), `largest`
/// `planes − 1`, `table` `radius + 1`; any one-dimensional grid.
#[inline(always)]
pub unsafe fn smooth_rows(p: SmoothRows) {
    let SmoothRows {
        sums,
        largest,
        count,
        rows,
        cols,
        planes,
        gaussian: Gaussian { table, radius },
        out,
    } = p;
    let cells = rows * cols;
    let mut e = global_x();
    while e < planes as u64 * cells as u64 {
        let (p, at) = ((e / cells as u64) as u32, (e % cells as u64) as u32);
        let row_start = p as usize * cells as usize + (at - at % cols) as usize;
        // SAFETY: every index is inside plane `p`'s row of `at`, `p < planes`, and the taps
        // below `radius + 1`.
        unsafe {
            let inverse = scales(largest, count, p, planes - 1).1;
            let sum = smooth(
                at % cols,
                cols,
                radius,
                |k| *table.add(k as usize),
                |c| *sums.add(row_start + c as usize) as i64 as f64 * inverse,
            );
            *out.add(e as usize) = sum;
        }
        e += grid_threads_x();
    }
}

own_kernel! {
    /// Parameters of [`smooth_columns`].
    pub struct SmoothColumns {
        /// `(dim + 1) · rows · cols` row-smoothed values ([`smooth_rows`]).
        #[len((u128::from(dim) + 1) * u128::from(rows) * u128::from(cols))]
        pub rows_done: *const f64,
        pub rows: u32,
        pub cols: u32,
        pub dim: u32,
        #[group]
        pub gaussian: Gaussian,
        /// `rows · cols · dim` weights, row-major by cell.
        #[len(u128::from(rows) * u128::from(cols) * u128::from(dim))]
        pub weights: *mut f32,
    }
    check |p, shape| fits_u32((dim as u64 + 1) * rows as u64, cols as u64) && shape.is_1d();
    /// The planes smoothed along the map's columns, and the weights set from them.
    fn smooth_columns => som_smooth_columns;
}

impl SmoothColumns {
    /// The launch: a thread a dimension and cell.
    pub const fn plan(&self) -> LaunchShape {
        batch_plan(self.dim * (self.rows * self.cols))
    }
}

/// Smooths the row-smoothed planes `rows_done` (`dim` value planes, then the count plane) along
/// the map's columns and sets `weights[cell · dim + p]` to the value plane's result over the
/// count plane's, where the latter is positive; other weights stay.
///
/// # Safety
/// `rows_done` holds `(dim + 1) · rows · cols` values and `weights` `rows · cols · dim`
/// (fitting 32 bits), `table` `radius + 1`; any one-dimensional grid.
#[inline(always)]
pub unsafe fn smooth_columns(p: SmoothColumns) {
    let SmoothColumns {
        rows_done,
        rows,
        cols,
        dim,
        gaussian: Gaussian { table, radius },
        weights,
    } = p;
    let cells = rows * cols;
    let mut e = global_x();
    while e < dim as u64 * cells as u64 {
        let (p, at) = ((e / cells as u64) as u32, (e % cells as u64) as u32);
        let (r, c) = (at / cols, at % cols);
        let column = |plane: u32| {
            let base = plane as usize * cells as usize + c as usize;
            // SAFETY: every index is inside `plane`'s column `c`, `plane <= dim`, and the taps
            // below `radius + 1`.
            unsafe {
                smooth(
                    r,
                    rows,
                    radius,
                    |k| *table.add(k as usize),
                    |r| *rows_done.add(base + r as usize * cols as usize),
                )
            }
        };
        let (sum, count) = (column(p), column(dim));
        if count > 0.0 {
            // SAFETY: `at < cells`, `p < dim`.
            unsafe { *weights.add(at as usize * dim as usize + p as usize) = (sum / count) as f32 };
        }
        e += grid_threads_x();
    }
}
