//! Issue 24's host-path figures, by wall clock through the public API as users call it
//! (allocation, copies and the final synchronization included), throughput in decimal GB/s of
//! input: the exclusive scan and sum of 2^26 u32 from ordinary slices and from page-locked
//! buffers, 10^8 alias samples into a host slice, the bare copies each way, the staging chunk
//! size, and the GPU against the CPU backend at growing sizes (where the GPU overtakes it).
//! Then each area's device-resident call twice: by wall clock with a synchronize after each
//! call, and by CUDA events around back-to-back calls; the gap is what a call costs beyond its
//! kernels (allocation, driver queries, uploads of small tables, synchronization).

use criterion::{
    BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main, measurement::WallTime,
};
use rand_core::{RngCore, SeedableRng};
use std::time::Duration;
use warpkit::alias::{AliasTable, SampleOptions};
use warpkit::convolve::Convolution;
use warpkit::multisplit::{Buckets, Multisplit};
use warpkit::som::{
    Accumulate, Schedule, Training, best_matching_units, best_matching_units_into, train_into,
};
use warpkit::subset::Subsets;
use warpkit::{Backend, Device, Gpu, Philox, lbp, moments};
use warpkit_benches::time_on_gpu;

const N: usize = 1 << 26;
const SAMPLES: usize = 100_000_000;

fn settings(group: &mut BenchmarkGroup<WallTime>) {
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
}

