//! Issue 24's host-path figures, by wall clock through the public API as users call it
//! (allocation, copies and the final synchronization included), throughput in decimal GB/s of
//! input: the exclusive scan and sum of 2^26 u32 from ordinary slices and from page-locked
//! buffers, 10^8 alias samples into a host slice, the bare copies each way, the staging chunk
//! size, and the GPU against the CPU backend at growing sizes (where the GPU overtakes it).

use criterion::{
    BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main, measurement::WallTime,
};
use rand_core::{RngCore, SeedableRng};
use std::time::Duration;
use warpkit::alias::AliasTable;
use warpkit::{Backend, Device, Philox};
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
        b.iter(|| table.fill(&mut rng, &mut samples).unwrap())
    });
    group.bench_function("fill pinned", |b| {
        b.iter(|| table.fill(&mut rng, &mut pinned_samples).unwrap())
    });
    group.bench_function("sample to new vec", |b| {
        b.iter(|| table.sample(&mut rng, SAMPLES).unwrap())
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
}

criterion_group!(benches, host_paths);
criterion_main!(benches);
