//! Device-wide exclusive and inclusive prefix sums (single pass, decoupled look-back; see
//! `warpkit_kernels::grid::scan`). Moves 2 × `size_of::<T>()` bytes per element.

use crate::MAX_LEN;
use crate::error::{Result, check_len, check_same_len};
use crate::runtime::device::{Device, DeviceBuffer};
use crate::runtime::element::Scalar;
use warpkit_kernels::area::by_prefix;
use warpkit_kernels::grid::scan as kernels;
use warpkit_kernels::grid::scan::{Scan, ScanScratch};
use warpkit_kernels::kernel::Kernel;
use warpkit_kernels::policy::checks::SCAN_TUNING_U32 as POLICIES;
use warpkit_kernels::policy::{SCAN_POLICY, ScanPolicy};

/// A u32 scan under one tuning policy.
pub type ScanU32 = fn(&Device, &DeviceBuffer<u32>, &mut DeviceBuffer<u32>) -> Result<()>;

/// The u32 scan kernels of other policies and launch bounds, by entry name, measured against
/// the default by the tuning bench.
pub const SCAN_TUNING_U32: [(&str, ScanPolicy, ScanU32); 7] = [
    tuning::<kernels::scan_tuning_u32_b256_v8_ticket>(),
    tuning::<kernels::scan_tuning_u32_b256_v8_min5>(),
    tuning::<kernels::scan_tuning_u32_b256_v4_ticket>(),
    tuning::<kernels::scan_tuning_u32_b128_v8_ticket>(),
    tuning::<kernels::scan_tuning_u32_b256_v8_ordered>(),
    tuning::<kernels::scan_tuning_u32_b128_v8_ordered>(),
    tuning::<kernels::scan_tuning_u32_b128_v16_ordered>(),
];

/// A tuning candidate: kernel `K` under the policy the kernels crate built it for.
const fn tuning<K: Kernel<Params = Scan<u32>>>() -> (&'static str, ScanPolicy, ScanU32) {
    (K::NAME, policy_of::<K>(), |d, i, o| {
        d.scan_with::<u32, K>(policy_of::<K>(), i, o)
    })
}

/// The policy of tuning kernel `K` (a kernel without one fails the build).
const fn policy_of<K: Kernel>() -> ScanPolicy {
    match by_prefix(K::NAME, &POLICIES) {
        Some(policy) => policy,
        None => panic!("a scan tuning kernel without a policy"),
    }
}

impl Device {
    /// Writes the exclusive prefix sums of `input` to `output`: `output[i] = input[0] + ... +
    /// input[i-1]`, `output[0] = 0`. Integers wrap; floats are summed in tile order, so they
    /// may differ from a sequential sum by rounding. On a GPU, returns once the work is
    /// submitted.
    pub fn exclusive_scan_into<T: Scalar>(
        &self,
        input: &DeviceBuffer<T>,
        output: &mut DeviceBuffer<T>,
    ) -> Result<()> {
        self.scan_with::<T, T::Scan>(SCAN_POLICY, input, output)
    }

    /// Exclusive prefix sums of `input` in a new device buffer.
    pub fn exclusive_scan<T: Scalar>(&self, input: &DeviceBuffer<T>) -> Result<DeviceBuffer<T>> {
        self.scan_to_new::<T, T::Scan>(input)
    }

    /// Writes the inclusive prefix sums of `input` to `output`: `output[i] = input[0] + ... +
    /// input[i]`, otherwise as [`Device::exclusive_scan_into`].
    pub fn inclusive_scan_into<T: Scalar>(
        &self,
        input: &DeviceBuffer<T>,
        output: &mut DeviceBuffer<T>,
    ) -> Result<()> {
        self.scan_with::<T, T::InclusiveScan>(SCAN_POLICY, input, output)
    }

    /// Inclusive prefix sums of `input` in a new device buffer.
    pub fn inclusive_scan<T: Scalar>(&self, input: &DeviceBuffer<T>) -> Result<DeviceBuffer<T>> {
        self.scan_to_new::<T, T::InclusiveScan>(input)
    }

    /// The scan by kernel `K` into a new buffer (not zeroed: the scan writes every element).
    fn scan_to_new<T: Scalar, K: Kernel<Params = Scan<T>>>(
        &self,
        input: &DeviceBuffer<T>,
    ) -> Result<DeviceBuffer<T>> {
        let mut output = self.workspace(input.len())?;
        self.scan_with::<T, K>(SCAN_POLICY, input, &mut output)?;
        Ok(output)
    }

