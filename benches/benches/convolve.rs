//! Issue 22's figures: the full convolution into device memory timed with CUDA events, by every
//! method (the seed's v0 to v4, the band kernel and the FFT) at m = n from 256 to 65536 in f32
//! and at the seed's sizes in f64, f32 summed in f64, and the automatic method under issue 44's
//! contract of the mass; the same calls by wall clock with a synchronize each; the gradients; a batch of 4096 pairs of 256 and
//! one of varying lengths; the host time a call from device data takes to queue; and the same
//! through the public API from host data by wall clock.
//! Throughput counts multiply-adds (`m · n` a product). Without a GPU, the CPU backend at small
//! sizes.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::time::{Duration, Instant};
use warpkit::convolve::{Accuracy, Convolution, Method, Real, output_offsets};
use warpkit::{Backend, Device, DeviceBuffer};
use warpkit_benches::{brief, time_on_gpu};

/// Deterministic probability-like values.
fn values<F: Real>(n: usize, salt: u64) -> Vec<F> {
    (0..n as u64)
        .map(|i| {
            F::from_f64(((i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ salt) >> 40) as f64 / (1u64 << 24) as f64)
        })
        .collect()
}

/// Two vectors of `n` values on `device` and room for their convolution.
fn pair_on<F: Real>(device: &Device, n: usize) -> (DeviceBuffer<F>, DeviceBuffer<F>, DeviceBuffer<F>) {
    (
        device.upload(&values::<F>(n, 1)).unwrap(),
        device.upload(&values::<F>(n, 2)).unwrap(),
        device.zeros::<F>(2 * n - 1).unwrap(),
    )
}

fn forward<F: Real>(c: &mut Criterion, device: &Device, group_name: &str, sizes: &[usize]) {
    let gpu = device.as_gpu().expect("a GPU");
    let mut group = c.benchmark_group(group_name);
    brief(&mut group);
    for &n in sizes {
        let (p, q, mut r) = pair_on::<F>(device, n);
        group.throughput(Throughput::Elements((n * n) as u64));
        let mut convs: Vec<(String, Convolution)> = Method::DIRECT
            .iter()
            .map(|&m| (format!("{m:?}"), Convolution::new().with_method(m)))
            .collect();
        if size_of::<F>() == 4 {
            convs.push(("Band summed in f64".into(), convs[5].1.accumulate_f64()));
        }
        convs.push(("Fft".into(), Convolution::new().with_method(Method::Fft)));
        convs.push((
            "auto of mass".into(),
            Convolution::new().with_accuracy(of_mass::<F>()),
        ));
        for (name, conv) in convs {
            group.bench_function(BenchmarkId::new(name, n), |b| {
                b.iter_custom(|iters| {
                    time_on_gpu(gpu, iters, || conv.full_into(device, &p, &q, &mut r).unwrap())
                })
            });
        }
    }
    group.finish();
}

/// The contract for the FFT: 1e-6 of the mass in f32, 1e-12 in f64.
fn of_mass<F: Real>() -> Accuracy {
    Accuracy::OfMass(if size_of::<F>() == 4 { 1e-6 } else { 1e-12 })
}

/// Wall clock of the public call on device data as a user times it: the call, then a
/// synchronize, one after another; by the automatic method per output and under
/// [`of_mass`].
fn device_wall<F: Real>(c: &mut Criterion, device: &Device, group_name: &str, sizes: &[usize]) {
    let mut group = c.benchmark_group(group_name);
    brief(&mut group);
    for &n in sizes {
        let (p, q, mut r) = pair_on::<F>(device, n);
        group.throughput(Throughput::Elements((n * n) as u64));
        for (name, conv) in [
            ("auto per output", Convolution::new()),
            ("auto of mass", Convolution::new().with_accuracy(of_mass::<F>())),
        ] {
            group.bench_function(BenchmarkId::new(name, n), |b| {
                b.iter_custom(|iters| {
                    let t = Instant::now();
                    for _ in 0..iters {
                        conv.full_into(device, &p, &q, &mut r).unwrap();
                        device.synchronize().unwrap();
                    }
                    t.elapsed()
                })
            });
        }
        // Where the wall clock goes: the call alone onto an idle stream (its host time, the
        // synchronize after it untimed), and a synchronize with nothing queued.
        let conv = Convolution::new();
        group.bench_function(BenchmarkId::new("auto per output, the call alone", n), |b| {
            b.iter_custom(|iters| {
                let mut spent = Duration::ZERO;
                for _ in 0..iters {
                    let t = Instant::now();
                    conv.full_into(device, &p, &q, &mut r).unwrap();
                    spent += t.elapsed();
                    device.synchronize().unwrap();
                }
                spent
            })
        });
        group.bench_function(BenchmarkId::new("a synchronize with nothing queued", n), |b| {
            b.iter(|| device.synchronize().unwrap())
        });
    }
    group.finish();
}

