//! Helpers for warpkit's criterion benchmarks: time device work with CUDA events.

use std::time::Duration;
use warpkit::{Gpu, GpuTimer};

/// Runs `work` `iters` times on the GPU's stream and returns the device time from CUDA events
/// (the shape criterion's `iter_custom` wants).
pub fn time_on_gpu(gpu: &Gpu, iters: u64, mut work: impl FnMut()) -> Duration {
    let timer = GpuTimer::start(gpu).expect("record start event");
    for _ in 0..iters {
        work();
    }
    timer.stop().expect("record end event")
}
