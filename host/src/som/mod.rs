//! Self-organizing maps: the best-matching-unit search, and [`Som`], a rectangular
//! map trained in batch or online epochs by a [`Schedule`].
//!
//! ```
//! use warpkit::Backend;
//! use warpkit::som::{Schedule, Som};
//!
//! // 400 points on a line, and a 1 × 10 map trained on them: its cells end up in order.
//! let points: Vec<f32> = (0..400).map(|i| ((i * 37) % 400) as f32 / 400.0).collect();
//! let mut map = Som::random(1, 10, 1, &points, 7)?;
//! map.train_batch(&Backend::cpu(), &points, &Schedule::for_map(1, 10, 20))?;
//! let w = map.weights();
//! assert!(w.windows(2).all(|p| p[0] < p[1]) || w.windows(2).all(|p| p[0] > p[1]));
//! # Ok::<(), warpkit::Error>(())
//! ```
//!
//! ```
//! use warpkit::Backend;
//! use warpkit::som::{Accumulate, best_matching_units};
//!
//! // Three 2-dimensional cells; the second and third are equal, so the second wins their tie.
//! let cells = [0.0f32, 0.0, 1.0, 1.0, 1.0, 1.0];
//! let nodes = [0.9f32, 1.2, -0.1, 0.3];
//! let best = best_matching_units(&Backend::cpu(), &nodes, &cells, 2, Accumulate::F32)?;
//! assert_eq!(best, [1, 0]);
//! # Ok::<(), warpkit::Error>(())
//! ```
//!
//! Each of `count` nodes (vectors of `dim` f32, row-major) gets the index of its nearest cell
//! of the map (`cell_count` vectors of the same dimension, row-major; a rectangular map's cells
//! in row-major order) by squared Euclidean distance `Σ (x − w)²`, summed in dimension order,
//! ties to the lowest index. [`Accumulate`] says whether the sum is kept in f32 or f64; each
//! term `t·t + sum` is rounded once (an FMA), and in f64 the difference of two f32 values within
//! a factor of 2^29 of each other is exact. Every backend sums the same way: the CPU backend (rayon) gives
//! the same indices as a device, and is the tests' reference.
//!
//! Devices tile the search like a matrix product ([`warpkit_kernels::som`]): 64 nodes against 128
//! cells a block, the distances of 4 × 8 pairs a thread in registers.

mod cpu;
mod launch;
mod map;
mod schedule;
#[cfg(feature = "glam")]
mod vectors;

pub use map::{Som, Training, train_into};
pub use schedule::{Decay, MIN_RADIUS, Progress, Schedule};
#[cfg(feature = "glam")]
pub use vectors::{Vector, flat};

use crate::error::{Error, Result, check_len, check_not_empty, check_same_len, check_whole_vectors};
use crate::runtime::backend::Backend;
use crate::runtime::device::{Device, DeviceBuffer};
use warpkit_kernels::som::bmu::CELL_TILE;

/// The type distances are summed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Accumulate {
    /// f32: two instructions a pair and dimension; near-ties (distances within an f32 rounding)
    /// may go either way.
    F32,
    /// f64: 29 more bits a term, about twice the time on an H100.
    F64,
}

/// The index of the nearest cell to each node: `nodes` holds `count × dim` values, `cells`
/// `cell_count × dim`, both row-major and finite.
pub fn best_matching_units(
    backend: &Backend,
    nodes: &[f32],
    cells: &[f32],
    dim: usize,
    accumulate: Accumulate,
) -> Result<Vec<u32>> {
    let count = check(nodes.len(), cells.len(), dim)?;
    check_finite("nodes", nodes)?;
    check_finite("cells", cells)?;
    match backend {
        Backend::Cpu(_) => Ok(cpu::best_matching_units(nodes, cells, dim, accumulate)),
        Backend::Device(d) => {
            let mut out = d.workspace::<u32>(count)?;
            let (nodes, cells) = (d.upload(nodes)?, d.upload(cells)?);
            best_matching_units_into(d, &nodes, &cells, dim, accumulate, &mut out)?;
            d.download(&out)
        }
    }
}

/// [`best_matching_units`] of device buffers into `out` (an index a node) on the same device,
/// without waiting for it. The values are not checked here: a NaN distance counts as infinite,
/// so every node still gets a cell.
pub fn best_matching_units_into(
    device: &Device,
    nodes: &DeviceBuffer<f32>,
    cells: &DeviceBuffer<f32>,
    dim: usize,
    accumulate: Accumulate,
    out: &mut DeviceBuffer<u32>,
) -> Result<()> {
    let count = check(nodes.len(), cells.len(), dim)?;
    check_same_len("best matching units output", count, out.len())?;
    launch::best_matching_units_into(device, nodes, cells, dim as u32, accumulate, out)
}

/// Refuses NaN and infinite values, naming the first.
fn check_finite(what: &'static str, values: &[f32]) -> Result<()> {
    match values.iter().position(|v| !v.is_finite()) {
        Some(index) => Err(Error::NotFinite { what, index }),
        None => Ok(()),
    }
}

/// The node count, after refusing a dimension of 0, empty nodes or cells, lengths that are not
/// whole vectors and lengths the device's 32-bit indices cannot hold.
fn check(nodes: usize, cells: usize, dim: usize) -> Result<usize> {
    if dim == 0 {
        return Err(Error::OutOfRange {
            what: "dimension",
            value: 0,
            min: 1,
            max: crate::MAX_LEN,
        });
    }
    for (what, len) in [("nodes", nodes), ("cells", cells)] {
        check_not_empty(what, len)?;
        check_len(what, len, crate::MAX_LEN)?;
        check_whole_vectors(what, len, dim)?;
    }
    // The kernels count cells a tile at a time in 32 bits: the last tile must start and end
    // below 2^32.
    check_len("cells", cells / dim, crate::MAX_LEN - 2 * CELL_TILE as u64)?;
    Ok(nodes / dim)
}
