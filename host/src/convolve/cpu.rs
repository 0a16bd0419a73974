//! Convolution with rayon, summing each output's terms in f64 in order of `k`: the CPU backend
//! and the tests' reference.

use super::{Operand, Product, Real};
use crate::error::{Error, Result};
use rayon::prelude::*;

/// The outputs of `products` one after another.
pub(super) fn run<F: Real>(inputs: &[&[F]], products: &[Product]) -> Result<Vec<F>> {
    let total: usize = products.iter().map(|p| p.len).sum();
    let mut out = Vec::new();
    out.try_reserve_exact(total).map_err(|_| Error::HostOutOfMemory {
        bytes: (total * size_of::<F>()) as u64,
    })?;
    for p in products {
        // `a` reversed, so that each output's terms run forwards through both vectors.
        let mut a_rev = gather(inputs, &p.a);
        a_rev.reverse();
        let b = gather(inputs, &p.b);
        let last = a_rev.len() - 1;
        out.par_extend((0..p.len).into_par_iter().with_min_len(64).map(|j| {
            let o = p.lo + j;
            let k_lo = (o + 1).saturating_sub(a_rev.len());
            let k_hi = b.len().min(o + 1);
            let sum = if k_lo < k_hi {
                let from = last + k_lo - o; // a[o − k_lo] reversed; k_lo >= o − last
                a_rev[from..from + (k_hi - k_lo)]
                    .iter()
                    .zip(&b[k_lo..k_hi])
                    .map(|(x, y)| x * y)
                    .sum()
            } else {
                0.0
            };
            F::from_f64(sum)
        }));
    }
    Ok(out)
}

/// An operand's elements in its own order, as f64.
fn gather<F: Real>(inputs: &[&[F]], op: &Operand) -> Vec<f64> {
    let data = inputs[op.input];
    let len = op.span.len;
    (0..len)
        .map(|i| {
            let e = if op.reversed { len - 1 - i } else { i };
            data[op.span.index(e)].into()
        })
        .collect()
}
