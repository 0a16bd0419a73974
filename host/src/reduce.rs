//! Device-wide sum on the GPU: one launch of persistent blocks writes per-block partials, a
//! second single-block launch of the same kernel sums them (see
//! `warpkit_kernels::device::reduce`). Reads the input once.

use crate::MAX_LEN;
use crate::element::Scalar;
use crate::error::{Result, check_len, check_same_len};
use crate::gpu::{DeviceBuffer, Gpu, LaunchShape};
use cudarc::driver::PushKernelArg;
use warpkit_kernels::policy::{REDUCE_BLOCK_THREADS, REDUCE_UNROLL, vector_len};

impl Gpu {
    /// Writes the sum of `input` to `output[0]` (`output` holds one element). For a given
    /// device and length the summation order is fixed, so float sums repeat exactly.
    pub fn sum_into<T: Scalar>(&self, input: &DeviceBuffer<T>, output: &mut DeviceBuffer<T>) -> Result<()> {
        let n = input.len();
        check_len("reduce input", n, MAX_LEN)?;
        check_same_len("reduce output", 1, output.len())?;
        if n == 0 {
            self.stream().memset_zeros(&mut output.slice)?;
            return Ok(());
        }
        let shared = REDUCE_BLOCK_THREADS / 32 * size_of::<T>() as u32;
        let per_block = (REDUCE_BLOCK_THREADS * REDUCE_UNROLL * vector_len(size_of::<T>())) as u64;
        let resident = self.resident_blocks(T::REDUCE_KERNEL, REDUCE_BLOCK_THREADS, shared)?;
        let blocks = (n as u64).div_ceil(per_block).min(resident);
        let (f, wide) = self.prepare(
            T::REDUCE_KERNEL,
            LaunchShape::linear(blocks, REDUCE_BLOCK_THREADS, shared),
        )?;
        let (_, single) = self.prepare(
            T::REDUCE_KERNEL,
            LaunchShape::linear(1, REDUCE_BLOCK_THREADS, shared),
        )?;
        let mut scratch = self.scratch(blocks as usize * size_of::<T>())?;
        let scratch = scratch.as_mut().expect("scratch allocated");
        // SAFETY: the scratch buffer is 256-byte aligned and holds `blocks` elements of T.
        let mut partials =
            unsafe { scratch.transmute_mut::<T>(blocks as usize) }.expect("scratch holds the partials");
        let n = n as u64;
        let mut first = self.stream().launch_builder(&f);
        first.arg(&input.slice).arg(&n).arg(&mut partials);
        // SAFETY: `reduce_sum_*` contract: `input` holds `n` elements, `partials` one per
        // block, blocks of REDUCE_BLOCK_THREADS with one T of shared memory per warp.
        unsafe { first.launch(wide) }?;
        let mut second = self.stream().launch_builder(&f);
        let partials = partials.as_view();
        second.arg(&partials).arg(&blocks).arg(&mut output.slice);
        // SAFETY: as above, with the `blocks` partials as input and one block.
        unsafe { second.launch(single) }?;
        Ok(())
    }

    /// The sum of `input`, copied back to the host.
    pub fn sum<T: Scalar>(&self, input: &DeviceBuffer<T>) -> Result<T> {
        let mut out = self.zeros::<T>(1)?;
        self.sum_into(input, &mut out)?;
        Ok(self.download(&out)?[0])
    }
}
