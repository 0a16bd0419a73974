//! warpkit's tour: every primitive on real-sized synthetic data, its result checked against a
//! plain sequential computation and its time printed. Runs on the GPU when there is one, on the
//! CPU otherwise; `tour cpu`, `tour gpu` or `tour emulator` forces a backend (the emulator runs
//! the GPU kernels on the CPU: slow, for debugging).

use rand_core::RngCore;
use std::time::Instant;
use warpkit::{Backend, Device, Error, Gpu, GpuTimer, Philox};

/// Elements per primitive: large enough to fill an H100, small enough for a laptop's CPU.
const N: usize = 1 << 26;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let backend = match std::env::args().nth(1).as_deref() {
        Some("cpu") => Backend::cpu(),
        Some("gpu") => Backend::gpu()?,
        Some("emulator") => Backend::emulator(),
        None => Backend::auto(),
        Some(other) => return Err(format!("unknown backend {other:?}: use cpu, gpu or emulator").into()),
    };
    println!(
        "warpkit tour on {}, {N} elements per primitive\n",
        backend.describe()
    );
    let mut failures = 0;

    // Philox: a stream of N words, equal to the host generator's.
    let (key, counter) = ([0x5eed_0001, 0x0000_2026], [0, 0, 0, 0]);
    let t = Instant::now();
    let words = backend.philox_words(key, counter, N)?;
    let took = t.elapsed();
    let mut host = Philox::new(key, counter);
    let ok = words.iter().all(|&w| w == host.next_u32());
    failures += report("philox stream", ok, took.as_secs_f64(), 4 * N);

    // Exclusive scan of bucket sizes (u32), e.g. offsets of variable-length records.
    let sizes: Vec<u32> = words.iter().map(|w| w % 1000).collect();
    let t = Instant::now();
    let offsets = backend.exclusive_scan(&sizes)?;
    let took = t.elapsed();
    let mut running = 0u32;
    let ok = sizes.iter().zip(&offsets).all(|(&s, &o)| {
        let good = o == running;
        running = running.wrapping_add(s);
        good
    });
    failures += report("exclusive scan u32", ok, took.as_secs_f64(), 8 * N);

    // Sum of N f64 energies in [0, 1).
    let energies: Vec<f64> = words.iter().map(|&w| w as f64 / 4_294_967_296.0).collect();
    let t = Instant::now();
    let total = backend.sum(&energies)?;
    let took = t.elapsed();
    let reference: f64 = energies.iter().sum();
    let ok = (total - reference).abs() <= 1e-12 * reference;
    failures += report("sum f64", ok, took.as_secs_f64(), 8 * N);

    if let Backend::Device(device @ Device::Gpu(gpu)) = &backend {
        println!("\ndevice-resident timings (CUDA events, data already on the GPU):");
        device_timings(device, gpu, &sizes, &energies)?;
    }
    if failures > 0 {
        return Err(format!("{failures} primitive(s) gave wrong results").into());
    }
    println!("\nall results checked");
    Ok(())
}

fn report(name: &str, ok: bool, seconds: f64, bytes: usize) -> usize {
    println!(
        "{name:<22} {:>9.3} ms  {:>8.1} GB/s (host to host)  {}",
        seconds * 1e3,
        bytes as f64 / seconds / 1e9,
        if ok { "checked" } else { "WRONG" }
    );
    usize::from(!ok)
}

/// Median device time of `work` over a few runs, in seconds.
fn median_seconds(gpu: &Gpu, mut work: impl FnMut() -> Result<(), Error>) -> Result<f64, Error> {
    work()?; // warm-up
    let mut times = Vec::new();
    for _ in 0..9 {
        let timer = GpuTimer::start(gpu)?;
        work()?;
        times.push(timer.stop()?.as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    Ok(times[times.len() / 2])
}

fn device_timings(device: &Device, gpu: &Gpu, sizes: &[u32], energies: &[f64]) -> Result<(), Error> {
    let show = |name: &str, seconds: f64, per_second: f64, unit: &str| {
        println!(
            "{name:<22} {:>9.3} ms  {:>8.1} {unit}",
            seconds * 1e3,
            per_second / seconds / 1e9
        );
    };
    let d_sizes = device.upload(sizes)?;
    let mut d_offsets = device.zeros::<u32>(N)?;
    let s = median_seconds(gpu, || device.exclusive_scan_into(&d_sizes, &mut d_offsets))?;
    show("exclusive scan u32", s, 8.0 * N as f64, "GB/s");
    let d_energies = device.upload(energies)?;
    let mut d_total = device.zeros::<f64>(1)?;
    let s = median_seconds(gpu, || device.sum_into(&d_energies, &mut d_total))?;
    show("sum f64", s, 8.0 * N as f64, "GB/s");
    let mut d_words = device.zeros::<u32>(N)?;
    let s = median_seconds(gpu, || device.philox_fill(&mut d_words, [1, 2], [0; 4]))?;
    show("philox stream", s, N as f64, "G words/s");
    let mut d_copy = device.zeros::<u32>(N)?;
    let s = median_seconds(gpu, || device.copy(&d_sizes, &mut d_copy))?;
    show("copy (128-bit)", s, 8.0 * N as f64, "GB/s");
    Ok(())
}
