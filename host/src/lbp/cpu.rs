//! Histograms with rayon: signals in parallel, and each signal's positions folded into
//! histograms of their own that are then added. The tests' reference.

use super::{Signal, bins};
use rayon::prelude::*;

/// The pattern of neighbourhood `n` at position `i` of `x` (`n <= i < x.len() − n`).
fn pattern<T: Signal>(x: &[T], i: usize, n: usize) -> usize {
    let centre = x[i];
    (0..n).fold(0, |p, j| {
        p | ((x[i - n + j] >= centre) as usize) << j | ((x[i + 1 + j] >= centre) as usize) << (n + j)
    })
}

/// The histograms of the signals `offsets` cuts `data` into (checked by the caller).
pub(super) fn histograms<T: Signal>(data: &[T], offsets: &[usize], n: u32) -> Vec<u32> {
    let (b, n) = (bins(n) as usize, n as usize);
    let mut out = vec![0u32; (offsets.len() - 1) * b];
    out.par_chunks_mut(b)
        .zip(offsets.par_windows(2))
        .for_each(|(hist, w)| {
            let x = &data[w[0]..w[1]];
            let counts = (n..x.len() - n)
                .into_par_iter()
                .with_min_len(1 << 14)
                .fold(
                    || vec![0u32; b],
                    |mut h, i| {
                        h[pattern(x, i, n)] += 1;
                        h
                    },
                )
                .reduce_with(|mut a, c| {
                    a.iter_mut().zip(&c).for_each(|(a, c)| *a += c);
                    a
                });
            hist.copy_from_slice(&counts.expect("a signal has a position"));
        });
    out
}
