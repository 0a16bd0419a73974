//! Best-matching units: for each of `nodes` vectors of `dim` f32, the index of the nearest of
//! `cells` vectors by squared Euclidean distance, ties to the lowest index, a NaN distance
//! treated as infinite (so every node gets a cell).
//!
//! Grid: x over tiles of [`NODE_TILE`] nodes, y over slices of the cells. A block of
//! [`BMU_THREADS`] threads (16 × 16) walks its slice [`CELL_TILE`] cells at a time; for each
//! tile it stages [`DIM_STEP`] dimensions of its nodes and of the cells in shared memory
//! (transposed, padded so that neither the staging stores nor the reads conflict; with at most
//! [`DIM_STEP`] dimensions the nodes once for all tiles) and thread (tx, ty) adds the squared
//! differences of nodes `4ty + i` (i < 4) and cells `4tx + j` and `64 + 4tx + j` (j < 4), read
//! as three 16-byte vectors a dimension, in the accumulator type `A`: 32 pairs a thread, so
//! that each shared read, barrier and staged element serves twice the arithmetic a 4 × 4 tile
//! gives it (the article's case on the H200: 0.64 ms, against 0.70 ms with 4 × 4). After the last dimension
//! each thread keeps the best cell of each of its 4 nodes; at the end the 16 threads of a node
//! row combine theirs as a logical warp of 16 lanes ([`LogicalWarp::arg_min`], ties to the
//! lower cell). With one slice the index goes straight out; with several ([`Slicing`]), each
//! slice writes a candidate and [`combine`] (`som_bmu_combine`) keeps the best in slice order.
//!
//! Cost a pair and dimension: a subtraction and an FMA (f32: 0.35 ms of issue for 12000 × 40000
//! × 12 on an H100), plus three 16-byte shared reads every 32 pairs; the cells are read from L2
//! once a node tile.

use crate::launch::{LaunchShape, Limits};
use crate::op::{ArgMin, Operator, Words};
pub use crate::policy::som::{BMU_THREADS, BMU_WAVES, COMBINE_THREADS, DIM_STEP};
use crate::simt::math::FastMath;
use crate::simt::memory::{is_aligned16, load128};
use crate::simt::shared::{Quad, SharedSlice};
use crate::simt::{block_idx, global_x, grid_threads_x, sync_threads, thread_x};
use crate::warp::LogicalWarp;

/// Nodes a block takes at once.
pub const NODE_TILE: u32 = 64;
/// Cells a block takes at once.
pub const CELL_TILE: u32 = 128;
/// Words between two staged dimensions of the nodes: the tile plus four, so that rows stay
/// 16-byte aligned for vector reads and staging stores of consecutive rows fall in different
/// banks; and of the cells.
const NODE_STRIDE: u32 = NODE_TILE + 4;
const CELL_STRIDE: u32 = CELL_TILE + 4;
/// Dynamic shared memory of a block: the staged nodes, then the staged cells, f32.
pub const BMU_SHARED_BYTES: u32 = DIM_STEP * (NODE_STRIDE + CELL_STRIDE) * 4;
// Staging four dimensions a load needs every step to start and, where `dim` is a multiple of 4,
// to end on a multiple of 4.
const _: () = assert!(DIM_STEP.is_multiple_of(4));

own_kernel! {
    /// Parameters of the search: the nearest of the `cell_count` cells to each of the `count`
    /// nodes (both row-major, `dim` f32 each), over slices of `slice_cells` cells (`gridDim.y`
    /// of them).
    pub struct Search {
        #[len(u128::from(count) * u128::from(dim))]
        pub nodes: *const f32,
        pub count: u32,
        #[len(u128::from(cell_count) * u128::from(dim))]
        pub cells: *const f32,
        pub cell_count: u32,
        pub dim: u32,
        /// Cells of a slice, a multiple of [`CELL_TILE`] (see [`Slicing`]).
        pub slice_cells: u32,
        /// A cell a node, written when `candidates` is null (one slice).
        #[len(if candidates.is_null() { count } else { 0 })]
        pub best: *mut u32,
        /// With several slices, each slice's best cell and its distance for each node
        /// (`slice · count + node`); else null.
        #[len(if candidates.is_null() { 0 } else { u128::from(shape.grid[1]) * u128::from(count) })]
        pub candidates: *mut u32,
        #[len(if candidates.is_null() { 0 } else { u128::from(shape.grid[1]) * u128::from(count) })]
        pub distances: *mut f64,
    }
    check |p, shape| dim > 0 && slice_cells > 0 && slice_cells % CELL_TILE == 0 && *shape == p.plan();
    /// Distances summed in f32.
    fn search::<f32> => som_bmu_f32;
    /// Distances summed in f64.
    fn search::<f64> => som_bmu_f64;
}

