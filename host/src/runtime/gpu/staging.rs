//! Host slices to and from the GPU at the link's speed. The driver copies pageable memory
//! through a small buffer of its own, one synchronous piece at a time: about 10 GB/s to an
//! H100, and 1.5 GB/s into freshly allocated memory, whose pages it faults in one by one.
//!
//! Here a transfer is cut into stripes, one per rayon worker, and each stripe into pieces that
//! pass through two page-locked buffers of its own (parts of the GPU's two staging buffers):
//! while the copy engine moves one piece, the worker copies its next piece between the caller's
//! memory and its other buffer. So every core copies at once, fresh pages are faulted in by all
//! of them, and the workers are woken once per transfer rather than once per piece (waking
//! them per 8 MiB chunk cost about 0.1 ms a chunk on the H200, half the link's time). Slices of
//! a [`PinnedBuffer`](super::pinned::PinnedBuffer) skip the staging and move directly.
//!
//! Both directions are ordered with the work submitted before on the GPU's stream. An upload
//! returns once the caller's memory has been read (its last pieces may still be on their way
//! from the staging buffers); a download once the caller's memory has been written. Small
//! transfers, page-locked memory and calls from rayon workers go to the driver directly
//! instead ([`direct`]): queued on the stream, then waited for, except uploads of pageable
//! memory (the driver takes their bytes before it returns).

use super::Gpu;
use crate::error::{Error, Result};
use crate::runtime::pinned::is_pinned;
use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::{CudaContext, CudaEvent, PinnedHostSlice, result};
use rayon::prelude::*;
use std::mem::MaybeUninit;
use std::sync::Arc;

/// Bytes of each of the two staging buffers unless [`Gpu::set_staging_bytes`] says otherwise:
/// 2 MiB pieces for 16 workers, large enough that a piece's fixed costs (a DMA submission and
/// an event wait) stay small against its 40 µs on the link.
pub(crate) const DEFAULT_STAGING_BYTES: usize = 32 << 20;

/// The least a stripe moves: below this, fewer workers take part.
const MIN_STRIPE_BYTES: usize = 256 << 10;

/// Transfers up to this size go to the driver directly (see [`direct`]).
const DIRECT_BYTES: usize = 64 << 10;

/// A GPU's two staging buffers and the events of their parts, allocated on first use.
pub(crate) struct Staging {
    bytes: usize,
    buffers: Option<[PinnedHostSlice<u8>; 2]>,
    /// Per stripe, the event recorded after the last copy through each of its two parts.
    parts: Vec<[CudaEvent; 2]>,
    /// Recorded after a transfer's last copy: the next transfer, which may lay the buffers out
    /// in other stripes, starts once it has passed.
    idle: Option<CudaEvent>,
}

impl Default for Staging {
    fn default() -> Staging {
        Staging {
            bytes: DEFAULT_STAGING_BYTES,
            buffers: None,
            parts: Vec::new(),
            idle: None,
        }
    }
}

/// How one transfer of `len` elements of `T` is laid out over the staging buffers.
#[derive(Clone, Copy)]
struct Layout {
    len: usize,
    stripes: usize,
    /// Elements a piece moves at most.
    piece: usize,
    /// Bytes between two stripes' parts in a buffer (a whole number of pages).
    part_bytes: usize,
}

impl Layout {
    fn new<T>(staging_bytes: usize, len: usize) -> Layout {
        let size = size_of::<T>().max(1);
        let bytes = len.saturating_mul(size);
        let stripes = rayon::current_num_threads()
            .min(bytes.div_ceil(MIN_STRIPE_BYTES))
            .clamp(1, (staging_bytes / 4096).max(1));
        let part_bytes = (staging_bytes / stripes) / 4096 * 4096;
        let piece = (part_bytes / size).max(1);
        Layout {
            len,
            stripes,
            piece,
            part_bytes: part_bytes.max((piece * size).next_multiple_of(4096)),
        }
    }

