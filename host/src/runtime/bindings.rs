//! [`Bindings`]: the buffers of one or more launches, borrowed until they are queued, and the safe launch of
//! a checked kernel family ([`Checked`]). An area binds each buffer it passes (shared for reads,
//! mutable for writes, zeroed first in stream order for a `#[zeroed]` field), builds the
//! family's parameter struct from the addresses it gets back and launches; before anything
//! runs, every pointer field's reach (its `#[len]`) must lie in one bound buffer (one zeroed at
//! binding where the field is `#[zeroed]`), written ones in a mutably bound buffer and
//! overlapping no reach of another field, and the family's check clause and the entry's
//! ([`Kernel::holds`]) must accept the fields and the shape. The areas need no `unsafe`.

use super::device::{Device, DeviceBuffer, LaunchShape};
use crate::error::{Error, Result};
use bytemuck::Pod;
use std::marker::PhantomData;
use std::ops::Range;
use warpkit_kernels::kernel::{Checked, Kernel, Reach};

/// The buffers bound to one or more launches on a device ([`Device::bind`]), and the checked
/// launch of a kernel family declared with [`warpkit_kernels::kernel!`], warpkit's or one's own.
///
/// Bind each buffer the launch uses ([`Bindings::read`], [`Bindings::write`],
/// [`Bindings::write_zeroed`] for fields that must start zero), build the family's parameter
/// struct from the addresses they give, and [`Bindings::launch`] it: before anything runs,
/// every pointer field's reach (its `#[len]`) must lie in one bound buffer, written fields in
/// buffers bound for writing, no written reach may overlap another field's, and the family's
/// `check` and the entry's own must accept the fields and the shape; otherwise
/// `Err(LaunchContract)`. The buffers stay borrowed until the bindings are dropped, so nothing
/// frees or moves them while a launch may use them. See `examples/own-kernels` in the
/// repository for a device crate of one's own and its host side.
pub struct Bindings<'a> {
    device: &'a Device,
    buffers: Vec<Bound>,
    /// Holds every bound buffer's borrow until the launch is queued.
    _borrows: PhantomData<&'a mut ()>,
}

impl std::fmt::Debug for Bindings<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bindings")
            .field("device", &self.device.describe())
            .field("buffers", &self.buffers.len())
            .finish()
    }
}

/// One bound buffer's bytes.
struct Bound {
    start: usize,
    bytes: usize,
    writable: bool,
    /// Bytes (from `start`) zeroed in stream order when the buffer was bound.
    zeroed: Range<usize>,
}

impl Bound {
    fn holds(&self, reach: &Reach) -> bool {
        let end = self.start as u128 + self.bytes as u128;
        reach.addr >= self.start
            && reach.addr as u128 + reach.bytes <= end
            && (self.writable || !reach.writes)
            && (reach.zeroed == 0
                || (reach.addr >= self.start + self.zeroed.start
                    && reach.addr as u128 + reach.zeroed <= (self.start + self.zeroed.end) as u128))
    }
}

impl Device {
    /// Bindings for one or more launches on this device: the way to launch a checked kernel
    /// family, warpkit's or one's own (see [`Bindings`]).
    pub fn bind(&self) -> Bindings<'_> {
        Bindings {
            device: self,
            buffers: Vec::new(),
            _borrows: PhantomData,
        }
    }
}

impl<'a> Bindings<'a> {
    /// The kernel address of `buffer`, which the launch may read.
    pub fn read<T>(&mut self, buffer: &'a DeviceBuffer<T>) -> Result<*const T> {
        Ok(self.hold(buffer, false, 0..0, buffer.len())?.cast_const())
    }

    /// The kernel address of `buffer` where there is one (read as [`Bindings::read`]), else null:
    /// for a field the kernel reads only when given.
    pub(crate) fn read_or_null<T>(&mut self, buffer: Option<&'a DeviceBuffer<T>>) -> Result<*const T> {
        buffer.map_or(Ok(std::ptr::null()), |b| self.read(b))
    }

    /// The kernel address of `buffer`, which the launch may read and write.
    pub fn write<T>(&mut self, buffer: &'a mut DeviceBuffer<T>) -> Result<*mut T> {
        self.hold(buffer, true, 0..0, buffer.len())
    }

