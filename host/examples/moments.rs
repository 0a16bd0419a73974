//! One pass over the data for count, mean, variance, minimum and maximum, accurate where the
//! sum-of-squares formula is not (a large offset plus small noise).
//!
//! `cargo run --release -p warpkit --example moments`

use warpkit::Backend;
use warpkit::moments::summary;

fn main() -> Result<(), warpkit::Error> {
    let backend = Backend::auto();
    println!("backend: {}", backend.describe());
    let readings: Vec<f64> = (0..1_000_000)
        .map(|i| 1e9 + if i % 2 == 0 { 1.0 } else { -1.0 })
        .collect();
    let s = summary(&backend, &readings)?;
    println!(
        "mean {} variance {} (exactly 1) min {} max {}",
        s.mean,
        s.variance(),
        s.min,
        s.max
    );
    assert!((s.variance() - 1.0).abs() < 1e-9 && s.min == 1e9 - 1.0 && s.max == 1e9 + 1.0);
    Ok(())
}
