//! Online training, one node at a time: the node's best cell, then every cell within the
//! Gaussian's window moved toward it, `w += rate · g(Δrow) · g(Δcol) · (x − w)`. Each step needs
//! the whole map's answer before the next can start, so a device runs one launch a node: launch
//! `t` first finishes step `t − 1` (combines the blocks' candidates for its node, then updates
//! the cells it owns) and then searches its cells for node `t` and leaves one candidate a block.
//! Each block owns the same contiguous run of cells in both halves, so a thread's update and
//! its next distances touch only its own cells and no barrier between blocks is needed: the
//! launch boundary is the grid's barrier.
//!
//! The result is the sequential algorithm's to the bit: distances are summed in dimension order
//! as in [`super::bmu`], ties go to the lowest cell (a thread walks its cells upward with a
//! strict `<`, then [`ArgMin`] keeps the lower index of equal distances), and the update is
//! [`pull`] with `c = (rate · g[|Δrow|]) · g[|Δcol|]` from the host's table.

use super::bmu::Accumulator;
use crate::block;
use crate::launch::LaunchShape;
use crate::op::{ArgMin, Operator, Words};
pub use crate::policy::som::ONLINE_THREADS;
use crate::simt::math::FastMath;
use crate::simt::shared::SharedSlice;
use crate::simt::{block_dim_x, block_x, grid_dim_x, thread_x, warps_per_block};

/// `w` moved toward `x` by `rate` (in [0, 1]): `(w − rate·w) + rate·x`, two FMAs, finite for
/// all finite `w` and `x` (`w + rate·(x − w)` overflows where `x − w` does). The host's
/// reference calls it too.
#[inline(always)]
pub fn pull(w: f32, x: f32, rate: f32) -> f32 {
    rate.fma(x, (-rate).fma(w, w))
}

/// Dynamic shared memory of a block: a candidate (f64 distance, index) a warp.
pub const ONLINE_SHARED_BYTES: u32 = (ONLINE_THREADS / 32) * 16;

own_kernel! {
    /// Parameters of one launch of online training (see [`step`]).
    pub struct Step {
        /// `cells · dim` f32 of a map `cols` wide.
        #[len(u128::from(cells) * u128::from(dim))]
        pub weights: *mut f32,
        pub cells: u32,
        pub dim: u32,
        pub cols: u32,
        pub radius: u32,
        /// `rate · g` then `g`, `radius + 1` each.
        #[len(2 * (u128::from(radius) + 1))]
        pub table: *const f32,
        /// The node whose step this launch finishes, `dim` f32, or null.
        #[len(if previous.is_null() { 0 } else { dim })]
        pub previous: *const f32,
        /// The node this launch searches for, `dim` f32, or null.
        #[len(if next.is_null() { 0 } else { dim })]
        pub next: *const f32,
        /// Which half of `distances` and `indices` this launch writes.
        pub parity: u32,
        /// `2 · gridDim.x` candidates: distances and cells.
        #[len(2 * u128::from(shape.grid[0]))]
        pub distances: *mut f64,
        #[len(2 * u128::from(shape.grid[0]))]
        pub indices: *mut u32,
    }
    check |p, shape| cols > 0 && shape.is_linear(ONLINE_THREADS, ONLINE_SHARED_BYTES);
    /// Distances summed in f32.
    fn step::<f32> => som_online_f32;
    /// Distances summed in f64.
    fn step::<f64> => som_online_f64;
}

/// The launch of every step of online training on a map of `cells` cells: a thread a cell, at
/// most the blocks the device holds at once (the host caps the grid, and keeps it for every
/// launch of an epoch: each block owns the same cells in every launch).
pub const fn plan_step(cells: u32) -> LaunchShape {
    LaunchShape::linear(
        (cells as u64).div_ceil(ONLINE_THREADS as u64),
        ONLINE_THREADS,
        ONLINE_SHARED_BYTES,
    )
}

