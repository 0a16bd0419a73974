//! Multisplit: a stable reordering of keys (and values) into buckets, here orders grouped by
//! price band, and a compaction that keeps the even keys first.
//!
//! `cargo run --release -p warpkit --example multisplit`

use warpkit::Backend;
use warpkit::multisplit::{Buckets, Multisplit};

fn main() -> Result<(), warpkit::Error> {
    let backend = Backend::auto();
    println!("backend: {}", backend.describe());
    let prices: Vec<u32> = (0..1_000_000u32)
        .map(|i| i.wrapping_mul(2_654_435_761) % 1000)
        .collect();
    let order_ids: Vec<u32> = (0..prices.len() as u32).collect();

    // Bands [0, 100), [100, 500), [500, ...): splitters are the bands' lower bounds.
    let bands = Multisplit::new(Buckets::Splitters(&[100, 500]))?;
    let split = bands.pairs(&backend, &prices, &order_ids)?;
    for (b, (&start, &count)) in split.offsets.iter().zip(&split.counts).enumerate() {
        let keys = &split.keys[start as usize..(start + count) as usize];
        println!(
            "band {b}: {count} orders, prices {}..={}",
            keys.iter().min().unwrap(),
            keys.iter().max().unwrap()
        );
    }
    // Stable: within a band, orders keep their original order.
    let first_band = &split.values[..split.counts[0] as usize];
    assert!(first_band.windows(2).all(|w| w[0] < w[1]));

    let by_parity = Multisplit::new(Buckets::Modulo(2))?;
    let evens_first = by_parity.keys(&backend, &prices)?;
    println!(
        "{} even prices, then {} odd ones",
        evens_first.counts[0], evens_first.counts[1]
    );
    Ok(())
}