    /// Element range of stripe `s`.
    fn stripe(&self, s: usize) -> std::ops::Range<usize> {
        (s * self.len / self.stripes)..((s + 1) * self.len / self.stripes)
    }
}

impl Staging {
    /// Waits for the last transfer, then readies buffers and events for `layout`.
    fn prepare(&mut self, ctx: &Arc<CudaContext>, layout: Layout) -> Result<[usize; 2]> {
        if let Some(idle) = &self.idle {
            idle.synchronize()?;
        }
        let need = layout.stripes * layout.part_bytes;
        if self.buffers.as_ref().is_none_or(|b| b[0].len() < need) {
            self.buffers = None;
            // Cached, not write-combined: the host reads what comes back.
            // SAFETY: every byte read from the buffers was first written by a copy into them.
            let alloc = || unsafe { ctx.alloc_pinned_with_flags::<u8>(need, 0) };
            self.buffers = Some([alloc()?, alloc()?]);
        }
        while self.parts.len() < layout.stripes {
            self.parts.push([ctx.new_event(None)?, ctx.new_event(None)?]);
        }
        let buffers = self.buffers.as_mut().expect("allocated above");
        Ok([
            buffers[0].as_mut_ptr()? as usize,
            buffers[1].as_mut_ptr()? as usize,
        ])
    }

    /// Records the end of a transfer on `gpu`'s stream.
    fn finish(&mut self, gpu: &Gpu) -> Result<()> {
        let idle = match self.idle.take() {
            Some(e) => e,
            None => gpu.context().new_event(None)?,
        };
        idle.record(gpu.stream())?;
        self.idle = Some(idle);
        Ok(())
    }
}

/// Part `stripe` of buffer `base`, as `len` elements of `T`.
///
/// # Safety
/// `base` is a staging buffer laid out by `layout`, `len <= layout.piece`, and no copy is in
/// flight into or out of the part; the caller is its only user.
unsafe fn part<'a, T>(base: usize, layout: Layout, stripe: usize, len: usize) -> &'a mut [MaybeUninit<T>] {
    let ptr = (base + stripe * layout.part_bytes) as *mut MaybeUninit<T>;
    // SAFETY: the caller's contract; parts are page-aligned, so aligned for `T`.
    unsafe { std::slice::from_raw_parts_mut(ptr, len) }
}

impl Gpu {
    /// `outcome` of a staged transfer, once no piece of it can still be on its way when it
    /// failed: the next transfer then finds the staging buffers idle.
    fn settle(&self, outcome: Result<()>) -> Result<()> {
        if outcome.is_err() {
            // Directly, not through cudarc, which would first return an earlier error.
            // SAFETY: the stream is this context's, current on this thread.
            let _ = unsafe { result::stream::synchronize(self.stream().cu_stream()) };
        }
        outcome
    }
}

/// Whether a transfer of `s` goes to the driver directly instead of through the staging:
/// small ones (the staging's fixed costs would dominate), those of page-locked memory (the copy
/// engine reads it directly), and those made on a rayon worker (the staging runs its stripes on
/// the workers, and a worker waiting for them may be handed a transfer that waits for the
/// staging's lock).
fn direct<T>(s: &[T]) -> bool {
    size_of_val(s) <= DIRECT_BYTES || is_pinned(s) || rayon::current_thread_index().is_some()
}

/// Whether the copy engine reads and writes `s` directly: page-locked by warpkit or known to
/// the driver.
pub(super) fn page_locked<T>(s: &[T]) -> bool {
    is_pinned(s) || known_to_driver(s)
}

