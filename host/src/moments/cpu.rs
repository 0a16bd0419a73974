//! Moments with rayon in two passes: the mean, then the squared deviations from it and the
//! extremes; every sum in f64. The CPU backend and the tests' reference.

use super::Sample;
use rayon::prelude::*;
use warpkit_kernels::moments::Summary;

/// The summary of `data` (not empty, at most `MAX_LEN` values).
pub(super) fn summary<F: Sample>(data: &[F]) -> Summary {
    let n = data.len() as f64;
    let mean = data.par_iter().map(|&x| x.into()).sum::<f64>() / n;
    let (m2, min, max) = data
        .par_iter()
        .map(|&x| {
            let x: f64 = x.into();
            ((x - mean) * (x - mean), x, x)
        })
        .reduce(
            || (0.0, f64::INFINITY, f64::NEG_INFINITY),
            |a, b| (a.0 + b.0, min_nan(a.1, b.1), max_nan(a.2, b.2)),
        );
    Summary {
        count: data.len() as u32,
        shift: mean,
        offset: 0.0,
        m2,
        min,
        max,
    }
}

fn min_nan(a: f64, b: f64) -> f64 {
    if a.is_nan() || a < b { a } else { b }
}

fn max_nan(a: f64, b: f64) -> f64 {
    if a.is_nan() || a > b { a } else { b }
}
