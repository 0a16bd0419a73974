//! [`Device`]: where warpkit's kernels run, a CUDA GPU or the SIMT emulator. Buffers, launches
//! and every device-resident primitive go through it, so each primitive is written once and
//! runs on both. The buffers, launch shapes and scratch it hands out are defined below it and
//! the two engines (`buffer`, `shape`, `scratch`), and re-exported here.

pub use super::buffer::DeviceBuffer;
pub(crate) use super::scratch::Scratch;
use super::scratch::{ScratchGuard, ScratchSlots};
pub use super::shape::{DeviceLimits, LaunchShape, Limits};

use super::buffer::{Memory, Owner};
use super::cpu::prefer_huge_pages;
use super::emulator::Emulator;
#[cfg(feature = "cuda")]
use super::gpu::Gpu;
use super::ledger::{Lease, Ledger};
use super::module::Module;
use super::pinned::PinnedBuffer;
use crate::error::{Error, Result, check_same_len};
use bytemuck::Pod;
use std::mem::MaybeUninit;
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use warpkit_kernels::kernel::Kernel;

/// A device that runs warpkit's kernels. Cheap to clone. Its variants depend on the crate's
/// features (`Gpu` needs `cuda`), so matches need a wildcard arm.
///
/// `Send + Sync`: one device may serve many threads at once. Clones share one stream, module
/// cache and scratch; a call holds the scratch's lock while it queues the launches that use
/// it, and the stream runs each call's work in the order it was queued, so calls from many
/// threads interleave whole, each result the one the call gives alone (tested from 16
/// threads on every primitive, `tests/tests/concurrency.rs`). Devices opened apart on one GPU
/// each have their own stream and caches. Buffers ([`DeviceBuffer`]) are `Send + Sync` too:
/// writing one needs `&mut`, so a buffer is written by one call at a time.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Device {
    /// A CUDA GPU: launches are asynchronous, in order on one stream.
    #[cfg(feature = "cuda")]
    Gpu(Gpu),
    /// The SIMT emulator on the CPU: launches finish before they return.
    Emulator(Emulator),
}

impl Device {
    /// CUDA device `ordinal`, or why it cannot be opened (`Error::NoDevice` without a driver
    /// or device, or in a build without the `cuda` feature: never a panic).
    pub fn gpu(ordinal: usize) -> Result<Device> {
        #[cfg(feature = "cuda")]
        return Ok(Device::Gpu(Gpu::open(ordinal)?));
        #[cfg(not(feature = "cuda"))]
        return Err(Error::NoDevice(format!(
            "device {ordinal} requested from a warpkit built without its `cuda` feature"
        )));
    }

    /// A GPU device whose calls run on `stream`, a caller's `cudarc` stream (see
    /// [`Gpu::on_stream`]): for programs that order warpkit's work with their own.
    #[cfg(feature = "cuda")]
    pub fn gpu_on_stream(stream: std::sync::Arc<cudarc::driver::CudaStream>) -> Result<Device> {
        Ok(Device::Gpu(Gpu::on_stream(stream)?))
    }

    /// The SIMT emulator with default options (a worker per core).
    pub fn emulator() -> Device {
        Device::Emulator(Emulator::default())
    }

    /// Every engine present: the emulator first, then each GPU that opens (one that does not,
    /// of an architecture warpkit has no code for say, is passed over). For tests that run on
    /// each and compare their outputs with the emulator's.
    pub fn present() -> Vec<Device> {
        let gpus = (0..)
            .map(Device::gpu)
            .take_while(|gpu| !matches!(gpu, Err(Error::NoDevice(_))))
            .filter_map(Result::ok);
        std::iter::once(Device::emulator()).chain(gpus).collect()
    }

    /// Loads a [`Module`] of one's own kernels (written by `warpkit-builder`) on this device,
    /// so that [`Bindings::launch`](crate::Bindings::launch) finds them: on a GPU the first of
    /// its images that runs there (`Err(ModuleLoad)` if none does); loading it again does
    /// nothing. The emulator runs the kernels from the host build of their crate and needs no
    /// module. A launch of a kernel in no loaded module is `Err(KernelNotLoaded)`.
    #[cfg_attr(not(feature = "cuda"), allow(unused_variables))]
    pub fn load(&self, module: &'static Module) -> Result<()> {
        match self {
            #[cfg(feature = "cuda")]
            Device::Gpu(g) => g.load(module),
            Device::Emulator(_) => Ok(()),
        }
    }

    /// The device's limits and name.
    pub fn limits(&self) -> &DeviceLimits {
        match self {
            #[cfg(feature = "cuda")]
            Device::Gpu(g) => g.limits(),
            Device::Emulator(e) => e.limits(),
        }
    }