/// How a search splits the cells: into `slices` slices of `slice_cells` cells (a multiple of
/// [`CELL_TILE`]), where the node tiles alone make fewer than [`BMU_WAVES`] waves of blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slicing {
    pub slice_cells: u32,
    pub slices: u32,
}

impl Slicing {
    /// The slicing for `count` nodes and `cell_count > 0` cells on a device that holds
    /// `resident` blocks of the search ([`Search::BLOCK`]) at once: at most a slice a cell
    /// tile, and as many as the grid's y dimension allows.
    ///
    /// Of the slice counts from the one that makes [`BMU_WAVES`] waves to twice it, the one
    /// whose blocks fill their last wave best (the fewest slices among equals): the blocks
    /// are alike, so a last wave that is mostly empty leaves multiprocessors idle at the end
    /// (the article's case on the H200, 188 node tiles and 528 resident blocks: 6 slices fill
    /// 71 % of their last wave, 613 µs; 14 slices 99.7 %, 582 µs).
    pub const fn of(count: u32, cell_count: u32, resident: u64, limits: &Limits) -> Slicing {
        let tiles = count.div_ceil(NODE_TILE) as u64;
        let cell_tiles = cell_count.div_ceil(CELL_TILE) as u64;
        let max_y = limits.max_grid_dim[1] as u64;
        let most = if cell_tiles < max_y { cell_tiles } else { max_y };
        let wanted = (BMU_WAVES * resident).div_ceil(tiles);
        if wanted <= 1 || most <= 1 {
            return Slicing::cut(cell_count, cell_tiles, 1);
        }
        let mut slices = if wanted > most { most } else { wanted };
        let mut best = Slicing::cut(cell_count, cell_tiles, slices);
        let mut best_fill = best.fill(tiles, resident);
        while slices < most && slices < 2 * wanted {
            slices += 1;
            let next = Slicing::cut(cell_count, cell_tiles, slices);
            let fill = next.fill(tiles, resident);
            if fill > best_fill {
                (best, best_fill) = (next, fill);
            }
        }
        best
    }

    /// `cell_tiles` tiles cut into at most `slices` slices of whole, equal tiles (the last
    /// may be shorter).
    const fn cut(cell_count: u32, cell_tiles: u64, slices: u64) -> Slicing {
        let slice_cells = (cell_tiles.div_ceil(slices) as u32) * CELL_TILE;
        Slicing {
            slice_cells,
            slices: cell_count.div_ceil(slice_cells),
        }
    }

    /// How full the last wave of `resident` blocks is with `tiles` node tiles, in parts of
    /// 2^16 of the waves' blocks.
    const fn fill(&self, tiles: u64, resident: u64) -> u64 {
        let blocks = tiles * self.slices as u64;
        (blocks << 16) / (blocks.div_ceil(resident) * resident)
    }
}

impl Search {
    /// The block of every search (one-block grid): [`BMU_THREADS`] threads with
    /// [`BMU_SHARED_BYTES`].
    pub const BLOCK: LaunchShape = LaunchShape::linear(1, BMU_THREADS, BMU_SHARED_BYTES);

    /// The launch: a block a node tile in x and a slice in y.
    pub const fn plan(&self) -> LaunchShape {
        LaunchShape {
            grid: [
                self.count.div_ceil(NODE_TILE),
                self.cell_count.div_ceil(self.slice_cells),
                1,
            ],
            block: [BMU_THREADS, 1, 1],
            shared_bytes: BMU_SHARED_BYTES,
        }
    }
}

/// An accumulator type: f32, or f64 where distances must not round.
pub trait Accumulator:
    Words + FastMath + From<f32> + Into<f64> + PartialOrd + core::ops::Sub<Output = Self>
{
    /// Zero.
    const ZERO: Self;
    /// Infinity: the distance a thread starts from.
    const INFINITY: Self;
}

