//! Issue 2's figures on the GPU, timed with CUDA events: the 128-bit copy (bytes read and
//! written), the device exclusive scan of 2^28 u32 (8 bytes a element over the time; also at
//! 2^20 and 2^23, multisplit's table sizes, with every tuning policy) and the exclusive and
//! inclusive scans of 2^28 f64, the device sum, minimum and maximum of 2^28 f64 (8 bytes a
//! element; the last two from issue 24) and the Philox fill of 2^28 words; the 2^28 u32 scan
//! also by wall clock (a synchronize after each call). Throughput is printed in decimal GB/s.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rand_core::{RngCore, SeedableRng};
use std::time::Duration;
use warpkit::{Device, Philox};
use warpkit_benches::time_on_gpu;

const N: usize = 1 << 28;

fn grid(c: &mut Criterion) {
    let device = match Device::gpu(0) {
        Ok(d) => d,
        Err(e) => {
            println!("SKIPPED: GPU benchmarks need a CUDA device ({e})");
            return;
        }
    };
    let gpu = device.as_gpu().expect("a GPU device");
    println!("device: {}", gpu.limits().name);
    let mut rng = Philox::seed_from_u64(2);
    let words: Vec<u32> = (0..N).map(|_| rng.next_u32()).collect();
    let src = device.upload(&words).unwrap();
    let mut dst = device.zeros::<u32>(N).unwrap();

    let mut group = c.benchmark_group("grid");
    group
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2));

    group.throughput(Throughput::BytesDecimal(2 * 4 * N as u64));
    group.bench_function("copy_vec128 2^28 u32", |b| {
        b.iter_custom(|iters| time_on_gpu(gpu, iters, || device.copy(&src, &mut dst).unwrap()))
    });

    // The scan at 2^28, and at the sizes of multisplit's tables (2^20 entries: 2^26 keys in
    // 32 buckets; 2^23: in 256), where few tiles make the look-back's latency count.
    for log_n in [28, 20, 23] {
        let n = 1usize << log_n;
        // 2^28 reuses the copy's buffers; the table sizes get their own.
        let mut smaller;
        let (src, dst) = if n == N {
            (&src, &mut dst)
        } else {
            smaller = (
                device.upload(&words[..n]).unwrap(),
                device.zeros::<u32>(n).unwrap(),
            );
            (&smaller.0, &mut smaller.1)
        };
        group.throughput(Throughput::BytesDecimal(8 * n as u64));
        group.bench_function(format!("scan_exclusive 2^{log_n} u32"), |b| {
            b.iter_custom(|iters| time_on_gpu(gpu, iters, || device.exclusive_scan_into(src, dst).unwrap()))
        });
        if n == N {
            // The same call by wall clock as users time it: a synchronize after each.
            group.bench_function("scan_exclusive 2^28 u32 wall", |b| {
                b.iter(|| {
                    device.exclusive_scan_into(src, dst).unwrap();
                    device.synchronize().unwrap()
                })
            });
            // The allocating form: a buffer from the device's pool and back each call.
            group.bench_function("scan_exclusive 2^28 u32 new buffer", |b| {
                b.iter_custom(|iters| time_on_gpu(gpu, iters, || drop(device.exclusive_scan(src).unwrap())))
            });
        }
        for (kernel, _, scan) in warpkit::scan::SCAN_TUNING_U32 {
            group.bench_function(format!("scan tuning 2^{log_n} {kernel}"), |b| {
                b.iter_custom(|iters| time_on_gpu(gpu, iters, || scan(&device, src, dst).unwrap()))
            });
        }
    }
    drop(dst);

    let floats: Vec<f64> = (0..N).map(|_| rng.next_u32() as f64 / 4e9).collect();
    let input = device.upload(&floats).unwrap();
    let mut out = device.zeros::<f64>(1).unwrap();
    group.throughput(Throughput::BytesDecimal(8 * N as u64));
    group.bench_function("reduce_sum 2^28 f64", |b| {
        b.iter_custom(|iters| time_on_gpu(gpu, iters, || device.sum_into(&input, &mut out).unwrap()))
    });
    group.bench_function("reduce_min 2^28 f64", |b| {
        b.iter_custom(|iters| time_on_gpu(gpu, iters, || device.min_into(&input, &mut out).unwrap()))
    });
    group.bench_function("reduce_max 2^28 f64", |b| {
        b.iter_custom(|iters| time_on_gpu(gpu, iters, || device.max_into(&input, &mut out).unwrap()))
    });
    let mut scanned = device.zeros::<f64>(N).unwrap();
    group.throughput(Throughput::BytesDecimal(16 * N as u64));
    group.bench_function("scan_exclusive 2^28 f64", |b| {
        b.iter_custom(|iters| {
            time_on_gpu(gpu, iters, || {
                device.exclusive_scan_into(&input, &mut scanned).unwrap()
            })
        })
    });
    group.bench_function("scan_inclusive 2^28 f64", |b| {
        b.iter_custom(|iters| {
            time_on_gpu(gpu, iters, || {
                device.inclusive_scan_into(&input, &mut scanned).unwrap()
            })
        })
    });
    drop(scanned);

    let mut stream = device.zeros::<u32>(N).unwrap();
    group.throughput(Throughput::BytesDecimal(4 * N as u64));
    group.bench_function("philox_fill 2^28 u32", |b| {
        b.iter_custom(|iters| {
            time_on_gpu(gpu, iters, || {
                device.philox_fill(&mut stream, [1, 2], [0; 4]).unwrap()
            })
        })
    });
    group.finish();
}

criterion_group!(benches, grid);
criterion_main!(benches);
