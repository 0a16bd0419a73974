//! Device-wide exclusive and inclusive prefix sums (single pass, decoupled look-back; see
//! `warpkit_kernels::grid::scan`). Moves 2 × `size_of::<T>()` bytes per element.

use crate::MAX_LEN;
use crate::error::{Result, check_len, check_same_len};
use crate::runtime::device::{Device, DeviceBuffer};
use crate::runtime::element::Scalar;
use warpkit_kernels::area::by_prefix;
use warpkit_kernels::grid::kernels::OperatorKernels;
use warpkit_kernels::grid::scan as kernels;
use warpkit_kernels::grid::scan::{Scan, ScanScratch};
use warpkit_kernels::kernel::Kernel;
use warpkit_kernels::op::{Operator, Sum};
use warpkit_kernels::policy::checks::SCAN_TUNING_U32 as POLICIES;
use warpkit_kernels::policy::{SCAN_POLICY, ScanPolicy};

/// A u32 scan under one tuning policy.
pub type ScanU32 = fn(&Device, &DeviceBuffer<u32>, &mut DeviceBuffer<u32>) -> Result<()>;

/// The u32 scan kernels of other policies and launch bounds, by entry name, measured against
/// the default by the tuning bench.
pub const SCAN_TUNING_U32: [(&str, ScanPolicy, ScanU32); 8] = [
    tuning::<kernels::scan_tuning_u32_b256_v8_ticket>(),
    tuning::<kernels::scan_tuning_u32_b256_v8_w1000_p500>(),
    tuning::<kernels::scan_tuning_u32_b256_v8_w2000_p250>(),
    tuning::<kernels::scan_tuning_u32_b256_v8_w2000_p1000>(),
    tuning::<kernels::scan_tuning_u32_b256_v8_w3000_p500>(),
    tuning::<kernels::scan_tuning_u32_b256_v8_w4000_p500>(),
    tuning::<kernels::scan_tuning_u32_b256_v8_ordered_w2000_p500>(),
    tuning::<kernels::scan_tuning_u32_b256_v8_w2000_p500>(),
];

