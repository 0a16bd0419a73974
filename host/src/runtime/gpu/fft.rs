//! cuFFT, through `cudarc`'s `cufft` module: the real transforms of the FFT convolution. A plan
//! costs milliseconds to make and keeps a work area on the device, so each GPU handle keeps the
//! plans of its last [`KEPT_PLANS`] transform lengths and element types and makes a plan once
//! for each, unless a plan's memory passes the device's cache limit
//! ([`Device::set_cache_limit`](crate::Device::set_cache_limit)): then it serves its call alone. cuFFT is loaded at run time like the driver; where it is missing, a call says so
//! (`Error::FftUnavailable`) and the automatic choice of method passes over the FFT.
//!
//! Queuing a transform costs the host 4-18 µs in cuFFT (H200, 2026-12-03), more than the GPU
//! takes for short ones, so transforms whose work fits [`STAGED_BYTES`] run as a CUDA graph:
//! the plan keeps its own workspace, and the forward transforms, the caller's product kernel
//! and the inverse, captured once on a private stream, replay with one launch (about 1.2 µs to
//! queue) on the device's stream.

use super::Gpu;
use crate::error::{Error, Result};
use crate::runtime::buffer::{DeviceBuffer, Owner};
use cudarc::cufft::result::CufftError;
use cudarc::cufft::sys::{cufftResult, cufftType};
use cudarc::cufft::{result, sys};
use cudarc::driver::sys::{CUgraphInstantiate_flags, CUstreamCaptureMode};
use cudarc::driver::{CudaGraph, CudaStream};
use std::ptr::null_mut;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

/// Plans a GPU handle keeps: the transform lengths and types used last.
pub(crate) const KEPT_PLANS: usize = 8;

/// The largest workspace a plan keeps with its graph; longer transforms allocate theirs for
/// each call and queue their transforms one by one (they take far longer than queuing).
pub(crate) const STAGED_BYTES: usize = 64 << 20;

/// The plans of one transform length and element type: both signals of a convolution forward
/// in one batched real-to-complex call, the product back by one complex-to-real call.
///
/// Fields drop in order: the graph, which replays the plans' kernels over their work areas,
/// before the plans.
pub(crate) struct RealFft {
    /// Held by each call while it queues its work: cuFFT plans are not to be executed from two
    /// threads at once, and a call's padding, transforms and copy share one workspace. For a
    /// plan made for graphs, its workspace and graph once made.
    staged: Mutex<Option<Staged>>,
    /// For a plan made for graphs, its private capture stream (the plans' stream).
    capture: Option<Arc<CudaStream>>,
    len: usize,
    double: bool,
    /// Whether the handle keeps the plans for later calls; if not (past the cache limit), they
    /// drop at the end of their call, which must first wait for its work.
    kept: bool,
    /// Two signals of `len` reals, `len` apart, to two spectra of `len / 2 + 1` bins.
    forward: Plan,
    /// One spectrum of `len / 2 + 1` bins to `len` reals.
    inverse: Plan,
}

/// A cuFFT plan of one-dimensional transforms in the basic layout (batches back to back: `len`
/// reals, or `len / 2 + 1` complex values), made and destroyed here rather than by cudarc's
/// `CudaFft`, whose drop panics when cuFFT fails to destroy a plan: a call on a device lost to
/// a fault returns `DeviceLost`, and the plans it drops (by eviction, `release_cached`, or past
/// the cache limit) must not turn that into a panic. A plan cuFFT cannot destroy is given up;
/// its memory goes with the context. The plan holds its stream, so that the stream and its
/// context outlive it.
struct Plan {
    handle: sys::cufftHandle,
    stream: Arc<CudaStream>,
}

impl Plan {
    /// `batch` transforms of `len` elements of type `kind` queued on `stream`, whose context
    /// must be current on this thread.
    fn many(len: i32, kind: cufftType, batch: i32, stream: &Arc<CudaStream>) -> Result<Plan> {
        let mut dims = [len];
        // SAFETY: one dimension, read during the call; null embeddings ask for the basic
        // layout (which ignores the strides and distances passed).
        let handle = unsafe {
            result::plan_many(
                1,
                dims.as_mut_ptr(),
                null_mut(),
                1,
                0,
                null_mut(),
                1,
                0,
                kind,
                batch,
            )
        }?;
        let plan = Plan {
            handle,
            stream: stream.clone(),
        };
        // SAFETY: a live plan, and a stream of the current context.
        unsafe { result::set_stream(plan.handle, stream.cu_stream() as _) }?;
        Ok(plan)
    }
}

