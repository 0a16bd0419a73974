//! [`Som`]: a rectangular map of weight vectors and its training, batch and online.

use super::schedule::{Progress, Schedule};
use super::{Accumulate, best_matching_units, check_finite, cpu, launch};
use crate::error::{Error, Result, check_len, check_same_len, check_whole_vectors};
use crate::philox::Philox;
use crate::runtime::backend::Backend;
use crate::runtime::device::{Device, DeviceBuffer};
use rand_core::{RngCore, SeedableRng};
use std::time::Instant;

/// A self-organizing map: `rows × cols` cells, each a weight vector of `dim` f32, row-major
/// (cell `r · cols + c` holds `weights[(r · cols + c) · dim ..][.. dim]`).
///
/// With the `serde` feature a map is `Serialize` and `Deserialize` as its shape and weights; a
/// map read back is checked as [`Som::from_weights`] checks one.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(try_from = "Parts"))]
pub struct Som {
    rows: usize,
    cols: usize,
    dim: usize,
    weights: Vec<f32>,
}

/// A map as it is read, before [`Som::from_weights`] checks it.
#[cfg(feature = "serde")]
#[derive(serde::Deserialize)]
struct Parts {
    rows: usize,
    cols: usize,
    dim: usize,
    weights: Vec<f32>,
}

#[cfg(feature = "serde")]
impl TryFrom<Parts> for Som {
    type Error = Error;

    fn try_from(p: Parts) -> Result<Som> {
        Som::from_weights(p.rows, p.cols, p.dim, p.weights)
    }
}

/// `20 × 20 map of 3-value cells`.
impl std::fmt::Display for Som {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} × {} map of {}-value cells", self.rows, self.cols, self.dim)
    }
}

impl Som {
    /// A map whose weights are drawn uniformly, dimension by dimension, between the smallest
    /// and the largest value of `nodes` (`dim` a row) in that dimension, from warpkit's Philox
    /// stream keyed by `seed`: the same map on every machine.
    pub fn random(rows: usize, cols: usize, dim: usize, nodes: &[f32], seed: u64) -> Result<Som> {
        check_map(rows, cols, dim)?;
        check_nodes(nodes, dim)?;
        let mut low = nodes[..dim].to_vec();
        let mut high = low.clone();
        for row in nodes.chunks_exact(dim) {
            for ((l, h), &x) in low.iter_mut().zip(&mut high).zip(row) {
                (*l, *h) = (l.min(x), h.max(x));
            }
        }
        let mut rng = Philox::seed_from_u64(seed);
        let weights = (0..rows * cols * dim)
            .map(|i| {
                let (l, h) = (low[i % dim] as f64, high[i % dim] as f64);
                let u = (rng.next_u32() >> 8) as f64 / (1 << 24) as f64;
                (l + (h - l) * u) as f32
            })
            .collect();
        Ok(Som {
            rows,
            cols,
            dim,
            weights,
        })
    }

    /// A map of the given weights (`rows · cols · dim` finite values, row-major).
    pub fn from_weights(rows: usize, cols: usize, dim: usize, weights: Vec<f32>) -> Result<Som> {
        check_map(rows, cols, dim)?;
        check_same_len("weights", rows * cols * dim, weights.len())?;
        check_finite("weights", &weights)?;
        Ok(Som {
            rows,
            cols,
            dim,
            weights,
        })
    }

    /// Rows of cells.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Columns of cells.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The dimension of every weight vector.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The weights, row-major.
    pub fn weights(&self) -> &[f32] {
        &self.weights
    }

    /// The best cell of each node (see [`best_matching_units`]).
    pub fn best_matching_units(
        &self,
        backend: &Backend,
        nodes: &[f32],
        accumulate: Accumulate,
    ) -> Result<Vec<u32>> {
        best_matching_units(backend, nodes, &self.weights, self.dim, accumulate)
    }

    /// Batch training: each epoch finds every node's best cell with the map as it stands, then
    /// sets each cell to the mean of all nodes weighted by the Gaussian of the map distance
    /// between the cell and the node's best cell (cells with no node in reach keep their
    /// weights). Node sums are kept in 64-bit fixed point (see [`warpkit_kernels::som::batch`]),
    /// so every backend gives the same map to the bit.
    pub fn train_batch(&mut self, backend: &Backend, nodes: &[f32], schedule: &Schedule) -> Result<()> {
        self.train(backend, nodes, schedule, Training::Batch, None)
    }

    /// Online training: each epoch visits the nodes in an order drawn from the schedule's seed
    /// and, for each, finds its best cell and moves every cell in reach toward it by the rate
    /// times the Gaussian. Sequential by nature: a device runs an epoch as one launch whose
    /// blocks wait for each other after every node. Every backend gives the same map to the
    /// bit.
    pub fn train_online(&mut self, backend: &Backend, nodes: &[f32], schedule: &Schedule) -> Result<()> {
        self.train(backend, nodes, schedule, Training::Online, None)
    }

