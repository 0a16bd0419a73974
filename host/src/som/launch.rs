//! Self-organizing maps on a device. Best-matching units: one launch of `som_bmu_f32` or
//! `som_bmu_f64` over tiles of nodes and slices of the cells (slices where the node tiles alone
//! make fewer than two waves of blocks), then `som_bmu_combine` of the slices' candidates.
//! Training: a batch epoch is that search and three launches; an online epoch one launch a
//! node.

use super::cpu::Shape;
use super::schedule::Schedule;
use super::{Accumulate, Training};
use crate::error::Result;
use crate::runtime::device::{Device, DeviceBuffer};
use warpkit_kernels::som::BmuKernels;
use warpkit_kernels::som::batch::{
    self, Magnitudes, SmoothColumns, SmoothRows, som_accumulate, som_magnitudes, som_smooth_columns,
    som_smooth_rows,
};
use warpkit_kernels::som::bmu::{Combine, Search, Slicing, som_bmu_combine};
use warpkit_kernels::som::online::{Step, plan_step};

/// The nearest cell to each node into `out` (lengths checked by the caller).
pub(super) fn best_matching_units_into(
    d: &Device,
    nodes: &DeviceBuffer<f32>,
    cells: &DeviceBuffer<f32>,
    dim: u32,
    accumulate: Accumulate,
    out: &mut DeviceBuffer<u32>,
) -> Result<()> {
    match accumulate {
        Accumulate::F32 => search::<f32>(d, nodes, cells, dim, out),
        Accumulate::F64 => search::<f64>(d, nodes, cells, dim, out),
    }
}

fn search<A: BmuKernels>(
    d: &Device,
    nodes: &DeviceBuffer<f32>,
    cells: &DeviceBuffer<f32>,
    dim: u32,
    out: &mut DeviceBuffer<u32>,
) -> Result<()> {
    let count = (nodes.len() / dim as usize) as u32;
    let cell_count = (cells.len() / dim as usize) as u32;
    let (node_ptr, cell_ptr, best) = (d.ptr(nodes)?, d.ptr(cells)?, d.ptr_mut(out)?);
    let block = Search::BLOCK;
    let resident = d.resident_blocks::<A::Search>(block.block[0], block.shared_bytes)?;
    let Slicing { slice_cells, slices } = Slicing::of(count, cell_count, resident, &d.limits().launch);
    let candidates_bytes = slices as usize * count as usize * (4 + 8);
    let mut scratch = d.scratch(if slices > 1 { candidates_bytes } else { 0 })?;
    let (candidates, distances) = match slices {
        1 => (std::ptr::null_mut(), std::ptr::null_mut()),
        _ => {
            // The distances (8-byte aligned: the scratch is 256-byte aligned) come first, then
            // the candidates, inside the scratch's `candidates_bytes`.
            let base = d.ptr_mut(scratch.as_mut().expect("scratch allocated"))?;
            let candidates = base.wrapping_add(slices as usize * count as usize * 8);
            (candidates.cast::<u32>(), base.cast::<f64>())
        }
    };
    let p = Search {
        nodes: node_ptr,
        count,
        cells: cell_ptr,
        cell_count,
        dim,
        slice_cells,
        best,
        candidates,
        distances,
    };
    // SAFETY: `count · dim` nodes and `cell_count · dim` cells; the plan's block a node tile
    // and slice of `slice_cells` (a multiple of CELL_TILE); one slice writes `out`'s `count`
    // indices, several a candidate each in the scratch (held until both launches are queued),
    // which the combine then reads.
    unsafe {
        d.launch::<A::Search>(p.plan(), p)?;
        if slices > 1 {
            let q = Combine {
                candidates: candidates.cast_const(),
                distances: distances.cast_const(),
                slices,
                count,
                best,
            };
            d.launch::<som_bmu_combine>(q.plan(), q)?;
        }
    }
    Ok(())
}

/// Trains the map in `weights` on `nodes` (shapes checked by the caller).
pub(super) fn train(
    d: &Device,
    nodes: &DeviceBuffer<f32>,
    weights: &mut DeviceBuffer<f32>,
    shape: Shape,
    schedule: &Schedule,
    training: Training,
) -> Result<()> {
    match (training, schedule.accumulate) {
        (Training::Batch, _) => train_batch(d, nodes, weights, shape, schedule),
        (Training::Online, Accumulate::F32) => online::<f32>(d, nodes, weights, shape, schedule),
        (Training::Online, Accumulate::F64) => online::<f64>(d, nodes, weights, shape, schedule),
    }
}