fn host_paths(c: &mut Criterion) {
    let device = match Device::gpu(0) {
        Ok(d) => d,
        Err(e) => {
            println!("SKIPPED: host-path benchmarks need a CUDA device ({e})");
            return;
        }
    };
    let gpu = device.as_gpu().expect("a GPU device").clone();
    println!("device: {}", gpu.limits().name);
    let backend = Backend::Device(device.clone());
    let mut rng = Philox::seed_from_u64(24);
    let input: Vec<u32> = (0..N).map(|_| rng.next_u32() % 1000).collect();
    let mut out = vec![0u32; N];
    let mut pinned_in = device.pinned::<u32>(N).unwrap();
    pinned_in.copy_from_slice(&input);
    let mut pinned_out = device.pinned::<u32>(N).unwrap();

    let mut group = c.benchmark_group("host paths 2^26 u32");
    settings(&mut group);
    group.throughput(Throughput::BytesDecimal(4 * N as u64));
    group.bench_function("scan slice to slice", |b| {
        b.iter(|| backend.exclusive_scan_into(&input, &mut out).unwrap())
    });
    group.bench_function("scan slice to new vec", |b| {
        b.iter(|| backend.exclusive_scan(&input).unwrap())
    });
    group.bench_function("scan pinned to pinned", |b| {
        b.iter(|| backend.exclusive_scan_into(&pinned_in, &mut pinned_out).unwrap())
    });
    group.bench_function("sum slice", |b| b.iter(|| backend.sum(&input).unwrap()));
    group.bench_function("sum pinned", |b| b.iter(|| backend.sum(&pinned_in).unwrap()));
    let on_device = device.upload(&input).unwrap();
    group.bench_function("upload slice", |b| b.iter(|| device.upload(&input).unwrap()));
    group.bench_function("upload pinned", |b| b.iter(|| device.upload(&pinned_in).unwrap()));
    group.bench_function("download into slice", |b| {
        b.iter(|| device.download_into(&on_device, &mut out).unwrap())
    });
    group.bench_function("download to new vec", |b| {
        b.iter(|| device.download(&on_device).unwrap())
    });
    group.bench_function("download into pinned", |b| {
        b.iter(|| device.download_into(&on_device, &mut pinned_out).unwrap())
    });
    for mib in [8, 16, 64, 32] {
        gpu.set_staging_bytes(mib << 20).unwrap();
        group.bench_function(format!("scan slice to slice, {mib} MiB staging"), |b| {
            b.iter(|| backend.exclusive_scan_into(&input, &mut out).unwrap())
        });
    }
    group.finish();
    drop((pinned_in, pinned_out));

    let weights: Vec<f64> = (1..=10_000_000).map(|i| 1.0 / i as f64).collect();
    let table = AliasTable::new(&backend, &weights).unwrap();
    let mut samples = vec![0u32; SAMPLES];
    let mut pinned_samples = device.pinned::<u32>(SAMPLES).unwrap();
    let mut group = c.benchmark_group("host paths 1e8 alias samples");
    settings(&mut group);
    group.throughput(Throughput::BytesDecimal(4 * SAMPLES as u64));
    group.bench_function("fill slice", |b| {
        b.iter(|| {
            table
                .sample_into(&mut rng, &mut samples[..], SampleOptions::default())
                .unwrap()
        })
    });
    group.bench_function("fill pinned", |b| {
        b.iter(|| {
            table
                .sample_into(&mut rng, &mut pinned_samples[..], SampleOptions::default())
                .unwrap()
        })
    });
    group.bench_function("sample to new vec", |b| {
        b.iter(|| table.sample(&mut rng, SAMPLES, SampleOptions::default()).unwrap())
    });
    group.finish();

    // Device-resident calls by wall clock (one synchronize at the end) beside CUDA events.
    let w = device.upload(&weights).unwrap();
    let mut table = AliasTable::from_device(&device, &w).unwrap();
    let mut group = c.benchmark_group("host paths device calls 1e7");
    settings(&mut group);
    group.bench_function("alias from_device f64, wall", |b| {
        b.iter_with_large_drop(|| {
            let t = AliasTable::from_device(&device, &w).unwrap();
            device.synchronize().unwrap();
            t
        })
    });
    group.bench_function("alias rebuild_from_device f64, wall", |b| {
        b.iter(|| {
            table.rebuild_from_device(&w).unwrap();
            device.synchronize().unwrap()
        })
    });
    group.bench_function("alias rebuild_from_device f64, events", |b| {
        b.iter_custom(|iters| time_on_gpu(&gpu, iters, || table.rebuild_from_device(&w).unwrap()))
    });
    group.finish();
    drop((table, w));
    let heavy: Vec<f64> = (0..SAMPLES).map(|i| 1.0 / (1 + i % 10_000_000) as f64).collect();
    let w = device.upload(&heavy).unwrap();
    drop(heavy);
    let mut group = c.benchmark_group("host paths device calls 1e8");
    settings(&mut group);
    group.bench_function("alias from_device f64, wall", |b| {
        b.iter_with_large_drop(|| {
            let t = AliasTable::from_device(&device, &w).unwrap();
            device.synchronize().unwrap();
            t
        })
    });
    group.finish();
    drop(w);

    // Where the GPU overtakes the CPU backend on host data.
    let cpu = Backend::cpu();
    let mut group = c.benchmark_group("host paths crossover");
    settings(&mut group);
    for log_n in [12, 14, 16, 18, 20, 22, 24, 26] {
        let n = 1usize << log_n;
        let (input, out) = (&input[..n], &mut out[..n]);
        group.throughput(Throughput::BytesDecimal(4 * n as u64));
        for (name, b) in [("gpu", &backend), ("cpu", &cpu)] {
            group.bench_function(format!("scan 2^{log_n} u32 {name}"), |bench| {
                bench.iter(|| b.exclusive_scan_into(input, out).unwrap())
            });
            group.bench_function(format!("sum 2^{log_n} u32 {name}"), |bench| {
                bench.iter(|| b.sum(input).unwrap())
            });
        }
    }
    group.finish();
    crossover_more_work(c, &backend, &cpu);
    device_calls(c, &device, &gpu);
}