/// What an idle synchronize costs after each kind of work a stream sees (issue 44's 2048 call
/// spends 1.4 µs of its wall clock in one): warpkit's after a call; `cuCtxGetCurrent` and
/// `cuStreamSynchronize` alone; `cudarc`'s on streams of the bench's own, each left by one
/// kind of work (nothing; small buffers zeroed or copied into from pageable memory, then freed,
/// each also recording and waiting on cudarc's events; 16 KB zeroed, which the driver does by a
/// kernel; a timing event; a wait on another stream's event); and warpkit's on a caller's
/// stream after each step of making and using a pair there. On the H100 it is the driver's:
/// 0.2-0.35 µs unless a kernel has run on the stream, then 1.4 µs, as the CUDA runtime's.
fn idle_synchronize(c: &mut Criterion, device: &Device) {
    use std::sync::Arc;
    use warpkit::cudarc::driver::{CudaContext, CudaStream, result, sys::CUevent_flags};
    let mut group = c.benchmark_group("convolve idle synchronize");
    brief(&mut group);
    let (p, q, mut r) = pair_on::<f32>(device, 2048);
    let conv = Convolution::new();
    conv.full_into(device, &p, &q, &mut r).unwrap();
    group.bench_function("warpkit's, after a call", |b| {
        b.iter(|| device.synchronize().unwrap())
    });
    group.bench_function("cuCtxGetCurrent alone", |b| {
        b.iter(|| result::ctx::get_current().unwrap())
    });
    let ctx = CudaContext::new(0).unwrap();
    let other = ctx.new_stream().unwrap();
    let mut left_by = |name: &str, work: &dyn Fn(&Arc<CudaStream>)| {
        let stream = ctx.new_stream().unwrap();
        work(&stream);
        stream.synchronize().unwrap();
        group.bench_function(format!("cudarc's after {name}"), |b| {
            b.iter(|| stream.synchronize().unwrap())
        });
        if name == "nothing" {
            group.bench_function("cuStreamSynchronize alone after nothing", |b| {
                // SAFETY: the stream is live (held above).
                b.iter(|| unsafe { result::stream::synchronize(stream.cu_stream()) }.unwrap())
            });
        }
    };
    left_by("nothing", &|_| ());
    left_by("256 B zeroed, zeroed again and freed", &|s| {
        s.memset_zeros(&mut s.alloc_zeros::<u8>(256).unwrap()).unwrap()
    });
    left_by("16 KB zeroed (a driver kernel) and freed", &|s| {
        drop(s.alloc_zeros::<u8>(16384).unwrap())
    });
    left_by("256 B zeroed and freed", &|s| {
        drop(s.alloc_zeros::<u8>(256).unwrap())
    });
    left_by("a timing event", &|s| {
        s.record_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).unwrap();
    });
    left_by("a wait on another stream's event", &|s| {
        s.wait(&other.record_event(None).unwrap()).unwrap()
    });
    left_by("8 KB copied from pageable memory and freed", &|s| {
        drop(s.clone_htod(&vec![1u8; 8192]).unwrap())
    });
    // warpkit on a caller's stream, step by step as the bench's pair was made and used.
    let caller = Device::gpu_on_stream(ctx.new_stream().unwrap()).unwrap();
    let mut after = |step: &str| {
        caller.synchronize().unwrap();
        group.bench_function(format!("warpkit's on a caller's stream, after {step}"), |b| {
            b.iter(|| caller.synchronize().unwrap())
        });
    };
    after("nothing");
    let mut r = caller.zeros::<f32>(4095).unwrap();
    after("zeros");
    let p = caller.upload(&values::<f32>(2048, 1)).unwrap();
    after("an upload");
    conv.full_into(&caller, &p, &p, &mut r).unwrap();
    after("a call");
    group.finish();
}

