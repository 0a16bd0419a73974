//! A self-organizing map: nodes from two clusters in 3D, a 20 x 20 map trained in batch epochs,
//! and each node's best-matching cell.
//!
//! `cargo run --release -p warpkit --example som`

use warpkit::Backend;
use warpkit::som::{Accumulate, Schedule, Som};

fn main() -> Result<(), warpkit::Error> {
    let backend = Backend::auto();
    println!("backend: {}", backend.describe());
    let dim = 3;
    let nodes: Vec<f32> = (0..2000)
        .flat_map(|i| {
            let centre = if i % 2 == 0 { 0.2 } else { 0.8 };
            (0..3).map(move |d| centre + 0.05 * (((i * 7 + d * 13) % 11) as f32 / 11.0 - 0.5))
        })
        .collect();
    let mut map = Som::random(20, 20, dim, &nodes, 7)?;
    map.train_batch(&backend, &nodes, &Schedule::for_map(20, 20, 30))?;
    println!(
        "topographic error after training: {:.4}",
        map.topographic_error(&nodes)?
    );
    let best = map.best_matching_units(&backend, &nodes, Accumulate::F32)?;
    println!(
        "nodes 0 and 1 (different clusters) map to cells {} and {}",
        best[0], best[1]
    );
    assert_ne!(best[0], best[1], "the two clusters share a cell");
    Ok(())
}
