//! Device-wide exclusive prefix sum on the GPU (single pass, decoupled look-back; see
//! `warpkit_kernels::device::scan`). Moves 2 × size_of::<T>() bytes per element.

use crate::MAX_LEN;
use crate::element::Scalar;
use crate::error::{Result, check_len, check_same_len};
use crate::gpu::{DeviceBuffer, Gpu, LaunchShape};
use crate::kernels::names;
use cudarc::driver::PushKernelArg;
use warpkit_kernels::policy::{SCAN_POLICY, ScanPolicy, ScanScratch};

/// The u32 scan kernels of other policies, measured against the default by the tuning bench.
pub const SCAN_TUNING_U32: [(ScanPolicy, &str); 5] = [
    (
        ScanPolicy {
            block_threads: 256,
            vectors_per_thread: 4,
            ticket: true,
        },
        names::SCAN_TUNING_U32_B256_V4_TICKET,
    ),
    (
        ScanPolicy {
            block_threads: 128,
            vectors_per_thread: 8,
            ticket: true,
        },
        names::SCAN_TUNING_U32_B128_V8_TICKET,
    ),
    (
        ScanPolicy {
            block_threads: 256,
            vectors_per_thread: 8,
            ticket: false,
        },
        names::SCAN_TUNING_U32_B256_V8_ORDERED,
    ),
    (
        ScanPolicy {
            block_threads: 128,
            vectors_per_thread: 8,
            ticket: false,
        },
        names::SCAN_TUNING_U32_B128_V8_ORDERED,
    ),
    (
        ScanPolicy {
            block_threads: 128,
            vectors_per_thread: 16,
            ticket: false,
        },
        names::SCAN_TUNING_U32_B128_V16_ORDERED,
    ),
];

impl Gpu {
    /// Writes the exclusive prefix sums of `input` to `output`: `output[i] = input[0] + ... +
    /// input[i-1]`, `output[0] = 0`. Integers wrap; floats are summed in tile order, so they
    /// may differ from a sequential sum by rounding. Returns once the work is submitted.
    pub fn exclusive_scan_into<T: Scalar>(
        &self,
        input: &DeviceBuffer<T>,
        output: &mut DeviceBuffer<T>,
    ) -> Result<()> {
        self.scan_with(T::SCAN_KERNEL, SCAN_POLICY, input, output)
    }

    /// Exclusive prefix sums of `input` in a new device buffer.
    pub fn exclusive_scan<T: Scalar>(&self, input: &DeviceBuffer<T>) -> Result<DeviceBuffer<T>> {
        let mut output = self.zeros(input.len())?;
        self.exclusive_scan_into(input, &mut output)?;
        Ok(output)
    }

    /// [`Gpu::exclusive_scan_into`] for u32 with tuning candidate `candidate` of
    /// [`SCAN_TUNING_U32`] (for benchmarks and tests of the candidates).
    #[doc(hidden)]
    pub fn exclusive_scan_tuning(
        &self,
        candidate: usize,
        input: &DeviceBuffer<u32>,
        output: &mut DeviceBuffer<u32>,
    ) -> Result<()> {
        let (policy, kernel) = SCAN_TUNING_U32[candidate];
        self.scan_with(kernel, policy, input, output)
    }

    fn scan_with<T: Scalar>(
        &self,
        kernel: &'static str,
        policy: ScanPolicy,
        input: &DeviceBuffer<T>,
        output: &mut DeviceBuffer<T>,
    ) -> Result<()> {
        let n = input.len();
        check_len("scan input", n, MAX_LEN)?;
        check_same_len("scan output", n, output.len())?;
        if n == 0 {
            return Ok(());
        }
        let layout = ScanScratch {
            tiles: (n as u64).div_ceil(policy.tile_items(size_of::<T>()) as u64),
        };
        let shape = LaunchShape::linear(layout.tiles, policy.block_threads, policy.shared_bytes());
        let (f, config) = self.prepare(kernel, shape)?;
        let mut scratch = self.scratch(layout.total_bytes() as usize)?;
        let scratch = scratch.as_mut().expect("scratch allocated");
        self.stream()
            .memset_zeros(&mut scratch.slice_mut(..layout.zeroed_bytes() as usize))?;
        let (n, tiles) = (n as u64, layout.tiles);
        let mut launch = self.stream().launch_builder(&f);
        launch
            .arg(&input.slice)
            .arg(&mut output.slice)
            .arg(&n)
            .arg(&mut *scratch)
            .arg(&tiles);
        // SAFETY: the arguments match the scan kernels' contract for `policy`: buffers of `n`
        // elements, zeroed tile status for `tiles`, `tiles` blocks of the policy's threads and
        // its shared memory.
        unsafe { launch.launch(config) }?;
        Ok(())
    }
}
