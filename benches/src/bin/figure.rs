//! Draws the issues' figures from criterion's results (`CRITERION_HOME` of a GPU run):
//! - `figure alias [DIR] [OUT.svg]`: the alias seed's Figure 4 from the `alias samples drawn`
//!   group: throughput against samples drawn, a line per sampler, a panel per table size
//!   (default output `results/alias_samples_drawn.svg`);
//! - `figure multisplit [DIR] [OUT.svg]`: the multisplit seed's comparison from the
//!   `multisplit u32` group: throughput against buckets, a line per method plus the radix sort of
//!   the same keys, a panel per input (default output `results/multisplit_by_buckets.svg`);
//! - `figure convolve [DIR] [OUT.svg] [PEERS.txt]`: the convolution seed's table as a plot, from
//!   the `convolve f32` group: multiply-adds per second against m = n, a line per kernel version
//!   (default output `results/convolve_by_size.svg`), and a cuFFT line from the output of
//!   `results/microbench/fft_convolve.cu` if given.
//!
//! DIR defaults to `target/criterion`.

use plotters::prelude::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::error::Error;
use std::path::{Path, PathBuf};

/// One criterion measurement: its function and value ids, and the median in seconds.
struct Measurement {
    function: String,
    value: String,
    seconds: f64,
}

/// A point of a figure: panel, line, x, y.
type Point = (String, String, f64, f64);

/// A measurement's points, or why it could not be read.
type Points = Result<Vec<Point>, Box<dyn Error>>;

/// What a figure draws from one group's measurements.
struct Figure {
    group: &'static str,
    default_out: &'static str,
    x_desc: &'static str,
    y_desc: &'static str,
    /// The measurement's points (none to leave it out; several to draw a reference line).
    points: fn(&Measurement) -> Points,
}

const ALIAS: Figure = Figure {
    group: "alias samples drawn",
    default_out: "results/alias_samples_drawn.svg",
    x_desc: "samples drawn (stored as u32)",
    y_desc: "G samples / s",
    points: alias_points,
};

const MULTISPLIT: Figure = Figure {
    group: "multisplit u32",
    default_out: "results/multisplit_by_buckets.svg",
    x_desc: "buckets m",
    y_desc: "G keys / s",
    points: multisplit_points,
};

const CONVOLVE: Figure = Figure {
    group: "convolve f32",
    default_out: "results/convolve_by_size.svg",
    x_desc: "m = n",
    y_desc: "G multiply-adds / s",
    points: convolve_points,
};

/// `"<method>"` at `<n>`: `n²` multiply-adds.
fn convolve_points(m: &Measurement) -> Points {
    let n: f64 = m.value.parse()?;
    let panel = "full convolution, f32, m = n (CUDA events)".to_string();
    Ok(vec![(panel, m.function.clone(), n, n * n / m.seconds * 1e-9)])
}

/// `"<sampler> N=<rows>"` at `<samples>`.
fn alias_points(m: &Measurement) -> Points {
    let (method, n) = m.function.rsplit_once(" N=").ok_or("function id without N=")?;
    let s: f64 = m.value.parse()?;
    let panel = format!("N = {n} rows (f64, uniform weights)");
    Ok(vec![(panel, method.to_string(), s, s / m.seconds * 1e-9)])
}

/// `"<method> keys m=<m>"` or `"<method> pairs m=<m>"` at `2^<log n>`; `"radix sort keys"` is
/// drawn flat across the keys panel's bucket counts.
fn multisplit_points(m: &Measurement) -> Points {
    let n = 2f64.powi(m.value.trim_start_matches("2^").parse()?);
    let rate = n / m.seconds * 1e-9;
    if m.function == "radix sort keys" {
        let panel = format!("keys, n = {}", m.value);
        let line = "radix sort (4 passes)".to_string();
        return Ok([2f64, 65536.0]
            .map(|x| (panel.clone(), line.clone(), x, rate))
            .into());
    }
    let Some((method_what, buckets)) = m.function.rsplit_once(" m=") else {
        return Ok(Vec::new()); // compaction
    };
    let (method, what) = method_what
        .rsplit_once(' ')
        .ok_or("function id without keys/pairs")?;
    let panel = format!("{what}, n = {}", m.value);
    Ok(vec![(panel, method.to_string(), buckets.parse()?, rate)])
}

fn read_json(path: &Path) -> Result<Value, Box<dyn Error>> {
    Ok(serde_json::from_str(&std::fs::read_to_string(path)?)?)
}

