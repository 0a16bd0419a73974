//! Draws the seed's Figure 4 from criterion's results of the `alias samples drawn` group:
//! throughput (G samples/s) against samples drawn, one line per sampler, a panel per table size.
//!
//! `alias_figure [CRITERION_DIR] [OUT.svg]` (defaults: `target/criterion`,
//! `results/alias_samples_drawn.svg`). On the GPU machine, run the alias bench with
//! `CRITERION_HOME` pointing at a folder that comes back, then draw here.

use plotters::prelude::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::error::Error;
use std::path::{Path, PathBuf};

const GROUP: &str = "alias samples drawn";

/// One measurement: sampler, table size, samples drawn, median seconds.
struct Point {
    method: String,
    n: u64,
    s: u64,
    seconds: f64,
}

fn read_json(path: &Path) -> Result<Value, Box<dyn Error>> {
    Ok(serde_json::from_str(&std::fs::read_to_string(path)?)?)
}

/// The measurement in a criterion `new/` folder, if it belongs to the group.
fn point(new: &Path) -> Result<Option<Point>, Box<dyn Error>> {
    let bench = read_json(&new.join("benchmark.json"))?;
    if bench["group_id"] != GROUP {
        return Ok(None);
    }
    let function = bench["function_id"].as_str().ok_or("no function_id")?;
    let (method, n) = function.rsplit_once(" N=").ok_or("function_id without N=")?;
    let s = bench["value_str"].as_str().ok_or("no value_str")?.parse()?;
    let nanos = read_json(&new.join("estimates.json"))?["median"]["point_estimate"]
        .as_f64()
        .ok_or("no median")?;
    Ok(Some(Point {
        method: method.to_string(),
        n: n.parse()?,
        s,
        seconds: nanos * 1e-9,
    }))
}

/// Every `new/` folder under `dir`.
fn result_folders(dir: &Path, found: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            if path.file_name().is_some_and(|f| f == "new") {
                found.push(path);
            } else {
                result_folders(&path, found)?;
            }
        }
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(args.next().unwrap_or_else(|| "target/criterion".into()));
    let out = PathBuf::from(
        args.next()
            .unwrap_or_else(|| "results/alias_samples_drawn.svg".into()),
    );
    let mut folders = Vec::new();
    result_folders(&dir, &mut folders)?;
    let mut panels: BTreeMap<u64, BTreeMap<String, Vec<(f64, f64)>>> = BTreeMap::new();
    for folder in folders {
        if let Some(p) = point(&folder)? {
            let rate = p.s as f64 / p.seconds * 1e-9;
            let line = panels.entry(p.n).or_default().entry(p.method).or_default();
            line.push((p.s as f64, rate));
        }
    }
    if panels.is_empty() {
        return Err(format!("no results of \"{GROUP}\" under {}", dir.display()).into());
    }
    let root = SVGBackend::new(&out, (600 * panels.len() as u32, 460)).into_drawing_area();
    root.fill(&WHITE)?;
    for (area, (n, lines)) in root.split_evenly((1, panels.len())).iter().zip(&panels) {
        let points = lines.values().flatten();
        let (lo, hi) = points
            .clone()
            .fold((f64::MAX, 0f64), |(l, h), &(s, _)| (l.min(s), h.max(s)));
        let top = points.fold(0f64, |m, &(_, r)| m.max(r)) * 1.15;
        let mut chart = ChartBuilder::on(area)
            .caption(format!("N = {n} rows (f64, uniform weights)"), ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(55)
            .build_cartesian_2d((lo..hi).log_scale(), 0f64..top)?;
        chart
            .configure_mesh()
            .x_desc("samples drawn (stored as u32)")
            .y_desc("G samples / s")
            .x_label_formatter(&|s| format!("{s:.0e}"))
            .draw()?;
        for (i, (method, line)) in lines.iter().enumerate() {
            let mut line = line.clone();
            line.sort_by(|a, b| a.0.total_cmp(&b.0));
            let color = Palette99::pick(i).to_rgba();
            chart
                .draw_series(LineSeries::new(line.clone(), color.stroke_width(2)))?
                .label(method.as_str())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
            chart.draw_series(line.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()?;
    }
    root.present()?;
    println!("wrote {}", out.display());
    Ok(())
}
