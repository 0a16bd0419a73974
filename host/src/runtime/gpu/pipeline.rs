//! Page-locked host data through device work chunk by chunk, with the link busy both ways:
//! while chunk i + 1 is copied in on one stream, chunk i is worked on warpkit's stream and chunk
//! i - 1 is copied out on a third. PCIe moves data in each direction at full speed at once
//! (H100: 256 MiB up and down in 5.5 ms together, 4.9 ms each alone), so a call that copies in
//! and out takes about the time of one direction instead of both.
//!
//! Only page-locked memory takes this path: the copy engine reads and writes it directly, and
//! the host's part is queuing. Ordinary memory goes through the staging buffers, whose copies
//! run on rayon's workers; pipelining those chunk by chunk (measured on the H100: 17 ms for a
//! scan of 2^26 u32, against 12-13 ms unpipelined) lost more to waking the workers for each
//! chunk and to the two directions competing for them than the overlap gained.

use super::Gpu;
use super::staging::page_locked;
use crate::error::{Error, Result, check_same_len};
use crate::runtime::device::{Device, DeviceBuffer};
use bytemuck::Pod;
use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaEvent, CudaStream, result};
use rayon::prelude::*;
use std::collections::VecDeque;
use std::mem::MaybeUninit;
use std::ops::Range;
use std::sync::{Arc, mpsc};

/// Bytes of each chunk: small enough that filling and draining the pipeline (about one
/// chunk's copy each way) is a small part of a large call.
const CHUNK_BYTES: usize = 16 << 20;

/// Chunks whose copies out are queued ahead of the one being shifted.
const LOOKAHEAD: usize = 2;

impl Device {
    /// Elements of `T` in each chunk of a [`Device::pipeline`] over `input` into `out`, or
    /// `None` where that cannot run: not a GPU, or as [`Gpu::pipeline_chunk`] says.
    pub(crate) fn pipeline_chunk<T>(&self, input: &[T], out: &[T]) -> Option<usize> {
        self.as_gpu()?.pipeline_chunk(input, out)
    }

    /// Runs `work` over `input` into `out` in chunks of `chunk` elements (from
    /// [`Device::pipeline_chunk`]) through two device buffers of `input.len()` elements,
    /// copies in, work and copies out overlapped (see [`Gpu::pipeline`], which also says what
    /// `carry` and `add` do). `work(staged, worked, range)` queues on warpkit's stream the work
    /// of elements `range`, reading `staged[range]` and writing `worked[range]`; touching other
    /// elements races with the copies (their results are then unspecified, the memory safe).
    pub(crate) fn pipeline<T: Pod + PartialEq + Send + Sync>(
        &self,
        io: (&[T], &mut [T]),
        chunk: usize,
        mut work: impl FnMut(&DeviceBuffer<T>, &mut DeviceBuffer<T>, Range<usize>) -> Result<()>,
        carry: (T, impl FnMut(&[T], &[T]) -> T + Send),
        add: impl Fn(T, T) -> T + Sync,
    ) -> Result<()> {
        let gpu = self.as_gpu().ok_or_else(|| Error::UnsupportedMethod {
            method: "a pipelined copy".into(),
            backend: self.describe(),
        })?;
        let (staged, mut worked) = (self.workspace::<T>(io.0.len())?, self.workspace::<T>(io.0.len())?);
        let addresses = (
            self.ptr(&staged)? as CUdeviceptr,
            self.ptr_mut(&mut worked)? as CUdeviceptr,
        );
        // SAFETY: both buffers are this GPU's and hold `input.len()` elements, allocated on
        // warpkit's stream before the call and freed there after it; `work` reaches them only
        // through their borrows, queuing on warpkit's stream.
        unsafe {
            gpu.pipeline(
                io,
                addresses,
                chunk,
                |offset, len| work(&staged, &mut worked, offset..offset + len),
                carry,
                add,
            )
        }
    }
}

impl Gpu {
    /// Elements of `T` in each chunk of a pipeline, or `None` where `input` and `out` cannot
    /// take it: not both page-locked, shorter than two chunks, or on a rayon worker (landing
    /// a chunk uses the workers).
    fn pipeline_chunk<T>(&self, input: &[T], out: &[T]) -> Option<usize> {
        let chunk = CHUNK_BYTES / size_of::<T>().max(1);
        let fits = input.len() >= 2 * chunk && rayon::current_thread_index().is_none();
        // The driver answers for memory page-locked outside warpkit only in a current context.
        let bound = fits && self.context().bind_to_thread().is_ok();
        (bound && page_locked(input) && page_locked(out)).then_some(chunk)
    }

