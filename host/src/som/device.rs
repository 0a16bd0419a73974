//! Self-organizing maps on a device. Best-matching units: one launch of `som_bmu_f32` or
//! `som_bmu_f64` over tiles of nodes and slices of the cells (slices where the node tiles alone
//! make fewer than two waves of blocks), then `som_bmu_combine` of the slices' candidates.
//! Training: a batch epoch is that search and three launches; an online epoch one launch a
//! node.

use super::cpu::Shape;
use super::schedule::Schedule;
use super::{Accumulate, Training};
use crate::error::Result;
use crate::runtime::device::{Device, DeviceBuffer, LaunchShape};
use warpkit_kernels::som::BmuKernels;
use warpkit_kernels::som::batch::{
    MAGNITUDE_RUN, som_accumulate, som_magnitudes, som_smooth_columns, som_smooth_rows,
};
use warpkit_kernels::som::bmu::{BMU_SHARED_BYTES, BMU_THREADS, CELL_TILE, NODE_TILE, som_bmu_combine};
use warpkit_kernels::som::online::{ONLINE_SHARED_BYTES, ONLINE_THREADS};

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
    let tiles = count.div_ceil(NODE_TILE) as u64;
    let waves = 2 * d.resident_blocks::<A::Search>(BMU_THREADS, BMU_SHARED_BYTES)?;
    let cell_tiles = cell_count.div_ceil(CELL_TILE) as u64;
    let wanted = waves.div_ceil(tiles).clamp(1, cell_tiles.min(65535));
    let slice_cells = (cell_tiles.div_ceil(wanted) as u32) * CELL_TILE;
    let slices = cell_count.div_ceil(slice_cells);
    let candidates_bytes = slices as usize * count as usize * (4 + 8);
    let mut scratch = d.scratch(if slices > 1 { candidates_bytes } else { 0 })?;
    let (candidates, distances) = match slices {
        1 => (std::ptr::null_mut(), std::ptr::null_mut()),
        _ => {
            let base = d.ptr_mut(scratch.as_mut().expect("scratch allocated"))?;
            // SAFETY: the distances (8-byte aligned: the scratch is 256-byte aligned) come first,
            // then the candidates, inside the scratch's `candidates_bytes`.
            let distances = base.cast::<f64>();
            (
                unsafe { base.add(slices as usize * count as usize * 8) }.cast::<u32>(),
                distances,
            )
        }
    };
    let shape = LaunchShape {
        grid: [tiles as u32, slices, 1],
        block: [BMU_THREADS, 1, 1],
        shared_bytes: BMU_SHARED_BYTES,
    };
    let args = (
        node_ptr,
        count,
        cell_ptr,
        cell_count,
        dim,
        slice_cells,
        best,
        candidates,
        distances,
    );
    // SAFETY: `count · dim` nodes and `cell_count · dim` cells; a block a node tile and slice
    // of `slice_cells` (a multiple of CELL_TILE); one slice writes `out`'s `count` indices,
    // several a candidate each in the scratch (held until both launches are queued), which the
    // combine then reads.
    unsafe {
        d.launch::<A::Search>(shape, args)?;
        if slices > 1 {
            let blocks = (count as u64).div_ceil(256);
            let args = (
                candidates.cast_const(),
                distances.cast_const(),
                slices,
                count,
                best,
            );
            d.launch::<som_bmu_combine>(LaunchShape::linear(blocks, 256, 0), args)?;
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
    let threads = 256;
    let blocks = |work: u32| (work as u64).div_ceil(threads as u64).min(65535);
    let shape_for = |work| LaunchShape::linear(blocks(work), threads, 0);
    let largest_ptr = d.ptr_mut(&mut largest)?;
    // SAFETY: `count · dim` nodes, `dim` zeroed words.
    unsafe {
        let runs = count.div_ceil(MAGNITUDE_RUN);
        d.launch::<som_magnitudes>(shape_for(runs * dim), (node_ptr, count, dim, largest_ptr))?;
    }
    let largest = largest_ptr.cast_const();
    for e in 0..schedule.epochs {
        let epoch = schedule.epoch(e, shape.rows.max(shape.cols));
        let gaussian = d.upload(&epoch.gaussian)?;
        let table = d.ptr(&gaussian)?;
        super::best_matching_units_into(d, nodes, weights, dim as usize, schedule.accumulate, &mut best)?;
        d.zero_prefix(&mut sums, (planes * cells) as usize)?;
        let (best_ptr, weight_ptr) = (d.ptr(&best)?, d.ptr_mut(weights)?);
        let (rows, cols, radius) = (shape.rows as u32, shape.cols as u32, epoch.radius);
        // SAFETY: `count · dim` nodes with `count` best cells below `cells`, `dim` magnitudes,
        // `planes · cells` sums and row-smoothed values, `cells · dim`
        // weights, `radius + 1` taps of this epoch's table (freed in stream order after these
        // launches); lengths fit 32 bits (checked by the caller); one-dimensional grids.
        unsafe {
            let args = (node_ptr, count, dim, best_ptr, largest, cells, sums_ptr);
            d.launch::<som_accumulate>(shape_for(count * planes), args)?;
            let sums = sums_ptr.cast_const();
            let args = (sums, largest, count, rows, cols, planes, table, radius, rows_ptr);
            d.launch::<som_smooth_rows>(shape_for(planes * cells), args)?;
            let args = (rows_ptr.cast_const(), rows, cols, dim, table, radius, weight_ptr);
            d.launch::<som_smooth_columns>(shape_for(dim * cells), args)?;
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
    let resident = d.resident_blocks::<A::Online>(ONLINE_THREADS, ONLINE_SHARED_BYTES)?;
    let blocks = (cells as u64).div_ceil(ONLINE_THREADS as u64).min(resident);
    let mut distances = d.workspace::<f64>(2 * blocks as usize)?;
    let mut indices = d.workspace::<u32>(2 * blocks as usize)?;
    let (dist_ptr, index_ptr) = (d.ptr_mut(&mut distances)?, d.ptr_mut(&mut indices)?);
    let (node_ptr, weight_ptr) = (d.ptr(nodes)?, d.ptr_mut(weights)?);
    let launch_shape = LaunchShape::linear(blocks, ONLINE_THREADS, ONLINE_SHARED_BYTES);
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
            let args = (
                weight_ptr,
                cells,
                dim,
                cols,
                epoch.radius,
                table_ptr,
                previous,
                node(t),
                (t % 2) as u32,
                dist_ptr,
                index_ptr,
            );
            // SAFETY: `cells · dim` weights of a map `cols` wide, nodes of `dim` inside
            // `nodes`, the epoch's table of `2 · (radius + 1)`, `2 · blocks` candidates of which
            // launch `t − 1` of the same grid filled the half this one reads; the table is held
            // until the launches that read it are queued, and the device orders its release
            // after them.
            unsafe { d.launch::<A::Online>(launch_shape, args)? };
        }
    }
    Ok(())
}
