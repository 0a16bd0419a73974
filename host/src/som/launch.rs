//! Self-organizing maps on a device. Best-matching units: one launch of `som_bmu_f32` or
//! `som_bmu_f64` over tiles of nodes and slices of the cells (slices where the node tiles alone
//! make fewer than two waves of blocks), then `som_bmu_combine` of the slices' candidates.
//! Training: a batch epoch is that search and three launches; an online epoch one cooperative
//! launch.

use super::cpu::Shape;
use super::schedule::Schedule;
use super::{Accumulate, Training};
use crate::error::Result;
use crate::runtime::bindings::Bindings;
use crate::runtime::device::{Device, DeviceBuffer};
use warpkit_kernels::kernel::Kernel;
use warpkit_kernels::launch::LaunchShape;
use warpkit_kernels::som::BmuKernels;
use warpkit_kernels::som::batch::{
    self, Gaussian, Magnitudes, SmoothColumns, SmoothRows, som_accumulate, som_magnitudes,
    som_smooth_columns, som_smooth_rows,
};
use warpkit_kernels::som::bmu::{Combine, Search, Slicing, som_bmu_combine};
use warpkit_kernels::som::online::{Epoch, ONLINE_THREADS, plan_epoch, posts_len};

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
    let block = Search::BLOCK;
    let resident = d.resident_blocks::<A::Search>(block.block[0], block.shared_bytes)?;
    let Slicing { slice_cells, slices } = Slicing::of(count, cell_count, resident, &d.limits().launch);
    let plain = Search {
        nodes: std::ptr::null(),
        count,
        cells: std::ptr::null(),
        cell_count,
        dim,
        slice_cells,
        best: std::ptr::null_mut(),
        candidates: std::ptr::null_mut(),
        distances: std::ptr::null_mut(),
    };
    if slices == 1 {
        let mut b = d.bind();
        let p = Search {
            nodes: b.read(nodes)?,
            cells: b.read(cells)?,
            best: b.write(out)?,
            ..plain
        };
        return b.launch::<A::Search>(p.plan(), p);
    }
    // Each slice's candidates and their distances go to the scratch: the distances first
    // (8-byte aligned: the scratch is 256-byte aligned), then the candidates.
    let entries = slices as usize * count as usize;
    let mut scratch = d.scratch(entries * (8 + 4))?;
    let scratch = scratch.as_mut().expect("scratch allocated");
    let mut b = d.bind();
    let base = b.write(scratch)?;
    let p = Search {
        nodes: b.read(nodes)?,
        cells: b.read(cells)?,
        candidates: base.wrapping_add(entries * 8).cast(),
        distances: base.cast(),
        ..plain
    };
    b.launch::<A::Search>(p.plan(), p)?;
    let mut b = d.bind();
    let base = b.read(scratch)?;
    let q = Combine {
        candidates: base.wrapping_add(entries * 8).cast(),
        distances: base.cast(),
        slices,
        count,
        best: b.write(out)?,
    };
    b.launch::<som_bmu_combine>(q.plan(), q)
}

/// A training run on a device: the map's weights, of this shape, trained in place on `nodes`
/// by the schedule (shapes checked by the caller).
pub(super) struct Run<'a> {
    pub d: &'a Device,
    pub nodes: &'a DeviceBuffer<f32>,
    pub weights: &'a mut DeviceBuffer<f32>,
    pub shape: Shape,
    pub schedule: &'a Schedule,
}

/// Trains the map by `training`, calling `after_epoch` with each epoch's index once its launches
/// are queued.
pub(super) fn train(run: Run, training: Training, after_epoch: AfterEpoch) -> Result<()> {
    match (training, run.schedule.accumulate) {
        (Training::Batch, _) => train_batch(run, after_epoch),
        (Training::Online, Accumulate::F32) => online::<f32>(run, after_epoch),
        (Training::Online, Accumulate::F64) => online::<f64>(run, after_epoch),
    }
}

/// What a training run calls after each epoch: given the epoch's index, it may wait for the
/// device and report progress.
pub(super) type AfterEpoch<'a> = &'a mut dyn FnMut(u32) -> Result<()>;

