//! Moments with rayon in two passes over the rows of a row-major matrix (a vector is one
//! column): the column means, then the deviations from them, their squares and the extremes;
//! every sum in f64. The second pass corrects the first's rounding (the corrected two-pass
//! algorithm of Chan, Golub and LeVeque): a mean off by `δ` adds `n·δ²` to the sum of squares
//! and `n·δ` to the sum of deviations, so `Σd² − (Σd)²/n` is exact to first order and
//! `mean + Σd/n` refines the mean. At 1e9 plus small noise the plain form is off by 1e-12
//! relative and more. The CPU backend and the tests' reference.

use super::Sample;
use rayon::prelude::*;
use warpkit_kernels::moments::{Summary, max_nan, min_nan};

/// Per-column sums of `f(column, value)` over the rows of `data`, `cols` wide.
fn column_sums<F: Sample, const K: usize>(
    data: &[F],
    cols: usize,
    start: [f64; K],
    f: impl Fn(usize, f64, &mut [f64; K]) + Sync,
    merge: impl Fn(&mut [f64; K], &[f64; K]) + Sync,
) -> Vec<[f64; K]> {
    data.par_chunks(cols)
        .fold(
            || vec![start; cols],
            |mut acc, row| {
                for (j, (a, &x)) in acc.iter_mut().zip(row).enumerate() {
                    f(j, x.into(), a);
                }
                acc
            },
        )
        .reduce(
            || vec![start; cols],
            |mut a, b| {
                for (x, y) in a.iter_mut().zip(&b) {
                    merge(x, y);
                }
                a
            },
        )
}

/// The summary of each column of the row-major `rows × cols` `data` (neither 0).
pub(super) fn columns<F: Sample>(data: &[F], rows: usize, cols: usize) -> Vec<Summary> {
    let sums = column_sums(data, cols, [0.0], |_, x, a| a[0] += x, |a, b| a[0] += b[0]);
    let means: Vec<f64> = sums.iter().map(|s| s[0] / rows as f64).collect();
    let spread = column_sums(
        data,
        cols,
        [0.0, 0.0, f64::INFINITY, f64::NEG_INFINITY],
        |j, x, a| {
            let d = x - means[j];
            a[0] += d;
            a[1] += d * d;
            a[2] = min_nan(a[2], x);
            a[3] = max_nan(a[3], x);
        },
        |a, b| {
            a[0] += b[0];
            a[1] += b[1];
            a[2] = min_nan(a[2], b[2]);
            a[3] = max_nan(a[3], b[3]);
        },
    );
    let n = rows as f64;
    means
        .iter()
        .zip(spread)
        .map(|(&mean, [d, d2, min, max])| {
            let m2 = d2 - d * d / n;
            Summary {
                count: rows as u32,
                shift: mean,
                offset: d / n,
                m2: if m2 < 0.0 { 0.0 } else { m2 },
                min,
                max,
            }
        })
        .collect()
}
