//! Issue 4's figures: alias table construction (f64 and f32 weights, shuffled power law and
//! uniform, N = 10^7 and 10^8) and sampling 10^9 samples written to device memory as u32 (N =
//! 10^3 .. 10^8, also folded as the seed measures it) and against the samples drawn (the seed's
//! Figure 4), on the GPU timed with CUDA events (the default construction by wall clock too, a
//! synchronize after each); the f64 constructions with the rayon CPU backend too, for the
//! speed-up; then 10^9 samples in the default random order (issue 44),
//! by CUDA events and by wall clock. Without a GPU only the CPU part runs (at 10^7).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rand_core::{RngCore, SeedableRng};
use warpkit::alias::{
    AliasTable, AliasWeight, Construction, Layout, Order, SampleOptions, Sampling, TILED_MAX_ROWS,
};
use warpkit::{Backend, Device, Philox};
use warpkit_benches::{brief, time_on_gpu, time_synchronized};

fn shuffled_power_law<F: AliasWeight>(n: usize) -> Vec<F> {
    let mut rng = Philox::seed_from_u64(3);
    let mut w: Vec<F> = (1..=n).map(|i| F::from_f64(1.0 / i as f64)).collect();
    for i in (1..n).rev() {
        w.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
    }
    w
}

fn uniform<F: AliasWeight>(n: usize) -> Vec<F> {
    let mut rng = Philox::seed_from_u64(4);
    (0..n)
        .map(|_| F::from_f64(rng.next_u32() as f64 / 4294967296.0 + 1e-3))
        .collect()
}

/// A construction's name in benchmark ids: "psa Binary Baseline", "psa Binary Chunked indices"
/// (indices-only layout), "psa+ PartialPary Chunked".
fn label(method: Construction) -> String {
    match method {
        Construction::Psa {
            split,
            pack,
            layout: Layout::WeightsBeside,
        } => format!("psa {split:?} {pack:?}"),
        Construction::Psa {
            split,
            pack,
            layout: Layout::IndicesOnly,
        } => format!("psa {split:?} {pack:?} indices"),
        Construction::PsaPlus { split, pack } => format!("psa+ {split:?} {pack:?}"),
        Construction::Sequential => "sequential".into(),
    }
}

fn construction<F: AliasWeight>(c: &mut Criterion, device: Option<&Device>, sizes: &[usize], with_cpu: bool) {
    let mut group = c.benchmark_group(format!("alias construction {}", F::NAME));
    brief(&mut group);
    for &n in sizes {
        for (dist, weights) in [
            ("power law", shuffled_power_law::<F>(n)),
            ("uniform", uniform::<F>(n)),
        ] {
            group.throughput(Throughput::Elements(n as u64));
            if let Some(device) = device {
                let gpu = device.as_gpu().expect("a GPU");
                let w = device.upload(&weights).unwrap();
                for method in Construction::on_device() {
                    let mut table = AliasTable::from_device_with(device, &w, method).unwrap();
                    let id = BenchmarkId::new(format!("gpu {} {dist}", label(method)), n);
                    group.bench_function(id, |b| {
                        b.iter_custom(|iters| {
                            time_on_gpu(gpu, iters, || table.rebuild_from_device(&w).unwrap())
                        })
                    });
                }
                // The default construction as a caller waiting for the table sees it.
                let mut table = AliasTable::from_device(device, &w).unwrap();
                let id = BenchmarkId::new(format!("gpu default {dist} wall"), n);
                group.bench_function(id, |b| {
                    b.iter_custom(|iters| {
                        time_synchronized(device, iters, || table.rebuild_from_device(&w).unwrap())
                    })
                });
            }
            if with_cpu {
                let cpu = Backend::cpu();
                for method in [Construction::PSA_BASELINE, Construction::PSA_PLUS_BASELINE] {
                    let mut table = AliasTable::build(&cpu, &weights, method).unwrap();
                    let id = BenchmarkId::new(format!("cpu {} {dist}", label(method)), n);
                    group.bench_function(id, |b| b.iter(|| table.rebuild(&weights).unwrap()));
                }
            }
        }
    }
    group.finish();
}

/// Every device sampler at its default settings and the section sizes the seed tried.
const SAMPLERS: [Sampling; 5] = [
    Sampling::Baseline,
    Sampling::CachedSectioned { section_rows: 4096 },
    Sampling::CachedLimitedSectioned { section_rows: 4096 },
    Sampling::CachedLimitedSectioned { section_rows: 65536 },
    Sampling::SharedMemorySectioned,
];

