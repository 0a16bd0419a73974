//! Best-matching units and training with rayon, computing as the device kernels do: distances
//! in dimension order, `t = x − w` then `t·t + sum` rounded once, in the accumulator's type;
//! the batch epoch's fixed-point sums and smoothing taps in the kernels' order, through the
//! kernels' own functions, and the online update through its `pull`. Both give the same indices and maps to
//! the bit. The tests' reference.

use super::schedule::Schedule;
use super::{Accumulate, Training};
use rayon::prelude::*;
use warpkit_kernels::som::batch::{fixed, power_of_two, scale_exponent, smooth};
use warpkit_kernels::som::online::pull;

/// A map's shape.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shape {
    pub rows: usize,
    pub cols: usize,
    pub dim: usize,
}

impl Shape {
    fn cells(&self) -> usize {
        self.rows * self.cols
    }
}

/// The nearest cell of the first in `cells` (chunks of `dim`) to `node`, by `distance`; NaN
/// counts as infinite, ties to the lowest index.
fn nearest<A: PartialOrd + Copy>(
    cells: &[f32],
    dim: usize,
    distance: impl Fn(&[f32]) -> A,
    infinity: A,
) -> u32 {
    let mut best = (infinity, None);
    for (c, cell) in cells.chunks_exact(dim).enumerate() {
        let d = distance(cell);
        let d = if d.partial_cmp(&d).is_none() { infinity } else { d };
        if best.1.is_none() || d < best.0 {
            best = (d, Some(c as u32));
        }
    }
    best.1.expect("at least one cell")
}

/// The nearest cell to each node.
pub(super) fn best_matching_units(
    nodes: &[f32],
    cells: &[f32],
    dim: usize,
    accumulate: Accumulate,
) -> Vec<u32> {
    nodes
        .par_chunks_exact(dim)
        .map(|x| nearest_to(x, cells, accumulate))
        .collect()
}

/// The nearest cell to `x`.
fn nearest_to(x: &[f32], cells: &[f32], accumulate: Accumulate) -> u32 {
    let dim = x.len();
    match accumulate {
        Accumulate::F32 => nearest(
            cells,
            dim,
            |w| {
                x.iter()
                    .zip(w)
                    .fold(0.0f32, |s, (&x, &w)| (x - w).mul_add(x - w, s))
            },
            f32::INFINITY,
        ),
        Accumulate::F64 => nearest(
            cells,
            dim,
            |w| {
                x.iter().zip(w).fold(0.0f64, |s, (&x, &w)| {
                    let t = x as f64 - w as f64;
                    t.mul_add(t, s)
                })
            },
            f64::INFINITY,
        ),
    }
}

/// Trains the map by `training`.
pub(super) fn train(run: Run, training: Training) {
    match training {
        Training::Batch => train_batch(run),
        Training::Online => train_online(run),
    }
}

/// A training run on the CPU: the map's weights, of this shape, trained in place on `nodes`
/// by the schedule, calling `after_epoch` with each epoch's index once it is done.
pub(super) struct Run<'a> {
    pub nodes: &'a [f32],
    pub weights: &'a mut [f32],
    pub shape: Shape,
    pub schedule: &'a Schedule,
    pub after_epoch: &'a mut dyn FnMut(u32),
}

