//! [`Gpu`]: one CUDA device with its context, stream, the kernels' modules (each area loaded
//! the first time it is used on the device, then kept) and the limits that launches are
//! checked against.
//!
//! A GPU opened by ordinal works on a non-blocking stream of its own, in a `cudarc` context
//! object that never leaves warpkit, so nothing it does waits for (or holds up) other streams
//! of the process; [`Gpu::on_stream`] puts the work on a caller's stream instead.

use super::driver::ensure_driver;
use super::fft::FftPlans;
use super::module::{AREA_COUNT, Area, LoadedArea};
use super::readback::Readback;
use super::staging::Staging;
use crate::error::{Error, Result};
use crate::runtime::ledger::Ledger;
use crate::runtime::module::Module;
use crate::runtime::scratch::ScratchSlots;
use crate::runtime::shape::{DeviceLimits, Limits};
use cudarc::driver::sys::{self, CUdevice_attribute as Attr};
use cudarc::driver::{CudaContext, CudaStream, DriverError};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

struct Inner {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    limits: DeviceLimits,
    /// Each area's module once loaded, with all its kernels fetched at once: with CUDA's lazy
    /// loading, fetching a function while other host threads launch work can stall them.
    areas: [OnceLock<LoadedArea>; AREA_COUNT],
    /// Modules of one's own kernels, in the order loaded ([`Gpu::load`]), no two with an entry
    /// of the same name.
    modules: Mutex<Vec<(&'static Module, Arc<LoadedArea>)>>,
    /// Held while an area loads or the copy streams are made, so that each is made once.
    loading: Mutex<()>,
    scratch: ScratchSlots,
    ledger: Arc<Ledger>,
    /// Page-locked memory for small downloads ([`Gpu::read_back`]).
    readback: Mutex<Readback>,
    /// Page-locked buffers that host slices pass through ([`Gpu::copy_to_device`]).
    staging: Mutex<Staging>,
    /// Streams of the copies in and out of a pipelined call ([`Gpu::copy_streams`]).
    copy_streams: OnceLock<[Arc<CudaStream>; 2]>,
    /// cuFFT plans of the FFT convolution ([`Gpu::real_fft`]).
    fft_plans: FftPlans,
    ordinal: usize,
    /// This handle's number in the process: buffers carry it, so that a buffer is only used on
    /// the stream that orders its work.
    instance: u64,
}

/// A CUDA device ready to run warpkit's kernels. Cheap to clone; all clones share one context,
/// one stream and the same loaded modules, so work submitted through any of them runs in order.
///
/// Its stream is non-blocking: warpkit's work is not ordered with the legacy default stream or
/// any other stream of the process. Data moves between warpkit and other `cudarc` code through
/// [`Device::adopt`](crate::Device::adopt) and
/// [`DeviceBuffer::into_cuda_slice`](crate::DeviceBuffer::into_cuda_slice), which order the two
/// streams; [`Gpu::on_stream`] runs warpkit's calls on a stream of the caller's.
#[derive(Clone)]
pub struct Gpu {
    inner: Arc<Inner>,
}

impl Drop for Inner {
    /// Waits for the queued work before the modules its kernels run from are unloaded (a handle
    /// on a caller's stream can be dropped; opened ones live as long as the process).
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
    }
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpu").field("limits", &self.inner.limits).finish()
    }
}

/// Devices opened so far, by ordinal: each area's module loads once per process and device.
static OPENED: OnceLock<Mutex<HashMap<usize, Gpu>>> = OnceLock::new();

