//! Device-wide sum: one launch of persistent blocks writes per-block partials, a second
//! single-block launch of the same kernel sums them (see `warpkit_kernels::device::reduce`).
//! Reads the input once.

use crate::MAX_LEN;
use crate::error::{Result, check_len, check_same_len};
use crate::runtime::device::{Device, DeviceBuffer, LaunchShape};
use crate::runtime::element::Scalar;
use warpkit_kernels::policy::{REDUCE_BLOCK_THREADS, REDUCE_UNROLL, vector_len};

impl Device {
    /// Writes the sum of `input` to `output[0]` (`output` holds one element). For a given
    /// device and length the summation order is fixed, so float sums repeat exactly.
    pub fn sum_into<T: Scalar>(&self, input: &DeviceBuffer<T>, output: &mut DeviceBuffer<T>) -> Result<()> {
        let shared = REDUCE_BLOCK_THREADS / 32 * size_of::<T>() as u32;
        let resident = self.resident_blocks::<T::Reduce>(REDUCE_BLOCK_THREADS, shared)?;
        self.sum_over_grid(input, output, resident)
    }

    /// The sum with at most `max_blocks` blocks in the first pass: with a grid fixed in
    /// advance, float sums are the same bits on every device and in the emulator.
    pub(crate) fn sum_over_grid<T: Scalar>(
        &self,
        input: &DeviceBuffer<T>,
        output: &mut DeviceBuffer<T>,
        max_blocks: u64,
    ) -> Result<()> {
        check_same_len("reduce output", 1, output.len())?;
        let dst = self.ptr_mut(output)?;
        // SAFETY: `reduce_sum_*` as the first pass writes exactly the partials it asks for.
        unsafe {
            self.sum_over_grid_by(input, dst, max_blocks, |shape, src, n, partials| {
                self.launch::<T::Reduce>(shape, (src, n, partials))
            })
        }
    }

    /// [`Device::sum_over_grid`] into the element at `dst`, with the first pass launched by
    /// `first(grid, input, n, partials)`: a kernel that writes the partials `reduce_sum_*`
    /// would (the same order, so the same bits) and may do more on the same read.
    ///
    /// # Safety
    /// `dst` is one element of device memory of this device; `first` launches such a kernel
    /// on the grid it is given.
    pub(crate) unsafe fn sum_over_grid_by<T: Scalar>(
        &self,
        input: &DeviceBuffer<T>,
        dst: *mut T,
        max_blocks: u64,
        first: impl FnOnce(LaunchShape, *const T, u64, *mut T) -> Result<()>,
    ) -> Result<()> {
        let n = input.len();
        check_len("reduce input", n, MAX_LEN)?;
        let src = self.ptr(input)?;
        let shared = REDUCE_BLOCK_THREADS / 32 * size_of::<T>() as u32;
        let per_block = (REDUCE_BLOCK_THREADS * REDUCE_UNROLL * vector_len(size_of::<T>())) as u64;
        let blocks = (n as u64).div_ceil(per_block).clamp(1, max_blocks);
        let mut scratch = self.scratch(blocks as usize * size_of::<T>())?;
        let partials = self
            .ptr_mut(scratch.as_mut().expect("scratch allocated"))?
            .cast::<T>();
        let wide = LaunchShape::linear(blocks, REDUCE_BLOCK_THREADS, shared);
        let single = LaunchShape::linear(1, REDUCE_BLOCK_THREADS, shared);
        first(wide, src, n as u64, partials)?;
        // SAFETY: `reduce_sum_*` contract: the `blocks` partials (in the scratch, 256-byte
        // aligned) as input to one block of REDUCE_BLOCK_THREADS with one T of shared memory
        // per warp; `dst` one element (the caller's contract).
        unsafe { self.launch::<T::Reduce>(single, (partials, blocks, dst)) }
    }

    /// The sum of `input`, copied back to the host.
    pub fn sum<T: Scalar>(&self, input: &DeviceBuffer<T>) -> Result<T> {
        let mut out = self.zeros::<T>(1)?;
        self.sum_into(input, &mut out)?;
        Ok(self.download(&out)?[0])
    }
}
