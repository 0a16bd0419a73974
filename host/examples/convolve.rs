//! Sums of discrete random variables as banded products: the distribution of the total of two
//! dice and of a hundred, with its far tail still exact; drawn on a log scale in
//! `pictures/convolve.svg`, where every total from 100 to 600 shows, down to 6^-100.
//!
//! `cargo run --release -p warpkit --example convolve`

use plotters::prelude::*;
use warpkit::Backend;
use warpkit::convolve::Convolution;

fn main() -> Result<(), Box<dyn std::error::Error>> {
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
    println!("drawn: {}", draw(&hundred)?);
    Ok(())
}

/// The pmf of the hundred dice's total on a log scale: `pictures/convolve.svg`.
fn draw(pmf: &[f64]) -> Result<String, Box<dyn std::error::Error>> {
    std::fs::create_dir_all("pictures")?;
    let path = "pictures/convolve.svg";
    let root = SVGBackend::new(path, (720, 440)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "Total of 100 dice: every probability to 6^-100",
            ("sans-serif", 20),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(100f64..600f64, -80f64..0f64)?;
    // The axis is log10 of the probability, labelled as powers of ten: plotters' own log
    // scale labels only a few of 80 decades.
    chart
        .configure_mesh()
        .x_desc("total")
        .y_desc("probability")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_labels(9)
        .y_label_formatter(&|e| format!("1e{e:.0}"))
        .draw()?;
    let points = pmf
        .iter()
        .enumerate()
        .map(|(i, &p)| ((100 + i) as f64, p.log10()));
    chart.draw_series(LineSeries::new(points, BLUE.stroke_width(2)))?;
    root.present()?;
    Ok(path.into())
}