impl Accumulator for f32 {
    const ZERO: f32 = 0.0;
    const INFINITY: f32 = f32::INFINITY;
}

impl Accumulator for f64 {
    const ZERO: f64 = 0.0;
    const INFINITY: f64 = f64::INFINITY;
}

/// Rows of a row-major `rows × dim` source staged into shared memory `TILE` at a time,
/// dimension-major: `staged[k · (TILE + 4) + r]`.
#[derive(Clone, Copy)]
struct Staging<const TILE: u32> {
    source: *const f32,
    rows: u32,
    dim: u32,
    /// Whether every row starts 16-byte aligned (an aligned source, `dim` a multiple of 4), so
    /// that staging reads four dimensions of a row at once.
    by_quads: bool,
    staged: SharedSlice<f32>,
    quads: SharedSlice<Quad<[f32; 4]>>,
}

impl<const TILE: u32> Staging<TILE> {
    const STRIDE: u32 = TILE + 4;

    /// Over the shared bytes from `byte_offset`.
    ///
    /// # Safety
    /// The launch's shared memory holds `DIM_STEP · (TILE + 4)` f32 from `byte_offset`, a
    /// multiple of 16; `source` holds `rows · dim` values.
    #[inline(always)]
    unsafe fn new(byte_offset: u32, source: *const f32, rows: u32, dim: u32) -> Self {
        let words = DIM_STEP * Self::STRIDE;
        // SAFETY: the caller's contract.
        unsafe {
            Staging {
                source,
                rows,
                dim,
                by_quads: is_aligned16(source) && dim.is_multiple_of(4),
                staged: SharedSlice::carve(byte_offset, words),
                quads: SharedSlice::carve(byte_offset, words / 4),
            }
        }
    }

    /// Stages dimensions `k0 .. k0 + step` (at most `DIM_STEP`) of rows `first ..`, zeros past
    /// the last row. Consecutive threads take consecutive rows: a warp's loads touch the same
    /// few lines for every `k` (served by L1 after the first), its stores consecutive words.
    /// Where rows are 16-byte aligned a thread reads four dimensions of a row at once (the
    /// seed's 12 dimensions: 1.5 loads a thread and tile of cells instead of 6, each scalar load
    /// a dozen instructions of index arithmetic; H200, 2026-12-05: f64 sums 1.051 → 1.032 ms,
    /// f32 581.9 → 581.5 µs).
    ///
    /// # Safety
    /// The whole block calls, between barriers that order it against the reads; `k0 + step
    /// <= dim`, `k0` a multiple of 4.
    #[inline(always)]
    unsafe fn stage(&self, first: u32, k0: u32, step: u32) {
        if self.by_quads {
            // SAFETY: the caller's contract; `dim`, `k0` and so `step` are multiples of 4.
            unsafe { self.stage_quads(first, k0, step / 4) };
            return;
        }
        let mut e = thread_x();
        while e < TILE * step {
            let (k, r) = (e / TILE, e % TILE);
            let row = first + r;
            let at = row as usize * self.dim as usize + (k0 + k) as usize;
            // SAFETY: `row < rows` and `k0 + k < dim` for the load; the store's index is below
            // `DIM_STEP · STRIDE`.
            unsafe {
                let v = if row < self.rows {
                    *self.source.add(at)
                } else {
                    0.0
                };
                self.staged.set_unchecked(k * Self::STRIDE + r, v);
            }
            e += BMU_THREADS;
        }
    }

    /// [`Self::stage`] for aligned rows: `quads` groups of four dimensions from `k0`, each a
    /// 16-byte load of one row, stored to four dimensions' rows of the stage.
    ///
    /// # Safety
    /// As for [`Self::stage`], with `by_quads` and `k0 + 4 · quads <= dim`.
    #[inline(always)]
    unsafe fn stage_quads(&self, first: u32, k0: u32, quads: u32) {
        let mut e = thread_x();
        while e < TILE * quads {
            let (q, r) = (e / TILE, e % TILE);
            let row = first + r;
            let k = 4 * q;
            // SAFETY: `row < rows` and `k0 + k + 3 < dim` for the load, whose address is 16-byte
            // aligned (`by_quads`: an aligned source, `dim` and `k0 + k` multiples of 4); the
            // stores' indices are below `DIM_STEP · STRIDE`.
            unsafe {
                let v: [f32; 4] = if row < self.rows {
                    load128(
                        self.source
                            .add(row as usize * self.dim as usize + (k0 + k) as usize),
                    )
                } else {
                    [0.0; 4]
                };
                for (i, &x) in (0..).zip(v.iter()) {
                    self.staged.set_unchecked((k + i) * Self::STRIDE + r, x);
                }
            }
            e += BMU_THREADS;
        }
    }