/// [`super::Som::train_batch`]: every epoch, the best cells, the fixed-point sums a cell, rows
/// then columns smoothed.
fn train_batch(run: Run) {
    let Run {
        nodes,
        weights,
        shape,
        schedule,
        after_epoch,
    } = run;
    let (cells, dim) = (shape.cells(), shape.dim);
    let planes = dim + 1;
    // The fixed point of the device's `som_magnitudes` and `som_accumulate`.
    let mut largest = vec![0u32; dim];
    for x in nodes.chunks_exact(dim) {
        for (m, x) in largest.iter_mut().zip(x) {
            *m = (*m).max(x.abs().to_bits());
        }
    }
    let exponents: Vec<i32> = largest
        .iter()
        .map(|&m| scale_exponent(m, (nodes.len() / dim) as u32))
        .collect();
    let scale: Vec<f64> = exponents.iter().map(|&k| power_of_two(k)).collect();
    let inverse: Vec<f64> = exponents.iter().map(|&k| power_of_two(-k)).chain([1.0]).collect();
    for e in 0..schedule.epochs {
        let epoch = schedule.epoch(e, shape.rows.max(shape.cols));
        let best = best_matching_units(nodes, weights, dim, schedule.accumulate);
        let mut sums = vec![0i64; planes * cells];
        for (x, &b) in nodes.chunks_exact(dim).zip(&best) {
            for (p, (&x, &scale)) in x.iter().zip(&scale).enumerate() {
                sums[p * cells + b as usize] += fixed(x, scale);
            }
            sums[dim * cells + b as usize] += 1;
        }
        let g = |k: u32| epoch.gaussian[k as usize];
        let (cols, radius) = (shape.cols as u32, epoch.radius);
        let mut rows_done = vec![0.0f64; planes * cells];
        rows_done
            .par_chunks_mut(shape.cols)
            .zip(sums.par_chunks(shape.cols))
            .enumerate()
            .for_each(|(row, (out, sums))| {
                let inverse = inverse[row / shape.rows];
                for (c, out) in out.iter_mut().enumerate() {
                    *out = smooth(c as u32, cols, radius, g, |c| sums[c as usize] as f64 * inverse);
                }
            });
        weights.par_chunks_mut(dim).enumerate().for_each(|(cell, w)| {
            let (r, c) = (cell / shape.cols, cell % shape.cols);
            let column = |plane: usize| {
                let base = plane * cells + c;
                smooth(r as u32, shape.rows as u32, radius, g, |r| {
                    rows_done[base + r as usize * shape.cols]
                })
            };
            let count = column(dim);
            if count > 0.0 {
                for (p, w) in w.iter_mut().enumerate() {
                    *w = (column(p) / count) as f32;
                }
            }
        });
        after_epoch(e);
    }
}

/// [`super::Som::train_online`]: every epoch, the nodes in the schedule's order, each moving the
/// cells within the radius of its nearest cell.
fn train_online(run: Run) {
    let (nodes, weights, shape) = (run.nodes, run.weights, run.shape);
    let (schedule, after_epoch) = (run.schedule, run.after_epoch);
    let (dim, count) = (shape.dim, nodes.len() / shape.dim);
    for e in 0..schedule.epochs {
        let epoch = schedule.epoch(e, shape.rows.max(shape.cols));
        let table = epoch.online_table();
        let radius = epoch.radius as usize;
        for i in schedule.order(count, e) {
            let x = &nodes[i as usize * dim..][..dim];
            let best = nearest_to(x, weights, schedule.accumulate) as usize;
            let (br, bc) = (best / shape.cols, best % shape.cols);
            for r in br.saturating_sub(radius)..=(br + radius).min(shape.rows - 1) {
                for c in bc.saturating_sub(radius)..=(bc + radius).min(shape.cols - 1) {
                    let rate = table[r.abs_diff(br)] * table[radius + 1 + c.abs_diff(bc)];
                    let w = &mut weights[(r * shape.cols + c) * dim..][..dim];
                    for (w, &x) in w.iter_mut().zip(x) {
                        *w = pull(*w, x, rate);
                    }
                }
            }
        }
        after_epoch(e);
    }
}

/// [`super::Som::topographic_error`].
pub(super) fn topographic_error(nodes: &[f32], weights: &[f32], shape: Shape) -> f64 {
    let apart = nodes
        .par_chunks_exact(shape.dim)
        .filter(|x| {
            let mut two = [(f64::INFINITY, 0usize); 2];
            for (c, w) in weights.chunks_exact(shape.dim).enumerate() {
                let d: f64 = x
                    .iter()
                    .zip(w)
                    .map(|(&x, &w)| (x as f64 - w as f64).powi(2))
                    .sum();
                if d < two[0].0 {
                    two = [(d, c), two[0]];
                } else if d < two[1].0 {
                    two[1] = (d, c);
                }
            }
            let [(_, a), (_, b)] = two;
            let (ra, ca, rb, cb) = (a / shape.cols, a % shape.cols, b / shape.cols, b % shape.cols);
            ra.abs_diff(rb) > 1 || ca.abs_diff(cb) > 1
        })
        .count();
    apart as f64 / (nodes.len() / shape.dim) as f64
}
