//! Small downloads through page-locked host memory: a call that returns a few words to the
//! host (multisplit's bucket offsets and out-of-range report) waits for them while the GPU
//! idles, and a copy to pageable memory adds the driver's own staging and wait to that gap.

use super::Gpu;
use crate::error::Result;
use cudarc::driver::{CudaContext, CudaView, DevicePtr, PinnedHostSlice, result};
use std::sync::Arc;

/// A page-locked buffer that grows to the largest readback; one per GPU, behind a lock.
#[derive(Default)]
pub(crate) struct Readback {
    pinned: Option<PinnedHostSlice<u8>>,
}

impl Readback {
    /// The pinned buffer, at least `bytes` long (reallocated, rounded up to a page, when
    /// smaller).
    fn at_least(&mut self, ctx: &Arc<CudaContext>, bytes: usize) -> Result<&mut PinnedHostSlice<u8>> {
        if self.pinned.as_ref().is_none_or(|p| p.len() < bytes) {
            // Cached, not write-combined: the host reads it.
            // SAFETY: every byte read from it was first written by a copy (`Gpu::read_back`).
            let pinned = unsafe { ctx.alloc_pinned_with_flags::<u8>(bytes.next_multiple_of(4096), 0)? };
            self.pinned = Some(pinned);
        }
        Ok(self.pinned.as_mut().expect("allocated above"))
    }
}

impl Gpu {
    /// Copies `src` to the host after all work submitted before, through the pinned buffer.
    pub(crate) fn read_back(&self, src: &CudaView<u8>) -> Result<Vec<u8>> {
        let mut readback = self.readback().lock().unwrap_or_else(|e| e.into_inner());
        let pinned = readback.at_least(self.context(), src.len())?;
        // No copy is in flight into the buffer (each ends below), so its event has completed.
        let host = &mut pinned.as_mut_slice()?[..src.len()];
        let (from, _) = src.device_ptr(self.stream());
        self.context().bind_to_thread()?;
        // SAFETY: `host` is page-locked and `src.len()` bytes long, as is the device range;
        // the stream is idle again before `host` is read. (cudarc's own copy into a pinned
        // buffer copies the whole buffer, past the end of a shorter source.)
        unsafe { result::memcpy_dtoh_async(host, from, self.stream().cu_stream()) }?;
        // The stream's wait spins (the context's default scheduling), where the buffer's
        // event would block the thread and wake it late.
        self.synchronize()?;
        Ok(host.to_vec())
    }
}
