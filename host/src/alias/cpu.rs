//! Construction and sampling on the CPU: Vose's sequential sweep and PSA with rayon, both over
//! the very sweep the GPU kernels run (`warpkit_kernels::alias`), so their tables are the same.

use super::{AliasWeight, Construction, Stream, quantize_scale};
use crate::cpu::Cpu;
use crate::error::Result;
use rayon::prelude::*;
use warpkit_kernels::alias::split::{heavy_range, search, spill};
use warpkit_kernels::alias::sweep::{Shape, rows};
use warpkit_kernels::alias::{Entry, Row, Weight, quantize, sample::draw_pair};

/// Items per rayon task in the element-wise passes, and rows per PSA section at least.
const CHUNK: usize = 1 << 16;

/// The table of `weights` (already checked) by `method`.
pub(super) fn build<F: AliasWeight>(weights: &[F], method: Construction) -> Result<Vec<Row<F>>> {
    let mut table = vec![Row::default(); weights.len()];
    build_into(weights, method, &mut table)?;
    Ok(table)
}

/// The partitioned items: light ones, then heavy ones, each in index order, and the shape.
fn partition<F: AliasWeight>(weights: &[F]) -> Result<(Vec<Entry>, Shape)> {
    let total = weights
        .par_chunks(CHUNK)
        .map(|c| c.iter().map(|w| w.to_f64()).sum::<f64>())
        .collect::<Vec<_>>()
        .iter()
        .sum();
    let (shift, scale) = quantize_scale::<F>(weights.len(), total)?;
    let entries: Vec<Entry> = weights
        .par_iter()
        .enumerate()
        .map(|(i, w)| Entry {
            q: quantize(w.to_f64(), shift, scale),
            item: i as u32,
        })
        .collect();
    let mut shape = Shape {
        n: weights.len() as u64,
        n_light: 0,
        total: entries.par_iter().map(|e| e.q).sum(),
    };
    let (mut light, heavy): (Vec<Entry>, Vec<Entry>) =
        entries.into_par_iter().partition(|e| shape.is_light(e.q));
    shape.n_light = light.len() as u64;
    light.extend(heavy);
    Ok((light, shape))
}

/// Builds into `table` (of `weights.len()` rows).
pub(super) fn build_into<F: AliasWeight>(
    weights: &[F],
    method: Construction,
    table: &mut [Row<F>],
) -> Result<()> {
    let (entries, shape) = partition(weights)?;
    let mut weights_q: Vec<u64> = entries.iter().map(|e| e.q).collect();
    weights_q.push(0);
    let prefix = Cpu.exclusive_scan(&weights_q)?;
    let at = |t: u64| prefix[t as usize];
    let light = |i: u64| entries[i as usize];
    let heavy = |j: u64| entries[(shape.n_light + j) as usize];
    let rows_per_section = match method {
        Construction::Sequential => weights.len(),
        Construction::Psa { .. } => weights
            .len()
            .div_ceil(rayon::current_num_threads() * 8)
            .max(CHUNK),
    } as u64;
    let split_at = |k: u64| {
        let (lo, hi) = heavy_range(&shape, k);
        search(&shape, &at, k, lo, hi)
    };
    let out = TablePtr(table.as_mut_ptr());
    (0..shape.n.div_ceil(rows_per_section))
        .into_par_iter()
        .for_each(|s| {
            let from = split_at(s * rows_per_section);
            let to = split_at(((s + 1) * rows_per_section).min(shape.n));
            rows(
                &shape,
                from,
                to,
                spill(&shape, &at, from),
                light,
                heavy,
                |item, row| {
                    // SAFETY: `item < n`, and every item's row is written by exactly one section
                    // (the sections partition the sweep's rows, and each row is one item's).
                    unsafe { out.write(item, row) }
                },
            );
        });
    Ok(())
}

/// The table's rows, written from several rayon tasks at once, each to its own items.
struct TablePtr<F>(*mut Row<F>);

// SAFETY: tasks write disjoint rows (see `build_into`).
unsafe impl<F> Sync for TablePtr<F> {}

impl<F> TablePtr<F> {
    /// # Safety
    /// `item` is in bounds and no other task writes it.
    unsafe fn write(&self, item: u32, row: Row<F>) {
        // SAFETY: the caller's contract.
        unsafe { *self.0.add(item as usize) = row }
    }
}

/// `s` samples of `stream` from `table`, the same as every other backend draws.
pub(super) fn sample<F: Weight>(table: &[Row<F>], stream: Stream, s: usize) -> Vec<u32> {
    let (n, key, counter) = (table.len() as u64, stream.key(), stream.counter());
    let mut out = vec![0u32; s];
    out.par_chunks_mut(CHUNK).enumerate().for_each(|(c, chunk)| {
        let first_pair = (c * CHUNK / 2) as u64;
        for (p, o) in chunk.chunks_mut(2).enumerate() {
            let pair = draw_pair(n, key, counter, first_pair + p as u64, |r| table[r as usize]);
            o.copy_from_slice(&pair[..o.len()]);
        }
    });
    out
}
