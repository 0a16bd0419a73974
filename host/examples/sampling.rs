//! Weighted random sampling with an alias table: a loaded die rolled ten million times on the
//! backend, and a few rolls one at a time on the host through `rand`'s `Distribution`. The
//! rolls' frequencies against the weights are drawn in `pictures/sampling.svg`.
//!
//! `cargo run --release -p warpkit --example sampling`

use plotters::prelude::*;
use warpkit::alias::{AliasTable, SampleOptions};
use warpkit::rand::distr::Distribution;
use warpkit::rand_core::SeedableRng;
use warpkit::{Backend, Philox};

fn main() -> Result<(), Box<dyn std::error::Error>> {
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
    let frequencies = counts.map(|c| c as f64 / rolls.len() as f64);
    let expected = weights.map(|w| w / weights.iter().sum::<f64>());
    println!("drawn: {}", draw(&frequencies, &expected)?);
    Ok(())
}

/// Each face's frequency (bars) against its weight's share (dots): `pictures/sampling.svg`.
fn draw(frequencies: &[f64], expected: &[f64]) -> Result<String, Box<dyn std::error::Error>> {
    std::fs::create_dir_all("pictures")?;
    let path = "pictures/sampling.svg";
    let root = SVGBackend::new(path, (640, 420)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption("10^7 rolls of a loaded die", ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(55)
        .build_cartesian_2d(0.5f64..6.5f64, 0f64..0.6f64)?;
    chart
        .configure_mesh()
        .x_desc("face")
        .y_desc("share of rolls")
        .x_labels(6)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .draw()?;
    let faces = || (1..=frequencies.len()).map(|f| f as f64);
    let bars = faces()
        .zip(frequencies)
        .map(|(f, &y)| Rectangle::new([(f - 0.35, 0.0), (f + 0.35, y)], BLUE.mix(0.5).filled()));
    chart
        .draw_series(bars)?
        .label("sampled")
        .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], BLUE.mix(0.5).filled()));
    let dots = faces()
        .zip(expected)
        .map(|(f, &y)| Circle::new((f, y), 5, RED.filled()));
    chart
        .draw_series(dots)?
        .label("weight / total")
        .legend(|(x, y)| Circle::new((x + 5, y), 5, RED.filled()));
    chart
        .configure_series_labels()
        .border_style(BLACK)
        .background_style(WHITE)
        .draw()?;
    root.present()?;
    Ok(path.into())
}
