//! Sums of discrete random variables as banded products: the distribution of the total of two
//! dice and of a hundred, with its far tail still exact.
//!
//! `cargo run --release -p warpkit --example convolve`

use warpkit::Backend;
use warpkit::convolve::Convolution;

fn main() -> Result<(), warpkit::Error> {
    let backend = Backend::auto();
    println!("backend: {}", backend.describe());
    let die = [1.0f64 / 6.0; 6]; // faces 1..=6 at indices 0..=5
    let conv = Convolution::new();
    let two = conv.full(&backend, &die, &die)?; // totals 2..=12
    println!("P(two dice total 7) = {:.6} (exactly 1/6)", two[5]);

    let hundred = conv.power(&backend, &die, 100)?; // totals 100..=600
    let all_ones = hundred[0];
    println!(
        "P(a hundred dice all show 1) = {all_ones:e} (exactly 6^-100 = {:e})",
        6f64.powi(-100)
    );
    let mean: f64 = hundred
        .iter()
        .enumerate()
        .map(|(i, p)| (100 + i) as f64 * p)
        .sum();
    println!("mean total {mean:.6} (exactly 350)");
    assert!((all_ones / 6f64.powi(-100) - 1.0).abs() < 1e-12 && (mean - 350.0).abs() < 1e-9);
    Ok(())
}