    fn scan_with<T: Scalar, K: Kernel<Params = Scan<T>>>(
        &self,
        policy: ScanPolicy,
        input: &DeviceBuffer<T>,
        output: &mut DeviceBuffer<T>,
    ) -> Result<()> {
        let n = input.len();
        check_len("scan input", n, MAX_LEN)?;
        check_same_len("scan output", n, output.len())?;
        let (src, dst) = (self.ptr(input)?, self.ptr_mut(output)?);
        // SAFETY: both buffers hold `n` elements on this device and outlive the submission.
        unsafe { self.scan_raw::<T, K>(policy, src, dst, n) }
    }

    /// The exclusive scan of `n` u32 at `src` into `dst` with the tile status at `status`
    /// (`ScanScratch` of [`SCAN_POLICY`] for `n` elements, its first `zeroed_bytes` zero by the
    /// time the scan runs), for primitives that keep their arrays in parts of a scratch buffer
    /// and clear the status in a launch of their own instead of a memset.
    ///
    /// # Safety
    /// `src`, `dst` and `status` hold `n` elements and the status in this device's memory,
    /// which stays allocated until the work is done; `n` is at most [`MAX_LEN`] and above 0.
    pub(crate) unsafe fn exclusive_scan_u32_cleared(
        &self,
        src: *const u32,
        dst: *mut u32,
        n: usize,
        status: *mut u8,
    ) -> Result<()> {
        // SAFETY: the caller's contract.
        unsafe { self.scan_launch::<u32, kernels::scan_exclusive_u32>(SCAN_POLICY, src, dst, n, status) }
    }

    /// The exclusive or inclusive scan of `n` elements at `src` into `dst`, under the default
    /// policy: one chunk of a host scan that the pipeline carries across chunks.
    ///
    /// # Safety
    /// As for [`Device::scan_raw`].
    #[cfg(feature = "cuda")]
    pub(super) unsafe fn scan_chunk<T: Scalar>(
        &self,
        inclusive: bool,
        src: *const T,
        dst: *mut T,
        n: usize,
    ) -> Result<()> {
        // SAFETY: the caller's contract.
        unsafe {
            if inclusive {
                self.scan_raw::<T, T::InclusiveScan>(SCAN_POLICY, src, dst, n)
            } else {
                self.scan_raw::<T, T::Scan>(SCAN_POLICY, src, dst, n)
            }
        }
    }

    /// # Safety
    /// `src` and `dst` hold `n` elements in this device's memory, which stays allocated until
    /// the work is done; `n` is at most [`MAX_LEN`]; `K` is a scan kernel of `policy`.
    unsafe fn scan_raw<T: Scalar, K: Kernel<Params = Scan<T>>>(
        &self,
        policy: ScanPolicy,
        src: *const T,
        dst: *mut T,
        n: usize,
    ) -> Result<()> {
        if n == 0 {
            return Ok(());
        }
        let layout = ScanScratch {
            tiles: policy.tiles(size_of::<T>(), n as u64),
        };
        let mut scratch = self.scratch(layout.total_bytes() as usize)?;
        let scratch = scratch.as_mut().expect("scratch allocated");
        self.zero_prefix(scratch, layout.zeroed_bytes() as usize)?;
        let status = self.ptr_mut(scratch)?;
        // SAFETY: the caller's contract, with the status just cleared.
        unsafe { self.scan_launch::<T, K>(policy, src, dst, n, status) }
    }

    /// # Safety
    /// As for [`Device::exclusive_scan_u32_cleared`], with `K` a scan kernel of `policy`.
    unsafe fn scan_launch<T: Scalar, K: Kernel<Params = Scan<T>>>(
        &self,
        policy: ScanPolicy,
        src: *const T,
        dst: *mut T,
        n: usize,
        status: *mut u8,
    ) -> Result<()> {
        let p = Scan {
            input: src,
            output: dst,
            n: n as u64,
            scratch: status,
            tiles: policy.tiles(size_of::<T>(), n as u64),
        };
        // SAFETY: the scan kernels' contract for `policy`: buffers of `n` elements, cleared tile
        // status for `tiles`, the launch of `policy`.
        unsafe { self.launch_unchecked::<K>(p.plan_with(policy), p) }
    }
}
