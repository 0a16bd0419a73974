//! `cargo run --release -p own-kernels [-- LOG2_KEYS]`: the example's kernels on the first GPU
//! (the emulator where none opens, at a size it runs in seconds), each result checked against
//! the CPU; then, on a GPU, the multisplit by the device crate's copy of the built-in hash
//! ([`Fibonacci`]) measured against the built-in one at m = 32: CUDA events around calls on
//! device data, and wall clock around calls on host data (upload, split, download), rounds
//! alternated, medians printed; and an alias table of softmax weights made by the device
//! crate's transform ([`Softmax`]) as it is built, checked against softmax in f64 and timed
//! against the built-in build from the same weights computed beforehand; and the scan by the
//! device crate's copy of the built-in sum ([`Plus`]) against the built-in one.

use own_kernels::{
    Exchange, Fibonacci, Softmax, exchange, largest_magnitude, load_on, softmax_table, softmax_weights,
    split_by_cell,
};
use own_kernels_device::{Gcd, Plus};
use std::time::{Duration, Instant};
use warpkit::alias::{AliasTable, Construction};
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

    softmax_alias(&device, n)?;
    own_scans(&device, n)?;

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

/// An alias table of the softmax of `n` logits (at most 10^8) made by [`Softmax`] as the
/// table is built, checked against softmax computed here in f64; on a GPU, its build timed
/// against the built-in build of the same weights computed beforehand (CUDA events around
/// rebuilds in place; rounds alternated).
fn softmax_alias(device: &Device, n: usize) -> Result<()> {
    let n = n.min(100_000_000);
    let logits: Vec<f64> = (0..n as u64)
        .map(|i| (i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40) as f64 / 1e6 - 8.0)
        .collect();
    let (temperature, max) = (0.8, logits.iter().copied().fold(f64::MIN, f64::max));
    let softmax = Softmax {
        max,
        inv_temperature: 1.0 / temperature,
    };
    let backend = Backend::Device(device.clone());
    let table = softmax_table(&backend, &logits, temperature, Construction::auto(&backend))?;
    let weights: Vec<f64> = logits.iter().map(|l| ((l - max) / temperature).exp()).collect();
    let sum: f64 = weights.iter().sum();
    let worst = table
        .probabilities()?
        .iter()
        .zip(&weights)
        .map(|(p, w)| (p - w / sum).abs() * n as f64)
        .fold(0.0, f64::max);
    assert!(worst < 1e-9, "{worst} rows from softmax");
    println!("alias table of softmax weights, {n} items: within {worst:.1e} rows of softmax in f64");
    let Some(gpu) = device.as_gpu() else {
        return Ok(());
    };
    let method = Construction::FASTEST_ON_DEVICE;
    let raw = device.upload(&logits)?;
    let mut ready = device.upload(&weights)?;
    let mut fused = AliasTable::from_device_by(device, &raw, softmax, method)?;
    let mut built_in = AliasTable::from_device_with(device, &ready, method)?;
    assert!(fused.rows()? == built_in.rows()?);
    let by_events = |rebuild: &mut dyn FnMut() -> Result<()>| {
        let timer = GpuTimer::start(gpu)?;
        for _ in 0..10 {
            rebuild()?;
        }
        Ok::<_, warpkit::Error>(timer.stop()? / 10)
    };
    // Fused; the plain kernel, then the build from its weights; the build from weights ready.
    let mut rounds: [Vec<Duration>; 3] = Default::default();
    for round in 0..15 {
        for k in 0..3 {
            let which = (round + k) % 3;
            rounds[which].push(match which {
                0 => by_events(&mut || fused.rebuild_from_device_by(&raw, softmax))?,
                1 => by_events(&mut || {
                    softmax_weights(device, &raw, softmax, &mut ready)?;
                    built_in.rebuild_from_device(&ready)
                })?,
                _ => by_events(&mut || built_in.rebuild_from_device(&ready))?,
            });
        }
    }
    let [fused_t, apart_t, ready_t] = rounds.map(min_and_median);
    let ms = |t: Duration| t.as_secs_f64() * 1e3;
    for (what, i) in [("min", 0), ("median", 1)] {
        println!(
            "alias build f64, {n} items, {what} of 15: softmax fused {:.3} ms, plain kernel then build \
             {:.3} ms, build from weights ready {:.3} ms",
            ms(fused_t[i]),
            ms(apart_t[i]),
            ms(ready_t[i]),
        );
    }
    Ok(())
}

/// The exclusive scan of `n` u32 by the device crate's [`Plus`] against warpkit's built-in
/// sum, and by its [`Gcd`]: checked against each other (Plus) and the CPU (Gcd, on the
/// emulator's sizes), then on a GPU timed by CUDA events, rounds alternated.
fn own_scans(device: &Device, n: usize) -> Result<()> {
    let values: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 8)
        .collect();
    let input = device.upload(&values)?;
    let mut out = device.zeros::<u32>(n)?;
    let own = device.download(&device.exclusive_scan_by::<u32, Plus>(&input)?)?;
    assert!(own == device.download(&device.exclusive_scan(&input)?)?);
    println!("scan by Plus of one's own: the built-in sum's");
    let Some(gpu) = device.as_gpu() else {
        let gcd = device.download(&device.inclusive_scan_by::<u32, Gcd>(&input)?)?;
        assert_eq!(gcd, Backend::cpu().inclusive_scan_by(Gcd, &values)?);
        return Ok(());
    };
    let mut by_events = |scan: &dyn Fn(&mut warpkit::DeviceBuffer<u32>) -> Result<()>| {
        let timer = GpuTimer::start(gpu)?;
        for _ in 0..10 {
            scan(&mut out)?;
        }
        Ok::<_, warpkit::Error>(timer.stop()? / 10)
    };
    let mut rounds: [Vec<Duration>; 3] = Default::default();
    for round in 0..15 {
        for which in [round % 2, 1 - round % 2] {
            rounds[which].push(if which == 0 {
                by_events(&|o| device.exclusive_scan_by_into::<u32, Plus>(&input, o))?
            } else {
                by_events(&|o| device.exclusive_scan_into(&input, o))?
            });
        }
        rounds[2].push(by_events(&|o| {
            device.exclusive_scan_by_into::<u32, Gcd>(&input, o)
        })?);
    }
    let [own_t, built_in_t, gcd_t] = rounds.map(min_and_median);
    let tb_s = |t: Duration| 8.0 * n as f64 / t.as_secs_f64() / 1e12;
    for (what, i) in [("min", 0), ("median", 1)] {
        println!(
            "exclusive scan u32, {n} elements, {what} of 15: Plus of one's own {:.3} TB/s, built-in sum \
             {:.3} TB/s ({:+.2} % time); Gcd {:.3} TB/s",
            tb_s(own_t[i]),
            tb_s(built_in_t[i]),
            100.0 * (own_t[i].as_secs_f64() / built_in_t[i].as_secs_f64() - 1.0),
            tb_s(gcd_t[i]),
        );
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