    /// Staged rows `r .. r + 4` (`r` a multiple of 4 below `TILE`) of dimension `k`, widened.
    ///
    /// # Safety
    /// `k` below the staged step, after the barrier that follows the staging.
    #[inline(always)]
    unsafe fn four<A: Accumulator>(&self, k: u32, r: u32) -> [A; 4] {
        // SAFETY: the caller's contract; the index is inside the staged words.
        unsafe { self.quads.get_unchecked((k * Self::STRIDE + r) / 4) }
            .0
            .map(A::from)
    }
}

/// The nearest of the `cell_count` cells to each of the `count` nodes, distances summed in
/// `A`: with `candidates` null (one slice) into `best`, else each slice's best cell and its
/// distance into `candidates` and `distances` (`slice · count + node`).
///
/// # Safety
/// `nodes` holds `count · dim` values, `cells` `cell_count · dim`, `dim > 0`; blocks of
/// `BMU_THREADS` with `BMU_SHARED_BYTES`, `count.div_ceil(NODE_TILE)` in x,
/// `cell_count.div_ceil(slice_cells)` in y, `slice_cells` a multiple of `CELL_TILE`; `best`
/// holds `count` indices, or `candidates` and `distances` `gridDim.y · count` each.
#[inline(always)]
pub unsafe fn search<A: Accumulator>(p: Search)
where
    ArgMin: Operator<(A, u32)>,
{
    let Search {
        nodes,
        count,
        cells,
        cell_count,
        dim,
        slice_cells,
        best,
        candidates,
        distances,
    } = p;
    let (tx, ty) = (thread_x() % 16, thread_x() / 16);
    let first_node = block_idx().x * NODE_TILE;
    let slice_start = block_idx().y * slice_cells;
    let slice_end = (slice_start as u64 + slice_cells as u64).min(cell_count as u64) as u32;
    // This thread's cells of a tile, in increasing order.
    let columns: [u32; 8] = core::array::from_fn(|j| 4 * tx + (j as u32 % 4) + 64 * (j as u32 / 4));
    // Each thread visits its cells in increasing order, so a strict `<` keeps the lowest index
    // of equal distances, and starting from its first cell at an infinite distance gives a
    // node that cell when no distance is finite (NaN never compares below).
    let mine = slice_start + columns[0];
    let mut found = [(A::INFINITY, if mine < slice_end { mine } else { u32::MAX }); 4];
    // With at most DIM_STEP dimensions, the nodes are staged once for the whole slice.
    let nodes_once = dim <= DIM_STEP;
    // SAFETY: the launch gives BMU_SHARED_BYTES: the staged nodes, then the staged cells, each
    // written only between the barrier after the last reads and the one before the next; every
    // loop bound is block-uniform, so the whole block reaches every barrier.
    unsafe {
        let node_rows = Staging::<NODE_TILE>::new(0, nodes, count, dim);
        let cell_rows = Staging::<CELL_TILE>::new(4 * DIM_STEP * NODE_STRIDE, cells, slice_end, dim);
        if nodes_once {
            node_rows.stage(first_node, 0, dim);
        }
        let mut first_cell = slice_start;
        while first_cell < slice_end {
            let mut sums = [[A::ZERO; 8]; 4];
            let mut k0 = 0;
            while k0 < dim {
                let step = (dim - k0).min(DIM_STEP);
                if !nodes_once {
                    node_rows.stage(first_node, k0, step);
                }
                cell_rows.stage(first_cell, k0, step);
                sync_threads();
                // Two dimensions a round: both rounds' shared reads are issued before their
                // arithmetic, which hides the read latency the short-scoreboard stalls showed.
                let read = |k: u32| {
                    let x = node_rows.four::<A>(k, 4 * ty);
                    let [w0, w1] = [0, 64].map(|half| cell_rows.four::<A>(k, half + 4 * tx));
                    let w: [A; 8] = core::array::from_fn(|j| if j < 4 { w0[j] } else { w1[j - 4] });
                    (x, w)
                };
                let add = |sums: &mut [[A; 8]; 4], (x, w): ([A; 4], [A; 8])| {
                    for (row, &x) in sums.iter_mut().zip(&x) {
                        for (sum, &w) in row.iter_mut().zip(&w) {
                            let t = x - w;
                            *sum = t.fma(t, *sum);
                        }
                    }
                };
                let mut k = 0;
                while k + 2 <= step {
                    let (first, second) = (read(k), read(k + 1));
                    add(&mut sums, first);
                    add(&mut sums, second);
                    k += 2;
                }
                if k < step {
                    add(&mut sums, read(k));
                }
                sync_threads();
                k0 += step;
            }
            for (found, row) in found.iter_mut().zip(&sums) {
                for (&d, &column) in row.iter().zip(&columns) {
                    let cell = first_cell + column;
                    if cell < slice_end && d < found.0 {
                        *found = (d, cell);
                    }
                }
            }
            first_cell += CELL_TILE;
        }
        // The 16 threads of a node row are a logical warp of 16 lanes.
        for found in found.iter_mut() {
            *found = LogicalWarp::<16>::arg_min(found.0, found.1);
        }
        if tx == 0 {
            for (i, &(d, cell)) in found.iter().enumerate() {
                let node = first_node + 4 * ty + i as u32;
                if node < count {
                    if candidates.is_null() {
                        *best.add(node as usize) = cell;
                    } else {
                        let at = block_idx().y as usize * count as usize + node as usize;
                        *candidates.add(at) = cell;
                        *distances.add(at) = d.into();
                    }
                }
            }
        }
    }
}