fn gradients<F: Real>(c: &mut Criterion, device: &Device, group_name: &str, sizes: &[usize]) {
    let gpu = device.as_gpu().expect("a GPU");
    let mut group = c.benchmark_group(group_name);
    brief(&mut group);
    for &n in sizes {
        let p = device.upload(&values::<F>(n, 1)).unwrap();
        let q = device.upload(&values::<F>(n, 2)).unwrap();
        let g = device.upload(&values::<F>(2 * n - 1, 3)).unwrap();
        let (mut dp, mut dq) = (device.zeros::<F>(n).unwrap(), device.zeros::<F>(n).unwrap());
        // Both gradients in one call: 2 · m · n multiply-adds.
        group.throughput(Throughput::Elements((2 * n * n) as u64));
        let conv = Convolution::new();
        group.bench_function(BenchmarkId::new("both", n), |b| {
            b.iter_custom(|iters| {
                time_on_gpu(gpu, iters, || {
                    conv.gradients_into(device, (&p, &q, &g), &mut dp, &mut dq)
                        .unwrap()
                })
            })
        });
    }
    group.finish();
}

/// A batch of `pairs` pairs of length `len`: data and offsets.
fn batch_of(pairs: usize, len: usize) -> (Vec<f32>, Vec<usize>) {
    (values(pairs * len, 4), (0..=pairs).map(|i| i * len).collect())
}

/// Offsets of `pairs` vectors of lengths 192 to 320, varying.
fn varying_offsets(pairs: usize) -> Vec<usize> {
    let mut offsets = vec![0];
    for i in 0..pairs {
        offsets.push(offsets[i] + 192 + i * 37 % 129);
    }
    offsets
}

fn batch(c: &mut Criterion, device: &Device) {
    let gpu = device.as_gpu().expect("a GPU");
    let mut group = c.benchmark_group("convolve batch");
    brief(&mut group);
    let (pairs, len) = (4096, 256);
    let (data, offsets) = batch_of(pairs, len);
    let (p, q) = (device.upload(&data).unwrap(), device.upload(&data).unwrap());
    let total = output_offsets(&offsets, &offsets).unwrap()[pairs];
    let mut r = device.zeros::<f32>(total).unwrap();
    group.throughput(Throughput::Elements((pairs * len * len) as u64));
    for method in [Method::Band, Method::Lanes, Method::V3, Method::V4] {
        let conv = Convolution::new().with_method(method);
        group.bench_function(BenchmarkId::new(format!("{method:?}"), "4096x256 f32"), |b| {
            b.iter_custom(|iters| {
                time_on_gpu(gpu, iters, || {
                    conv.batch_into(device, (&p, &offsets), (&q, &offsets), &mut r)
                        .unwrap()
                })
            })
        });
    }
    // Pairs of varying lengths go up as a job list each call.
    let offsets = varying_offsets(pairs);
    let data = device.upload(&values::<f32>(offsets[pairs], 5)).unwrap();
    let mut r = device
        .zeros::<f32>(output_offsets(&offsets, &offsets).unwrap()[pairs])
        .unwrap();
    let conv = Convolution::new();
    group.bench_function(BenchmarkId::new("Band", "4096 of 192-320 f32"), |b| {
        b.iter_custom(|iters| {
            time_on_gpu(gpu, iters, || {
                conv.batch_into(device, (&data, &offsets), (&data, &offsets), &mut r)
                    .unwrap()
            })
        })
    });
    group.finish();
}

/// Wall clock through the public API from host data: upload, launches, download.
fn to_host(c: &mut Criterion, backend: &Backend, group_name: &str, sizes: &[usize]) {
    let mut group = c.benchmark_group(group_name);
    brief(&mut group);
    let conv = Convolution::new();
    for &n in sizes {
        let (p, q) = (values::<f32>(n, 1), values::<f32>(n, 2));
        group.throughput(Throughput::Elements((n * n) as u64));
        group.bench_function(BenchmarkId::new("full f32", n), |b| {
            b.iter_custom(|iters| {
                let t = Instant::now();
                for _ in 0..iters {
                    std::hint::black_box(conv.full(backend, &p, &q).unwrap());
                }
                t.elapsed()
            })
        });
        let g = values::<f32>(2 * n - 1, 3);
        group.throughput(Throughput::Elements((2 * n * n) as u64));
        group.bench_function(BenchmarkId::new("gradients f32", n), |b| {
            b.iter_custom(|iters| {
                let t = Instant::now();
                for _ in 0..iters {
                    std::hint::black_box(conv.gradients(backend, &p, &q, &g).unwrap());
                }
                t.elapsed()
            })
        });
    }
    let (pairs, len) = (4096, 256);
    let (data, offsets) = batch_of(pairs, len);
    group.throughput(Throughput::Elements((pairs * len * len) as u64));
    group.bench_function(BenchmarkId::new("batch f32", "4096x256"), |b| {
        b.iter_custom(|iters| {
            let t = Instant::now();
            for _ in 0..iters {
                std::hint::black_box(conv.batch(backend, (&data, &offsets), (&data, &offsets)).unwrap());
            }
            t.elapsed()
        })
    });
    group.finish();
}