    /// A one-line description.
    pub fn describe(&self) -> String {
        let l = self.limits();
        match self {
            #[cfg(feature = "cuda")]
            Device::Gpu(_) => {
                let (major, minor) = l.compute_capability;
                format!(
                    "GPU {} (sm_{major}{minor}, {} SMs)",
                    l.name, l.launch.multiprocessors
                )
            }
            Device::Emulator(_) => l.name.clone(),
        }
    }

    /// The GPU handle, for timing with [`crate::GpuTimer`] and the device's own settings.
    #[cfg(feature = "cuda")]
    pub fn as_gpu(&self) -> Option<&Gpu> {
        match self {
            Device::Gpu(g) => Some(g),
            Device::Emulator(_) => None,
        }
    }

    fn owner(&self) -> Owner {
        match self {
            #[cfg(feature = "cuda")]
            Device::Gpu(g) => {
                let (ordinal, handle) = g.identity();
                Owner::Gpu { ordinal, handle }
            }
            Device::Emulator(_) => Owner::Emulator,
        }
    }

    /// This device's count of its buffers' bytes, shared by its clones.
    fn ledger(&self) -> &Arc<Ledger> {
        match self {
            #[cfg(feature = "cuda")]
            Device::Gpu(g) => g.ledger(),
            Device::Emulator(e) => e.ledger(),
        }
    }

    /// Admits `len` elements of `T` to the ledger before they are allocated.
    fn lease<T>(&self, len: usize) -> Result<Lease> {
        self.ledger().admit(len.saturating_mul(size_of::<T>()) as u64)
    }

    fn alloc<T: Pod>(&self, len: usize, data: Option<&[T]>) -> Result<DeviceBuffer<T>> {
        let lease = self.lease::<T>(len)?;
        let memory = match self {
            #[cfg(feature = "cuda")]
            Device::Gpu(g) => g.alloc(len, data)?,
            Device::Emulator(e) => Memory::Host(e.alloc(len, data)?),
        };
        Ok(DeviceBuffer {
            memory,
            owner: self.owner(),
            _lease: lease,
        })
    }

    /// Copies `data` to a new device buffer.
    pub fn upload<T: Pod>(&self, data: &[T]) -> Result<DeviceBuffer<T>> {
        self.alloc(data.len(), Some(data))
    }

