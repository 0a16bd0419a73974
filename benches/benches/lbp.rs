//! Issue 23's LBP figures: the histogram of 1e7 i32 at neighbourhood 4 (256 bins) and 8
//! (65536 bins), random over the whole range and constant (every pattern in one bin: the
//! atomics' worst case), timed with CUDA events (`histograms_into`, data and result on the
//! device); through the public API by wall clock from host data (`histogram`: upload, zeroing,
//! launch, download); and a batch of 1000 signals of 1e4 at neighbourhood 4. Throughput counts
//! bytes read. Without a GPU, the CPU backend on 1e7 at neighbourhood 4.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::time::Instant;
use warpkit::lbp::{bins, histogram, histograms_into};
use warpkit::{Backend, Device};
use warpkit_benches::{brief, time_on_gpu};

/// 1e7 elements.
const N: usize = 10_000_000;

/// Deterministic values over the whole i32 range.
fn random(n: usize) -> Vec<i32> {
    (0..n as u64)
        .map(|i| (i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) as i32)
        .collect()
}

fn on_device(c: &mut Criterion, device: &Device, data: &[i32], name: &str, n: u32) {
    let gpu = device.as_gpu().expect("a GPU");
    let mut group = c.benchmark_group("lbp");
    brief(&mut group);
    group.throughput(Throughput::Bytes(std::mem::size_of_val(data) as u64));
    let input = device.upload(data).unwrap();
    let mut out = device.zeros::<u32>(bins(n) as usize).unwrap();
    let id = format!("n={n} {name}");
    let offsets = [0, data.len()];
    group.bench_function(BenchmarkId::new("histograms_into", &id), |b| {
        b.iter_custom(|iters| {
            time_on_gpu(gpu, iters, || {
                histograms_into(device, &input, &offsets, n, &mut out).unwrap()
            })
        })
    });
    let backend = Backend::Device(device.clone());
    group.bench_function(BenchmarkId::new("histogram (wall clock, from host)", &id), |b| {
        b.iter_custom(|iters| {
            let t = Instant::now();
            for _ in 0..iters {
                std::hint::black_box(histogram(&backend, data, n).unwrap());
            }
            t.elapsed()
        })
    });
    group.finish();
}

fn lbp(c: &mut Criterion) {
    let data = random(N);
    match Device::gpu(0) {
        Ok(device) => {
            println!("device: {}", device.describe());
            let constant = vec![7; N];
            for n in [4, 8] {
                on_device(c, &device, &data, "1e7 i32 random", n);
                on_device(c, &device, &constant, "1e7 i32 constant", n);
            }
            // 1000 signals of 1e4, a histogram each.
            let gpu = device.as_gpu().expect("a GPU");
            let offsets: Vec<usize> = (0..=1000).map(|s| s * 10_000).collect();
            let input = device.upload(&data).unwrap();
            let mut out = device.zeros::<u32>(1000 * bins(4) as usize).unwrap();
            let mut group = c.benchmark_group("lbp");
            brief(&mut group);
            group.throughput(Throughput::Bytes((N * 4) as u64));
            group.bench_function(BenchmarkId::new("histograms_into", "n=4 1000x1e4 i32"), |b| {
                b.iter_custom(|iters| {
                    time_on_gpu(gpu, iters, || {
                        histograms_into(&device, &input, &offsets, 4, &mut out).unwrap()
                    })
                })
            });
            group.finish();
        }
        Err(e) => {
            println!("SKIPPED: GPU LBP benchmarks need a CUDA device ({e}); CPU backend only");
            let mut group = c.benchmark_group("lbp cpu");
            brief(&mut group);
            group.throughput(Throughput::Bytes((N * 4) as u64));
            group.bench_function("histogram n=4 1e7 i32", |b| {
                b.iter(|| histogram(&Backend::cpu(), &data, 4).unwrap())
            });
            group.finish();
        }
    }
}

criterion_group!(benches, lbp);
criterion_main!(benches);
