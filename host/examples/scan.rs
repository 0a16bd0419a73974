//! Prefix sums and reductions on whatever backend `Backend::auto` finds: offsets of
//! variable-sized records, and the total, minimum and maximum of a million readings.
//!
//! `cargo run --release -p warpkit --example scan`

use warpkit::Backend;

fn main() -> Result<(), warpkit::Error> {
    let (backend, why) = Backend::auto_with_reason();
    println!(
        "backend: {}{}",
        backend.describe(),
        why.map(|e| format!(" ({e})")).unwrap_or_default()
    );

    // Where each record starts when records of these sizes are packed one after another.
    let sizes: Vec<u32> = (0..1_000_000u32).map(|i| 1 + i % 7).collect();
    let offsets = backend.exclusive_scan(&sizes)?;
    let ends = backend.inclusive_scan(&sizes)?;
    assert_eq!(offsets[3], 1 + 2 + 3);
    assert_eq!(ends[999_999], sizes.iter().sum::<u32>());
    println!(
        "record 999999 starts at {} and ends at {}",
        offsets[999_999], ends[999_999]
    );

    let readings: Vec<f64> = (0..1_000_000).map(|i| (i as f64 * 0.001).sin()).collect();
    let (sum, min, max) = (
        backend.sum(&readings)?,
        backend.min(&readings)?,
        backend.max(&readings)?,
    );
    println!("sum {sum:.6}, min {min:.6}, max {max:.6}");
    Ok(())
}