/// The measurement in a criterion `new/` folder, if it belongs to `group`.
fn measurement(new: &Path, group: &str) -> Result<Option<Measurement>, Box<dyn Error>> {
    let bench = read_json(&new.join("benchmark.json"))?;
    if bench["group_id"] != group {
        return Ok(None);
    }
    let nanos = read_json(&new.join("estimates.json"))?["median"]["point_estimate"]
        .as_f64()
        .ok_or("no median")?;
    Ok(Some(Measurement {
        function: bench["function_id"].as_str().ok_or("no function_id")?.to_string(),
        value: bench["value_str"].as_str().ok_or("no value_str")?.to_string(),
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

/// The single f32 pairs of `fft_convolve.cu`'s output (`cuFFT f32 1 pairs of N: T us ...`) as
/// points of the convolution figure's panel.
fn fft_points(peers: &Path) -> Points {
    let mut points = Vec::new();
    for line in std::fs::read_to_string(peers)?.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if let ["cuFFT", "f32", "1", "pairs", "of", n, us, "us", ..] = words[..] {
            let n: f64 = n.trim_end_matches(':').parse()?;
            let seconds = us.parse::<f64>()? * 1e-6;
            let measured = Measurement {
                function: "cuFFT (same GPU; loses small entries)".into(),
                value: n.to_string(),
                seconds,
            };
            points.extend(convolve_points(&measured)?);
        }
    }
    Ok(points)
}

fn draw(figure: &Figure, dir: &Path, out: &Path, extra: Vec<Point>) -> Result<(), Box<dyn Error>> {
    let mut folders = Vec::new();
    result_folders(dir, &mut folders)?;
    let mut points = extra;
    for folder in folders {
        if let Some(m) = measurement(&folder, figure.group)? {
            points.extend((figure.points)(&m)?);
        }
    }
    let mut panels: BTreeMap<String, BTreeMap<String, Vec<(f64, f64)>>> = BTreeMap::new();
    for (panel, line, x, y) in points {
        panels
            .entry(panel)
            .or_default()
            .entry(line)
            .or_default()
            .push((x, y));
    }
    if panels.is_empty() {
        return Err(format!("no results of \"{}\" under {}", figure.group, dir.display()).into());
    }
    let columns = panels.len().min(2);
    let rows = panels.len().div_ceil(columns);
    let root = SVGBackend::new(out, (600 * columns as u32, 460 * rows as u32)).into_drawing_area();
    root.fill(&WHITE)?;
    for (area, (title, lines)) in root.split_evenly((rows, columns)).iter().zip(&panels) {
        let points = lines.values().flatten();
        let (lo, hi) = points
            .clone()
            .fold((f64::MAX, 0f64), |(l, h), &(x, _)| (l.min(x), h.max(x)));
        let top = points.fold(0f64, |m, &(_, y)| m.max(y)) * 1.15;
        let mut chart = ChartBuilder::on(area)
            .caption(title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(55)
            .build_cartesian_2d((lo..hi).log_scale(), 0f64..top)?;
        chart
            .configure_mesh()
            .x_desc(figure.x_desc)
            .y_desc(figure.y_desc)
            .x_label_formatter(&|x| format!("{x:.0e}"))
            .draw()?;
        for (i, (name, line)) in lines.iter().enumerate() {
            let mut line = line.clone();
            line.sort_by(|a, b| a.0.total_cmp(&b.0));
            let color = Palette99::pick(i).to_rgba();
            chart
                .draw_series(LineSeries::new(line.clone(), color.stroke_width(2)))?
                .label(name.as_str())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
            chart.draw_series(line.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()?;
    }
    root.present()?;
    println!("wrote {}", out.display());
    Ok(())
}

fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let figure = match args.next().as_deref() {
        Some("alias") => ALIAS,
        Some("multisplit") => MULTISPLIT,
        Some("convolve") => CONVOLVE,
        _ => {
            return Err(
                "usage: figure alias|multisplit|convolve [CRITERION_DIR] [OUT.svg] [PEERS.txt]".into(),
            );
        }
    };
    let dir = PathBuf::from(args.next().unwrap_or_else(|| "target/criterion".into()));
    let out = PathBuf::from(args.next().unwrap_or_else(|| figure.default_out.into()));
    let extra = match args.next() {
        Some(peers) => fft_points(Path::new(&peers))?,
        None => Vec::new(),
    };
    draw(&figure, &dir, &out, extra)
}