    /// As [`Bindings::write`], with the first `zeroed` elements of `buffer` zeroed in stream
    /// order first: for a field whose kernel needs them zero (`#[zeroed]`).
    pub fn write_zeroed<T: Pod>(&mut self, buffer: &'a mut DeviceBuffer<T>, zeroed: usize) -> Result<*mut T> {
        self.write_zeroing(buffer, 0..zeroed)
    }

    /// As [`Bindings::write_zeroed`], zeroing elements `zeroed` of `buffer` (cut to its
    /// length): for a buffer that holds a `#[zeroed]` field's bytes past its start.
    pub(crate) fn write_zeroing<T: Pod>(
        &mut self,
        buffer: &'a mut DeviceBuffer<T>,
        zeroed: Range<usize>,
    ) -> Result<*mut T> {
        let end = zeroed.end.min(buffer.len());
        let start = zeroed.start.min(end);
        self.device.zero_range(buffer, start..end)?;
        self.hold(
            buffer,
            true,
            start * size_of::<T>()..end * size_of::<T>(),
            buffer.len(),
        )
    }

    /// The kernel address of `buffer`, of which the launch may write only the first `len`
    /// elements (all of them for `len` past its end).
    pub fn write_first<T>(&mut self, buffer: &'a mut DeviceBuffer<T>, len: usize) -> Result<*mut T> {
        self.hold(buffer, true, 0..0, len.min(buffer.len()))
    }

    /// Records the first `len` elements of `buffer` (of this device) as bound, writable or not,
    /// with bytes `zeroed` zeroed, and gives its address.
    fn hold<T>(
        &mut self,
        buffer: &DeviceBuffer<T>,
        writable: bool,
        zeroed: Range<usize>,
        len: usize,
    ) -> Result<*mut T> {
        self.device.check_owner(buffer)?;
        let ptr = buffer.kernel_ptr();
        self.buffers.push(Bound {
            start: ptr.addr(),
            bytes: len * size_of::<T>(),
            writable,
            zeroed,
        });
        Ok(ptr)
    }

    /// Launches `K` over `shape` with `params` once the checks of [`Bindings`] pass
    /// (`Err(LaunchContract)` otherwise, and `Err(LaunchShape)` for a shape the device cannot
    /// run): asynchronously on a GPU, to completion in the emulator. Several launches may share
    /// the bindings (a kernel and the one that finishes its work).
    pub fn launch<K: Kernel>(&self, shape: LaunchShape, params: K::Params) -> Result<()>
    where
        K::Params: Checked,
    {
        let refuse = |reason: String| {
            Err(Error::LaunchContract {
                kernel: K::NAME,
                reason,
            })
        };
        if !(params.check(&shape) && K::holds(&params, &shape)) {
            return refuse(format!(
                "its parameters or the shape {shape:?} are outside its contract"
            ));
        }
        let mut reaches = Vec::new();
        params.for_each_reach(&shape, &mut |r| reaches.push(r));
        reaches.retain(|r| r.bytes > 0);
        for r in &reaches {
            if !r.addr.is_multiple_of(r.align) {
                return refuse(format!("`{}` is not aligned to {} bytes", r.field, r.align));
            }
            if !self.buffers.iter().any(|b| b.holds(r)) {
                let how = if r.writes { "written" } else { "read" };
                let zeroed = match r.zeroed {
                    0 => String::new(),
                    z => format!(", {z} of them zeroed at binding"),
                };
                return refuse(format!(
                    "`{}` ({} bytes {how}{zeroed}) is outside the buffers bound to it",
                    r.field, r.bytes
                ));
            }
        }
        for (i, a) in reaches.iter().enumerate() {
            for b in &reaches[i + 1..] {
                let apart =
                    a.addr as u128 + a.bytes <= b.addr as u128 || b.addr as u128 + b.bytes <= a.addr as u128;
                if (a.writes || b.writes) && !apart && a.field != b.field {
                    return refuse(format!(
                        "`{}` and `{}` overlap and one is written",
                        a.field, b.field
                    ));
                }
            }
        }
        // SAFETY: the `Checked` contract: every reach lies in a live buffer bound here (held
        // borrowed until the bindings drop, and freed only in stream order after that),
        // aligned, written ones only in buffers bound mutably and apart from every reach of
        // another field, and the family's check and the entry's hold for `shape`.
        unsafe { self.device.launch_unchecked::<K>(shape, params) }
    }

