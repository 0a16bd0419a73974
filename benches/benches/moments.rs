//! Issue 23's moments figure: the summary (count, mean, variance, min, max) of 1e8 f64 and of
//! 1e8 f32 in device memory, timed with CUDA events (`summary_into`, the result left on the
//! device), beside the device sum of the same f64 (one read, the floor this pass can reach);
//! and through the public API by wall clock (`summary_of_buffer`, the 40-byte result copied
//! back); and the same f64 as a 10000 × 10000 matrix, a summary per column. Throughput counts
//! bytes read. Without a GPU, the CPU backend on 1e7.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::time::Instant;
use warpkit::moments::{
    SUMMARY_WORDS, Sample, column_summaries_into, summary, summary_into, summary_of_buffer,
};
use warpkit::{Backend, Device};
use warpkit_benches::{brief, time_on_gpu};

/// 1e8 values, in f64 and f32.
const N: usize = 100_000_000;

/// Deterministic values around 1e3.
fn values(n: usize) -> Vec<f64> {
    (0..n as u64)
        .map(|i| 1e3 + ((i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40) as f64) / (1u64 << 24) as f64)
        .collect()
}

fn on_device<F: Sample>(c: &mut Criterion, device: &Device, data: &[F], name: &str) {
    let gpu = device.as_gpu().expect("a GPU");
    let mut group = c.benchmark_group("moments");
    brief(&mut group);
    group.throughput(Throughput::Bytes(std::mem::size_of_val(data) as u64));
    let input = device.upload(data).unwrap();
    let mut out = device.zeros::<f64>(SUMMARY_WORDS).unwrap();
    group.bench_function(BenchmarkId::new("summary_into", name), |b| {
        b.iter_custom(|iters| time_on_gpu(gpu, iters, || summary_into(device, &input, &mut out).unwrap()))
    });
    group.bench_function(BenchmarkId::new("summary_of_buffer (wall clock)", name), |b| {
        b.iter_custom(|iters| {
            let t = Instant::now();
            for _ in 0..iters {
                std::hint::black_box(summary_of_buffer(device, &input).unwrap());
            }
            t.elapsed()
        })
    });
    group.finish();
}

fn moments(c: &mut Criterion) {
    match Device::gpu(0) {
        Ok(device) => {
            println!("device: {}", device.describe());
            let data = values(N);
            on_device(c, &device, &data, "1e8 f64");
            let gpu = device.as_gpu().expect("a GPU");
            let input = device.upload(&data).unwrap();
            let mut sum = device.zeros::<f64>(1).unwrap();
            let mut group = c.benchmark_group("moments");
            brief(&mut group);
            group.throughput(Throughput::Bytes((N * 8) as u64));
            group.bench_function(BenchmarkId::new("sum (floor)", "1e8 f64"), |b| {
                b.iter_custom(|iters| time_on_gpu(gpu, iters, || device.sum_into(&input, &mut sum).unwrap()))
            });
            // The same 1e8 values as a 10000 × 10000 matrix, a summary per column.
            let (rows, cols) = (10_000, 10_000);
            let mut words = device.zeros::<f64>(cols * SUMMARY_WORDS).unwrap();
            group.bench_function(
                BenchmarkId::new("column_summaries_into", "10000x10000 f64"),
                |b| {
                    b.iter_custom(|iters| {
                        time_on_gpu(gpu, iters, || {
                            column_summaries_into(&device, &input, rows, cols, &mut words).unwrap()
                        })
                    })
                },
            );
            group.finish();
            drop(input);
            let data: Vec<f32> = data.iter().map(|&x| x as f32).collect();
            on_device(c, &device, &data, "1e8 f32");
        }
        Err(e) => {
            println!("SKIPPED: GPU moments benchmarks need a CUDA device ({e}); CPU backend only");
            let data = values(N / 10);
            let mut group = c.benchmark_group("moments cpu");
            brief(&mut group);
            group.throughput(Throughput::Bytes((data.len() * 8) as u64));
            group.bench_function("summary 1e7 f64", |b| {
                b.iter(|| summary(&Backend::cpu(), &data).unwrap())
            });
            group.finish();
        }
    }
}

criterion_group!(benches, moments);
criterion_main!(benches);