/// Where the GPU overtakes the CPU backend on host data for the primitives that do more work
/// per byte than a scan: alias sampling and construction, multisplit, convolution, SOM search.
fn crossover_more_work(c: &mut Criterion, gpu: &Backend, cpu: &Backend) {
    let mut rng = Philox::seed_from_u64(25);
    let reals: Vec<f32> = (0..1 << 24)
        .map(|_| (rng.next_u32() >> 8) as f32 / (1 << 24) as f32)
        .collect();
    let weights: Vec<f64> = (1..=1 << 22).map(|i| 1.0 / i as f64).collect();
    let keys: Vec<u32> = (0..1 << 24).map(|_| rng.next_u32()).collect();
    let index: Vec<u32> = (0..1 << 24).collect();
    let mut samples = vec![0u32; 1 << 26];
    let split = Multisplit::new(Buckets::BitField { shift: 24, bits: 8 }).unwrap();
    let conv = Convolution::new();
    let mut group = c.benchmark_group("host paths crossover");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_secs(1));
    for (name, b) in [("gpu", gpu), ("cpu", cpu)] {
        let table = AliasTable::new(b, &weights[..1 << 20]).unwrap();
        for log_n in [12, 16, 20, 24, 26] {
            let out = &mut samples[..1 << log_n];
            group.bench_function(format!("alias fill 2^{log_n} from 2^20 {name}"), |bench| {
                bench.iter(|| {
                    table
                        .sample_into(&mut rng, &mut *out, SampleOptions::default())
                        .unwrap()
                })
            });
        }
        for log_n in [12, 16, 20, 22] {
            let w = &weights[..1 << log_n];
            group.bench_function(format!("alias build 2^{log_n} f64 {name}"), |bench| {
                bench.iter(|| AliasTable::new(b, w).unwrap())
            });
        }
        for log_n in [12, 16, 20, 24] {
            let (k, v) = (&keys[..1 << log_n], &index[..1 << log_n]);
            group.bench_function(format!("multisplit pairs 2^{log_n} m=256 {name}"), |bench| {
                bench.iter(|| split.pairs(b, k, v).unwrap())
            });
        }
        for log_m in [8, 10, 12, 14] {
            let (p, q) = (&reals[..1 << log_m], &reals[1 << log_m..2 << log_m]);
            group.bench_function(format!("convolve full m=n=2^{log_m} f32 {name}"), |bench| {
                bench.iter(|| conv.full(b, p, q).unwrap())
            });
        }
        // Nodes of dimension 12 against a 64 x 64 map.
        let cells = &reals[1 << 23..(1 << 23) + 4096 * 12];
        for log_n in [6, 8, 10, 12, 14] {
            let nodes = &reals[..12 << log_n];
            group.bench_function(format!("som bmu 2^{log_n} nodes 64x64 {name}"), |bench| {
                bench.iter(|| best_matching_units(b, nodes, cells, 12, Accumulate::F32).unwrap())
            });
        }
    }
    group.finish();
}

/// Benchmarks `call` as `name, wall` (a synchronize after each call) and `name, events`.
fn wall_and_events(
    group: &mut BenchmarkGroup<WallTime>,
    device: &Device,
    gpu: &Gpu,
    name: &str,
    mut call: impl FnMut(),
) {
    group.bench_function(format!("{name}, wall"), |b| {
        b.iter(|| {
            call();
            device.synchronize().unwrap()
        })
    });
    group.bench_function(format!("{name}, events"), |b| {
        b.iter_custom(|iters| time_on_gpu(gpu, iters, &mut call))
    });
}

