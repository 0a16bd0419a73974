//! Device-wide sum, minimum and maximum: one launch of persistent blocks writes per-block
//! partials, a second single-block launch of the same kernel reduces them (see
//! `warpkit_kernels::device::reduce`). Reads the input once.

use crate::MAX_LEN;
use crate::error::{Result, check_len, check_not_empty, check_same_len};
use crate::runtime::device::{Device, DeviceBuffer, LaunchShape};
use crate::runtime::element::Scalar;
use warpkit_kernels::kernel::Kernel;
use warpkit_kernels::policy::{REDUCE_BLOCK_THREADS, REDUCE_UNROLL, vector_len};

/// A reduction kernel: `(input, n, partials)`, used for both passes.
type ReduceKernel<T> = (*const T, u64, *mut T);

impl Device {
    /// Writes the sum of `input` to `output[0]` (`output` holds one element). For a given
    /// device and length the summation order is fixed, so float sums repeat exactly.
    pub fn sum_into<T: Scalar>(&self, input: &DeviceBuffer<T>, output: &mut DeviceBuffer<T>) -> Result<()> {
        self.reduce_into::<T, T::Reduce>(input, output)
    }

    /// Writes the least element of `input` to `output[0]`; NaN if any element is NaN, -0 below
    /// +0 (see [`Element::lesser`](crate::element::Element::lesser)). `Err(EmptyVector)` for an
    /// empty input.
    pub fn min_into<T: Scalar>(&self, input: &DeviceBuffer<T>, output: &mut DeviceBuffer<T>) -> Result<()> {
        check_not_empty("min input", input.len())?;
        self.reduce_into::<T, T::Min>(input, output)
    }

    /// Writes the greatest element of `input` to `output[0]`, as [`Device::min_into`].
    pub fn max_into<T: Scalar>(&self, input: &DeviceBuffer<T>, output: &mut DeviceBuffer<T>) -> Result<()> {
        check_not_empty("max input", input.len())?;
        self.reduce_into::<T, T::Max>(input, output)
    }

    /// The sum of `input`, copied back to the host.
    pub fn sum<T: Scalar>(&self, input: &DeviceBuffer<T>) -> Result<T> {
        self.reduce_to_host(input, Self::sum_into)
    }

    /// The least element of `input`, copied back to the host (see [`Device::min_into`]).
    pub fn min<T: Scalar>(&self, input: &DeviceBuffer<T>) -> Result<T> {
        self.reduce_to_host(input, Self::min_into)
    }

    /// The greatest element of `input`, copied back to the host (see [`Device::max_into`]).
    pub fn max<T: Scalar>(&self, input: &DeviceBuffer<T>) -> Result<T> {
        self.reduce_to_host(input, Self::max_into)
    }

    /// The one element `into` writes, read back.
    fn reduce_to_host<T: Scalar>(
        &self,
        input: &DeviceBuffer<T>,
        into: fn(&Self, &DeviceBuffer<T>, &mut DeviceBuffer<T>) -> Result<()>,
    ) -> Result<T> {
        let mut out = self.workspace::<T>(1)?;
        into(self, input, &mut out)?;
        Ok(self.download(&out)?[0])
    }

    /// The reduction by kernel `K` over as many blocks as fit the device at once.
    fn reduce_into<T: Scalar, K: Kernel<Params = ReduceKernel<T>>>(
        &self,
        input: &DeviceBuffer<T>,
        output: &mut DeviceBuffer<T>,
    ) -> Result<()> {
        let shared = REDUCE_BLOCK_THREADS / 32 * size_of::<T>() as u32;
        let resident = self.resident_blocks::<K>(REDUCE_BLOCK_THREADS, shared)?;
        self.reduce_over_grid::<T, K>(input, output, resident)
    }

    /// The reduction by `K` with at most `max_blocks` blocks in the first pass: with a grid
    /// fixed in advance, float sums are the same bits on every device and in the emulator.
    fn reduce_over_grid<T: Scalar, K: Kernel<Params = ReduceKernel<T>>>(
        &self,
        input: &DeviceBuffer<T>,
        output: &mut DeviceBuffer<T>,
        max_blocks: u64,
    ) -> Result<()> {
        check_same_len("reduce output", 1, output.len())?;
        let dst = self.ptr_mut(output)?;
        // SAFETY: `K` as the first pass writes exactly the partials it asks for.
        unsafe {
            self.reduce_over_grid_by::<T, K>(input, dst, max_blocks, |shape, src, n, partials| {
                self.launch::<K>(shape, (src, n, partials))
            })
        }
    }

    /// The sum over at most `max_blocks` blocks into the element at `dst`, with the first pass
    /// launched by `first(grid, input, n, partials)`: a kernel that writes the partials
    /// `reduce_sum_*` would (the same order, so the same bits) and may do more on the same read.
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
        // SAFETY: the caller's contract.
        unsafe { self.reduce_over_grid_by::<T, T::Reduce>(input, dst, max_blocks, first) }
    }

    /// The reduction by kernel `K` (its second pass) after a first pass launched by `first`.
    ///
    /// # Safety
    /// As for [`Device::sum_over_grid_by`], with `K`'s partials in place of the sum's.
    unsafe fn reduce_over_grid_by<T: Scalar, K: Kernel<Params = ReduceKernel<T>>>(
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
        // SAFETY: the reduction kernels' contract: the `blocks` partials (in the scratch,
        // 256-byte aligned) as input to one block of REDUCE_BLOCK_THREADS with one T of shared
        // memory per warp; `dst` one element (the caller's contract).
        unsafe { self.launch::<K>(single, (partials, blocks, dst)) }
    }
}