/// Whether the driver knows `s` as memory of its own (page-locked by any library, registered,
/// or managed), which [`is_pinned`] does not see unless warpkit allocated it: the driver
/// answers a memory type for those, and none (0) for ordinary pageable memory. The plural
/// query answers that without an error, which the sanitizers would report.
fn known_to_driver<T>(s: &[T]) -> bool {
    let known = |address: usize| {
        let mut kind = 0u32;
        let mut attribute = sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_MEMORY_TYPE;
        let mut data = [(&raw mut kind).cast::<std::ffi::c_void>()];
        // SAFETY: one attribute, a 32-bit memory type written to `kind`; any address may be
        // asked.
        let answer = unsafe {
            sys::cuPointerGetAttributes(1, &mut attribute, data.as_mut_ptr(), address as CUdeviceptr)
        };
        answer == sys::cudaError_enum::CUDA_SUCCESS && kind != 0
    };
    // Both ends: a slice that runs past another library's allocation is not all known.
    let start = s.as_ptr() as usize;
    known(start) && known(start + size_of_val(s).saturating_sub(1))
}

/// Runs `stripe` for each of `stripes` stripes: on the rayon workers, or on the calling thread
/// when there is one (waking the workers costs more than a small transfer).
fn on_workers(stripes: usize, stripe: impl Fn(usize) -> Result<()> + Sync + Send) -> Result<()> {
    if stripes == 1 {
        stripe(0)
    } else {
        (0..stripes).into_par_iter().try_for_each(stripe)
    }
}

/// Copies `src` into `dst`, of the same length.
fn copy<T: Copy>(src: &[T], dst: &mut [MaybeUninit<T>]) {
    debug_assert_eq!(src.len(), dst.len());
    // SAFETY: same length; one side is a staging buffer, so they do not overlap.
    unsafe {
        dst.as_mut_ptr()
            .cast::<T>()
            .copy_from_nonoverlapping(src.as_ptr(), src.len())
    }
}

impl Gpu {
    /// Sets the bytes of each of the two staging buffers that host slices pass through (32 MiB
    /// unless set): `Err(OutOfRange)` below 4096. The old buffers are freed once their copies
    /// are done.
    pub fn set_staging_bytes(&self, bytes: usize) -> Result<()> {
        if bytes < 4096 {
            return Err(Error::OutOfRange {
                what: "staging bytes",
                value: bytes as u64,
                min: 4096,
                max: isize::MAX as u64,
            });
        }
        let mut staging = self.staging().lock().unwrap_or_else(|e| e.into_inner());
        if let Some(idle) = &staging.idle {
            idle.synchronize()?;
        }
        staging.buffers = None;
        staging.bytes = bytes;
        Ok(())
    }

    /// Copies `src` to device memory at `dst`, which holds at least `src.len()` elements.
    pub(crate) fn copy_to_device<T: Copy>(&self, src: &[T], dst: CUdeviceptr) -> Result<()> {
        if src.is_empty() {
            return Ok(());
        }
        self.context().bind_to_thread()?;
        if direct(src) {
            if page_locked(src) {
                // SAFETY: `dst` holds `src.len()` elements; the copy is queued on warpkit's
                // stream, and the wait returns once `src` has been read (an asynchronous copy
                // of page-locked memory returns before). Not a synchronous copy: that would be
                // ordered with the legacy default stream, not with warpkit's.
                unsafe { result::memcpy_htod_async(dst, src, self.stream().cu_stream()) }?;
                return self.synchronize();
            }
            // SAFETY: `dst` holds `src.len()` elements; the copy is queued on warpkit's stream.
            // From pageable memory the driver takes the bytes before it returns, so `src` may
            // change afterwards; unlike the synchronous copy, which first waits for all queued
            // work, the small tables a call uploads (SOM epochs, masks, bounds) do not stall
            // the host here.
            return Ok(unsafe { result::memcpy_htod_async(dst, src, self.stream().cu_stream()) }?);
        }
        let mut staging = self.staging().lock().unwrap_or_else(|e| e.into_inner());
        let layout = Layout::new::<T>(staging.bytes, src.len());
        let buffers = staging.prepare(self.context(), layout)?;
        let parts = &staging.parts;
        let (src_addr, size) = (src.as_ptr() as usize, size_of::<T>());
        let stripe = |s: usize| -> Result<()> {
            self.context().bind_to_thread()?;
            let range = layout.stripe(s);
            // SAFETY: `src` outlives the loop; the stripes' ranges lie within it.
            let src =
                unsafe { std::slice::from_raw_parts((src_addr as *const T).add(range.start), range.len()) };
            for (j, piece) in src.chunks(layout.piece).enumerate() {
                let done = &parts[s][j % 2];
                done.synchronize()?;
                // SAFETY: stripe `s` is this worker's alone, and the part's last copy is done.
                let host = unsafe { part::<T>(buffers[j % 2], layout, s, piece.len()) };
                copy(piece, host);
                // SAFETY: every element of `host` was written just above.
                let host = unsafe { &*(host as *const [MaybeUninit<T>] as *const [T]) };
                let at = dst + ((range.start + j * layout.piece) * size) as u64;
                // SAFETY: `dst` holds `src.len()` elements, so the piece's range; `host` is
                // page-locked and stays untouched until `done` has passed.
                unsafe { result::memcpy_htod_async(at, host, self.stream().cu_stream()) }?;
                done.record(self.stream())?;
            }
            Ok(())
        };
        self.settle(on_workers(layout.stripes, stripe))?;
        staging.finish(self)
    }

