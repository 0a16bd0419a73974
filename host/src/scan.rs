//! Device-wide exclusive prefix sum on the GPU (single pass, decoupled look-back; see
//! `warpkit_kernels::device::scan`). Moves 2 × size_of::<T>() bytes per element.

use crate::element::Scalar;
use crate::error::{check_len, check_same_len, Result};
use crate::gpu::{DeviceBuffer, Gpu, LaunchShape};
use crate::MAX_LEN;
use cudarc::driver::PushKernelArg;
use warpkit_kernels::policy::{scan_tile_items, ScanScratch, SCAN_BLOCK_THREADS};

impl Gpu {
    /// Writes the exclusive prefix sums of `input` to `output`: `output[i] = input[0] + ... +
    /// input[i-1]`, `output[0] = 0`. Integers wrap; floats are summed in tile order, so they
    /// may differ from a sequential sum by rounding. Returns once the work is submitted.
    pub fn exclusive_scan_into<T: Scalar>(&self, input: &DeviceBuffer<T>, output: &mut DeviceBuffer<T>) -> Result<()> {
        let n = input.len();
        check_len("scan input", n, MAX_LEN)?;
        check_same_len("scan output", n, output.len())?;
        if n == 0 {
            return Ok(());
        }
        let layout = ScanScratch { tiles: (n as u64).div_ceil(scan_tile_items(size_of::<T>()) as u64) };
        let warps = SCAN_BLOCK_THREADS / 32;
        let shape = LaunchShape::linear(layout.tiles, SCAN_BLOCK_THREADS, (warps + 2) * 8);
        let (f, config) = self.prepare(T::SCAN_KERNEL, shape)?;
        let mut scratch = self.scratch(layout.total_bytes() as usize)?;
        let scratch = scratch.as_mut().expect("scratch allocated");
        self.stream().memset_zeros(&mut scratch.slice_mut(..layout.zeroed_bytes() as usize))?;
        let (n, tiles) = (n as u64, layout.tiles);
        let mut launch = self.stream().launch_builder(&f);
        launch.arg(&input.slice).arg(&mut output.slice).arg(&n).arg(&mut *scratch).arg(&tiles);
        // SAFETY: the arguments match `scan_exclusive_*`'s contract: buffers of `n` elements,
        // zeroed tile status for `tiles`, `tiles` blocks of SCAN_BLOCK_THREADS and WARPS + 2
        // u64 of shared memory.
        unsafe { launch.launch(config) }?;
        Ok(())
    }

    /// Exclusive prefix sums of `input` in a new device buffer.
    pub fn exclusive_scan<T: Scalar>(&self, input: &DeviceBuffer<T>) -> Result<DeviceBuffer<T>> {
        let mut output = self.zeros(input.len())?;
        self.exclusive_scan_into(input, &mut output)?;
        Ok(output)
    }
}