/// This block's cells: a contiguous run, the same in every launch of one grid size.
#[inline(always)]
fn owned(cells: u32) -> (u32, u32) {
    let share = cells.div_ceil(grid_dim_x());
    let first = (block_x() * share).min(cells);
    (first, (first + share).min(cells))
}

/// One launch of online training: with `previous` non-null, finishes that node's step (the
/// best of the candidates in the half of `distances` and `indices` that `parity` does not name,
/// then the update of this block's cells within `radius` rows and columns of it, `table`
/// holding `rate · g` then `g`, `radius + 1` each); with `next` non-null, this block's best cell
/// for it (distances summed in `A`) into the half `parity` names (`parity · gridDim.x + block`).
///
/// # Safety
/// `weights` holds `cells · dim` f32 (`dim > 0`) of a map `cols` wide, `previous` and `next`
/// `dim` each unless null, `table` `2 · (radius + 1)`, `distances` and `indices` `2 · gridDim.x`
/// each, the half read filled by the launch before, of the same grid; blocks of
/// `ONLINE_THREADS` with `ONLINE_SHARED_BYTES`.
#[inline(always)]
pub unsafe fn step<A: Accumulator>(p: Step)
where
    ArgMin: Operator<(A, u32)> + Operator<(f64, u32)>,
    (A, u32): Words,
{
    let Step {
        weights,
        cells,
        dim,
        cols,
        radius,
        table,
        previous,
        next,
        parity,
        distances,
        indices,
    } = p;
    let (first, end) = owned(cells);
    let blocks = grid_dim_x() as usize;
    let (earlier, mine) = if parity == 0 { (blocks, 0) } else { (0, blocks) };
    // SAFETY: the launch gives ONLINE_SHARED_BYTES, a (f64, u32) slot a warp, used only inside
    // `block::reduce`; every branch below is uniform over the grid, so the whole block reaches
    // each reduction; cells are read and written only by the thread that owns them.
    unsafe {
        if !previous.is_null() {
            let wide = SharedSlice::<(f64, u32)>::carve(0, warps_per_block());
            let mut found = ArgMin.identity();
            let mut b = thread_x() as usize;
            while b < blocks {
                found = ArgMin.combine(found, (*distances.add(earlier + b), *indices.add(earlier + b)));
                b += block_dim_x() as usize;
            }
            let (_, winner) = block::reduce(found, ArgMin, wide);
            let (wr, wc) = (winner / cols, winner % cols);
            let mut cell = first + thread_x();
            while cell < end {
                let (r, c) = (cell / cols, cell % cols);
                let (dr, dc) = (r.abs_diff(wr), c.abs_diff(wc));
                if dr <= radius && dc <= radius {
                    let rate = *table.add(dr as usize) * *table.add((radius + 1 + dc) as usize);
                    let w = weights.add(cell as usize * dim as usize);
                    for k in 0..dim as usize {
                        *w.add(k) = pull(*w.add(k), *previous.add(k), rate);
                    }
                }
                cell += block_dim_x();
            }
        }
        if !next.is_null() {
            let narrow = SharedSlice::<(A, u32)>::carve(0, warps_per_block());
            let mine_first = first + thread_x();
            let mut found = (A::INFINITY, if mine_first < end { mine_first } else { u32::MAX });
            let mut cell = mine_first;
            while cell < end {
                let w = weights.add(cell as usize * dim as usize);
                let mut sum = A::ZERO;
                for k in 0..dim as usize {
                    let t = A::from(*next.add(k)) - A::from(*w.add(k));
                    sum = t.fma(t, sum);
                }
                if sum < found.0 {
                    found = (sum, cell);
                }
                cell += block_dim_x();
            }
            let (d, cell) = block::reduce(found, ArgMin, narrow);
            if thread_x() == 0 {
                *distances.add(mine + block_x() as usize) = d.into();
                *indices.add(mine + block_x() as usize) = cell;
            }
        }
    }
}
