//! Device-wide sum, minimum and maximum: one launch of persistent blocks writes per-block
//! partials, a second single-block launch of the same kernel reduces them (see
//! `warpkit_kernels::grid::reduce`). Reads the input once.

use crate::MAX_LEN;
use crate::error::{Result, check_len, check_not_empty, check_same_len};
use crate::runtime::device::{Device, DeviceBuffer, LaunchShape};
use crate::runtime::element::Scalar;
use warpkit_kernels::grid::reduce::Reduce;
use warpkit_kernels::kernel::Kernel;

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
    fn reduce_into<T: Scalar, K: Kernel<Params = Reduce<T>>>(
        &self,
        input: &DeviceBuffer<T>,
        output: &mut DeviceBuffer<T>,
    ) -> Result<()> {
        check_same_len("reduce output", 1, output.len())?;
        let dst = self.ptr_mut(output)?;
        // SAFETY: `dst` is `output`'s one element; `K` as the first pass writes exactly the
        // partials it is given.
        unsafe { self.reduce_over_grid_by::<T, K>(input, dst, None, |shape, p| self.launch::<K>(shape, p)) }
    }

    /// The sum over at most `max_blocks` blocks into the element at `dst`, with the first pass
    /// launched by `first(grid, input, n, partials)`: a kernel that writes the partials
    /// `reduce_sum_*` would (the same order, so the same bits) and may do more on the same read.
    /// With a grid fixed in advance, float sums are the same bits on every device and in the
    /// emulator.
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
        unsafe {
            self.reduce_over_grid_by::<T, T::Reduce>(input, dst, Some(max_blocks), |shape, p| {
                first(shape, p.input, p.n, p.partials)
            })
        }
    }

    /// The reduction by kernel `K` (its second pass) after a first pass launched by `first` on
    /// at most `max_blocks` blocks (`None`: as many as fit the device at once).
    ///
    /// # Safety
    /// As for [`Device::sum_over_grid_by`], with `K`'s partials in place of the sum's.
    unsafe fn reduce_over_grid_by<T: Scalar, K: Kernel<Params = Reduce<T>>>(
        &self,
        input: &DeviceBuffer<T>,
        dst: *mut T,
        max_blocks: Option<u64>,
        first: impl FnOnce(LaunchShape, Reduce<T>) -> Result<()>,
    ) -> Result<()> {
        let n = input.len();
        check_len("reduce input", n, MAX_LEN)?;
        let mut p = Reduce {
            input: self.ptr(input)?,
            n: n as u64,
            partials: std::ptr::null_mut(),
        };
        let plan = p.plan();
        let wide = match max_blocks {
            None => self.cap_to_resident::<K>(plan, 1)?,
            Some(most) => {
                LaunchShape::linear((plan.grid[0] as u64).min(most), plan.block[0], plan.shared_bytes)
            }
        };
        let blocks = wide.grid[0] as u64;
        let mut scratch = self.scratch(blocks as usize * size_of::<T>())?;
        p.partials = self
            .ptr_mut(scratch.as_mut().expect("scratch allocated"))?
            .cast::<T>();
        first(wide, p)?;
        let second = Reduce {
            input: p.partials.cast_const(),
            n: blocks,
            partials: dst,
        };
        // SAFETY: the reduction kernels' contract: the `blocks` partials (in the scratch,
        // 256-byte aligned, held until the launch is queued) as input to one block; `dst` one
        // element (the caller's contract).
        unsafe { self.launch::<K>(second.plan_single(), second) }
    }
}