    /// Launches `K`, a family whose contract its declaration cannot state (a gather's indices,
    /// pointers read from memory), over `shape` with `params`, with only the device's limits
    /// checked (`Err(LaunchShape)`): what [`Bindings::launch`] does once its checks pass.
    ///
    /// # Safety
    /// `params` and `shape` meet `K`'s contract (its body's `# Safety` section), and every
    /// address the kernel reaches lies in a buffer bound here. A kernel that breaks that on a
    /// GPU faults there ([`Error::DeviceLost`](crate::Error) on a later call); in the emulator
    /// an access up to a page past a buffer's end is [`Misuse::OutOfBounds`](crate::Misuse)
    /// (see [`warpkit_kernels::emu::memory`]); one farther away kills the process or, landing
    /// in other memory, goes unnoticed.
    pub unsafe fn launch_unchecked<K: Kernel>(&self, shape: LaunchShape, params: K::Params) -> Result<()> {
        // SAFETY: the caller's contract; the bindings hold the buffers borrowed.
        unsafe { self.device.launch_unchecked::<K>(shape, params) }
    }
}

#[cfg(test)]
mod tests {
    //! Each check of [`Bindings::launch`] refuses a launch that breaks it, before anything runs
    //! (the emulator would run a refused launch at once and fault or corrupt its memory).

    use super::*;
    use warpkit_kernels::grid::copy::{CopyBytes, copy_vec128};
    use warpkit_kernels::grid::reduce::Reduce;
    use warpkit_kernels::grid::reduce::reduce_sum_u32;
    use warpkit_kernels::grid::scan::{
        Scan, ScanScratch, scan_exclusive_u32, scan_tuning_u32_b256_v8_w2000_p500,
    };
    use warpkit_kernels::policy::SCAN_POLICY;

    fn shape() -> LaunchShape {
        LaunchShape::linear(1, 32, 0)
    }

