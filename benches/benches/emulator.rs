//! How fast the SIMT emulator runs, in emulated GPU threads per second on this machine's CPU:
//! a shuffle-only kernel (warp reduce), a barrier and shared-memory kernel (block scan, 256
//! threads a block), and the device scan with its decoupled look-back (32 elements a thread).
//! Needs no GPU.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::time::Duration;
use warpkit::Device;
use warpkit::checks::{LevelKernel, run_level};

fn emulator(c: &mut Criterion) {
    let device = Device::emulator();
    println!("device: {}", device.describe());
    let mut group = c.benchmark_group("emulator");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    for (name, kernel, n) in [
        ("warp reduce 2^20 threads", LevelKernel::WarpReduce, 1usize << 20),
        (
            "block scan 2^20 threads",
            LevelKernel::BlockScanExclusive,
            1 << 20,
        ),
        ("warp reduce 2^24 threads", LevelKernel::WarpReduce, 1 << 24),
    ] {
        let input = device.upload(&vec![1u32; n]).unwrap();
        let mut out = device.zeros::<u32>(kernel.output_len(n)).unwrap();
        group.throughput(Throughput::Elements(n as u64));
        group.bench_function(name, |b| {
            b.iter(|| run_level(&device, kernel, &input, &mut out).unwrap())
        });
    }
    // The device scan: 8192 elements a tile of 256 threads, so 2^25 elements are 2^20 threads.
    let n = 1usize << 25;
    let input = device.upload(&vec![1u32; n]).unwrap();
    let mut out = device.zeros::<u32>(n).unwrap();
    group.throughput(Throughput::Elements((n / 32) as u64));
    group.bench_function("device scan 2^25 u32 (2^20 threads)", |b| {
        b.iter(|| device.exclusive_scan_into(&input, &mut out).unwrap())
    });
    group.finish();
}

criterion_group!(benches, emulator);
criterion_main!(benches);