    /// A new buffer of `len` zeroed elements.
    pub fn zeros<T: Pod>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        self.alloc(len, None)
    }

    /// A new buffer of `len` elements whose contents are unspecified (zeros in the emulator):
    /// for work space that a kernel writes in full before anything reads it, without the
    /// zeroing pass of [`Device::zeros`].
    pub(crate) fn workspace<T: Pod>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        let lease = self.lease::<T>(len)?;
        let memory = match self {
            #[cfg(feature = "cuda")]
            Device::Gpu(g) => g.alloc_unset(len)?,
            Device::Emulator(e) => Memory::Host(e.alloc(len, None)?),
        };
        Ok(DeviceBuffer {
            memory,
            owner: self.owner(),
            _lease: lease,
        })
    }

    /// A new buffer of `len` copies of `value` (tests poison outputs this way).
    pub fn filled<T: Pod>(&self, len: usize, value: T) -> Result<DeviceBuffer<T>> {
        self.upload(&vec![value; len])
    }

    /// Copies `src` into the existing buffer `dst` of the same length (in order with the
    /// launches on a GPU), so per-step data needs no new allocation. Returns once `src` has been
    /// read.
    pub fn copy_from_host<T: Pod>(&self, src: &[T], dst: &mut DeviceBuffer<T>) -> Result<()> {
        check_same_len("copy destination", src.len(), dst.len())?;
        self.check_owner(dst)?;
        match (&mut dst.memory, self) {
            #[cfg(feature = "cuda")]
            (Memory::Cuda { addr, .. }, Device::Gpu(g)) => g.copy_to_device(src, *addr)?,
            // SAFETY: same length, distinct memory; no launch is in flight in the emulator.
            (Memory::Host(h), _) => unsafe { h.as_ptr().copy_from_nonoverlapping(src.as_ptr(), src.len()) },
            #[cfg(feature = "cuda")]
            (Memory::Cuda { .. }, Device::Emulator(_)) => unreachable!("ownership checked"),
        }
        Ok(())
    }

    /// Copies a device buffer back to a new `Vec`, waiting for the work before it.
    pub fn download<T: Pod>(&self, buffer: &DeviceBuffer<T>) -> Result<Vec<T>> {
        let n = buffer.len();
        let mut out: Vec<T> = Vec::new();
        out.try_reserve_exact(n).map_err(|_| Error::HostOutOfMemory {
            bytes: (n as u64).saturating_mul(size_of::<T>() as u64),
        })?;
        prefer_huge_pages(out.as_ptr().cast(), n * size_of::<T>());
        self.download_uninit(buffer, &mut out.spare_capacity_mut()[..n])?;
        // SAFETY: `download_uninit` wrote all `n` elements.
        unsafe { out.set_len(n) };
        Ok(out)
    }

    /// Copies a device buffer into `out`, of the same length (`Err(LengthMismatch)` before any
    /// copy otherwise), waiting for the work before it. Reusing `out` across calls saves the
    /// page faults of fresh memory; a slice of a [`PinnedBuffer`] moves at the link's speed.
    pub fn download_into<T: Pod>(&self, buffer: &DeviceBuffer<T>, out: &mut [T]) -> Result<()> {
        check_same_len("download destination", buffer.len(), out.len())?;
        // SAFETY: `MaybeUninit<T>` has `T`'s layout, and only initialized `T`s are written.
        let out = unsafe { &mut *(out as *mut [T] as *mut [MaybeUninit<T>]) };
        self.download_uninit(buffer, out)
    }

    /// Writes all of `out`, of `buffer`'s length, from the buffer.
    fn download_uninit<T: Pod>(&self, buffer: &DeviceBuffer<T>, out: &mut [MaybeUninit<T>]) -> Result<()> {
        self.check_owner(buffer)?;
        match (&buffer.memory, self) {
            #[cfg(feature = "cuda")]
            (Memory::Cuda { addr, .. }, Device::Gpu(g)) => g.copy_to_host(*addr, out),
            (Memory::Host(h), _) => {
                // SAFETY: emulator launches are finished when they return; none is in flight.
                let data = unsafe { h.as_slice() };
                for (o, &d) in out.iter_mut().zip(data) {
                    o.write(d);
                }
                Ok(())
            }
            #[cfg(feature = "cuda")]
            (Memory::Cuda { .. }, Device::Emulator(_)) => unreachable!("ownership checked"),
        }
    }

    /// A buffer made of `slice`, a `cudarc` allocation on this GPU's context (from any of its
    /// streams), without a copy: warpkit's stream first waits for the work submitted to the
    /// slice's stream so far. `Err(WrongDevice)` for a slice of another context, or on the
    /// emulator; `Err(Misaligned)` for a slice that does not start where CUDA's allocations do
    /// (on 256 bytes), as one made from an offset pointer may not.
    /// [`DeviceBuffer::into_cuda_slice`] gives it (or any result) back.
    #[cfg(feature = "cuda")]
    pub fn adopt<T: Pod>(&self, slice: cudarc::driver::CudaSlice<T>) -> Result<DeviceBuffer<T>> {
        match self {
            Device::Gpu(g) if slice.context().cu_ctx() == g.context().cu_ctx() => {
                let lease = self.lease::<T>(slice.len())?;
                Ok(DeviceBuffer {
                    memory: g.adopt(slice)?,
                    owner: self.owner(),
                    _lease: lease,
                })
            }
            _ => Err(Error::WrongDevice {
                buffer: "a cudarc slice of another context".into(),
                device: self.describe(),
            }),
        }
    }

    /// `len` zeroed elements of host memory that this device copies at the link's speed:
    /// page-locked for a GPU, ordinary memory for the emulator.
    pub fn pinned<T: Pod>(&self, len: usize) -> Result<PinnedBuffer<T>> {
        match self {
            #[cfg(feature = "cuda")]
            Device::Gpu(g) => g.alloc_pinned(len),
            Device::Emulator(_) => PinnedBuffer::ordinary(len),
        }
    }

    /// The first `words` u32 of a byte buffer (a part of a scratch buffer), waiting for the work
    /// before it.
    pub(crate) fn download_words(&self, buffer: &DeviceBuffer<u8>, words: usize) -> Result<Vec<u32>> {
        self.check_owner(buffer)?;
        let bytes = match (&buffer.memory, self) {
            #[cfg(feature = "cuda")]
            (Memory::Cuda { bytes, .. }, Device::Gpu(g)) => g.read_back(&bytes.slice(..4 * words))?,
            // SAFETY: emulator launches are finished when they return; none is in flight.
            (Memory::Host(h), _) => unsafe { &h.as_slice()[..4 * words] }.to_vec(),
            #[cfg(feature = "cuda")]
            (Memory::Cuda { .. }, Device::Emulator(_)) => unreachable!("ownership checked"),
        };
        Ok(bytes
            .chunks_exact(4)
            .map(|w| u32::from_ne_bytes([w[0], w[1], w[2], w[3]]))
            .collect())
    }

    /// Waits until all submitted work has finished; reports any fault it raised.
    pub fn synchronize(&self) -> Result<()> {
        match self {
            #[cfg(feature = "cuda")]
            Device::Gpu(g) => g.synchronize(),
            Device::Emulator(_) => Ok(()),
        }
    }

    /// `Err(WrongDevice)` unless `buffer` was made by this device.
    pub(crate) fn check_owner<T>(&self, buffer: &DeviceBuffer<T>) -> Result<()> {
        if buffer.owner != self.owner() {
            return Err(Error::WrongDevice {
                buffer: format!("{:?}", buffer.owner),
                device: self.describe(),
            });
        }
        Ok(())
    }

    /// The kernel address of `buffer`'s elements, after checking it belongs to this device:
    /// for the GPU's pipelined copies (the areas bind their buffers instead).
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    pub(super) fn ptr<T>(&self, buffer: &DeviceBuffer<T>) -> Result<*const T> {
        self.check_owner(buffer)?;
        Ok(buffer.kernel_ptr())
    }

    /// As [`Device::ptr`], for a buffer the kernel writes.
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    pub(super) fn ptr_mut<T>(&self, buffer: &mut DeviceBuffer<T>) -> Result<*mut T> {
        self.check_owner(buffer)?;
        Ok(buffer.kernel_ptr())
    }

    /// Zeroes the first `len` elements of `buffer`, in order with the launches.
    pub(crate) fn zero_prefix<T: Pod>(&self, buffer: &mut DeviceBuffer<T>, len: usize) -> Result<()> {
        self.zero_range(buffer, 0..len)
    }

    /// Zeroes elements `range` of `buffer` (cut to its length), in order with the launches.
    pub(crate) fn zero_range<T: Pod>(&self, buffer: &mut DeviceBuffer<T>, range: Range<usize>) -> Result<()> {
        let end = range.end.min(buffer.len());
        let start = range.start.min(end);
        match (&mut buffer.memory, self) {
            #[cfg(feature = "cuda")]
            (Memory::Cuda { bytes, .. }, Device::Gpu(g)) => {
                let size = size_of::<T>();
                g.stream()
                    .memset_zeros(&mut bytes.slice_mut(start * size..end * size))?;
            }
            // SAFETY: `start..end` is within the buffer; no launch is in flight in the emulator.
            (Memory::Host(h), _) => unsafe { h.as_ptr().add(start).write_bytes(0, end - start) },
            #[cfg(feature = "cuda")]
            (Memory::Cuda { .. }, Device::Emulator(_)) => unreachable!("scratch is the device's own"),
        }
        Ok(())
    }

    /// Bytes held by this device's live buffers: the caller's, and the scratch and plans it
    /// keeps between calls (shared by its clones; a device opened apart counts its own). A
    /// call leaves it where it found it, its caches aside, whether it succeeds or fails.
    pub fn memory_in_use(&self) -> u64 {
        self.ledger().in_use()
    }

    /// Frees the memory this device keeps between calls: its scratch buffers and, on a GPU,
    /// the cuFFT plans with their workspaces. The next call that needs them allocates them
    /// again. warpkit's buffers are freed in stream order, after the work that uses them;
    /// cuFFT frees a plan's own work areas itself, which can wait for the device.
    pub fn release_cached(&self) {
        #[cfg(feature = "cuda")]
        if let Device::Gpu(g) = self {
            g.release_fft_plans();
        }
        for slot in &self.scratch_slots().slots {
            *slot.lock().unwrap_or_else(|e| e.into_inner()) = None;
        }
    }

    /// The most bytes each of the device's two scratch buffers keeps between calls (unbounded
    /// unless set): a call that needs more allocates it and frees it when done. On a GPU the
    /// bound also applies to a cuFFT plan when it is made (cuFFT's work areas and the plan's
    /// workspace): a larger one serves its call alone, which then waits for its work before
    /// it frees the plan. Plans made under an earlier, larger limit stay until
    /// [`Device::release_cached`]. Shared by the device's clones.
    pub fn set_cache_limit(&self, bytes: u64) {
        self.scratch_slots().limit.store(bytes, Ordering::Relaxed);
    }

    /// The device's scratch buffers, shared by its clones.
    fn scratch_slots(&self) -> &ScratchSlots {
        match self {
            #[cfg(feature = "cuda")]
            Device::Gpu(g) => g.scratch_slots(),
            Device::Emulator(e) => e.scratch_slots(),
        }
    }

    /// Allocations this device has made or refused so far, for tests that try each of a
    /// call's allocations as the one that fails ([`Device::fail_allocation`]).
    #[cfg(feature = "checks")]
    pub fn allocations(&self) -> u64 {
        self.ledger().allocations()
    }

    /// Makes this device's `nth` allocation from now (1: the next) fail with
    /// `Error::OutOfMemory`, as a device out of memory would; 0 cancels. For tests that a call
    /// out of memory returns the error and frees what it took.
    #[cfg(feature = "checks")]
    pub fn fail_allocation(&self, nth: u64) {
        self.ledger().fail_allocation(nth)
    }

    /// A tag for this call's words in the call scratch, different from the tags of the last
    /// 2^32 - 1 calls on this device: a kernel that marks a word with it needs no memset to
    /// tell its mark from an earlier call's. 0 comes once in 2^32 calls; its caller clears
    /// the marked words (zero, the scratch's first contents, is then nobody's mark).
    pub(crate) fn next_call_tag(&self) -> u32 {
        let slots = self.scratch_slots();
        slots.calls.fetch_add(1, Ordering::Relaxed).wrapping_add(1)
    }

    /// At least `bytes` of the device's launch scratch memory (see [`Scratch`]).
    pub(crate) fn scratch(&self, bytes: usize) -> Result<ScratchGuard<'_>> {
        self.scratch_of(Scratch::Launch, bytes)
    }

    /// At least `bytes` of device scratch memory `which`, kept between calls and grown on
    /// demand. Holding the guard keeps other host threads from using it while work is
    /// submitted.
    pub(crate) fn scratch_of(&self, which: Scratch, bytes: usize) -> Result<ScratchGuard<'_>> {
        let slots = self.scratch_slots();
        let slot = &slots.slots[which as usize];
        let mut guard = ScratchGuard {
            slot: slot.lock().unwrap_or_else(|e| e.into_inner()),
            limit: slots.limit(),
        };
        if guard.as_ref().is_none_or(|s| s.len() < bytes) {
            *guard = None; // free the old buffer before allocating the larger one
            *guard = Some(self.zeros::<u8>(bytes.max(256))?);
        }
        Ok(guard)
    }

    /// Launches kernel `K` over `shape` with `params`: asynchronously on a GPU, to completion
    /// in the emulator. The shape is checked against the device's limits first. Kernel families
    /// whose contract is declared ([`warpkit_kernels::kernel::Checked`]) launch through
    /// [`Device::bind`] instead, which checks it.
    ///
    /// # Safety
    /// `params` and `shape` meet `K`'s contract (its body's `# Safety` section), and every
    /// pointer in `params` comes from [`Device::ptr`] or [`Device::ptr_mut`] of a buffer that outlives the
    /// call.
    pub(super) unsafe fn launch_unchecked<K: Kernel>(
        &self,
        shape: LaunchShape,
        params: K::Params,
    ) -> Result<()> {
        // SAFETY: forwarded to the caller's contract.
        unsafe {
            match self {
                #[cfg(feature = "cuda")]
                Device::Gpu(g) => g.launch::<K>(shape, params),
                Device::Emulator(e) => e.launch::<K>(shape, params),
            }
        }
    }

    /// Blocks of kernel `K` that keep every multiprocessor busy once (the grid of a
    /// grid-stride kernel): by occupancy on a GPU, four per worker in the emulator.
    #[cfg_attr(
        not(feature = "cuda"),
        allow(unused_variables, clippy::extra_unused_type_parameters)
    )]
    pub(crate) fn resident_blocks<K: Kernel>(&self, threads: u32, shared_bytes: u32) -> Result<u64> {
        match self {
            #[cfg(feature = "cuda")]
            Device::Gpu(g) => g.resident_blocks::<K>(threads, shared_bytes),
            Device::Emulator(e) => Ok(e.resident_blocks()),
        }
    }

    /// `shape` with its grid cut to the blocks of `K` that fit the device `waves` times at
    /// once: the grid of a grid-stride kernel, whose plan asks for a block per share of work.
    pub(crate) fn cap_to_resident<K: Kernel>(&self, shape: LaunchShape, waves: u64) -> Result<LaunchShape> {
        let resident = self.resident_blocks::<K>(shape.block[0], shape.shared_bytes)?;
        let blocks = (shape.grid[0] as u64).min(waves * resident);
        Ok(LaunchShape::linear(blocks, shape.block[0], shape.shared_bytes))
    }
}

/// [`Device::describe`].
impl std::fmt::Display for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe())
    }
}
