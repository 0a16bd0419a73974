//! Timing device work with CUDA events on warpkit's stream: the benchmarks' clock.

use super::Gpu;
use crate::error::Result;
use cudarc::driver::CudaEvent;
use cudarc::driver::sys::CUevent_flags;
use std::time::Duration;

/// A start event recorded on the stream; [`GpuTimer::stop`] records the end and waits for it.
pub struct GpuTimer {
    gpu: Gpu,
    start: CudaEvent,
}

impl std::fmt::Debug for GpuTimer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuTimer")
            .field("gpu", &self.gpu)
            .finish_non_exhaustive()
    }
}

impl GpuTimer {
    /// Records the start event now (in stream order).
    pub fn start(gpu: &Gpu) -> Result<GpuTimer> {
        let start = gpu.context().new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
        start.record(gpu.stream())?;
        Ok(GpuTimer {
            gpu: gpu.clone(),
            start,
        })
    }

    /// Records the end event, waits for it and returns the device time in between.
    pub fn stop(self) -> Result<Duration> {
        let end = self
            .gpu
            .context()
            .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
        end.record(self.gpu.stream())?;
        end.synchronize()?;
        let ms = self.start.elapsed_ms(&end)?;
        Ok(Duration::from_secs_f64(ms as f64 / 1e3))
    }
}