/// Each area's device-resident call, wall clock beside events, at sizes of the area benches.
fn device_calls(c: &mut Criterion, device: &Device, gpu: &Gpu) {
    let mut rng = Philox::seed_from_u64(7);
    let mut group = c.benchmark_group("host paths device calls");
    settings(&mut group);

    // The floor of the wall-clock lines: a synchronize with nothing queued.
    group.bench_function("synchronize alone", |b| b.iter(|| device.synchronize().unwrap()));
    let words: Vec<u32> = (0..N).map(|_| rng.next_u32()).collect();
    let reals: Vec<f32> = words
        .iter()
        .map(|&w| (w >> 8) as f32 / (1 << 24) as f32)
        .collect();
    let (d_words, d_reals) = (device.upload(&words).unwrap(), device.upload(&reals).unwrap());
    let mut out = device.zeros::<u32>(N).unwrap();
    let mut one = device.zeros::<f32>(1).unwrap();
    wall_and_events(&mut group, device, gpu, "exclusive_scan_into 2^26 u32", || {
        device.exclusive_scan_into(&d_words, &mut out).unwrap()
    });
    wall_and_events(&mut group, device, gpu, "sum_into 2^26 f32", || {
        device.sum_into(&d_reals, &mut one).unwrap()
    });
    wall_and_events(&mut group, device, gpu, "min_into 2^26 f32", || {
        device.min_into(&d_reals, &mut one).unwrap()
    });
    // The grid bench's size.
    let big: Vec<f64> = (0..4 * N).map(|i| (i % 1000) as f64).collect();
    let (d_big, mut total) = (device.upload(&big).unwrap(), device.zeros::<f64>(1).unwrap());
    drop(big);
    wall_and_events(&mut group, device, gpu, "sum_into 2^28 f64", || {
        device.sum_into(&d_big, &mut total).unwrap()
    });
    drop(d_big);
    let mut summary = device.zeros::<f64>(moments::SUMMARY_WORDS).unwrap();
    wall_and_events(&mut group, device, gpu, "moments summary_into 2^26 f32", || {
        moments::summary_into(device, &d_reals, &mut summary).unwrap()
    });
    let n = 8;
    let mut counts = device.zeros::<u32>(lbp::bins(n) as usize).unwrap();
    wall_and_events(
        &mut group,
        device,
        gpu,
        "lbp histograms_into 2^26 f32, n = 8",
        || lbp::histograms_into(device, &d_reals, &[0, N], n, &mut counts).unwrap(),
    );
    let split = Multisplit::new(Buckets::BitField { shift: 0, bits: 5 }).unwrap();
    wall_and_events(
        &mut group,
        device,
        gpu,
        "multisplit keys_into 2^26 u32, 32 buckets",
        || drop(split.keys_into(device, &d_words, &mut out).unwrap()),
    );
    let subsets = Subsets::range(32, 16).unwrap();
    let count = 1 << 24;
    let mut bits = device.zeros::<u32>(count).unwrap();
    wall_and_events(
        &mut group,
        device,
        gpu,
        "subsets bits_into 2^24 of 32-bit k=16",
        || subsets.bits_into(device, 1, count, &mut bits).unwrap(),
    );
    let conv = Convolution::new();
    for m in [4096, 65536] {
        let (p, q) = (
            device.upload(&reals[..m]).unwrap(),
            device.upload(&reals[m..2 * m]).unwrap(),
        );
        let mut r = device.zeros::<f32>(2 * m - 1).unwrap();
        wall_and_events(
            &mut group,
            device,
            gpu,
            &format!("convolve full_into m = n = {m} f32"),
            || conv.full_into(device, &p, &q, &mut r).unwrap(),
        );
    }
    const DIM: usize = 12;
    let (nodes, cells) = (
        device.upload(&reals[..12_000 * DIM]).unwrap(),
        device.upload(&reals[1 << 24..(1 << 24) + 40_000 * DIM]).unwrap(),
    );
    let mut best = device.zeros::<u32>(12_000).unwrap();
    wall_and_events(
        &mut group,
        device,
        gpu,
        "som best_matching_units_into 12000 vs 200x200",
        || best_matching_units_into(device, &nodes, &cells, DIM, Accumulate::F32, &mut best).unwrap(),
    );
    let schedule = Schedule::for_map(200, 200, 1);
    let mut weights = device.upload(&reals[1 << 24..(1 << 24) + 40_000 * DIM]).unwrap();
    for training in [Training::Batch, Training::Online] {
        let name = format!("som train_into 12000 on 200x200 {training:?}, one epoch");
        wall_and_events(&mut group, device, gpu, &name, || {
            train_into(device, &nodes, &mut weights, (200, 200), &schedule, training).unwrap()
        });
    }
    group.finish();
}

criterion_group!(benches, host_paths);
criterion_main!(benches);