impl Drop for Plan {
    fn drop(&mut self) {
        // The plan's context current, as cuFFT frees its work area there; failures (a lost
        // device) leave nothing for the caller to do.
        let _ = self.stream.context().bind_to_thread();
        // SAFETY: made by `Plan::many` and destroyed only here.
        let _ = unsafe { result::destroy(self.handle) };
    }
}

/// A plan's own workspace and the graph of its transforms over it (the graph drops first).
pub(crate) struct Staged {
    pub(crate) graph: CudaGraph,
    /// The signals, then the spectra (the caller's layout).
    pub(crate) work: DeviceBuffer<u8>,
}

// SAFETY: CUDA's graph objects may be used from any thread as long as no two use one at once
// (cudarc leaves `CudaGraph` `!Send` for that); a `Staged` lives only behind its plan's mutex.
unsafe impl Send for Staged {}

/// The plans a handle keeps, most recently used last.
#[derive(Default)]
pub(crate) struct FftPlans(Mutex<Vec<Arc<RealFft>>>);

impl From<CufftError> for Error {
    fn from(e: CufftError) -> Error {
        match e.0 {
            cufftResult::CUFFT_ALLOC_FAILED => Error::OutOfMemory,
            other => Error::Fft(format!("{other:?}")),
        }
    }
}

/// Whether the cuFFT library can be loaded in this process, looked up once (each look tries
/// to open the library under each of its names).
pub(crate) fn fft_present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: only looks for the library (loading it if found).
    *PRESENT.get_or_init(|| unsafe { sys::is_culib_present() })
}

impl Gpu {
    /// Drops the plans this handle keeps (with their workspaces): `Device::release_cached`.
    pub(crate) fn release_fft_plans(&self) {
        self.fft_plans()
            .0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }

    /// The plans for transforms of `len` elements (f64 if `double`, else f32) whose call needs
    /// `work_bytes` of workspace, made now if this handle has none: for graphs where the
    /// workspace fits [`STAGED_BYTES`].
    pub(crate) fn real_fft(&self, len: usize, double: bool, work_bytes: usize) -> Result<Arc<RealFft>> {
        if !fft_present() {
            return Err(Error::FftUnavailable);
        }
        if len == 0 || len > i32::MAX as usize {
            return Err(Error::TooLong {
                what: "FFT length",
                len: len as u64,
                max: i32::MAX as u64,
            });
        }
        let mut kept = self.fft_plans().0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(at) = kept.iter().position(|p| p.len == len && p.double == double) {
            let plans = kept.remove(at);
            kept.push(plans.clone());
            return Ok(plans);
        }
        let (r2c, c2r) = if double {
            (cufftType::CUFFT_D2Z, cufftType::CUFFT_Z2D)
        } else {
            (cufftType::CUFFT_R2C, cufftType::CUFFT_C2R)
        };
        let n = len as i32;
        let capture = if work_bytes <= STAGED_BYTES {
            Some(self.context().new_stream()?)
        } else {
            None
        };
        let stream = capture.as_ref().unwrap_or_else(|| self.stream());
        self.context().bind_to_thread()?;
        let forward = Plan::many(n, r2c, 2, stream)?;
        let inverse = Plan::many(n, c2r, 1, stream)?;
        // What the plans hold on the device between calls: cuFFT's work areas and, for graphs,
        // the workspace. Past the device's cache limit they serve this call and are dropped.
        // SAFETY: both handles are live plans.
        let areas = unsafe { result::get_size(forward.handle)? + result::get_size(inverse.handle)? };
        let held = areas + if capture.is_some() { work_bytes } else { 0 };
        let keep = held as u64 <= self.scratch_slots().limit();
        if keep && kept.len() == KEPT_PLANS {
            kept.remove(0);
        }
        let plans = Arc::new(RealFft {
            staged: Mutex::new(None),
            capture,
            len,
            double,
            kept: keep,
            forward,
            inverse,
        });
        if keep {
            kept.push(plans.clone());
        }
        Ok(plans)
    }
}

