//! Every primitive once, at sizes the emulator takes quickly, each call's result as words to
//! compare: for tests that call them all under some condition (many threads, allocations that
//! fail) and compare with the calls made plainly.

use warpkit::alias::{AliasTable, SampleOptions};
use warpkit::convolve::Convolution;
use warpkit::lbp::histogram;
use warpkit::moments::summary;
use warpkit::multisplit::{Buckets, Multisplit};
use warpkit::rand_core::SeedableRng;
use warpkit::som::{Accumulate, best_matching_units};
use warpkit::subset::Subsets;
use warpkit::{Backend, Philox, Result};

/// A call of one primitive, its result as words to compare.
pub type Call = fn(&Backend) -> Result<Vec<u64>>;

/// Deterministic values in [0, 1).
fn unit(n: usize, salt: u64) -> Vec<f64> {
    (0..n as u64)
        .map(|i| ((i ^ salt).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 11) as f64 / (1u64 << 53) as f64)
        .collect()
}

fn unit_f32(n: usize, salt: u64) -> Vec<f32> {
    unit(n, salt).iter().map(|&v| v as f32).collect()
}

fn words<T: Copy + Into<u64>>(v: &[T]) -> Vec<u64> {
    v.iter().map(|&x| x.into()).collect()
}

/// Every primitive, named.
pub fn every_primitive() -> Vec<(&'static str, Call)> {
    vec![
        ("exclusive scan", |b| {
            let x: Vec<u32> = (0..5000).map(|i| i % 7).collect();
            Ok(words(&b.exclusive_scan(&x)?))
        }),
        ("sum", |b| Ok(vec![b.sum(&unit(3000, 1))?.to_bits()])),
        ("moments", |b| {
            Ok(summary(b, &unit_f32(3000, 2))?
                .words()
                .iter()
                .map(|w| w.to_bits())
                .collect())
        }),
        ("alias", |b| {
            let table = AliasTable::new(b, &unit(1000, 3))?;
            let mut rng = Philox::seed_from_u64(7);
            Ok(words(&table.sample(&mut rng, 4096, SampleOptions::default())?))
        }),
        ("multisplit", |b| {
            let keys: Vec<u32> = unit(4000, 4).iter().map(|&v| (v * 1000.0) as u32).collect();
            let values: Vec<u32> = (0..4000).collect();
            let split = Multisplit::new(Buckets::Splitters(&[100, 250, 700]))?;
            let out = split.pairs(b, &keys, &values)?;
            Ok([words(&out.keys), words(&out.values), words(&out.offsets)].concat())
        }),
        ("subsets", |b| {
            Ok(words(Subsets::range(52, 5)?.positions(b, 7, 300)?.as_flat()))
        }),
        ("convolution", |b| {
            let r = Convolution::new().full(b, &unit(300, 5), &unit(200, 6))?;
            Ok(r.iter().map(|x| x.to_bits()).collect())
        }),
        ("lbp", |b| Ok(words(&histogram(b, &unit_f32(5000, 7), 4)?))),
        ("som", |b| {
            let (nodes, cells) = (unit_f32(300 * 5, 8), unit_f32(400 * 5, 9));
            Ok(words(&best_matching_units(
                b,
                &nodes,
                &cells,
                5,
                Accumulate::F32,
            )?))
        }),
    ]
}