impl Gpu {
    /// Opens device `ordinal`, or returns the handle opened before. `Err(NoDevice)` when there
    /// is no driver or no such device, `Err(UnsupportedDevice)` for a GPU older than compute
    /// capability 8.0: never a panic. Opening loads no kernels (each area's module loads when
    /// first used); it sets the device's default memory
    /// pool to keep the memory freed to it (for the whole process, as CUDA's caching
    /// allocators do), so that per-call allocations do not map memory again after each
    /// synchronization.
    ///
    /// After a kernel faulted on the device ([`Error::DeviceLost`]), `open` returns that error
    /// for the rest of the process: the driver keeps such faults (an illegal address, a trap)
    /// for the whole process, and on the H200 (driver 580) even a reset of the device's primary
    /// context, once every handle was dropped, left a new context failing with the same error.
    /// A service that must survive its kernels' faults runs the GPU work in a child process.
    pub fn open(ordinal: usize) -> Result<Gpu> {
        let mut opened = OPENED
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(gpu) = opened.get(&ordinal) {
            return match gpu.fault() {
                None => Ok(gpu.clone()),
                Some(fault) => Err(Error::DeviceLost(fault)),
            };
        }
        let count = Gpu::count()?;
        if ordinal >= count {
            return Err(Error::NoDevice(format!(
                "device {ordinal} requested, {count} present"
            )));
        }
        let ctx = CudaContext::new(ordinal)?;
        // One stream orders everything, so cudarc's per-buffer event tracking is redundant work
        // on every allocation.
        // SAFETY: warpkit submits its work to its one stream, except the copies of a pipelined
        // call, which events order with that stream (`pipeline.rs`). This context object, and
        // every stream and slice made from it, stays inside warpkit (`context` and `stream` are
        // not public, and slices leave only through `into_cuda_slice`, on the caller's stream
        // after a join), so no other code can use its untracked memory on another stream.
        unsafe { ctx.disable_event_tracking() };
        if ctx.has_async_alloc() {
            // Keep all freed memory (the driver's default returns it at each synchronization),
            // so that a call after a synchronization does not map its allocations afresh.
            set_release_threshold(&ctx, u64::MAX)?;
        }
        let stream = ctx.new_stream()?;
        let gpu = Gpu::create(ctx, stream)?;
        opened.insert(ordinal, gpu.clone());
        Ok(gpu)
    }

    /// The number of GPUs the CUDA driver sees (of any architecture), without opening them.
    pub fn count() -> Result<usize> {
        ensure_driver()?;
        let count = CudaContext::device_count()
            .map_err(|e| Error::NoDevice(format!("the CUDA driver reports no device ({e})")))?;
        Ok(count.max(0) as usize)
    }

    /// A handle whose calls run on `stream`, a caller's `cudarc` stream, in order with the
    /// caller's own work there (and under the caller's choice of event tracking). It is a device
    /// of its own: it loads the kernels' modules again as its calls need them (milliseconds an
    /// area), and buffers of other handles are refused (`WrongDevice`) rather than used without
    /// an order between the two streams; move them with [`DeviceBuffer::into_cuda_slice`] and
    /// [`Device::adopt`](crate::Device::adopt). It leaves the device's memory pool as it finds
    /// it (see [`Gpu::set_pool_release_threshold`]), and a pipelined call makes two more streams
    /// on the caller's context. Dropping its last clone first waits for the work it queued,
    /// since its modules are unloaded then.
    ///
    /// [`DeviceBuffer::into_cuda_slice`]: crate::DeviceBuffer::into_cuda_slice
    pub fn on_stream(stream: Arc<CudaStream>) -> Result<Gpu> {
        Gpu::create(stream.context().clone(), stream)
    }

    fn create(ctx: Arc<CudaContext>, stream: Arc<CudaStream>) -> Result<Gpu> {
        static INSTANCES: AtomicU64 = AtomicU64::new(0);
        let limits = read_limits(&ctx)?;
        let (major, minor) = limits.compute_capability;
        if major < 8 {
            return Err(Error::UnsupportedDevice { major, minor });
        }
        Ok(Gpu {
            inner: Arc::new(Inner {
                ordinal: ctx.ordinal(),
                instance: INSTANCES.fetch_add(1, Ordering::Relaxed),
                ctx,
                stream,
                limits,
                areas: Default::default(),
                modules: Mutex::default(),
                loading: Mutex::new(()),
                scratch: Default::default(),
                ledger: Default::default(),
                readback: Default::default(),
                staging: Default::default(),
                copy_streams: OnceLock::new(),
                fft_plans: FftPlans::default(),
            }),
        })
    }

