//! [`Emulator`]: the SIMT emulator of [`warpkit_kernels::emu`] as a device. Buffers are host
//! memory aligned like CUDA allocations (`HostMemory`); launches run the kernels' Rust code on
//! the CPU with the GPU's semantics and return when done, so the emulator finds misuse (racy
//! shared memory, collectives that cannot complete, skipped barriers) that a GPU would hang on
//! or hide. It is chosen only explicitly: slower than the CPU backend by orders of magnitude,
//! it exists for tests and debugging.

use super::host_memory::HostMemory;
use super::ledger::Ledger;
use super::scratch::ScratchSlots;
use super::shape::{DeviceLimits, LaunchShape, too_many_together};
use crate::error::{Error, Result};
use std::sync::Arc;
use warpkit_kernels::emu::{self, Launch, Options};
use warpkit_kernels::kernel::{Kernel, Params};
use warpkit_kernels::simt::Dim3;

struct Inner {
    limits: DeviceLimits,
    options: Options,
    scratch: ScratchSlots,
    ledger: Arc<Ledger>,
}

/// The SIMT emulator as a device: the same kernels as on a GPU, run on the CPU.
#[derive(Clone)]
pub struct Emulator {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Emulator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Emulator")
            .field("options", &self.inner.options)
            .finish()
    }
}

impl Default for Emulator {
    fn default() -> Emulator {
        Emulator::with_options(Options::default())
    }
}

impl Emulator {
    /// An emulator with `options` (worker threads, stall timeout). Its launch limits are an
    /// H100's, so a launch it accepts is one the GPU accepts; its "multiprocessors" are its
    /// worker threads.
    pub fn with_options(options: Options) -> Emulator {
        let options = Options {
            workers: options.workers.max(1),
            ..options
        };
        let name = format!("warpkit SIMT emulator ({} workers)", options.workers);
        Emulator {
            inner: Arc::new(Inner {
                limits: DeviceLimits::h100_like(name, options.workers as u32, usize::MAX),
                options,
                scratch: Default::default(),
                ledger: Default::default(),
            }),
        }
    }

    /// The emulator's launch limits.
    pub fn limits(&self) -> &DeviceLimits {
        &self.inner.limits
    }

    /// The blocks of any kernel it counts as resident at once: four a worker, at most 64 (a
    /// cooperative launch runs them all at once, on OS threads of their own, with a coroutine
    /// stack for each of their threads).
    pub(crate) fn resident_blocks(&self) -> u64 {
        (4 * u64::from(self.limits().launch.multiprocessors)).min(64)
    }

    pub(crate) fn scratch_slots(&self) -> &ScratchSlots {
        &self.inner.scratch
    }

    pub(crate) fn ledger(&self) -> &Arc<Ledger> {
        &self.inner.ledger
    }

    pub(crate) fn alloc<T: Copy>(&self, len: usize, data: Option<&[T]>) -> Result<HostMemory<T>> {
        HostMemory::new(len, data)
    }

    /// Runs `K` over `shape` with `params` and returns when every block has finished; misuse is
    /// an [`Error::Emulator`] naming the kernel, block, warp and lanes.
    ///
    /// # Safety
    /// `params` and `shape` meet `K`'s contract, and every pointer in `params` addresses emulator
    /// memory that outlives the call.
    pub(crate) unsafe fn launch<K: Kernel>(&self, shape: LaunchShape, params: K::Params) -> Result<()> {
        if let Some(reason) = self.limits().refusal(&shape) {
            return Err(Error::LaunchShape {
                kernel: K::NAME,
                reason,
            });
        }
        let cooperative = <K::Params as Params>::COOPERATIVE;
        if cooperative && let Some(reason) = too_many_together(&shape, self.resident_blocks()) {
            return Err(Error::LaunchShape {
                kernel: K::NAME,
                reason,
            });
        }
        let dim = |d: [u32; 3]| Dim3 {
            x: d[0],
            y: d[1],
            z: d[2],
        };
        let launch = Launch {
            grid: dim(shape.grid),
            block: dim(shape.block),
            shared_bytes: shape.shared_bytes,
            cooperative,
        };
        let params = SharedParams(params);
        let body = || {
            let params = &params;
            // SAFETY: the caller's contract for `K`.
            unsafe { K::run(params.0) }
        };
        emu::launch(K::NAME, launch, &self.inner.options, &body).map_err(Error::Emulator)
    }
}

/// A kernel's parameters, read by the emulator's worker threads at once.
struct SharedParams<P>(P);

// SAFETY: the parameters hold plain numbers and pointers into emulator memory that outlives the
// launch; the kernel's contract governs how its threads share that memory, as on a GPU.
unsafe impl<P> Sync for SharedParams<P> {}
