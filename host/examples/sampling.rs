//! Weighted random sampling with an alias table: a loaded die rolled ten million times on the
//! backend, and a few rolls one at a time on the host through `rand`'s `Distribution`.
//!
//! `cargo run --release -p warpkit --example sampling`

use rand::distr::Distribution;
use warpkit::alias::{AliasTable, SampleOptions};
use warpkit::rand_core::SeedableRng;
use warpkit::{Backend, Philox};

fn main() -> Result<(), warpkit::Error> {
    let backend = Backend::auto();
    println!("backend: {}", backend.describe());
    let weights = [1.0f64, 1.0, 1.0, 1.0, 1.0, 5.0]; // a six comes up half the time
    let table = AliasTable::new(&backend, &weights)?;
    let mut rng = Philox::seed_from_u64(2026);

    let rolls = table.sample(&mut rng, 10_000_000, SampleOptions::default())?;
    let mut counts = [0u64; 6];
    for &r in &rolls {
        counts[r as usize] += 1;
    }
    for (face, &c) in counts.iter().enumerate() {
        println!(
            "face {}: {:.4} (expected {:.4})",
            face + 1,
            c as f64 / rolls.len() as f64,
            weights[face] / 10.0
        );
    }

    let six = counts[5] as f64 / rolls.len() as f64;
    assert!((six - 0.5).abs() < 1e-3, "a six {six} of the time, not half"); // 6.3 sigma
    let die = table.sampler()?;
    let few: Vec<u32> = die.sample_iter(&mut rng).take(10).map(|f| f + 1).collect();
    println!("ten rolls on the host: {few:?}");
    Ok(())
}