    /// The fault that left this device's context unusable, if one did: a query of its stream,
    /// which waits for nothing.
    fn fault(&self) -> Option<DriverError> {
        // The context is made current directly: cudarc's `bind_to_thread` would also take the
        // errors its drops recorded, which the next call is to report.
        // SAFETY: the context belongs to this live handle.
        let current = unsafe { sys::cuCtxSetCurrent(self.inner.ctx.cu_ctx()) }.result();
        let status = current.and_then(|()| {
            // SAFETY: the stream belongs to this handle's context, current above.
            match unsafe { sys::cuStreamQuery(self.inner.stream.cu_stream()) } {
                sys::CUresult::CUDA_ERROR_NOT_READY => Ok(()),
                status => status.result(),
            }
        });
        match status.map_err(Error::from) {
            Err(Error::DeviceLost(fault)) => Some(fault),
            _ => None,
        }
    }

    /// The device's limits and identity.
    pub fn limits(&self) -> &DeviceLimits {
        &self.inner.limits
    }

    /// The stream every warpkit call on this device runs on.
    pub(crate) fn stream(&self) -> &Arc<CudaStream> {
        &self.inner.stream
    }

    /// The `cudarc` context object of this handle.
    pub(crate) fn context(&self) -> &Arc<CudaContext> {
        &self.inner.ctx
    }

    /// Waits until all submitted work has finished; reports any fault it raised.
    pub fn synchronize(&self) -> Result<()> {
        Ok(self.inner.stream.synchronize()?)
    }

    /// Loads the kernels of every area users call now (all but the checks area's test and
    /// tuning kernels). Each area otherwise loads the first time one of its kernels is launched, which adds its loading time to that call (a few milliseconds;
    /// tens for multisplit, the largest): for programs whose first calls must take as long as
    /// the later ones, or that open the device ahead of work where latency counts.
    pub fn load_kernels(&self) -> Result<()> {
        Area::ALL
            .into_iter()
            .filter(|&area| area != Area::Checks)
            .try_for_each(|area| self.area(area).map(drop))
    }

    /// The module of `area` on this device, loaded now if this is its first use.
    pub(crate) fn area(&self, area: Area) -> Result<&LoadedArea> {
        let slot = &self.inner.areas[area.index()];
        if let Some(loaded) = slot.get() {
            return Ok(loaded);
        }
        let _loading = self.inner.loading.lock().unwrap_or_else(|e| e.into_inner());
        if slot.get().is_none() {
            let loaded = LoadedArea::load(&self.inner.ctx, area, self.limits().compute_capability)?;
            let _ = slot.set(loaded);
        }
        Ok(slot.get().expect("the area was loaded above"))
    }

