//! Device-to-device copy with 128-bit accesses (`copy_vec128`): warpkit's bandwidth yardstick.

use crate::error::{Result, check_same_len};
use crate::runtime::device::{Device, DeviceBuffer, LaunchShape};
use warpkit_kernels::device::copy::copy_vec128;
use warpkit_kernels::policy::{COPY_BLOCK_THREADS, COPY_UNROLL};

impl Device {
    /// Copies `src` into `dst` (same length) with warpkit's copy kernel.
    pub fn copy<T>(&self, src: &DeviceBuffer<T>, dst: &mut DeviceBuffer<T>) -> Result<()> {
        check_same_len("copy destination", src.len(), dst.len())?;
        let (s, d) = (self.ptr(src)?, self.ptr_mut(dst)?);
        let bytes = (src.len() * size_of::<T>()) as u64;
        if bytes == 0 {
            return Ok(());
        }
        let per_block = (COPY_BLOCK_THREADS * COPY_UNROLL * 16) as u64;
        let resident = self.resident_blocks::<copy_vec128>(COPY_BLOCK_THREADS, 0)?;
        let blocks = bytes.div_ceil(per_block).min(resident);
        let shape = LaunchShape::linear(blocks, COPY_BLOCK_THREADS, 0);
        // SAFETY: `copy_vec128` contract: both pointers valid for `bytes`, and the buffers are
        // distinct allocations (one borrowed shared, one mutable).
        unsafe { self.launch::<copy_vec128>(shape, (s.cast(), d.cast(), bytes)) }
    }
}
