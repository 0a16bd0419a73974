//! Issue 21's figures: random K-subsets generated into device memory, timed with CUDA events,
//! for the seed's 32-bit, 64-bit, 32×32 and 64×64 sets at k = N/2 and N/8 and the 15×15 board
//! with k = 141, by both algorithms and every method that runs them on the set, as bit vectors
//! and as sorted positions;
//! and the bit vectors through the public API as users call it (allocation, launch, download
//! to the host), by wall clock. Without a GPU, the CPU backend on fewer subsets.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::time::Instant;
use warpkit::subset::{Algorithm, Method, Subsets};
use warpkit::{Backend, Device};
use warpkit_benches::{brief, time_on_gpu};

/// The measured sets: name, base set, subsets per call (about 256 MB to 512 MB of output).
fn cases() -> Vec<(&'static str, Subsets, usize)> {
    vec![
        ("32-bit k=16", Subsets::range(32, 16).unwrap(), 1 << 26),
        ("32-bit k=4", Subsets::range(32, 4).unwrap(), 1 << 26),
        ("64-bit k=32", Subsets::range(64, 32).unwrap(), 1 << 25),
        ("64-bit k=8", Subsets::range(64, 8).unwrap(), 1 << 25),
        ("15x15 k=141", Subsets::grid(15, 15, 141).unwrap(), 1 << 24),
        ("32x32 k=512", Subsets::grid(32, 32, 512).unwrap(), 1 << 22),
        ("32x32 k=128", Subsets::grid(32, 32, 128).unwrap(), 1 << 22),
        ("64x64 k=2048", Subsets::grid(64, 64, 2048).unwrap(), 1 << 20),
        ("64x64 k=512", Subsets::grid(64, 64, 512).unwrap(), 1 << 20),
    ]
}

/// How a group's draws come out: bit vectors (`words` words a subset) or sorted positions (`k`
/// a subset).
#[derive(Clone, Copy, PartialEq)]
enum Output {
    Bits,
    Positions,
}

/// Every case by each algorithm and every method that runs it, into device memory, timed with
/// CUDA events.
fn by_method(c: &mut Criterion, device: &Device, output: Output) {
    let gpu = device.as_gpu().expect("a GPU");
    let bits = output == Output::Bits;
    let mut group = c.benchmark_group(if bits { "subsets" } else { "subsets positions" });
    brief(&mut group);
    for (name, base, count) in cases() {
        // Positions: at most 2^28 a call.
        let count = if bits {
            count
        } else {
            count.min((1 << 28) / base.k() as usize)
        };
        // The output, and one element standing by for the other kind.
        let mut words = device
            .zeros::<u32>(if bits { count * base.words() } else { 1 })
            .unwrap();
        let mut positions = device
            .zeros::<u16>(if bits { 1 } else { count * base.k() as usize })
            .unwrap();
        group.throughput(Throughput::Elements(count as u64));
        for (algorithm, method) in [Algorithm::Halving, Algorithm::Mend]
            .into_iter()
            .flat_map(|a| Method::ALL.map(|m| (a, m)))
        {
            let Ok(run) = base
                .clone()
                .with_algorithm(algorithm)
                .and_then(|s| s.with_method(method))
            else {
                continue;
            };
            let id = BenchmarkId::new(format!("{algorithm:?} {method:?}"), name);
            group.bench_function(id, |b| {
                b.iter_custom(|iters| {
                    time_on_gpu(gpu, iters, || {
                        if bits {
                            run.bits_into(device, 7, count, &mut words).unwrap()
                        } else {
                            run.positions_into(device, 7, count, &mut positions).unwrap()
                        }
                    })
                })
            });
        }
    }
    group.finish();
}

fn on_gpu(c: &mut Criterion, device: &Device) {
    by_method(c, device, Output::Bits);
    by_method(c, device, Output::Positions);
    // Wall clock through the public API: device allocation, launch, download, host vector.
    let mut group = c.benchmark_group("subsets to host");
    brief(&mut group);
    let backend = Backend::Device(device.clone());
    for (name, base, count) in cases() {
        group.throughput(Throughput::Elements(count as u64));
        group.bench_function(BenchmarkId::new("auto", name), |b| {
            b.iter_custom(|iters| {
                let t = Instant::now();
                for _ in 0..iters {
                    std::hint::black_box(base.bits(&backend, 7, count).unwrap());
                }
                t.elapsed()
            })
        });
    }
    group.finish();
}

fn subsets(c: &mut Criterion) {
    match Device::gpu(0) {
        Ok(device) => {
            println!("device: {}", device.describe());
            on_gpu(c, &device);
        }
        Err(e) => {
            println!("SKIPPED: GPU subset benchmarks need a CUDA device ({e}); CPU backend only");
            let cpu = Backend::cpu();
            let mut group = c.benchmark_group("subsets cpu");
            group.sample_size(10);
            for (name, base, count) in cases() {
                let count = count >> 8;
                group.throughput(Throughput::Elements(count as u64));
                group.bench_function(name, |b| b.iter(|| base.bits(&cpu, 7, count).unwrap()));
            }
            group.finish();
        }
    }
}

criterion_group!(benches, subsets);
criterion_main!(benches);