/// 10^9 samples from tables of 10^3 .. 10^8 uniform weights, each sampler stored to device
/// memory and, as the seed benchmarks it, folded (consumed without being stored).
fn sampling<F: AliasWeight>(c: &mut Criterion, device: &Device) {
    let gpu = device.as_gpu().expect("a GPU");
    let s = 1_000_000_000usize;
    let mut out = device.zeros::<u32>(s).unwrap();
    let mut group = c.benchmark_group(format!("alias sampling 1e9 {}", F::NAME));
    brief(&mut group);
    group.throughput(Throughput::Elements(s as u64));
    for n in [1_000usize, 1_000_000, 10_000_000, 100_000_000] {
        let w = device.upload(&uniform::<F>(n)).unwrap();
        let table = AliasTable::from_device(device, &w).unwrap();
        let mut rng = Philox::seed_from_u64(5);
        for method in SAMPLERS {
            group.bench_function(BenchmarkId::new(format!("gpu {method:?} uniform"), n), |b| {
                b.iter_custom(|iters| {
                    time_on_gpu(gpu, iters, || {
                        table
                            .sample_into(
                                &mut rng,
                                &mut out,
                                SampleOptions::default().method(method).order(Order::AsDrawn),
                            )
                            .unwrap()
                    })
                })
            });
            let id = BenchmarkId::new(format!("gpu {method:?} uniform folded"), n);
            group.bench_function(id, |b| {
                b.iter_custom(|iters| {
                    time_on_gpu(gpu, iters, || {
                        table.sample_into_folded(&mut rng, &mut out, method).unwrap()
                    })
                })
            });
        }
    }
    group.finish();
}

/// The seed's Figure 4: throughput against the number of samples drawn (10^5 .. 10^9, stored),
/// one line per sampler, for tables of 10^6 and 10^8 uniform weights. `figure alias` draws
/// it from criterion's results.
fn samples_drawn(c: &mut Criterion, device: &Device) {
    let gpu = device.as_gpu().expect("a GPU");
    let mut group = c.benchmark_group("alias samples drawn");
    brief(&mut group);
    for n in [1_000_000usize, 100_000_000] {
        let w = device.upload(&uniform::<f64>(n)).unwrap();
        let table = AliasTable::from_device(device, &w).unwrap();
        let mut rng = Philox::seed_from_u64(6);
        for s in [100_000usize, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000] {
            let mut out = device.zeros::<u32>(s).unwrap();
            group.throughput(Throughput::Elements(s as u64));
            for method in SAMPLERS {
                group.bench_function(BenchmarkId::new(format!("{method:?} N={n}"), s), |b| {
                    b.iter_custom(|iters| {
                        time_on_gpu(gpu, iters, || {
                            table
                                .sample_into(
                                    &mut rng,
                                    &mut out,
                                    SampleOptions::default().method(method).order(Order::AsDrawn),
                                )
                                .unwrap()
                        })
                    })
                });
                // The default order, random, where `Sampling::auto` chooses between methods.
                if (10_000_000..=100_000_000).contains(&s) {
                    let id = BenchmarkId::new(format!("{method:?} shuffled N={n}"), s);
                    group.bench_function(id, |b| {
                        b.iter_custom(|iters| {
                            time_on_gpu(gpu, iters, || {
                                table
                                    .sample_into(&mut rng, &mut out, SampleOptions::default().method(method))
                                    .unwrap()
                            })
                        })
                    });
                }
            }
        }
    }
    group.finish();
}

/// 10^9 samples in the default (random) order from tables of 10^3 .. 10^8 uniform f64 weights,
/// as users call it: by the method `Sampling::auto` picks, and by each method that draws in
/// random order itself (the baseline, the tiled sampler where the table fits it); CUDA events,
/// then wall clock with a synchronize after each call.
fn default_order(c: &mut Criterion, device: &Device) {
    let gpu = device.as_gpu().expect("a GPU");
    let s = 1_000_000_000usize;
    let mut out = device.zeros::<u32>(s).unwrap();
    let mut group = c.benchmark_group("alias default order 1e9");
    brief(&mut group);
    group.throughput(Throughput::Elements(s as u64));
    for n in [
        1_000usize,
        1_000_000,
        2_000_000,
        4_000_000,
        10_000_000,
        12_000_000,
        100_000_000,
    ] {
        let w = device.upload(&uniform::<f64>(n)).unwrap();
        let table = AliasTable::from_device(device, &w).unwrap();
        let mut rng = Philox::seed_from_u64(7);
        let options = [
            ("auto", SampleOptions::default()),
            ("Baseline", SampleOptions::default().method(Sampling::Baseline)),
            ("Tiled", SampleOptions::default().method(Sampling::Tiled)),
        ];
        for (name, options) in options {
            if options.method == Some(Sampling::Tiled) && n > TILED_MAX_ROWS {
                continue;
            }
            group.bench_function(BenchmarkId::new(format!("{name} events"), n), |b| {
                b.iter_custom(|iters| {
                    time_on_gpu(gpu, iters, || {
                        table.sample_into(&mut rng, &mut out, options).unwrap()
                    })
                })
            });
            group.bench_function(BenchmarkId::new(format!("{name} wall"), n), |b| {
                b.iter_custom(|iters| {
                    time_synchronized(device, iters, || {
                        table.sample_into(&mut rng, &mut out, options).unwrap()
                    })
                })
            });
        }
    }
    group.finish();
}

fn alias(c: &mut Criterion) {
    match Device::gpu(0) {
        Ok(device) => {
            println!("device: {}", device.describe());
            construction::<f64>(c, Some(&device), &[10_000_000, 100_000_000], true);
            construction::<f32>(c, Some(&device), &[10_000_000, 100_000_000], false);
            sampling::<f64>(c, &device);
            sampling::<f32>(c, &device);
            samples_drawn(c, &device);
            default_order(c, &device);
        }
        Err(e) => {
            println!("SKIPPED: GPU alias benchmarks need a CUDA device ({e}); CPU construction only");
            construction::<f64>(c, None, &[10_000_000], true);
        }
    }
}

criterion_group!(benches, alias);
criterion_main!(benches);