/// [`super::Som::train_batch`] on a device: `som_magnitudes` once, then per epoch the search, a
/// clear of the sums, `som_accumulate`, `som_smooth_rows` and `som_smooth_columns`.
fn train_batch(
    d: &Device,
    nodes: &DeviceBuffer<f32>,
    weights: &mut DeviceBuffer<f32>,
    shape: Shape,
    schedule: &Schedule,
) -> Result<()> {
    let (cells, dim) = ((shape.rows * shape.cols) as u32, shape.dim as u32);
    let count = (nodes.len() / shape.dim) as u32;
    let planes = dim + 1;
    let mut largest = d.zeros::<u32>(shape.dim)?;
    let mut best = d.workspace::<u32>(count as usize)?;
    let mut sums = d.workspace::<u64>((planes * cells) as usize)?;
    let mut rows_done = d.workspace::<f64>((planes * cells) as usize)?;
    let node_ptr = d.ptr(nodes)?;
    let (sums_ptr, rows_ptr) = (d.ptr_mut(&mut sums)?, d.ptr_mut(&mut rows_done)?);
    let largest_ptr = d.ptr_mut(&mut largest)?;
    let p = Magnitudes {
        nodes: node_ptr,
        count,
        dim,
        largest: largest_ptr,
    };
    // SAFETY: `count · dim` nodes, `dim` zeroed words.
    unsafe { d.launch::<som_magnitudes>(p.plan(), p)? };
    let largest = largest_ptr.cast_const();
    for e in 0..schedule.epochs {
        let epoch = schedule.epoch(e, shape.rows.max(shape.cols));
        let gaussian = d.upload(&epoch.gaussian)?;
        let table = d.ptr(&gaussian)?;
        super::best_matching_units_into(d, nodes, weights, dim as usize, schedule.accumulate, &mut best)?;
        d.zero_prefix(&mut sums, (planes * cells) as usize)?;
        let (best_ptr, weight_ptr) = (d.ptr(&best)?, d.ptr_mut(weights)?);
        let (rows, cols, radius) = (shape.rows as u32, shape.cols as u32, epoch.radius);
        let accumulate = batch::Accumulate {
            nodes: node_ptr,
            count,
            dim,
            best: best_ptr,
            largest,
            cells,
            sums: sums_ptr,
        };
        let smooth_rows = SmoothRows {
            sums: sums_ptr.cast_const(),
            largest,
            count,
            rows,
            cols,
            planes,
            table,
            radius,
            out: rows_ptr,
        };
        let smooth_columns = SmoothColumns {
            rows_done: rows_ptr.cast_const(),
            rows,
            cols,
            dim,
            table,
            radius,
            weights: weight_ptr,
        };
        // SAFETY: `count · dim` nodes with `count` best cells below `cells`, `dim` magnitudes,
        // `planes · cells` sums and row-smoothed values, `cells · dim` weights, `radius + 1`
        // taps of this epoch's table (freed in stream order after these launches); lengths fit
        // 32 bits (checked by the caller); one-dimensional grids.
        unsafe {
            d.launch::<som_accumulate>(accumulate.plan(), accumulate)?;
            d.launch::<som_smooth_rows>(smooth_rows.plan(), smooth_rows)?;
            d.launch::<som_smooth_columns>(smooth_columns.plan(), smooth_columns)?;
        }
    }
    Ok(())
}

/// [`super::Som::train_online`] on a device: per epoch, one launch a node in the schedule's
/// order (each finishing the step before it), and one to finish the last.
fn online<A: BmuKernels>(
    d: &Device,
    nodes: &DeviceBuffer<f32>,
    weights: &mut DeviceBuffer<f32>,
    shape: Shape,
    schedule: &Schedule,
) -> Result<()> {
    let (cells, dim, cols) = (
        (shape.rows * shape.cols) as u32,
        shape.dim as u32,
        shape.cols as u32,
    );
    let count = nodes.len() / shape.dim;
    // One grid for every launch: each block owns the same cells in all of them.
    let launch = d.cap_to_resident::<A::Online>(plan_step(cells), 1)?;
    let blocks = launch.grid[0];
    let mut distances = d.workspace::<f64>(2 * blocks as usize)?;
    let mut indices = d.workspace::<u32>(2 * blocks as usize)?;
    let (dist_ptr, index_ptr) = (d.ptr_mut(&mut distances)?, d.ptr_mut(&mut indices)?);
    let (node_ptr, weight_ptr) = (d.ptr(nodes)?, d.ptr_mut(weights)?);
    for e in 0..schedule.epochs {
        let epoch = schedule.epoch(e, shape.rows.max(shape.cols));
        let table = d.upload(&epoch.online_table())?;
        let table_ptr = d.ptr(&table)?;
        let order = schedule.order(count, e);
        let node = |t: usize| match order.get(t) {
            Some(&i) => node_ptr.wrapping_add(i as usize * shape.dim),
            None => std::ptr::null(),
        };
        for t in 0..=count {
            let previous = if t == 0 { std::ptr::null() } else { node(t - 1) };
            let p = Step {
                weights: weight_ptr,
                cells,
                dim,
                cols,
                radius: epoch.radius,
                table: table_ptr,
                previous,
                next: node(t),
                parity: (t % 2) as u32,
                distances: dist_ptr,
                indices: index_ptr,
            };
            // SAFETY: `cells · dim` weights of a map `cols` wide, nodes of `dim` inside
            // `nodes`, the epoch's table of `2 · (radius + 1)`, `2 · blocks` candidates of which
            // launch `t − 1` of the same grid filled the half this one reads; the table is held
            // until the launches that read it are queued, and the device orders its release
            // after them.
            unsafe { d.launch::<A::Online>(launch, p)? };
        }
    }
    Ok(())
}