    /// Loads `module` (once; again is a no-op), so that its kernels launch here; a module
    /// with an entry of a name already loaded from another is refused, since launches find
    /// kernels by name. The driver's work (which may compile PTX) runs outside the lock that
    /// launches take.
    pub(crate) fn load(&self, module: &'static Module) -> Result<()> {
        let loaded_here = |modules: &[(&'static Module, Arc<LoadedArea>)]| {
            if modules.iter().any(|(m, _)| std::ptr::eq(*m, module)) {
                return Ok(true);
            }
            let taken = modules.iter().find_map(|(m, _)| {
                let clash = module.entries.iter().find(|e| m.entries.contains(e));
                clash.map(|e| (m.name, *e))
            });
            match taken {
                Some((other, entry)) => Err(Error::ModuleLoad {
                    area: module.name,
                    reason: format!("its entry `{entry}` is already loaded from module {other}"),
                }),
                None => Ok(false),
            }
        };
        let lock = || self.inner.modules.lock().unwrap_or_else(|e| e.into_inner());
        if loaded_here(&lock())? {
            return Ok(());
        }
        let cc = self.limits().compute_capability;
        let loaded = Arc::new(LoadedArea::load_module(&self.inner.ctx, module, cc)?);
        let mut modules = lock();
        if !loaded_here(&modules)? {
            modules.push((module, loaded));
        }
        Ok(())
    }

    /// The loaded module of one's own that holds kernel `name`.
    pub(crate) fn module_holding(&self, name: &str) -> Option<Arc<LoadedArea>> {
        let modules = self.inner.modules.lock().unwrap_or_else(|e| e.into_inner());
        modules
            .iter()
            .find(|(_, m)| m.function(name).is_some())
            .map(|(_, m)| m.clone())
    }

    /// The device's ordinal and this handle's number, which its buffers carry.
    pub(crate) fn identity(&self) -> (usize, u64) {
        (self.inner.ordinal, self.inner.instance)
    }

    /// Scratch memory kept between calls (see `Device::scratch`).
    pub(crate) fn scratch_slots(&self) -> &ScratchSlots {
        &self.inner.scratch
    }

    pub(crate) fn ledger(&self) -> &Arc<Ledger> {
        &self.inner.ledger
    }

    /// The pinned buffer of small downloads.
    pub(super) fn readback(&self) -> &Mutex<Readback> {
        &self.inner.readback
    }

    /// Sets the bytes of freed memory the device's default memory pool keeps at a
    /// synchronization instead of returning them to the driver. Opening a GPU sets it to keep
    /// everything, so that calls after a synchronization reuse their memory. The pool belongs
    /// to the device, not to warpkit: the setting applies to every stream-ordered allocation on
    /// this device in the process (cudarc's and other libraries' too). `0` restores the
    /// driver's default, for programs that share the GPU's memory with other processes. On a
    /// device without stream-ordered allocation there is no pool, and this does nothing.
    pub fn set_pool_release_threshold(&self, bytes: u64) -> Result<()> {
        if !self.inner.ctx.has_async_alloc() {
            return Ok(());
        }
        self.context().bind_to_thread()?;
        set_release_threshold(&self.inner.ctx, bytes)
    }

    /// The cuFFT plans this handle keeps.
    pub(super) fn fft_plans(&self) -> &FftPlans {
        &self.inner.fft_plans
    }

    /// The staging buffers of host slices.
    pub(super) fn staging(&self) -> &Mutex<Staging> {
        &self.inner.staging
    }

    /// The two streams of a pipelined call's copies, to the device and to the host, made on
    /// first use. Nothing orders them with warpkit's stream but the events the pipeline
    /// records.
    pub(super) fn copy_streams(&self) -> Result<&[Arc<CudaStream>; 2]> {
        if let Some(streams) = self.inner.copy_streams.get() {
            return Ok(streams);
        }
        let _creating = self.inner.loading.lock().unwrap_or_else(|e| e.into_inner());
        if self.inner.copy_streams.get().is_none() {
            let streams = [self.inner.ctx.new_stream()?, self.inner.ctx.new_stream()?];
            let _ = self.inner.copy_streams.set(streams);
        }
        Ok(self.inner.copy_streams.get().expect("made above"))
    }
}

/// Sets how many bytes of freed memory the device's default memory pool, which stream-ordered
/// allocations come from, keeps at a synchronization instead of returning them to the driver.
fn set_release_threshold(ctx: &Arc<CudaContext>, bytes: u64) -> Result<()> {
    let mut pool = std::ptr::null_mut();
    let mut keep = bytes;
    let threshold = sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD;
    // SAFETY: `pool` receives the device's default pool handle, which lives as long as the
    // device; the attribute's value is a u64.
    unsafe {
        sys::cuDeviceGetDefaultMemPool(&mut pool, ctx.cu_device()).result()?;
        sys::cuMemPoolSetAttribute(pool, threshold, (&raw mut keep).cast()).result()?;
    }
    Ok(())
}

fn read_limits(ctx: &Arc<CudaContext>) -> Result<DeviceLimits> {
    let get = |a: Attr| -> Result<u32> { Ok(ctx.attribute(a)?.max(0) as u32) };
    Ok(DeviceLimits {
        name: ctx.name()?,
        compute_capability: ctx.compute_capability()?,
        launch: Limits {
            multiprocessors: get(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
            max_threads_per_block: get(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            max_block_dim: [
                get(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)?,
                get(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)?,
                get(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)?,
            ],
            max_grid_dim: [
                get(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?,
                get(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)?,
                get(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)?,
            ],
            shared_per_block: get(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)?,
            shared_per_block_optin: get(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?,
            shared_per_multiprocessor: get(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)?,
            shared_reserved_per_block: get(Attr::CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK)?,
        },
        total_memory: ctx.total_mem()?,
    })
}
