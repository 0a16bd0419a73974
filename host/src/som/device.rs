//! Best-matching units on a device: one launch of `som_bmu_f32` or `som_bmu_f64` over tiles of
//! nodes and slices of the cells (slices where the node tiles alone make fewer than two waves
//! of blocks), then `som_bmu_combine` of the slices' candidates.

use super::Accumulate;
use crate::error::Result;
use crate::runtime::device::{Device, DeviceBuffer, LaunchShape};
use warpkit_kernels::som::BmuKernels;
use warpkit_kernels::som::bmu::{BMU_SHARED_BYTES, BMU_THREADS, CELL_TILE, NODE_TILE, som_bmu_combine};

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