    /// The refusal's reason, or a failure naming what ran instead.
    fn refusal(result: Result<()>) -> String {
        match result {
            Err(Error::LaunchContract { reason, .. }) => reason,
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn a_reach_past_the_buffer_is_refused() {
        let d = Device::emulator();
        let (src, mut dst) = (d.zeros::<u8>(16).unwrap(), d.zeros::<u8>(16).unwrap());
        let mut b = d.bind();
        let p = CopyBytes {
            src: b.read(&src).unwrap(),
            dst: b.write(&mut dst).unwrap(),
            bytes: 17,
        };
        assert!(refusal(b.launch::<copy_vec128>(shape(), p)).contains("`src` (17 bytes read)"));
    }

    #[test]
    fn writing_through_a_buffer_bound_for_reading_is_refused() {
        let d = Device::emulator();
        let (src, dst) = (d.zeros::<u8>(16).unwrap(), d.zeros::<u8>(16).unwrap());
        let mut b = d.bind();
        let p = CopyBytes {
            src: b.read(&src).unwrap(),
            dst: b.read(&dst).unwrap().cast_mut(),
            bytes: 16,
        };
        assert!(refusal(b.launch::<copy_vec128>(shape(), p)).contains("`dst` (16 bytes written)"));
    }

    #[test]
    fn an_unbound_buffer_is_refused() {
        let d = Device::emulator();
        let (src, mut dst, other) = (
            d.zeros::<u8>(16).unwrap(),
            d.zeros::<u8>(16).unwrap(),
            d.zeros::<u8>(16).unwrap(),
        );
        let stray = d.ptr(&other).unwrap();
        let mut b = d.bind();
        let p = CopyBytes {
            src: stray,
            dst: b.write(&mut dst).unwrap(),
            bytes: 16,
        };
        b.read(&src).unwrap();
        assert!(refusal(b.launch::<copy_vec128>(shape(), p)).contains("outside the buffers"));
    }

    #[test]
    fn overlapping_reaches_are_refused_when_one_writes() {
        let d = Device::emulator();
        let mut buffer = d.zeros::<u8>(32).unwrap();
        let mut b = d.bind();
        let dst = b.write(&mut buffer).unwrap();
        let p = CopyBytes {
            src: dst.wrapping_add(8).cast_const(),
            dst,
            bytes: 16,
        };
        assert!(refusal(b.launch::<copy_vec128>(shape(), p)).contains("overlap"));
    }

    /// The refusal of a sum of 16 u32 whose input starts `offset` bytes into its buffer,
    /// launched by its plan with `shared_bytes` of shared memory.
    fn sum_refusal(offset: usize, shared_bytes: u32) -> String {
        let d = Device::emulator();
        let (input, mut partials) = (d.zeros::<u8>(128).unwrap(), d.zeros::<u32>(1).unwrap());
        let mut b = d.bind();
        let p = Reduce::<u32> {
            input: b.read(&input).unwrap().wrapping_add(offset).cast(),
            n: 16,
            partials: b.write(&mut partials).unwrap(),
        };
        let shape = LaunchShape {
            shared_bytes,
            ..p.plan()
        };
        refusal(b.launch::<reduce_sum_u32>(shape, p))
    }

    #[test]
    fn a_misaligned_field_is_refused() {
        let shared = Reduce::<u32>::SHARED_BYTES;
        assert!(sum_refusal(1, shared).contains("`input` is not aligned"));
    }

    #[test]
    fn a_shape_outside_the_check_clause_is_refused() {
        // The plan's block size but no shared memory for the warps' partials.
        assert!(sum_refusal(0, 0).contains("outside its contract"));
    }

    /// The refusal of a scan of 1000 u32 by `K` under the default policy's plan, its tile
    /// status bound by `bind_status`.
    fn scan_refusal<K: Kernel<Params = Scan<u32>>>(
        bind_status: impl for<'a> Fn(&mut Bindings<'a>, &'a mut DeviceBuffer<u8>) -> *mut u8,
    ) -> String {
        let d = Device::emulator();
        let n = 1000;
        let layout = ScanScratch {
            tiles: SCAN_POLICY.tiles(4, n),
        };
        let input = d.zeros::<u32>(n as usize).unwrap();
        let mut output = d.zeros::<u32>(n as usize).unwrap();
        let mut status = d.zeros::<u8>(layout.total_bytes() as usize).unwrap();
        let mut b = d.bind();
        let p = Scan::<u32> {
            input: b.read(&input).unwrap(),
            output: b.write(&mut output).unwrap(),
            n,
            scratch: bind_status(&mut b, &mut status),
            tiles: layout.tiles,
            first: 0,
        };
        refusal(b.launch::<K>(p.plan(), p))
    }

    #[test]
    fn a_field_that_must_start_zeroed_is_refused_unless_the_binding_zeroed_it() {
        // Zero already, but not zeroed by the binding (in stream order before the launch).
        let reason = scan_refusal::<scan_exclusive_u32>(|b, status| b.write(status).unwrap());
        assert!(reason.contains("`scratch`") && reason.contains("zeroed at binding"));
    }

    #[test]
    fn an_entry_outside_its_own_check_is_refused() {
        // A tuning entry built for blocks of 256 threads, launched by the default policy's plan
        // (512 threads): its family's check passes, its own does not.
        let reason = scan_refusal::<scan_tuning_u32_b256_v8_w2000_p500>(|b, status| {
            let zeroed = status.len();
            b.write_zeroed(status, zeroed).unwrap()
        });
        assert!(reason.contains("outside its contract"));
    }

    #[test]
    fn a_launch_inside_its_contract_runs() {
        let d = Device::emulator();
        let src = d.upload(&[7u8; 48]).unwrap();
        let mut dst = d.zeros::<u8>(48).unwrap();
        let mut b = d.bind();
        let p = CopyBytes {
            src: b.read(&src).unwrap(),
            dst: b.write(&mut dst).unwrap(),
            bytes: 48,
        };
        b.launch::<copy_vec128>(shape(), p).unwrap();
        assert_eq!(d.download(&dst).unwrap(), vec![7u8; 48]);
    }
}
