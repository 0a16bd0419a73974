//! Device-to-device copy with 128-bit accesses (`copy_vec128`): warpkit's bandwidth yardstick.

use crate::error::{Result, check_same_len};
use crate::gpu::{DeviceBuffer, Gpu, LaunchShape};
use crate::kernels::names::COPY_VEC128;
use cudarc::driver::{DeviceRepr, PushKernelArg};
use warpkit_kernels::policy::{COPY_BLOCK_THREADS, COPY_UNROLL};

impl Gpu {
    /// Copies `src` into `dst` (same length) with warpkit's copy kernel.
    pub fn copy<T: DeviceRepr>(&self, src: &DeviceBuffer<T>, dst: &mut DeviceBuffer<T>) -> Result<()> {
        check_same_len("copy destination", src.len(), dst.len())?;
        let bytes = (src.len() * size_of::<T>()) as u64;
        if bytes == 0 {
            return Ok(());
        }
        let per_block = (COPY_BLOCK_THREADS * COPY_UNROLL * 16) as u64;
        let blocks =
            bytes
                .div_ceil(per_block)
                .min(self.resident_blocks(COPY_VEC128, COPY_BLOCK_THREADS, 0)?);
        let (f, config) = self.prepare(COPY_VEC128, LaunchShape::linear(blocks, COPY_BLOCK_THREADS, 0))?;
        // SAFETY: the kernel reads and writes `bytes` bytes, the size of both buffers, which
        // are distinct allocations (one borrowed shared, one mutable).
        let (s, d) = unsafe {
            (
                src.slice.transmute::<u8>(bytes as usize),
                dst.slice.transmute_mut::<u8>(bytes as usize),
            )
        };
        let (s, mut d) = (s.expect("same size"), d.expect("same size"));
        let mut launch = self.stream().launch_builder(&f);
        launch.arg(&s).arg(&mut d).arg(&bytes);
        // SAFETY: `copy_vec128` contract: both pointers valid for `bytes`, no overlap.
        unsafe { launch.launch(config) }?;
        Ok(())
    }
}
