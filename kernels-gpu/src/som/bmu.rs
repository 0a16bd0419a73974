//! Best-matching units: for each of `nodes` vectors of `dim` f32, the index of the nearest of
//! `cells` vectors by squared Euclidean distance, ties to the lowest index, a NaN distance
//! treated as infinite (so every node gets a cell).
//!
//! Grid: x over tiles of [`NODE_TILE`] nodes, y over slices of the cells. A block of
//! [`BMU_THREADS`] threads (16 × 16) walks its slice [`CELL_TILE`] cells at a time; for each
//! tile it stages [`DIM_STEP`] dimensions of its nodes and of the cells in shared memory
//! (transposed, padded so that neither the staging stores nor the reads conflict) and thread
//! (tx, ty) adds the squared differences of nodes `ty + 16i` and cells `tx + 16j` (i, j < 4) in
//! the accumulator type `A`. After the last dimension each thread folds its 16 distances into
//! the best cell of each of its 4 nodes by [`ArgMin`]; at the end the 16 threads of a node row
//! combine theirs by shuffles. With one slice the index goes straight out; with several, each
//! slice writes a candidate and [`som_bmu_combine`] keeps the best in slice order.
//!
//! Cost a pair and dimension: a subtraction and an FMA (f32: 0.35 ms of issue for 12000 × 40000
//! × 12 on an H100), plus an eighth of a shared read; the cells are read from L2 once a node
//! tile.

use crate::op::{ArgMin, Operator, Words};
use crate::simt::math::FastMath;
use crate::simt::shared::SharedSlice;
use crate::simt::warp::{FULL_MASK, shfl_xor};
use crate::simt::{block_idx, global_x, grid_threads_x, sync_threads, thread_x};

/// Nodes a block takes at once.
pub const NODE_TILE: u32 = 64;
/// Cells a block takes at once.
pub const CELL_TILE: u32 = 64;
/// Threads of a block: 16 columns of cells by 16 rows of nodes.
pub const BMU_THREADS: u32 = 256;
/// Dimensions staged at once.
pub const DIM_STEP: u32 = 32;
/// Words between two staged dimensions: a tile plus one, so that staging stores of
/// consecutive elements of a row fall in different banks.
const STRIDE: u32 = NODE_TILE + 1;
/// Dynamic shared memory of a block: the staged nodes and cells, f32.
pub const BMU_SHARED_BYTES: u32 = 2 * DIM_STEP * STRIDE * 4;

/// The kernels' parameters: `nodes`, `count`, `cells`, `cell_count`, `dim`, `slice_cells`,
/// `best`, `candidates`, `distances`.
pub type Args = (
    *const f32,
    u32,
    *const f32,
    u32,
    u32,
    u32,
    *mut u32,
    *mut u32,
    *mut f64,
);

/// An accumulator type: f32, or f64 where distances must not round.
pub trait Accumulator: Words + FastMath + From<f32> + Into<f64> + core::ops::Sub<Output = Self> {
    /// Zero.
    const ZERO: Self;
    /// Infinity, for a NaN distance.
    const INFINITY: Self;
    /// Whether the value is a NaN.
    fn is_nan(self) -> bool;
}

impl Accumulator for f32 {
    const ZERO: f32 = 0.0;
    const INFINITY: f32 = f32::INFINITY;
    #[inline(always)]
    fn is_nan(self) -> bool {
        f32::is_nan(self)
    }
}

impl Accumulator for f64 {
    const ZERO: f64 = 0.0;
    const INFINITY: f64 = f64::INFINITY;
    #[inline(always)]
    fn is_nan(self) -> bool {
        f64::is_nan(self)
    }
}

/// Stages dimensions `k0 .. k0 + step` of rows `first ..` of the row-major `rows × dim`
/// `source` into `staged[k · STRIDE + r]`, zeros past the last row.
///
/// # Safety
/// The whole block calls; `source` holds `rows · dim` values; `k0 + step <= dim`.
#[inline(always)]
unsafe fn stage(
    staged: SharedSlice<f32>,
    source: *const f32,
    (first, rows): (u32, u32),
    dim: u32,
    (k0, step): (u32, u32),
) {
    let mut e = thread_x();
    while e < NODE_TILE * step {
        let (r, k) = (e / step, e % step);
        let row = first + r;
        // SAFETY: `row < rows`, `k0 + k < dim` (the caller's contract); the index is below
        // `DIM_STEP · STRIDE`.
        unsafe {
            let v = if row < rows {
                *source.add(row as usize * dim as usize + (k0 + k) as usize)
            } else {
                0.0
            };
            staged.set_unchecked(k * STRIDE + r, v);
        }
        e += BMU_THREADS;
    }
}