impl RealFft {
    /// Locks the plan for the caller's call, and for a plan made for graphs makes its
    /// workspace of `work_bytes` (the bytes its [`Gpu::real_fft`] call named) and graph on
    /// first use: the forward transforms from `signals_at` to `spectra_at` (byte offsets in
    /// the workspace), then `product` (given the stream to queue on and the spectra's address),
    /// then the inverse back into the first signal. The caller queues all its work on the plan
    /// while it holds the guard, so that calls from other threads cannot interleave theirs;
    /// the guard holds `None` for a plan too long for graphs.
    pub(crate) fn lock(
        &self,
        gpu: &Gpu,
        work_bytes: usize,
        (signals_at, spectra_at): (u64, u64),
        product: impl FnOnce(&Arc<CudaStream>, u64) -> Result<()>,
    ) -> Result<MutexGuard<'_, Option<Staged>>> {
        let mut guard = self.staged.lock().unwrap_or_else(|e| e.into_inner());
        if let (Some(capture), None) = (&self.capture, &*guard) {
            let (ordinal, handle) = gpu.identity();
            let lease = gpu.ledger().admit(work_bytes as u64)?;
            let work = DeviceBuffer {
                memory: gpu.alloc_unset::<u8>(work_bytes)?,
                owner: Owner::Gpu { ordinal, handle },
                _lease: lease,
            };
            let base = work.kernel_ptr() as u64;
            let (signals, spectra) = (base + signals_at, base + spectra_at);
            capture.begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)?;
            // SAFETY: `work` holds both parts (the caller's sizes) and lives with the graph.
            let queued = unsafe { self.forward(gpu, signals, spectra) }
                .and_then(|()| product(capture, spectra))
                // SAFETY: as above.
                .and_then(|()| unsafe { self.inverse(gpu, spectra, signals) });
            // The capture ends whatever happened, so that the stream is usable again.
            let graph = capture.end_capture(CUgraphInstantiate_flags(0));
            queued?;
            let graph = graph?.ok_or_else(|| Error::Fft("an empty graph was captured".into()))?;
            *guard = Some(Staged { graph, work });
        }
        Ok(guard)
    }

    /// Whether the device keeps these plans past the call that asked for them (see
    /// [`RealFft::kept`]'s field): when not, the call waits for its work before it returns.
    pub(crate) fn kept(&self) -> bool {
        self.kept
    }

    /// Queues a [`Staged`] graph of this plan on the device's stream.
    pub(crate) fn replay(&self, gpu: &Gpu, graph: &CudaGraph) -> Result<()> {
        gpu.context().bind_to_thread()?;
        // SAFETY: the graph's work lives in its `Staged` workspace, alive as long as the graph.
        unsafe { cudarc::driver::result::graph::launch(graph.cu_graph_exec(), gpu.stream().cu_stream()) }?;
        Ok(())
    }

    /// Queues the forward transforms of the two signals at device address `signals` (`2 ·
    /// len` reals) into the two spectra at `spectra` (`2 · (len / 2 + 1)` complex values).
    ///
    /// # Safety
    /// Both addresses hold that much memory of this plan's element type, on the plan's GPU,
    /// alive until the stream reaches the transform.
    pub(crate) unsafe fn forward(&self, gpu: &Gpu, signals: u64, spectra: u64) -> Result<()> {
        gpu.context().bind_to_thread()?;
        let h = self.forward.handle;
        // SAFETY: the caller's contract; the plan was made for these sizes.
        unsafe {
            if self.double {
                result::exec_d2z(h, signals as *mut f64, spectra as *mut sys::cufftDoubleComplex)
            } else {
                result::exec_r2c(h, signals as *mut f32, spectra as *mut sys::cufftComplex)
            }
        }?;
        Ok(())
    }

    /// Queues the inverse transform of the spectrum at `spectrum` (`len / 2 + 1` complex
    /// values, overwritten) into `len` reals at `signal`, unnormalized (`len` times the inverse
    /// DFT).
    ///
    /// # Safety
    /// As for [`RealFft::forward`], for these sizes.
    pub(crate) unsafe fn inverse(&self, gpu: &Gpu, spectrum: u64, signal: u64) -> Result<()> {
        gpu.context().bind_to_thread()?;
        let h = self.inverse.handle;
        // SAFETY: the caller's contract; the plan was made for these sizes.
        unsafe {
            if self.double {
                result::exec_z2d(h, spectrum as *mut sys::cufftDoubleComplex, signal as *mut f64)
            } else {
                result::exec_c2r(h, spectrum as *mut sys::cufftComplex, signal as *mut f32)
            }
        }?;
        Ok(())
    }
}
