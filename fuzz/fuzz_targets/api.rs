//! Every public constructor and validator on the CPU backend with arbitrary arguments: each
//! call returns its result or a typed error (`warpkit::Error`); a panic, a hang or a crash is
//! a finding. Sizes come from the input (libFuzzer's `-max_len` bounds them), counts of
//! draws are small so that a valid call stays quick.

#![no_main]

use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use warpkit::Backend;
use warpkit::alias::{AliasTable, SampleOptions};
use warpkit::convolve::{Convolution, Span};
use warpkit::lbp::{histogram, histograms};
use warpkit::moments::{column_summaries, summary};
use warpkit::multisplit::{Buckets, Multisplit};
use warpkit::rand_core::SeedableRng;
use warpkit::som::{Accumulate, Schedule, Som, best_matching_units};
use warpkit::subset::Subsets;
use warpkit::Philox;

#[derive(Arbitrary, Debug)]
enum Call {
    Alias { weights: Vec<f64>, draws: u8 },
    AliasF32 { weights: Vec<f32> },
    Splitters { splitters: Vec<u32>, keys: Vec<u32> },
    BitField { shift: u32, bits: u32, keys: Vec<u64> },
    Modulo { m: u32, keys: Vec<u32>, values: Vec<u16> },
    Full { p: Vec<f64>, q: Vec<f64> },
    Power { p: Vec<f32>, k: u8 },
    Batch { p: Vec<f64>, p_at: Vec<u16>, q: Vec<f64>, q_at: Vec<u16> },
    Strided { data: Vec<f64>, spans: [(u16, u16, u16); 3] },
    Gradients { p: Vec<f64>, q: Vec<f64>, g: Vec<f64> },
    SubsetMask { mask: Vec<u32>, k: u32, seed: u64 },
    SubsetRange { n: u32, k: u32 },
    SubsetGrid { rows: u32, cols: u32, k: u32 },
    Summary { data: Vec<f64> },
    Columns { data: Vec<f32>, rows: u16, cols: u16 },
    Lbp { signal: Vec<f32>, n: u32 },
    Lbps { signal: Vec<i32>, offsets: Vec<u16>, n: u32 },
    Bmu { nodes: Vec<f32>, cells: Vec<f32>, dim: u16 },
    Som { rows: u16, cols: u16, dim: u16, weights: Vec<f32>, nodes: Vec<f32>, epochs: u8 },
    Scan { x: Vec<u32> },
}

fuzz_target!(|call: Call| {
    let b = Backend::cpu();
    let _ = run(&b, call);
});

fn run(b: &Backend, call: Call) -> warpkit::Result<()> {
    match call {
        Call::Alias { weights, draws } => {
            let table = AliasTable::new(b, &weights)?;
            let mut rng = Philox::seed_from_u64(1);
            table.sample(&mut rng, draws as usize, SampleOptions::default())?;
        }
        Call::AliasF32 { weights } => {
            AliasTable::new(b, &weights)?;
        }
        Call::Splitters { splitters, keys } => {
            Multisplit::new(Buckets::Splitters(&splitters))?.keys(b, &keys)?;
        }
        Call::BitField { shift, bits, keys } => {
            Multisplit::new(Buckets::BitField { shift, bits })?.keys(b, &keys)?;
        }
        Call::Modulo { m, keys, values } => {
            Multisplit::new(Buckets::Modulo(m))?.pairs(b, &keys, &values)?;
        }
        Call::Full { p, q } => {
            Convolution::new().full(b, &p, &q)?;
        }
        Call::Power { p, k } => {
            Convolution::new().power(b, &p, u32::from(k))?;
        }
        Call::Batch { p, p_at, q, q_at } => {
            let offsets = |at: Vec<u16>| at.into_iter().map(usize::from).collect::<Vec<_>>();
            Convolution::new().batch(b, (&p, &offsets(p_at)), (&q, &offsets(q_at)))?;
        }
        Call::Strided { mut data, spans } => {
            let [p, q, r] = spans.map(|(o, l, s)| Span::new(o.into(), l.into(), s.into()));
            Convolution::new().strided(b, &mut data, p, q, r)?;
        }
        Call::Gradients { p, q, g } => {
            Convolution::new().gradients(b, &p, &q, &g)?;
        }
        Call::SubsetMask { mask, k, seed } => {
            Subsets::new(&mask, k)?.bits(b, seed, 3)?;
        }
        Call::SubsetRange { n, k } => {
            Subsets::range(n, k)?.positions(b, 1, 3)?;
        }
        Call::SubsetGrid { rows, cols, k } => {
            Subsets::grid(rows, cols, k)?.bits(b, 1, 3)?;
        }
        Call::Summary { data } => {
            summary(b, &data)?;
        }
        Call::Columns { data, rows, cols } => {
            column_summaries(b, &data, usize::from(rows), usize::from(cols))?;
        }
        Call::Lbp { signal, n } => {
            histogram(b, &signal, n)?;
        }
        Call::Lbps { signal, offsets, n } => {
            let offsets: Vec<usize> = offsets.into_iter().map(usize::from).collect();
            histograms(b, &signal, &offsets, n)?;
        }
        Call::Bmu { nodes, cells, dim } => {
            best_matching_units(b, &nodes, &cells, usize::from(dim), Accumulate::F32)?;
        }
        Call::Som { rows, cols, dim, weights, nodes, epochs } => {
            let (rows, cols, dim) = (usize::from(rows % 64), usize::from(cols % 64), usize::from(dim % 16));
            let mut map = Som::from_weights(rows, cols, dim, weights)?;
            map.train_batch(b, &nodes, &Schedule::for_map(rows, cols, u32::from(epochs % 4)))?;
        }
        Call::Scan { x } => {
            b.exclusive_scan(&x)?;
        }
    }
    Ok(())
}
