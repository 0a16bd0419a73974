//! Device-wide sum, minimum and maximum: one launch of persistent blocks writes per-block
//! partials, a second single-block launch of the same kernel reduces them (see
//! `warpkit_kernels::grid::reduce`). Reads the input once.

use crate::MAX_LEN;
use crate::error::{Result, check_len, check_not_empty, check_same_len};
use crate::runtime::device::{Device, DeviceBuffer, LaunchShape};
use crate::runtime::element::Scalar;
use warpkit_kernels::grid::kernels::OperatorKernels;
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

    /// Writes the reduction of `input` by `O` to `output[0]` (the identity for no elements):
    /// an operator of one's own whose kernels a device crate declared with
    /// [`warpkit_kernels::operator_kernels!`] (loaded on a GPU with [`Device::load`]), combined
    /// in the fixed order of [`Device::sum_into`].
    pub fn reduce_by_into<T: Scalar, O: OperatorKernels<T>>(
        &self,
        input: &DeviceBuffer<T>,
        output: &mut DeviceBuffer<T>,
    ) -> Result<()> {
        self.reduce_into::<T, O::Reduce>(input, output)
    }

    /// The reduction of `input` by `O`, copied back to the host (see
    /// [`Device::reduce_by_into`]).
    pub fn reduce_by<T: Scalar, O: OperatorKernels<T>>(&self, input: &DeviceBuffer<T>) -> Result<T> {
        self.reduce_to_host(input, Self::reduce_by_into::<T, O>)
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
        self.reduce_with_kernel::<T, K, T>(input.len(), output, 0, None, |shape, partials, _| {
            let mut b = self.bind();
            let p = Reduce {
                input: b.read(input)?,
                n: input.len() as u64,
                partials: b.write(partials)?.cast(),
            };
            b.launch::<K>(shape, p)
        })
    }

    /// The sum of `len` elements over at most `max_blocks` blocks into `out` at byte `at`,
    /// with the first pass launched by `first(grid, partials, out)`: a kernel that writes to
    /// the scratch `partials` what `reduce_sum_*` would (the same order, so the same bits) and
    /// may do more on the same read, in `out` too. With a grid fixed in advance, float sums are the same bits on
    /// every device and in the emulator.
    pub(crate) fn sum_over_grid_by<T: Scalar, U>(
        &self,
        len: usize,
        out: &mut DeviceBuffer<U>,
        at: usize,
        max_blocks: u64,
        first: impl FnOnce(LaunchShape, &mut DeviceBuffer<u8>, &mut DeviceBuffer<U>) -> Result<()>,
    ) -> Result<()> {
        self.reduce_with_kernel::<T, T::Reduce, U>(len, out, at, Some(max_blocks), first)
    }

    /// The reduction of `len` elements by kernel `K` (its second pass, into `out` at byte
    /// `at`) after a first pass launched by `first` on at most `max_blocks` blocks (`None`: as
    /// many as fit the device at once).
    fn reduce_with_kernel<T: Scalar, K: Kernel<Params = Reduce<T>>, U>(
        &self,
        len: usize,
        out: &mut DeviceBuffer<U>,
        at: usize,
        max_blocks: Option<u64>,
        first: impl FnOnce(LaunchShape, &mut DeviceBuffer<u8>, &mut DeviceBuffer<U>) -> Result<()>,
    ) -> Result<()> {
        check_len("reduce input", len, MAX_LEN)?;
        let plan = Reduce::<T> {
            input: std::ptr::null(),
            n: len as u64,
            partials: std::ptr::null_mut(),
        }
        .plan();
        let wide = match max_blocks {
            None => self.cap_to_resident::<K>(plan, 1)?,
            Some(most) => {
                LaunchShape::linear((plan.grid[0] as u64).min(most), plan.block[0], plan.shared_bytes)
            }
        };
        let blocks = wide.grid[0] as u64;
        let mut scratch = self.scratch(blocks as usize * size_of::<T>())?;
        let partials = scratch.as_mut().expect("scratch allocated");
        first(wide, partials, out)?;
        let mut b = self.bind();
        let second = Reduce {
            input: b.read(partials)?.cast(),
            n: blocks,
            partials: b.write(out)?.cast::<u8>().wrapping_add(at).cast(),
        };
        b.launch::<K>(second.plan_single(), second)
    }
}
