//! Helpers for warpkit's criterion benchmarks: time device work with CUDA events, or by wall
//! clock as a user's program sees it.

use std::time::{Duration, Instant};
use warpkit::{Device, Gpu, GpuTimer};

/// Runs `work` `iters` times on the GPU's stream and returns the device time from CUDA events
/// (the shape criterion's `iter_custom` wants).
pub fn time_on_gpu(gpu: &Gpu, iters: u64, mut work: impl FnMut()) -> Duration {
    let timer = GpuTimer::start(gpu).expect("record start event");
    for _ in 0..iters {
        work();
    }
    timer.stop().expect("record end event")
}

/// Runs `work` `iters` times, synchronizing `device` after each, and returns the wall-clock
/// time: what a caller who waits for each result pays (launches, host work and the wait).
pub fn time_synchronized(device: &Device, iters: u64, mut work: impl FnMut()) -> Duration {
    let t = Instant::now();
    for _ in 0..iters {
        work();
        device.synchronize().expect("synchronize");
    }
    t.elapsed()
}

/// Criterion's settings for device timings, which vary little from run to run: short, so that
/// a whole bench fits the GPU machine's few minutes.
pub fn brief<M: criterion::measurement::Measurement>(group: &mut criterion::BenchmarkGroup<M>) {
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_millis(1500));
}