/// The kernel body.
///
/// # Safety
/// See the kernels below.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn search<A: Accumulator>(
    nodes: *const f32,
    count: u32,
    cells: *const f32,
    cell_count: u32,
    dim: u32,
    slice_cells: u32,
    best: *mut u32,
    (candidates, distances): (*mut u32, *mut f64),
) where
    ArgMin: Operator<(A, u32)>,
{
    let (tx, ty) = (thread_x() % 16, thread_x() / 16);
    let first_node = block_idx().x * NODE_TILE;
    let slice = block_idx().y;
    let slice_end = ((slice as u64 + 1) * slice_cells as u64).min(cell_count as u64) as u32;
    let mut found = [ArgMin.identity(); 4];
    // SAFETY: the launch gives BMU_SHARED_BYTES: the staged nodes, then the staged cells; every
    // loop bound is block-uniform, so the whole block reaches every barrier.
    unsafe {
        let staged_nodes = SharedSlice::<f32>::carve(0, DIM_STEP * STRIDE);
        let staged_cells = SharedSlice::<f32>::carve(4 * DIM_STEP * STRIDE, DIM_STEP * STRIDE);
        let mut first_cell = slice * slice_cells;
        while first_cell < slice_end {
            let mut sums = [[A::ZERO; 4]; 4];
            let mut k0 = 0;
            while k0 < dim {
                let step = (dim - k0).min(DIM_STEP);
                stage(staged_nodes, nodes, (first_node, count), dim, (k0, step));
                stage(staged_cells, cells, (first_cell, slice_end), dim, (k0, step));
                sync_threads();
                for k in 0..step {
                    let x: [f32; 4] =
                        core::array::from_fn(|i| staged_nodes.get_unchecked(k * STRIDE + ty + 16 * i as u32));
                    let w: [f32; 4] =
                        core::array::from_fn(|j| staged_cells.get_unchecked(k * STRIDE + tx + 16 * j as u32));
                    for (row, &x) in sums.iter_mut().zip(&x) {
                        for (sum, &w) in row.iter_mut().zip(&w) {
                            let t = A::from(x) - A::from(w);
                            *sum = t.fma(t, *sum);
                        }
                    }
                }
                sync_threads();
                k0 += step;
            }
            for (found, row) in found.iter_mut().zip(&sums) {
                for (j, &d) in row.iter().enumerate() {
                    let cell = first_cell + tx + 16 * j as u32;
                    if cell < slice_end {
                        let d = if d.is_nan() { A::INFINITY } else { d };
                        *found = ArgMin.combine(*found, (d, cell));
                    }
                }
            }
            first_cell += CELL_TILE;
        }
        // The 16 threads of a node row are 16 lanes of one warp.
        for found in found.iter_mut() {
            for lanes in [8, 4, 2, 1] {
                *found = ArgMin.combine(*found, shfl_xor(FULL_MASK, *found, lanes));
            }
        }
        if tx == 0 {
            for (i, &(d, cell)) in found.iter().enumerate() {
                let node = first_node + ty + 16 * i as u32;
                if node < count {
                    if candidates.is_null() {
                        *best.add(node as usize) = cell;
                    } else {
                        let at = (slice as usize) * count as usize + node as usize;
                        *candidates.add(at) = cell;
                        *distances.add(at) = d.into();
                    }
                }
            }
        }
    }
}

macro_rules! search_kernels {
    ($($name:ident: $a:ty),*) => {$(
        crate::kernel! {
            /// The nearest of the `cell_count` cells to each of the `count` nodes (both
            /// row-major, `dim` f32 each), distances summed in the kernel's accumulator type,
            /// over slices of `slice_cells` cells (`gridDim.y` of them): with `candidates`
            /// null (one slice) into `best`, else each slice's best cell and its distance into
            /// `candidates` and `distances` (`slice · count + node`).
            ///
            /// # Safety
            /// `nodes` holds `count · dim` values, `cells` `cell_count · dim`, `dim > 0`;
            /// blocks of `BMU_THREADS` with `BMU_SHARED_BYTES`, `count.div_ceil(NODE_TILE)` in
            /// x, `cell_count.div_ceil(slice_cells)` in y, `slice_cells` a multiple of
            /// `CELL_TILE`; `best` holds `count` indices, or `candidates` and `distances`
            /// `gridDim.y · count` each.
            #[allow(clippy::too_many_arguments)]
            pub unsafe fn $name(
                nodes: *const f32,
                count: u32,
                cells: *const f32,
                cell_count: u32,
                dim: u32,
                slice_cells: u32,
                best: *mut u32,
                candidates: *mut u32,
                distances: *mut f64,
            ) {
                // SAFETY: forwarded to the launch contract above.
                unsafe {
                    search::<$a>(nodes, count, cells, cell_count, dim, slice_cells, best, (candidates, distances))
                }
            }
        }
    )*};
}
search_kernels!(som_bmu_f32: f32, som_bmu_f64: f64);

crate::kernel! {
    /// Keeps the best of each node's `slices` candidates (`slice · count + node`): the smallest
    /// distance, ties to the earlier slice (whose cells come first).
    ///
    /// # Safety
    /// `candidates` and `distances` hold `slices · count` entries, `best` `count`; any
    /// one-dimensional grid.
    pub unsafe fn som_bmu_combine(candidates: *const u32, distances: *const f64, slices: u32, count: u32, best: *mut u32) {
        let mut node = global_x();
        while node < count as u64 {
            let mut found = ArgMin.identity();
            for s in 0..slices as u64 {
                let at = (s * count as u64 + node) as usize;
                // SAFETY: `at < slices · count`.
                found = ArgMin.combine(found, unsafe { (*distances.add(at), *candidates.add(at)) });
            }
            // SAFETY: `node < count`.
            unsafe { *best.add(node as usize) = found.1 };
            node += grid_threads_x();
        }
    }
}