/// A tuning candidate: kernel `K` under the policy the kernels crate built it for.
const fn tuning<K: Kernel<Params = Scan<u32>>>() -> (&'static str, ScanPolicy, ScanU32) {
    (K::NAME, policy_of::<K>(), |d, i, o| {
        d.scan_with::<u32, K>(policy_of::<K>(), i, o, 0)
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
        self.scan_with::<T, T::Scan>(SCAN_POLICY, input, output, Sum.identity())
    }

    /// Writes the exclusive prefix sums of `input` after `first` to `output`: `output[i] =
    /// first + input[0] + ... + input[i-1]`, `output[0] = first + 0` (so -0.0 gives +0.0), as
    /// one scan of `first`
    /// followed by `input` (the scan of a part whose predecessors sum to `first`, with no
    /// second pass to add it); otherwise as [`Device::exclusive_scan_into`].
    pub fn exclusive_scan_from_into<T: Scalar>(
        &self,
        first: T,
        input: &DeviceBuffer<T>,
        output: &mut DeviceBuffer<T>,
    ) -> Result<()> {
        self.scan_with::<T, T::Scan>(SCAN_POLICY, input, output, first)
    }

    /// Exclusive prefix sums of `input` in a new device buffer.
    pub fn exclusive_scan<T: Scalar>(&self, input: &DeviceBuffer<T>) -> Result<DeviceBuffer<T>> {
        self.scan_to_new::<T, T::Scan>(input, Sum.identity())
    }

    /// Writes the inclusive prefix sums of `input` to `output`: `output[i] = input[0] + ... +
    /// input[i]`, otherwise as [`Device::exclusive_scan_into`].
    pub fn inclusive_scan_into<T: Scalar>(
        &self,
        input: &DeviceBuffer<T>,
        output: &mut DeviceBuffer<T>,
    ) -> Result<()> {
        self.scan_with::<T, T::InclusiveScan>(SCAN_POLICY, input, output, Sum.identity())
    }

    /// Inclusive prefix sums of `input` in a new device buffer.
    pub fn inclusive_scan<T: Scalar>(&self, input: &DeviceBuffer<T>) -> Result<DeviceBuffer<T>> {
        self.scan_to_new::<T, T::InclusiveScan>(input, Sum.identity())
    }

    /// Writes the exclusive scan of `input` by `O` to `output`: `output[i]` combines
    /// `input[0..i]`, `output[0]` is the identity. `O` is an operator of one's own whose
    /// kernels a device crate declared with [`warpkit_kernels::operator_kernels!`] (loaded on
    /// a GPU with [`Device::load`]); otherwise as [`Device::exclusive_scan_into`].
    pub fn exclusive_scan_by_into<T: Scalar, O: OperatorKernels<T> + Default>(
        &self,
        input: &DeviceBuffer<T>,
        output: &mut DeviceBuffer<T>,
    ) -> Result<()> {
        self.scan_with::<T, O::ExclusiveScan>(SCAN_POLICY, input, output, O::default().identity())
    }

    /// The exclusive scan of `input` by `O` in a new device buffer.
    pub fn exclusive_scan_by<T: Scalar, O: OperatorKernels<T> + Default>(
        &self,
        input: &DeviceBuffer<T>,
    ) -> Result<DeviceBuffer<T>> {
        self.scan_to_new::<T, O::ExclusiveScan>(input, O::default().identity())
    }

    /// Writes the inclusive scan of `input` by `O` to `output`: `output[i]` combines
    /// `input[0..=i]`; otherwise as [`Device::exclusive_scan_by_into`].
    pub fn inclusive_scan_by_into<T: Scalar, O: OperatorKernels<T> + Default>(
        &self,
        input: &DeviceBuffer<T>,
        output: &mut DeviceBuffer<T>,
    ) -> Result<()> {
        self.scan_with::<T, O::InclusiveScan>(SCAN_POLICY, input, output, O::default().identity())
    }

    /// The inclusive scan of `input` by `O` in a new device buffer.
    pub fn inclusive_scan_by<T: Scalar, O: OperatorKernels<T> + Default>(
        &self,
        input: &DeviceBuffer<T>,
    ) -> Result<DeviceBuffer<T>> {
        self.scan_to_new::<T, O::InclusiveScan>(input, O::default().identity())
    }

    /// The scan by kernel `K` from `first` into a new buffer (not zeroed: the scan writes
    /// every element).
    fn scan_to_new<T: Scalar, K: Kernel<Params = Scan<T>>>(
        &self,
        input: &DeviceBuffer<T>,
        first: T,
    ) -> Result<DeviceBuffer<T>> {
        let mut output = self.workspace(input.len())?;
        self.scan_with::<T, K>(SCAN_POLICY, input, &mut output, first)?;
        Ok(output)
    }

    fn scan_with<T: Scalar, K: Kernel<Params = Scan<T>>>(
        &self,
        policy: ScanPolicy,
        input: &DeviceBuffer<T>,
        output: &mut DeviceBuffer<T>,
        first: T,
    ) -> Result<()> {
        let n = input.len();
        check_len("scan input", n, MAX_LEN)?;
        check_same_len("scan output", n, output.len())?;
        self.scan_range::<T, K>(policy, (input, output), 0..n, first)
    }

    /// The exclusive or inclusive scan of `input[range]` into `output[range]`, under the
    /// default policy: one chunk of a host scan that the pipeline carries across chunks.
    #[cfg(feature = "cuda")]
    pub(super) fn scan_chunk<T: Scalar>(
        &self,
        inclusive: bool,
        input: &DeviceBuffer<T>,
        output: &mut DeviceBuffer<T>,
        range: std::ops::Range<usize>,
    ) -> Result<()> {
        if inclusive {
            self.scan_range::<T, T::InclusiveScan>(SCAN_POLICY, (input, output), range, Sum.identity())
        } else {
            self.scan_range::<T, T::Scan>(SCAN_POLICY, (input, output), range, Sum.identity())
        }
    }

    /// The scan by `K` (a kernel of `policy`) of `input[range]` from `first` into
    /// `output[range]`, with its tile status in the launch scratch, zeroed as the binding does.
    fn scan_range<T: Scalar, K: Kernel<Params = Scan<T>>>(
        &self,
        policy: ScanPolicy,
        (input, output): (&DeviceBuffer<T>, &mut DeviceBuffer<T>),
        range: std::ops::Range<usize>,
        first: T,
    ) -> Result<()> {
        if range.is_empty() {
            return Ok(());
        }
        let n = range.len() as u64;
        let layout = ScanScratch {
            tiles: policy.tiles(size_of::<T>(), n),
        };
        let mut scratch = self.scratch(layout.total_bytes() as usize)?;
        let scratch = scratch.as_mut().expect("scratch allocated");
        let mut b = self.bind();
        let p = Scan {
            input: b.read(input)?.wrapping_add(range.start),
            output: b.write(output)?.wrapping_add(range.start),
            n,
            scratch: b.write_zeroed(scratch, layout.zeroed_bytes() as usize)?,
            tiles: layout.tiles,
            first: first.to_bits64(),
        };
        b.launch::<K>(p.plan_with(policy), p)
    }

    /// The exclusive scan of `n` u32 (above 0) within `buffer`: from byte `src` to byte
    /// `dst`, with the tile status ([`ScanScratch`] of [`SCAN_POLICY`] for `n` elements) at
    /// byte `status`, its part that must start zero zeroed by the binding. For primitives that
    /// keep their small arrays in parts of one scratch buffer.
    pub(crate) fn exclusive_scan_u32_within(
        &self,
        buffer: &mut DeviceBuffer<u8>,
        (src, dst, status): (usize, usize, usize),
        n: usize,
    ) -> Result<()> {
        let tiles = SCAN_POLICY.tiles(size_of::<u32>(), n as u64);
        let zeroed = status..status + ScanScratch { tiles }.zeroed_bytes() as usize;
        let mut b = self.bind();
        // Device addresses within the bound buffer: offset without dereferencing.
        let base = b.write_zeroing(buffer, zeroed)?;
        let p = Scan {
            input: base.wrapping_add(src).cast::<u32>().cast_const(),
            output: base.wrapping_add(dst).cast::<u32>(),
            n: n as u64,
            scratch: base.wrapping_add(status),
            tiles,
            first: 0,
        };
        b.launch::<kernels::scan_exclusive_u32>(p.plan(), p)
    }
}
