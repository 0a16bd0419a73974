//! Local binary pattern histograms of a 1D signal: each position's pattern compares it with
//! its neighbours, and the histogram counts the patterns.
//!
//! `cargo run --release -p warpkit --example lbp`

use warpkit::Backend;
use warpkit::lbp::histogram;

fn main() -> Result<(), warpkit::Error> {
    let backend = Backend::auto();
    println!("backend: {}", backend.describe());
    let signal: Vec<i32> = (0..1_000_000)
        .map(|i: i32| ((i as f64 * 0.01).sin() * 1000.0) as i32)
        .collect();
    let n = 4; // four neighbours on each side: 2^8 patterns
    let counts = histogram(&backend, &signal, n)?;
    let counted: u64 = counts.iter().map(|&c| c as u64).sum();
    assert_eq!(counted, (signal.len() - 2 * n as usize) as u64);
    let (top, &most) = counts.iter().enumerate().max_by_key(|(_, c)| **c).unwrap();
    println!(
        "{} bins, {counted} patterns; the commonest, {top:08b}, {most} times",
        counts.len()
    );
    Ok(())
}
