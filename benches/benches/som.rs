//! Issue 23's SOM figure: the best-matching-unit pass of the seed's case, 12000 nodes of
//! dimension 12 against a 200 × 200 map, with f32 and f64 accumulation, timed with CUDA events
//! (`best_matching_units_into`, everything on the device) and through the public API by wall
//! clock from host data (`best_matching_units`: uploads, launch, download). Throughput counts
//! node-cell pairs. Then one training epoch of the same case, batch (the 2 ms target)
//! and online (one cooperative launch an epoch), by CUDA events (`train_into` on device buffers) and by wall
//! clock through `Som::train_batch` / `train_online` from host data; throughput counts nodes.
//! Without a GPU, the CPU backend on a tenth of the nodes.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::time::Instant;
use warpkit::som::{
    Accumulate, Schedule, Som, Training, best_matching_units, best_matching_units_into, train_into,
};
use warpkit::{Backend, Device};
use warpkit_benches::{brief, time_on_gpu};

const NODES: usize = 12_000;
const CELLS: usize = 200 * 200;
const DIM: usize = 12;

/// Deterministic values in [0, 1).
fn values(n: usize, salt: u64) -> Vec<f32> {
    (0..n as u64)
        .map(|i| ((i ^ salt).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40) as f32 / (1u32 << 24) as f32)
        .collect()
}

fn som(c: &mut Criterion) {
    let (nodes, map) = (values(NODES * DIM, 1), values(CELLS * DIM, 2));
    let mut group = c.benchmark_group("som");
    brief(&mut group);
    match Device::gpu(0) {
        Ok(device) => {
            println!("device: {}", device.describe());
            let gpu = device.as_gpu().expect("a GPU");
            group.throughput(Throughput::Elements((NODES * CELLS) as u64));
            let (d_nodes, d_map) = (device.upload(&nodes).unwrap(), device.upload(&map).unwrap());
            let mut out = device.zeros::<u32>(NODES).unwrap();
            let backend = Backend::Device(device.clone());
            for acc in [Accumulate::F32, Accumulate::F64] {
                let id = format!("12000x12 vs 200x200 {acc:?}");
                group.bench_function(BenchmarkId::new("best_matching_units_into", &id), |b| {
                    b.iter_custom(|iters| {
                        time_on_gpu(gpu, iters, || {
                            best_matching_units_into(&device, &d_nodes, &d_map, DIM, acc, &mut out).unwrap()
                        })
                    })
                });
                group.bench_function(
                    BenchmarkId::new("best_matching_units (wall clock, from host)", &id),
                    |b| {
                        b.iter_custom(|iters| {
                            let t = Instant::now();
                            for _ in 0..iters {
                                std::hint::black_box(
                                    best_matching_units(&backend, &nodes, &map, DIM, acc).unwrap(),
                                );
                            }
                            t.elapsed()
                        })
                    },
                );
            }
            group.throughput(Throughput::Elements(NODES as u64));
            let start = Som::from_weights(200, 200, DIM, map.clone()).unwrap();
            let schedule = Schedule::for_map(200, 200, 1);
            let mut d_weights = device.upload(&map).unwrap();
            for training in [Training::Batch, Training::Online] {
                let id = format!("12000x12 on 200x200 {training:?}, one epoch");
                group.bench_function(BenchmarkId::new("train_into", &id), |b| {
                    b.iter_custom(|iters| {
                        time_on_gpu(gpu, iters, || {
                            train_into(&device, &d_nodes, &mut d_weights, (200, 200), &schedule, training)
                                .unwrap()
                        })
                    })
                });
                group.bench_function(BenchmarkId::new("Som::train (wall clock, from host)", &id), |b| {
                    b.iter_custom(|iters| {
                        let t = Instant::now();
                        for _ in 0..iters {
                            let mut map = start.clone();
                            match training {
                                Training::Batch => map.train_batch(&backend, &nodes, &schedule),
                                Training::Online => map.train_online(&backend, &nodes, &schedule),
                            }
                            .unwrap();
                            std::hint::black_box(map);
                        }
                        t.elapsed()
                    })
                });
            }
        }
        Err(e) => {
            println!("SKIPPED: GPU SOM benchmarks need a CUDA device ({e}); CPU backend only");
            let nodes = &nodes[..NODES / 10 * DIM];
            group.throughput(Throughput::Elements((NODES / 10 * CELLS) as u64));
            group.bench_function("best_matching_units 1200x12 vs 200x200 F32", |b| {
                b.iter(|| best_matching_units(&Backend::cpu(), nodes, &map, DIM, Accumulate::F32).unwrap())
            });
        }
    }
    group.finish();
}

criterion_group!(benches, som);
criterion_main!(benches);
