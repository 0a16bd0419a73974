//! Moments with rayon in two passes over the rows of a row-major matrix (a vector is one
//! column): the column means, then the deviations from them, their squares and the extremes;
//! every sum in f64. The second pass corrects the first's rounding (the corrected two-pass
//! algorithm of Chan, Golub and LeVeque): a mean off by `δ` adds `n·δ²` to the sum of squares
//! and `n·δ` to the sum of deviations, so `Σd² − (Σd)²/n` is exact to first order and
//! `mean + Σd/n` refines the mean. At 1e9 plus small noise the plain form is off by 1e-12
//! relative and more. Sums past f64's range and squares of huge deviations are kept finite
//! where the result is (below). The CPU backend and the tests' reference.

use super::Sample;
use crate::runtime::cpu::CHUNK;
use rayon::prelude::*;
use warpkit_kernels::moments::{Summary, corrected_m2};
use warpkit_kernels::num::Element;

/// Per-column sums of `f(column, value)` over the rows of `data`, `cols` wide: fixed chunks of
/// whole rows each folded in order (rayon), then the chunks merged in order, so the sums are
/// the same bits however the threads are scheduled (and from many callers at once).
fn column_sums<F: Sample, const K: usize>(
    data: &[F],
    cols: usize,
    start: [f64; K],
    f: impl Fn(usize, f64, &mut [f64; K]) + Sync,
    merge: impl Fn(&mut [f64; K], &[f64; K]) + Sync,
) -> Vec<[f64; K]> {
    let rows_a_chunk = (CHUNK / cols).max(1);
    let partials: Vec<Vec<[f64; K]>> = data
        .par_chunks(rows_a_chunk * cols)
        .map(|chunk| {
            let mut acc = vec![start; cols];
            for row in chunk.chunks(cols) {
                for (j, (a, &x)) in acc.iter_mut().zip(row).enumerate() {
                    f(j, x.into(), a);
                }
            }
            acc
        })
        .collect();
    let mut total = vec![start; cols];
    for part in &partials {
        for (x, y) in total.iter_mut().zip(part) {
            merge(x, y);
        }
    }
    total
}

/// The summary of each column of the row-major `rows × cols` `data` (neither 0).
pub(super) fn columns<F: Sample>(data: &[F], rows: usize, cols: usize) -> Vec<Summary> {
    let n = rows as f64;
    let sums = column_sums(data, cols, [0.0], |_, x, a| a[0] += x, |a, b| a[0] += b[0]);
    let mut means: Vec<f64> = sums.iter().map(|s| s[0] / n).collect();
    // A sum past f64's range (1e308s) leaves the mean infinite where the values are finite:
    // those columns' first mean comes from `Σ x / n` instead, which the second pass refines.
    if means.iter().any(|m| !m.is_finite()) {
        let scaled = column_sums(data, cols, [0.0], |_, x, a| a[0] += x / n, |a, b| a[0] += b[0]);
        for (m, s) in means.iter_mut().zip(&scaled) {
            if !m.is_finite() {
                *m = s[0];
            }
        }
    }
    // Where a mean passes 2^500, the deviations are taken scaled by a power of two near its
    // inverse (exact), so that the squares of its rounding (n·δ², δ ≈ 1e-16 of the mean) cannot
    // overflow where the true m2 is finite; m2 is scaled back at the end (+inf where it is).
    let scales: Vec<f64> = means
        .iter()
        .map(|m| {
            if m.abs() > 2f64.powi(500) && m.is_finite() {
                2f64.powi(-(m.abs().log2().floor() as i32))
            } else {
                1.0
            }
        })
        .collect();
    let shifts: Vec<f64> = means.iter().zip(&scales).map(|(m, s)| m * s).collect();
    let spread = column_sums(
        data,
        cols,
        [0.0, 0.0, f64::INFINITY, f64::NEG_INFINITY],
        |j, x, a| {
            let d = x * scales[j] - shifts[j];
            a[0] += d;
            a[1] += d * d;
            a[2] = a[2].lesser(x);
            a[3] = a[3].greater(x);
        },
        |a, b| {
            a[0] += b[0];
            a[1] += b[1];
            a[2] = a[2].lesser(b[2]);
            a[3] = a[3].greater(b[3]);
        },
    );
    means
        .iter()
        .zip(&scales)
        .zip(spread)
        .map(|((&mean, &scale), [d, d2, min, max])| Summary {
            count: rows as u32,
            shift: mean,
            offset: d / n / scale,
            m2: corrected_m2(d2, d, d / n) / scale / scale,
            min,
            max,
        })
        .collect()
}
