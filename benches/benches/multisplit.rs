//! Issue 5's figures: multisplit of 2^26 and 2^28 random u32 keys into m = 2 .. 65536 uniform
//! buckets (a bit field of the key) by every method, keys-only and with u32 values, compaction,
//! and a four-pass radix sort of the same keys for the seed's comparison; in device memory on
//! the GPU, timed with CUDA events (each call includes its table scan and the download of its
//! report and bucket offsets; a one-pass call allocates nothing, two-pass calls their scratch
//! keys and bounds), and the default method's call by wall clock with a synchronize after each
//! (`default ... wall`). Without a GPU, the CPU backend at 2^24 keys.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rand_core::{RngCore, SeedableRng};
use warpkit::multisplit::{Buckets, Keep, Method, Multisplit};
use warpkit::{Backend, Device, Philox};
use warpkit_benches::{brief, time_on_gpu};

/// Bucket counts measured: powers of two, so a bit field splits uniform keys uniformly.
const BUCKET_BITS: [u32; 5] = [1, 5, 8, 12, 16];

fn random_keys(n: usize) -> Vec<u32> {
    let mut rng = Philox::seed_from_u64(9);
    (0..n).map(|_| rng.next_u32()).collect()
}

fn on_gpu(c: &mut Criterion, device: &Device) {
    let gpu = device.as_gpu().expect("a GPU");
    let mut group = c.benchmark_group("multisplit u32");
    brief(&mut group);
    for log_n in [26u32, 28] {
        let n = 1usize << log_n;
        let keys = device.upload(&random_keys(n)).unwrap();
        let values = device.upload(&(0..n as u32).collect::<Vec<u32>>()).unwrap();
        let mut out_keys = device.zeros::<u32>(n).unwrap();
        let mut out_values = device.zeros::<u32>(n).unwrap();
        let size = format!("2^{log_n}");
        group.throughput(Throughput::Elements(n as u64));
        for bits in BUCKET_BITS {
            let m = 1u32 << bits;
            let buckets = Buckets::BitField {
                shift: 32 - bits,
                bits,
            };
            // The call as users make it: the default method, by wall clock with a synchronize
            // after each call (the hidden cost beside the methods' event timings).
            let split = Multisplit::new(buckets).unwrap();
            let id = |what: &str| BenchmarkId::new(format!("default {what} m={m}, wall"), &size);
            group.bench_function(id("keys"), |b| {
                b.iter(|| {
                    split.keys_into(device, &keys, &mut out_keys).unwrap();
                    device.synchronize().unwrap()
                })
            });
            group.bench_function(id("pairs"), |b| {
                b.iter(|| {
                    split
                        .pairs_into(device, &keys, &values, &mut out_keys, &mut out_values)
                        .unwrap();
                    device.synchronize().unwrap()
                })
            });
            for method in Method::ALL {
                let split = Multisplit::new(buckets).unwrap().with_method(method);
                let id = |what: &str| BenchmarkId::new(format!("{method:?} {what} m={m}"), &size);
                group.bench_function(id("keys"), |b| {
                    b.iter_custom(|iters| {
                        time_on_gpu(gpu, iters, || {
                            split.keys_into(device, &keys, &mut out_keys).unwrap();
                        })
                    })
                });
                group.bench_function(id("pairs"), |b| {
                    b.iter_custom(|iters| {
                        time_on_gpu(gpu, iters, || {
                            split
                                .pairs_into(device, &keys, &values, &mut out_keys, &mut out_values)
                                .unwrap();
                        })
                    })
                });
            }
        }
        // Compaction: keep the keys below the middle (about half of uniform keys).
        for method in Method::ALL {
            let split = Multisplit::new(Buckets::Keep(Keep::Below(1 << 31)))
                .unwrap()
                .with_method(method);
            group.bench_function(BenchmarkId::new(format!("{method:?} compaction"), &size), |b| {
                b.iter_custom(|iters| {
                    time_on_gpu(gpu, iters, || {
                        split.keys_into(device, &keys, &mut out_keys).unwrap();
                    })
                })
            });
        }
        // The seed's comparison: a full LSD radix sort of the same keys, four stable 8-bit
        // passes of the block-level multisplit.
        let mut other = device.zeros::<u32>(n).unwrap();
        let passes: Vec<_> = (0..4)
            .map(|p| {
                Multisplit::new(Buckets::BitField {
                    shift: 8 * p,
                    bits: 8,
                })
                .unwrap()
                .with_method(Method::BlockLevel)
            })
            .collect();
        group.bench_function(BenchmarkId::new("radix sort keys", &size), |b| {
            b.iter_custom(|iters| {
                time_on_gpu(gpu, iters, || {
                    passes[0].keys_into(device, &keys, &mut out_keys).unwrap();
                    passes[1].keys_into(device, &out_keys, &mut other).unwrap();
                    passes[2].keys_into(device, &other, &mut out_keys).unwrap();
                    passes[3].keys_into(device, &out_keys, &mut other).unwrap();
                })
            })
        });
    }
    group.finish();
}

fn multisplit(c: &mut Criterion) {
    match Device::gpu(0) {
        Ok(device) => {
            println!("device: {}", device.describe());
            on_gpu(c, &device);
        }
        Err(e) => {
            println!("SKIPPED: GPU multisplit benchmarks need a CUDA device ({e}); CPU backend only");
            let keys = random_keys(1 << 24);
            let split = Multisplit::new(Buckets::BitField { shift: 24, bits: 8 }).unwrap();
            let cpu = Backend::cpu();
            let mut group = c.benchmark_group("multisplit cpu u32");
            group
                .sample_size(10)
                .throughput(Throughput::Elements(keys.len() as u64));
            group.bench_function("keys m=256 2^24", |b| b.iter(|| split.keys(&cpu, &keys).unwrap()));
            group.finish();
        }
    }
}

criterion_group!(benches, multisplit);
criterion_main!(benches);