    /// Training by `training` ([`Som::train_batch`] or [`Som::train_online`]), calling
    /// `progress` after each epoch: on a device once the epoch's work is done, a wait an epoch
    /// (microseconds, against an epoch's milliseconds).
    pub fn train_with(
        &mut self,
        backend: &Backend,
        nodes: &[f32],
        schedule: &Schedule,
        training: Training,
        mut progress: impl FnMut(&Progress),
    ) -> Result<()> {
        self.train(backend, nodes, schedule, training, Some(&mut progress))
    }

    fn train(
        &mut self,
        backend: &Backend,
        nodes: &[f32],
        schedule: &Schedule,
        training: Training,
        mut progress: Option<&mut dyn FnMut(&Progress)>,
    ) -> Result<()> {
        check_nodes(nodes, self.dim)?;
        schedule.check()?;
        let shape = self.shape();
        let start = Instant::now();
        let reports = progress.is_some();
        let mut report = |e: u32| {
            if let Some(progress) = progress.as_mut() {
                progress(&schedule.progress(training, e, start.elapsed()));
            }
        };
        match backend {
            Backend::Cpu(_) => {
                let run = cpu::Run {
                    nodes,
                    weights: &mut self.weights,
                    shape,
                    schedule,
                    after_epoch: &mut report,
                };
                cpu::train(run, training);
                Ok(())
            }
            Backend::Device(d) => {
                let (nodes, mut weights) = (d.upload(nodes)?, d.upload(&self.weights)?);
                let run = launch::Run {
                    d,
                    nodes: &nodes,
                    weights: &mut weights,
                    shape,
                    schedule,
                };
                // Only a caller who asked for progress waits for each epoch.
                let mut after_epoch = |e: u32| {
                    if reports {
                        d.synchronize()?;
                        report(e);
                    }
                    Ok(())
                };
                launch::train(run, training, &mut after_epoch)?;
                self.weights = d.download(&weights)?;
                Ok(())
            }
        }
    }

    /// The share of nodes whose best and second-best cells are not neighbours on the map (side
    /// or corner), by f64 distances on the CPU: a map that keeps the data's topology has few.
    pub fn topographic_error(&self, nodes: &[f32]) -> Result<f64> {
        check_nodes(nodes, self.dim)?;
        if self.weights.len() == self.dim {
            return Ok(0.0);
        }
        Ok(cpu::topographic_error(nodes, &self.weights, self.shape()))
    }

    fn shape(&self) -> cpu::Shape {
        cpu::Shape {
            rows: self.rows,
            cols: self.cols,
            dim: self.dim,
        }
    }
}

/// Which training [`Som::train_with`] and [`train_into`] run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Training {
    /// [`Som::train_batch`].
    Batch,
    /// [`Som::train_online`].
    Online,
}

/// [`Som::train_batch`] or [`Som::train_online`] of device buffers: `nodes` (`dim` a row) and
/// the `rows × cols` map's `weights`, updated in place, without waiting for the device. The
/// values are not checked here; non-finite ones give a map of no use but no fault.
pub fn train_into(
    device: &Device,
    nodes: &DeviceBuffer<f32>,
    weights: &mut DeviceBuffer<f32>,
    (rows, cols): (usize, usize),
    schedule: &Schedule,
    training: Training,
) -> Result<()> {
    let dim = weights.len() / rows.max(1) / cols.max(1);
    check_map(rows, cols, dim)?;
    check_same_len("weights", rows * cols * dim, weights.len())?;
    check_whole(nodes.len(), dim)?;
    schedule.check()?;
    let run = launch::Run {
        d: device,
        nodes,
        weights,
        shape: cpu::Shape { rows, cols, dim },
        schedule,
    };
    launch::train(run, training, &mut |_| Ok(()))
}

/// Refuses empty maps, a dimension of 0 and maps whose planes (`cells · (dim + 1)` values) the
/// kernels' 32-bit indices cannot hold.
fn check_map(rows: usize, cols: usize, dim: usize) -> Result<()> {
    for (what, value) in [("map rows", rows), ("map columns", cols), ("dimension", dim)] {
        if value == 0 {
            return Err(Error::OutOfRange {
                what,
                value: 0,
                min: 1,
                max: crate::MAX_LEN,
            });
        }
    }
    let planes = (rows as u128 * cols as u128 * (dim as u128 + 1)).min(u64::MAX as u128);
    check_len(
        "map",
        planes as usize,
        crate::MAX_LEN - 2 * warpkit_kernels::som::bmu::CELL_TILE as u64,
    )
}

/// Refuses empty nodes, lengths that are not whole vectors, counts the kernels' 32-bit indices
/// cannot hold (`count · (dim + 1)`) and non-finite values.
fn check_nodes(nodes: &[f32], dim: usize) -> Result<()> {
    check_whole(nodes.len(), dim)?;
    check_finite("nodes", nodes)
}

fn check_whole(len: usize, dim: usize) -> Result<()> {
    if len == 0 {
        return Err(Error::EmptyVector { what: "nodes" });
    }
    check_whole_vectors("nodes", len, dim)?;
    check_len("nodes", len / dim * (dim + 1), crate::MAX_LEN)
}