own_kernel! {
    /// Parameters of the combine: each node's best of its `slices` candidates.
    pub struct Combine {
        /// `slices · count` candidates and their distances (`slice · count + node`).
        #[len(u128::from(slices) * u128::from(count))]
        pub candidates: *const u32,
        #[len(u128::from(slices) * u128::from(count))]
        pub distances: *const f64,
        pub slices: u32,
        pub count: u32,
        /// A cell a node.
        #[len(count)]
        pub best: *mut u32,
    }
    check |p, shape| shape.is_1d();
    /// The slices' candidates combined.
    fn combine => som_bmu_combine;
}

impl Combine {
    /// The launch: a thread a node, in blocks of [`COMBINE_THREADS`].
    pub const fn plan(&self) -> LaunchShape {
        LaunchShape::linear(
            (self.count as u64).div_ceil(COMBINE_THREADS as u64),
            COMBINE_THREADS,
            0,
        )
    }
}

/// Keeps the best of each node's `slices` candidates (`slice · count + node`): the smallest
/// distance, ties to the earlier slice (whose cells come first).
///
/// # Safety
/// `candidates` and `distances` hold `slices · count` entries, `best` `count`; any
/// one-dimensional grid.
#[inline(always)]
pub unsafe fn combine(p: Combine) {
    let Combine {
        candidates,
        distances,
        slices,
        count,
        best,
    } = p;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slicing_fills_the_last_wave() {
        let limits = Limits::h100_like(132);
        // The article's case: 188 node tiles, 313 cell tiles, 4 blocks a multiprocessor.
        let s = Slicing::of(12_000, 40_000, 528, &limits);
        assert_eq!((s.slice_cells, s.slices), (23 * CELL_TILE, 14));
        // Enough node tiles for the waves: one slice, the whole map.
        let s = Slicing::of(1 << 20, 40_000, 528, &limits);
        assert_eq!((s.slice_cells, s.slices), (313 * CELL_TILE, 1));
        // Fewer cell tiles than wanted slices: a slice a tile.
        let s = Slicing::of(64, 300, 528, &limits);
        assert_eq!((s.slice_cells, s.slices), (CELL_TILE, 3));
        // Every slicing covers the cells, in whole tiles, the last slice not empty.
        for (count, cells) in [
            (1, 1),
            (100, 129),
            (5000, 77_777),
            (12_000, 40_000),
            (70_000, 9_000),
        ] {
            let s = Slicing::of(count, cells, 528, &limits);
            assert_eq!(s.slice_cells % CELL_TILE, 0);
            assert!(s.slices * s.slice_cells >= cells && (s.slices - 1) * s.slice_cells < cells);
        }
    }
}