    /// Runs `work` over `input` in chunks of `chunk` elements into `out`, of the same length,
    /// copies in, work and copies out overlapped. `work(offset, len)` queues on warpkit's
    /// stream the work of elements `offset..offset + len`, reading them from `d_in` and
    /// writing them to `d_out`. Each chunk's results land in `out` shifted by an offset,
    /// `add(result, offset)`: `first` for the first chunk, then `next(chunk input, landed
    /// chunk output)` of the chunk before, so that a prefix sum computed chunk by chunk carries
    /// its running total. Chunks whose offset equals `first` (the identity of `add`) land
    /// unshifted.
    ///
    /// `input` and `out` should be page-locked ([`Gpu::pipeline_chunk`] says so): ordinary
    /// memory is correct too, its copies only slower and serialized.
    ///
    /// # Safety
    /// `d_in` and `d_out` are this GPU's memory of `input.len()` elements each, allocated
    /// before the call on warpkit's stream and freed after it.
    unsafe fn pipeline<T: Copy + PartialEq + Send + Sync>(
        &self,
        (input, out): (&[T], &mut [T]),
        (d_in, d_out): (CUdeviceptr, CUdeviceptr),
        chunk: usize,
        mut work: impl FnMut(usize, usize) -> Result<()>,
        (first, mut next): (T, impl FnMut(&[T], &[T]) -> T + Send),
        add: impl Fn(T, T) -> T + Sync,
    ) -> Result<()> {
        check_same_len("pipelined output", input.len(), out.len())?;
        let (ctx, size, chunk) = (self.context(), size_of::<T>() as u64, chunk.max(1));
        ctx.bind_to_thread()?;
        let [to_device, to_host] = self.copy_streams()?;
        let _drain = Drain([to_device, to_host]);
        // The copies in start after what warpkit's stream holds (the buffers' allocation).
        let ready = ctx.new_event(None)?;
        ready.record(self.stream())?;
        to_device.wait(&ready)?;
        let (worked_tx, worked_rx) = mpsc::channel::<CudaEvent>();
        let (add, out_addr) = (&add, out.as_mut_ptr() as usize);
        // Shifts chunk `i` once its copy has landed and returns the offset of the next.
        let mut land = move |i: usize, copied: CudaEvent, offset: T| -> Result<T> {
            copied.synchronize()?;
            let range = i * chunk..((i + 1) * chunk).min(input.len());
            // SAFETY: the chunk's copy has finished and no other is in flight into it; `out`
            // outlives the pipeline, and only this thread touches its landed chunks.
            let landed =
                unsafe { std::slice::from_raw_parts_mut((out_addr as *mut T).add(range.start), range.len()) };
            if offset != first {
                landed.par_iter_mut().for_each(|x| *x = add(*x, offset));
            }
            Ok(next(&input[range], landed))
        };
        // Each chunk's copy out is queued before the two chunks before it are shifted, so the
        // link does not wait on the cores.
        let outgoing = move || -> Result<()> {
            ctx.bind_to_thread()?;
            let (mut offset, mut in_flight) = (first, VecDeque::with_capacity(3));
            for (i, piece) in input.chunks(chunk).enumerate() {
                // The sender is dropped without a message when the copies in fail.
                let Ok(worked) = worked_rx.recv() else {
                    return Ok(());
                };
                to_host.wait(&worked)?;
                // SAFETY: `out` outlives the pipeline and its chunks are disjoint.
                let dst = unsafe {
                    std::slice::from_raw_parts_mut(
                        (out_addr as *mut MaybeUninit<T>).add(i * chunk),
                        piece.len(),
                    )
                };
                let at = d_out + (i * chunk) as u64 * size;
                // SAFETY: `at` holds the chunk's elements; `dst` is page-locked and read only
                // after `copied` has passed.
                unsafe { result::memcpy_dtoh_async(dst, at, to_host.cu_stream()) }?;
                let copied = ctx.new_event(None)?;
                copied.record(to_host)?;
                in_flight.push_back((i, copied));
                if in_flight.len() > LOOKAHEAD
                    && let Some((j, copied)) = in_flight.pop_front()
                {
                    offset = land(j, copied, offset)?;
                }
            }
            for (j, copied) in in_flight {
                offset = land(j, copied, offset)?;
            }
            Ok(())
        };
        let mut incoming = |worked_tx: mpsc::Sender<CudaEvent>| -> Result<()> {
            for (i, piece) in input.chunks(chunk).enumerate() {
                let at = d_in + (i * chunk) as u64 * size;
                // SAFETY: `at` holds the chunk's elements; `piece` is page-locked and outlives
                // the pipeline, which waits for this stream before it returns.
                unsafe { result::memcpy_htod_async(at, piece, to_device.cu_stream()) }?;
                let arrived = ctx.new_event(None)?;
                arrived.record(to_device)?;
                self.stream().wait(&arrived)?;
                work(i * chunk, piece.len())?;
                let worked = ctx.new_event(None)?;
                worked.record(self.stream())?;
                if worked_tx.send(worked).is_err() {
                    break; // the copies out failed; their error is returned
                }
            }
            Ok(())
        };
        let (copied_in, copied_out) = std::thread::scope(|scope| {
            let out_thread = scope.spawn(outgoing);
            let copied_in = incoming(worked_tx);
            (copied_in, out_thread.join())
        });
        let copied_out = copied_out.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        // The copies' own errors, if any; `_drain` waits for them on every path.
        let drained = [to_device, to_host].into_iter().try_for_each(|s| s.synchronize());
        copied_in?;
        copied_out?;
        Ok(drained?)
    }
}

/// Waits for both copy streams when dropped: on every way out of a pipeline (an error returned
/// early, a panic unwinding) no copy still touches the caller's memory, nor the device buffers
/// the caller frees on warpkit's stream right after.
struct Drain<'s>([&'s Arc<CudaStream>; 2]);

impl Drop for Drain<'_> {
    fn drop(&mut self) {
        for stream in self.0 {
            // Directly, not through cudarc, which would first return an earlier error.
            // SAFETY: the stream is the context's, alive for the pipeline's duration.
            let _ = unsafe { result::stream::synchronize(stream.cu_stream()) };
        }
    }
}