/// Host time a call takes to queue its work from device data (nothing waits for the GPU): the
/// floor under any short call's figure, whatever its kernel. Calls go in runs of 200 with a
/// synchronization after each, untimed, so the queue never fills.
fn submit(c: &mut Criterion, device: &Device) {
    let mut group = c.benchmark_group("convolve submit f32");
    brief(&mut group);
    let n = 256;
    let (p, q) = (
        device.upload(&values::<f32>(n, 1)).unwrap(),
        device.upload(&values::<f32>(n, 2)).unwrap(),
    );
    let g = device.upload(&values::<f32>(2 * n - 1, 3)).unwrap();
    let mut r = device.zeros::<f32>(2 * n - 1).unwrap();
    let (mut dp, mut dq) = (device.zeros::<f32>(n).unwrap(), device.zeros::<f32>(n).unwrap());
    let timed = |iters: u64, call: &mut dyn FnMut()| {
        let mut spent = Duration::ZERO;
        let mut left = iters;
        while left > 0 {
            let run = left.min(200);
            let t = Instant::now();
            for _ in 0..run {
                call();
            }
            spent += t.elapsed();
            device.synchronize().unwrap();
            left -= run;
        }
        spent
    };
    for method in [Method::V4, Method::Band, Method::Lanes] {
        let conv = Convolution::new().with_method(method);
        group.bench_function(BenchmarkId::new(format!("full {method:?}"), n), |b| {
            b.iter_custom(|iters| timed(iters, &mut || conv.full_into(device, &p, &q, &mut r).unwrap()))
        });
    }
    let long = 65536;
    let (pl, ql) = (
        device.upload(&values::<f32>(long, 1)).unwrap(),
        device.upload(&values::<f32>(long, 2)).unwrap(),
    );
    let mut rl = device.zeros::<f32>(2 * long - 1).unwrap();
    let fft = Convolution::new().with_method(Method::Fft);
    group.bench_function(BenchmarkId::new("full Fft", long), |b| {
        b.iter_custom(|iters| timed(iters, &mut || fft.full_into(device, &pl, &ql, &mut rl).unwrap()))
    });
    let conv = Convolution::new();
    group.bench_function(BenchmarkId::new("gradients", n), |b| {
        b.iter_custom(|iters| {
            timed(iters, &mut || {
                conv.gradients_into(device, (&p, &q, &g), &mut dp, &mut dq)
                    .unwrap()
            })
        })
    });
    group.finish();
}

fn convolve(c: &mut Criterion) {
    match Device::gpu(0) {
        Ok(device) => {
            println!("device: {}", device.describe());
            forward::<f32>(
                c,
                &device,
                "convolve f32",
                &[256, 1024, 2048, 4096, 8192, 16384, 65536],
            );
            forward::<f64>(c, &device, "convolve f64", &[2048, 4096, 8192, 65536]);
            device_wall::<f32>(c, &device, "convolve wall f32", &[2048, 4096, 65536]);
            device_wall::<f64>(c, &device, "convolve wall f64", &[65536]);
            idle_synchronize(c, &device);
            gradients::<f32>(c, &device, "convolve gradients f32", &[2048, 65536]);
            gradients::<f64>(c, &device, "convolve gradients f64", &[65536]);
            batch(c, &device);
            submit(c, &device);
            to_host(c, &Backend::Device(device), "convolve to host", &[2048, 65536]);
        }
        Err(e) => {
            println!("SKIPPED: GPU convolution benchmarks need a CUDA device ({e}); CPU backend only");
            to_host(c, &Backend::cpu(), "convolve cpu", &[2048]);
        }
    }
}

criterion_group!(benches, convolve);
criterion_main!(benches);
