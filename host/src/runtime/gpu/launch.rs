//! Launches on a GPU: the shape checked against the device, the kernel found by its PTX entry
//! name in its area's module, its parameter struct pushed field by field.

use super::Gpu;
use super::module::{Function, LoadedArea};
use crate::error::{Error, Result};
use crate::runtime::args::push_params;
use crate::runtime::buffer::Memory;
use crate::runtime::shape::{LaunchShape, too_many_together};
use bytemuck::Pod;
use cudarc::driver::sys::CUfunction_attribute as FnAttr;
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, LaunchConfig};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use warpkit_kernels::kernel::{Kernel, Params};

/// A kernel found for a launch: in an area's module, which lives as long as the device, or in
/// a loaded module of one's own, held while the launch uses it.
enum Found<'a> {
    Area(&'a Function),
    Own(Arc<LoadedArea>, &'static str),
}

impl std::ops::Deref for Found<'_> {
    type Target = Function;

    fn deref(&self) -> &Function {
        match self {
            Found::Area(f) => f,
            Found::Own(module, name) => module.function(name).expect("found in this module"),
        }
    }
}

impl Gpu {
    /// Kernel `K`: from its area's module (loaded now on the area's first use), or for a kernel
    /// of one's own from the loaded module that holds it.
    fn function<K: Kernel>(&self) -> Result<Found<'_>> {
        let Some(area) = K::AREA else {
            let module = self.module_holding(K::NAME);
            let module = module.ok_or(Error::KernelNotLoaded { kernel: K::NAME })?;
            return Ok(Found::Own(module, K::NAME));
        };
        let function = self
            .area(area)?
            .function(K::NAME)
            .ok_or_else(|| Error::LaunchShape {
                kernel: K::NAME,
                reason: format!("the {} module has no such entry point", area.name()),
            })?;
        Ok(Found::Area(function))
    }

    /// Launches `K` with `params` on the stream (asynchronously), after checking `shape`
    /// against the device and raising the kernel's shared-memory limit where it needs more than
    /// the default.
    ///
    /// # Safety
    /// `params` and `shape` meet `K`'s contract, and every pointer in `params` addresses memory of
    /// this GPU that outlives the kernel (buffers are freed in stream order, so dropping them
    /// after this call is fine).
    pub(crate) unsafe fn launch<K: Kernel>(&self, shape: LaunchShape, params: K::Params) -> Result<()> {
        // SAFETY: the caller's contract.
        unsafe { self.launch_on::<K>(self.stream(), shape, params) }
    }

    /// [`Gpu::launch`] on `stream`, a stream of this GPU's context (one being captured into a
    /// graph, say).
    ///
    /// # Safety
    /// As for [`Gpu::launch`], in the order of `stream`.
    pub(crate) unsafe fn launch_on<K: Kernel>(
        &self,
        stream: &Arc<CudaStream>,
        shape: LaunchShape,
        params: K::Params,
    ) -> Result<()> {
        if let Some(reason) = self.limits().refusal(&shape) {
            return Err(Error::LaunchShape {
                kernel: K::NAME,
                reason,
            });
        }
        let cooperative = <K::Params as Params>::COOPERATIVE;
        if cooperative {
            let threads = shape.block.iter().product();
            let resident = self.resident_blocks::<K>(threads, shape.shared_bytes)?;
            if let Some(reason) = too_many_together(&shape, resident) {
                return Err(Error::LaunchShape {
                    kernel: K::NAME,
                    reason,
                });
            }
        }
        let f = self.function_with_shared::<K>(shape.shared_bytes)?;
        let config = LaunchConfig {
            grid_dim: (shape.grid[0], shape.grid[1], shape.grid[2]),
            block_dim: (shape.block[0], shape.block[1], shape.block[2]),
            shared_mem_bytes: shape.shared_bytes,
        };
        let mut launch = stream.launch_builder(&f.cuda);
        push_params(&params, &mut launch);
        // SAFETY: the caller's contract; the parameters match `K`'s entry because `K::Params`
        // is the struct its entry takes field by field; a cooperative grid fits the device.
        unsafe {
            if cooperative {
                launch.launch_cooperative(config)
            } else {
                launch.launch(config)
            }
        }?;
        Ok(())
    }

    /// Kernel `K`, its shared-memory limit raised where `shared_bytes` needs more than the
    /// default: always to the device's maximum, so that launches of other sizes from other
    /// host threads never lower it under each other, and once per device and process.
    fn function_with_shared<K: Kernel>(&self, shared_bytes: u32) -> Result<Found<'_>> {
        let f = self.function::<K>()?;
        if shared_bytes > self.limits().launch.shared_per_block && !f.shared_raised.load(Ordering::Acquire) {
            f.cuda.set_attribute(
                FnAttr::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                self.limits().launch.shared_per_block_optin as i32,
            )?;
            f.shared_raised.store(true, Ordering::Release);
        }
        Ok(f)
    }

    /// Blocks of `threads` threads (with `shared_bytes` each) of kernel `K` that fill every
    /// multiprocessor once: the grid of a persistent, grid-stride kernel. The kernel's
    /// shared-memory limit is raised first, as its launch will raise it, or the occupancy of a
    /// kernel that needs more than the default would count as one block. The driver is asked
    /// once per shape.
    pub(crate) fn resident_blocks<K: Kernel>(&self, threads: u32, shared_bytes: u32) -> Result<u64> {
        let f = self.function_with_shared::<K>(shared_bytes)?;
        let known = f
            .resident
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&(threads, shared_bytes))
            .copied();
        let per_sm = match known {
            Some(n) => n,
            None => {
                let n = f
                    .cuda
                    .occupancy_max_active_blocks_per_multiprocessor(threads, shared_bytes as usize, None)?
                    .max(1);
                let mut cache = f.resident.lock().unwrap_or_else(|e| e.into_inner());
                cache.insert((threads, shared_bytes), n);
                n
            }
        };
        Ok(per_sm as u64 * self.limits().launch.multiprocessors as u64)
    }

    /// A new device allocation of `len` elements, copied from `data` (through the staging
    /// buffers, [`Gpu::copy_to_device`]) or zeroed.
    pub(crate) fn alloc<T: Pod>(&self, len: usize, data: Option<&[T]>) -> Result<Memory<T>> {
        let size = bytes_of::<T>(len)?;
        let bytes = match data {
            // SAFETY: the copy below writes every byte before anything reads them.
            Some(_) => unsafe { self.stream().alloc::<u8>(size)? },
            None => self.stream().alloc_zeros::<u8>(size)?,
        };
        let (addr, _) = bytes.device_ptr(self.stream());
        if let Some(d) = data {
            self.copy_to_device(d, addr)?;
        }
        Ok(Memory::Cuda { bytes, addr, len })
    }

    /// A new device allocation of `len` elements, not initialized (stream-ordered, so it is
    /// cheap to take per call). `Device::workspace` documents when it is read.
    pub(crate) fn alloc_unset<T: Pod>(&self, len: usize) -> Result<Memory<T>> {
        // SAFETY: bytes are valid for every bit pattern; `T: Pod` makes them valid `T`s too.
        let bytes = unsafe { self.stream().alloc::<u8>(bytes_of::<T>(len)?)? };
        Ok(self.memory(bytes, len))
    }

    /// Takes over `slice`, a `cudarc` allocation of this context made on any stream, without a
    /// copy: this GPU's stream first waits for all the work submitted to the slice's stream so
    /// far, then the memory is warpkit's, used and freed in order on its stream. The kernels
    /// read 16-byte vectors from buffers that start where CUDA's allocations do, so a slice
    /// that starts elsewhere (made from an offset pointer) is refused (`Misaligned`).
    pub(crate) fn adopt<T: Pod>(&self, slice: cudarc::driver::CudaSlice<T>) -> Result<Memory<T>> {
        let (theirs, len) = (slice.stream().clone(), slice.len());
        // Leaking enqueues, on their stream, the waits for the slice's pending reads and writes.
        let ptr = slice.leak();
        let refused = if !ptr.is_multiple_of(ALLOCATION_ALIGN) {
            Some(Error::Misaligned {
                what: "an adopted cudarc slice",
                align: ALLOCATION_ALIGN,
            })
        } else {
            self.stream().join(&theirs).err().map(Error::from)
        };
        if let Some(e) = refused {
            // SAFETY: as below; the slice frees the memory on their stream again.
            drop(unsafe { theirs.upgrade_device_ptr::<T>(ptr, len) });
            return Err(e);
        }
        // SAFETY: `ptr` is a live allocation of `len` elements of `T` in this context, owned by
        // nobody since the leak; its contents are the caller's valid `T`s.
        let bytes = unsafe { self.stream().upgrade_device_ptr::<u8>(ptr, len * size_of::<T>()) };
        Ok(self.memory(bytes, len))
    }

    /// `bytes`, `len` elements of `T`, as a buffer's memory.
    fn memory<T>(&self, bytes: CudaSlice<u8>, len: usize) -> Memory<T> {
        let (addr, _) = bytes.device_ptr(self.stream());
        Memory::Cuda { bytes, addr, len }
    }
}

/// The alignment of CUDA's allocations, which kernels rely on.
const ALLOCATION_ALIGN: u64 = 256;

/// The bytes of `len` elements of `T`, or `OutOfMemory` when they overflow the address space.
fn bytes_of<T>(len: usize) -> Result<usize> {
    len.checked_mul(size_of::<T>()).ok_or(Error::OutOfMemory)
}
