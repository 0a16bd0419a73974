//! Best-matching units with rayon, a node a task, summing as the device kernels do (in
//! dimension order, `t = x − w` then `t·t + sum` rounded once, in the accumulator's type), so
//! that both give the same indices. The tests' reference.

use super::Accumulate;
use rayon::prelude::*;

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
        .map(|x| match accumulate {
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
        })
        .collect()
}