    /// Copies `dst.len()` elements of device memory at `src` into `dst`, after the work
    /// submitted before; every element of `dst` is written when it returns `Ok`.
    pub(crate) fn copy_to_host<T: Copy>(&self, src: CUdeviceptr, dst: &mut [MaybeUninit<T>]) -> Result<()> {
        if dst.is_empty() {
            return Ok(());
        }
        self.context().bind_to_thread()?;
        if direct(dst) {
            // SAFETY: `src` holds `dst.len()` elements; the copy is queued on warpkit's stream
            // after the work before it, and `dst` is written when the wait returns.
            unsafe { result::memcpy_dtoh_async(dst, src, self.stream().cu_stream()) }?;
            return self.synchronize();
        }
        let mut staging = self.staging().lock().unwrap_or_else(|e| e.into_inner());
        let layout = Layout::new::<T>(staging.bytes, dst.len());
        let buffers = staging.prepare(self.context(), layout)?;
        let parts = &staging.parts;
        let (dst_addr, size) = (dst.as_mut_ptr() as usize, size_of::<T>());
        let stripe = |s: usize| -> Result<()> {
            self.context().bind_to_thread()?;
            let range = layout.stripe(s);
            let pieces = range.len().div_ceil(layout.piece);
            let piece_len = |j: usize| layout.piece.min(range.len() - j * layout.piece);
            let fetch = |j: usize| -> Result<()> {
                // SAFETY: stripe `s` is this worker's alone; the part's last piece was copied
                // out before this fetch (the loop below waits for each piece it copies out).
                let host = unsafe { part::<T>(buffers[j % 2], layout, s, piece_len(j)) };
                let from = src + ((range.start + j * layout.piece) * size) as u64;
                // SAFETY: `src` holds `dst.len()` elements, so the piece's range; `host` is
                // page-locked and is read only after its event has passed.
                unsafe { result::memcpy_dtoh_async(host, from, self.stream().cu_stream()) }?;
                Ok(parts[s][j % 2].record(self.stream())?)
            };
            fetch(0)?;
            for j in 0..pieces {
                if j + 1 < pieces {
                    fetch(j + 1)?;
                }
                parts[s][j % 2].synchronize()?;
                // SAFETY: the piece's copy has finished, so its elements are initialized.
                let host = unsafe {
                    &*(part::<T>(buffers[j % 2], layout, s, piece_len(j)) as *const [MaybeUninit<T>]
                        as *const [T])
                };
                let start = range.start + j * layout.piece;
                // SAFETY: `dst` outlives the loop; pieces of all stripes are disjoint ranges in it.
                let out = unsafe {
                    std::slice::from_raw_parts_mut((dst_addr as *mut MaybeUninit<T>).add(start), host.len())
                };
                copy(host, out);
            }
            Ok(())
        };
        self.settle(on_workers(layout.stripes, stripe))?;
        staging.finish(self)
    }
}
