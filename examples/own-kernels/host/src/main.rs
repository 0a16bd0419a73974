//! `cargo run --release -p own-kernels [-- LOG2_KEYS]`: the example's kernels on the first GPU
//! (the emulator where none opens, at a size it runs in seconds), each result checked against
//! the CPU; then, on a GPU, the multisplit by the device crate's copy of the built-in hash
//! ([`Fibonacci`]) measured against the built-in one at m = 32: CUDA events around calls on
//! device data, and wall clock around calls on host data (upload, split, download), rounds
//! alternated, medians printed.

use own_kernels::{Exchange, Fibonacci, exchange, largest_magnitude, load_on, split_by_cell};
use std::time::{Duration, Instant};
use warpkit::multisplit::{Buckets, Multisplit, SplitFunction};
use warpkit::{Backend, Device, GpuTimer, Result};

fn main() -> Result<()> {
    let device = Device::gpu(0).unwrap_or_else(|e| {
        eprintln!("no GPU ({e}): the emulator runs the kernels");
        Device::emulator()
    });
    let on_gpu = device.as_gpu().is_some();
    let default_log2 = if on_gpu { 28 } else { 16 };
    let log2: u32 = std::env::args()
        .nth(1)
        .map_or(Ok(default_log2), |a| a.parse())
        .unwrap_or(default_log2);
    let n = 1usize << log2;
    let backend = Backend::Device(device.clone());
    load_on(&backend)?;
    println!("{device}: 2^{log2} elements");

    let values: Vec<f32> = (0..n).map(|i| ((i * 7919) % 10007) as f32 - 5003.0).collect();
    let largest = largest_magnitude(&device, &device.upload(&values)?)?;
    let want = values
        .iter()
        .enumerate()
        .fold((0.0f32, u32::MAX), |best, (i, &v)| {
            if v.abs() > best.0.abs() {
                (v, i as u32)
            } else {
                best
            }
        });
    assert_eq!(largest, Some(want));
    println!("largest magnitude {:?}", largest.unwrap_or_default());

    let words: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
    let moved = device.download(&exchange(
        &device,
        &device.upload(&words)?,
        Exchange::Reverse { off_by_one: false },
    )?)?;
    let block = own_kernels_device::THREADS as usize;
    assert!(
        moved
            .chunks(block)
            .zip(words.chunks(block))
            .all(|(m, w)| m.iter().rev().eq(w.iter()))
    );
    println!("blocks reversed through shared memory");

    let split = split_by_cell(&backend, &words, 4)?;
    assert_eq!(split, split_by_cell(&Backend::cpu(), &words, 4)?);
    println!("points by Morton cell: {split}");

    if let Some(gpu) = device.as_gpu() {
        let own = Multisplit::by(Fibonacci { bits: 5 }, 32)?;
        let built_in = Multisplit::new(Buckets::Hash { bits: 5 })?;
        assert_eq!(own.keys(&backend, &words)?, built_in.keys(&backend, &words)?);
        let keys = device.upload(&words)?;
        let mut out = device.zeros::<u32>(n)?;
        let by_events = |split: &dyn Fn(&mut warpkit::DeviceBuffer<u32>) -> Result<()>, out: &mut _| {
            let timer = GpuTimer::start(gpu)?;
            for _ in 0..10 {
                split(out)?;
            }
            Ok::<_, warpkit::Error>(timer.stop()? / 10)
        };
        // Rounds alternate which split goes first, so that neither always meets a warmer GPU.
        let mut rounds: [Vec<Duration>; 4] = Default::default();
        for round in 0..15 {
            for which in [round % 2, 1 - round % 2] {
                if which == 0 {
                    rounds[0].push(by_events(
                        &|o| own.keys_into(&device, &keys, o).map(drop),
                        &mut out,
                    )?);
                    rounds[2].push(wall_clock(&own, &backend, &words)?);
                } else {
                    rounds[1].push(by_events(
                        &|o| built_in.keys_into(&device, &keys, o).map(drop),
                        &mut out,
                    )?);
                    rounds[3].push(wall_clock(&built_in, &backend, &words)?);
                }
            }
        }
        let [own_events, built_in_events, own_wall, built_in_wall] = rounds.map(min_and_median);
        let rate = |t: Duration| n as f64 / t.as_secs_f64() / 1e9;
        let change =
            |own: Duration, built_in: Duration| 100.0 * (own.as_secs_f64() / built_in.as_secs_f64() - 1.0);
        for (what, i) in [("min", 0), ("median", 1)] {
            let (e_own, e_built_in, w_own, w_built_in) =
                (own_events[i], built_in_events[i], own_wall[i], built_in_wall[i]);
            println!(
                "multisplit m = 32, 2^{log2} keys, {what} of 15: events own {:.1} G keys/s, built-in {:.1} ({:+.2} % time); \
                 wall clock from host data own {:.2} ms, built-in {:.2} ms ({:+.2} %)",
                rate(e_own),
                rate(e_built_in),
                change(e_own, e_built_in),
                w_own.as_secs_f64() * 1e3,
                w_built_in.as_secs_f64() * 1e3,
                change(w_own, w_built_in),
            );
        }
    }
    Ok(())
}

/// One call on host data through the public API, as a user makes it: upload, split, download.
fn wall_clock<F: SplitFunction<u32>>(
    split: &Multisplit<u32, F>,
    backend: &Backend,
    keys: &[u32],
) -> Result<Duration> {
    let start = Instant::now();
    split.keys(backend, keys)?;
    Ok(start.elapsed())
}

/// The least and the median of `times`.
fn min_and_median(mut times: Vec<Duration>) -> [Duration; 2] {
    times.sort();
    [times[0], times[times.len() / 2]]
}