/// [`super::Som::train_batch`] on a device: `som_magnitudes` once, then per epoch the search, a
/// clear of the sums, `som_accumulate`, `som_smooth_rows` and `som_smooth_columns`.
fn train_batch(run: Run, after_epoch: AfterEpoch) -> Result<()> {
    let Run {
        d,
        nodes,
        weights,
        shape,
        schedule,
    } = run;
    let (cells, dim) = ((shape.rows * shape.cols) as u32, shape.dim as u32);
    let count = (nodes.len() / shape.dim) as u32;
    let planes = dim + 1;
    let mut largest = d.zeros::<u32>(shape.dim)?;
    let mut best = d.workspace::<u32>(count as usize)?;
    let mut sums = d.workspace::<u64>((planes * cells) as usize)?;
    let mut rows_done = d.workspace::<f64>((planes * cells) as usize)?;
    let mut b = d.bind();
    let p = Magnitudes {
        nodes: b.read(nodes)?,
        count,
        dim,
        largest: b.write(&mut largest)?,
    };
    b.launch::<som_magnitudes>(p.plan(), p)?;
    let (rows, cols) = (shape.rows as u32, shape.cols as u32);
    for e in 0..schedule.epochs {
        let epoch = schedule.epoch(e, shape.rows.max(shape.cols));
        let table = d.upload(&epoch.gaussian)?;
        let radius = epoch.radius;
        super::best_matching_units_into(d, nodes, weights, dim as usize, schedule.accumulate, &mut best)?;
        d.zero_prefix(&mut sums, (planes * cells) as usize)?;
        let mut b = d.bind();
        let p = batch::Accumulate {
            nodes: b.read(nodes)?,
            count,
            dim,
            best: b.read(&best)?,
            largest: b.read(&largest)?,
            cells,
            sums: b.write(&mut sums)?,
        };
        b.launch::<som_accumulate>(p.plan(), p)?;
        let mut b = d.bind();
        let p = SmoothRows {
            sums: b.read(&sums)?,
            largest: b.read(&largest)?,
            count,
            rows,
            cols,
            planes,
            gaussian: gaussian(&mut b, &table, radius)?,
            out: b.write(&mut rows_done)?,
        };
        b.launch::<som_smooth_rows>(p.plan(), p)?;
        let mut b = d.bind();
        let p = SmoothColumns {
            rows_done: b.read(&rows_done)?,
            rows,
            cols,
            dim,
            gaussian: gaussian(&mut b, &table, radius)?,
            weights: b.write(weights)?,
        };
        b.launch::<som_smooth_columns>(p.plan(), p)?;
        after_epoch(e)?;
    }
    Ok(())
}

/// The epoch's Gaussian as the smoothing kernels take it: its `radius + 1` taps in `table`,
/// bound in `b`.
fn gaussian<'a>(b: &mut Bindings<'a>, table: &'a DeviceBuffer<f64>, radius: u32) -> Result<Gaussian> {
    Ok(Gaussian {
        table: b.read(table)?,
        radius,
    })
}

/// The launch of an online epoch, every block resident at once, and whether its blocks stage
/// their cells in shared memory: where a block a [`ONLINE_THREADS`] cells fits and the device
/// holds all of them at once, else with the cells in place on the blocks it holds.
fn epoch_launch<K: Kernel>(d: &Device, cells: u32, dim: u32) -> Result<(LaunchShape, bool)> {
    let staged = plan_epoch(cells, dim, true);
    if staged.shared_bytes <= d.limits().launch.shared_per_block_optin
        && d.resident_blocks::<K>(ONLINE_THREADS, staged.shared_bytes)? >= u64::from(staged.grid[0])
    {
        return Ok((staged, true));
    }
    Ok((d.cap_to_resident::<K>(plan_epoch(cells, dim, false), 1)?, false))
}

/// [`super::Som::train_online`] on a device: one cooperative launch an epoch, its blocks
/// exchanging their candidates once a node.
fn online<A: BmuKernels>(run: Run, after_epoch: AfterEpoch) -> Result<()> {
    let (d, nodes, weights) = (run.d, run.nodes, run.weights);
    let (shape, schedule) = (run.shape, run.schedule);
    let (cells, dim, cols) = (
        (shape.rows * shape.cols) as u32,
        shape.dim as u32,
        shape.cols as u32,
    );
    let count = nodes.len() / shape.dim;
    let (launch, staged) = epoch_launch::<A::Online>(d, cells, dim)?;
    let posts_len = posts_len(launch.grid[0]) as usize;
    let mut posts = d.workspace::<u64>(posts_len)?;
    for e in 0..schedule.epochs {
        let epoch = schedule.epoch(e, shape.rows.max(shape.cols));
        let table = d.upload(&epoch.online_table())?;
        let order = d.upload(&schedule.order(count, e))?;
        let mut b = d.bind();
        let p = Epoch {
            weights: b.write(weights)?,
            cells,
            dim,
            cols,
            radius: epoch.radius,
            table: b.read(&table)?,
            nodes: b.read(nodes)?,
            count: count as u32,
            order: b.read(&order)?,
            posts: b.write_zeroed(&mut posts, posts_len)?,
            staged: staged.into(),
        };
        b.launch::<A::Online>(launch, p)?;
        after_epoch(e)?;
    }
    Ok(())
}
