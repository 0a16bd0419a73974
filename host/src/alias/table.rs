//! [`AliasTable`]: a table on the backend that built it. Building and rebuilding, sampling,
//! reading it back, and the checks on weights that run before anything is launched.

use super::kernels::AliasWeight;
use super::method::{Construction, SampleOptions, Sampling};
use super::{Stream, cpu, item_masses, launch};
use crate::error::{Error, Result};
use crate::runtime::backend::Backend;
use crate::runtime::cpu::filled_by;
use crate::runtime::device::{Device, DeviceBuffer};
use crate::runtime::progress::{Report, Tracker, WorkDone};
use rand::distr::Distribution;
use rand_core::RngCore;
use rayon::prelude::*;
use sealed::Target;
use std::borrow::Cow;
use warpkit_kernels::alias::kernels::TransformKernels;
use warpkit_kernels::alias::transform::WeightFn;
use warpkit_kernels::alias::{Quantizer, Row, sample};

/// An alias table over `N` items, on the backend that built it (device memory for a device).
pub struct AliasTable<F: AliasWeight> {
    storage: Storage<F>,
    n: usize,
}

impl<F: AliasWeight> std::fmt::Debug for AliasTable<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let on = match &self.storage {
            Storage::Host(..) => "host",
            Storage::Device(..) => "device",
        };
        f.debug_struct("AliasTable")
            .field("items", &self.n)
            .field("memory", &on)
            .finish_non_exhaustive()
    }
}

/// `alias table of 1000 f64 items by PSA+ (binary split, baseline pack) in host memory` (or
/// `on GPU …`): the size, the method that built it and where it lives.
impl<F: AliasWeight> std::fmt::Display for AliasTable<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let float = std::any::type_name::<F>();
        let (n, method) = (self.n, self.construction());
        write!(f, "alias table of {n} {float} items by {method} ")?;
        match &self.storage {
            Storage::Host(..) => write!(f, "in host memory"),
            Storage::Device(t) => write!(f, "on {}", t.device().describe()),
        }
    }
}

enum Storage<F: AliasWeight> {
    /// The rows and the method that builds them again on a rebuild.
    Host(Vec<Row<F>>, Construction),
    Device(Box<launch::DeviceTable<F>>),
}

/// `Err` unless the weights can make a table: at least one, at most 2^32 − 2 (the prefix sums
/// scan one more element than there are weights).
pub(super) fn check_count(n: usize) -> Result<()> {
    if n == 0 {
        return Err(Error::NoWeights);
    }
    crate::error::check_len("alias weights", n, crate::MAX_LEN - 1)
}

/// `Err` naming the first weight that is negative, NaN or infinite.
fn check_weights<F: AliasWeight>(weights: &[F]) -> Result<()> {
    check_count(weights.len())?;
    match weights
        .iter()
        .position(|w| !(w.to_f64() >= 0.0 && w.to_f64().is_finite()))
    {
        Some(index) => Err(Error::InvalidWeight { index }),
        None => Ok(()),
    }
}

/// `method`, or [`Construction::FASTEST_ON_DEVICE`] for the one devices do not run.
fn on_device(method: Construction) -> Construction {
    match method {
        Construction::Sequential => Construction::FASTEST_ON_DEVICE,
        method => method,
    }
}

/// The weights `transform` makes of `raw`, on the host's cores.
fn transformed<F: AliasWeight, T: WeightFn<F>>(raw: &[F], transform: T) -> Vec<F> {
    raw.par_iter()
        .enumerate()
        .map(|(i, &x)| transform.weight(i as u64, x))
        .collect()
}

/// The quantizer of weights of total `total` (see [`Quantizer::new`]), or why the total cannot
/// be used: it must be finite in the weights' own type (a device sums f32 weights in f32) and
/// positive.
pub(super) fn quantize_scale<F: AliasWeight>(n: usize, total: f64) -> Result<Quantizer> {
    if !F::from_f64(total).to_f64().is_finite() {
        return Err(Error::WeightOverflow);
    }
    Quantizer::new(n as u64, total).ok_or(Error::AllWeightsZero)
}

impl<F: AliasWeight> AliasTable<F> {
    /// A table for `weights` on `backend`, by [`Construction::auto`]: PSA+ on the CPU backend,
    /// PSA on a device. Both give every item the same probability, but different rows, so one
    /// seed draws different samples from them; [`AliasTable::build`] with one method (say
    /// [`Construction::PSA_BASELINE`]) builds the same table on every backend.
    pub fn new(backend: &Backend, weights: &[F]) -> Result<AliasTable<F>> {
        AliasTable::build(backend, weights, Construction::auto(backend))
    }

    /// A table for `weights` on `backend` by `method`, where the backend offers it; otherwise
    /// by the backend's own, [`Construction::auto`] (the crate's rule for methods: every method
    /// gives each item the same probability; [`AliasTable::construction`] says which ran).
    pub fn build(backend: &Backend, weights: &[F], method: Construction) -> Result<AliasTable<F>> {
        AliasTable::build_reporting(backend, weights, method, None)
    }

    /// [`AliasTable::build`], reporting how much of the work is done to `progress` as it goes
    /// (a hundredth at a time; see [`WorkDone`]): on the CPU backend, where 10^9 weights take
    /// tens of seconds. On a device, which takes milliseconds, it reports once, when done.
    ///
    /// ```
    /// use warpkit::alias::{AliasTable, Construction};
    /// use warpkit::Backend;
    ///
    /// let backend = Backend::cpu();
    /// let weights: Vec<f64> = (1..=100_000).map(f64::from).collect();
    /// let table = AliasTable::build_with(&backend, &weights, Construction::auto(&backend), |w| {
    ///     eprintln!("alias table: {w}")
    /// })?;
    /// assert_eq!(table.len(), 100_000);
    /// # Ok::<(), warpkit::Error>(())
    /// ```
    pub fn build_with(
        backend: &Backend,
        weights: &[F],
        method: Construction,
        progress: impl Fn(&WorkDone) + Sync,
    ) -> Result<AliasTable<F>> {
        AliasTable::build_reporting(backend, weights, method, Some(Report(&progress)))
    }

    fn build_reporting(
        backend: &Backend,
        weights: &[F],
        method: Construction,
        report: Option<Report>,
    ) -> Result<AliasTable<F>> {
        check_weights(weights)?;
        let tracker = Tracker::new(report, cpu::work(weights.len()));
        let method = if method.offered_by(backend) {
            method
        } else {
            Construction::auto(backend)
        };
        let storage = match backend {
            Backend::Device(d) => {
                let mut table = launch::DeviceTable::allocate(d, weights.len(), method)?;
                table.rebuild_from_host(weights)?;
                tracker.finish();
                Storage::Device(Box::new(table))
            }
            Backend::Cpu(_) => Storage::Host(cpu::build(weights, method, &tracker)?, method),
        };
        Ok(AliasTable {
            storage,
            n: weights.len(),
        })
    }

    /// A table on `device` for weights already in its memory, by
    /// [`Construction::FASTEST_ON_DEVICE`].
    pub fn from_device(device: &Device, weights: &DeviceBuffer<F>) -> Result<AliasTable<F>> {
        AliasTable::from_device_with(device, weights, Construction::FASTEST_ON_DEVICE)
    }

    /// A table on `device` for weights already in its memory, by `method` (by
    /// [`Construction::FASTEST_ON_DEVICE`] for [`Construction::Sequential`], which devices do not
    /// run).
    pub fn from_device_with(
        device: &Device,
        weights: &DeviceBuffer<F>,
        method: Construction,
    ) -> Result<AliasTable<F>> {
        let mut table = launch::DeviceTable::allocate(device, weights.len(), on_device(method))?;
        table.rebuild(weights)?;
        Ok(AliasTable {
            storage: Storage::Device(Box::new(table)),
            n: weights.len(),
        })
    }

    /// A table of the weights `transform` makes of `raw` (`transform.weight(i, raw[i])`), a
    /// [`WeightFn`] of one's own whose kernel a device crate declared with
    /// [`warpkit_kernels::alias_kernels!`] (its module loaded on a GPU with [`Device::load`]);
    /// `method` as for [`AliasTable::build`]. The same table, bit for bit, as
    /// [`AliasTable::build`] of the transformed weights, without them ever in host memory; a
    /// weight the transform makes negative, NaN or infinite is `Err(InvalidWeight)` naming its
    /// index. On a device the transform runs once an item, fused with the check and the sum.
    ///
    /// ```ignore
    /// // In the device crate: `Softmax` a `WeightFn<f64>` declared with `kernel_group!`, and
    /// // warpkit_kernels::alias_kernels! { pub softmax_f64: Softmax for f64; }
    /// device.load(&KERNELS)?;
    /// let softmax = Softmax { max: 3.5, inv_temperature: 2.0 };
    /// let table = AliasTable::build_by(&backend, &logits, softmax, Construction::auto(&backend))?;
    /// ```
    pub fn build_by<T: TransformKernels<F>>(
        backend: &Backend,
        raw: &[F],
        transform: T,
        method: Construction,
    ) -> Result<AliasTable<F>> {
        check_count(raw.len())?;
        match backend {
            Backend::Device(d) => AliasTable::from_device_by(d, &d.upload(raw)?, transform, method),
            Backend::Cpu(_) => AliasTable::build(backend, &transformed(raw, transform), method),
        }
    }

    /// [`AliasTable::build_by`] of raw values already in `device`'s memory (by
    /// [`Construction::FASTEST_ON_DEVICE`] for [`Construction::Sequential`]).
    pub fn from_device_by<T: TransformKernels<F>>(
        device: &Device,
        raw: &DeviceBuffer<F>,
        transform: T,
        method: Construction,
    ) -> Result<AliasTable<F>> {
        let mut table = launch::DeviceTable::allocate(device, raw.len(), on_device(method))?;
        table.rebuild_by(raw, transform)?;
        Ok(AliasTable {
            storage: Storage::Device(Box::new(table)),
            n: raw.len(),
        })
    }

    /// Rebuilds the table from new raw values of the same count by `transform` (see
    /// [`AliasTable::build_by`]), reusing the table's memory (on a device the raw values are
    /// uploaded to a buffer of their own each call).
    pub fn rebuild_by<T: TransformKernels<F>>(&mut self, raw: &[F], transform: T) -> Result<()> {
        crate::error::check_same_len("raw alias weights", self.n, raw.len())?;
        if let Storage::Device(t) = &mut self.storage {
            let raw = t.device().upload(raw)?;
            return t.rebuild_by(&raw, transform);
        }
        self.rebuild(&transformed(raw, transform))
    }

    /// Rebuilds a device table from new raw values in its device's memory by `transform` (see
    /// [`AliasTable::build_by`]), allocating nothing after its first call (which makes the
    /// buffer the weights are written to).
    pub fn rebuild_from_device_by<T: TransformKernels<F>>(
        &mut self,
        raw: &DeviceBuffer<F>,
        transform: T,
    ) -> Result<()> {
        match &mut self.storage {
            Storage::Device(t) => t.rebuild_by(raw, transform),
            Storage::Host(..) => Err(Error::WrongDevice {
                buffer: "a device".into(),
                device: "a host table".into(),
            }),
        }
    }

    /// A table of `rows` (checked by the caller) on `backend`, built again by the backend's own
    /// method.
    pub(super) fn from_rows(backend: &Backend, rows: Vec<Row<F>>) -> Result<AliasTable<F>> {
        let (n, method) = (rows.len(), Construction::auto(backend));
        let storage = match backend {
            Backend::Device(d) => {
                let mut table = launch::DeviceTable::allocate(d, n, method)?;
                table.set_rows(&rows)?;
                Storage::Device(Box::new(table))
            }
            Backend::Cpu(_) => Storage::Host(rows, method),
        };
        Ok(AliasTable { storage, n })
    }

    /// Rebuilds the table from new weights of the same count, reusing its memory (on a device:
    /// the table and every scratch buffer), for per-step use.
    pub fn rebuild(&mut self, weights: &[F]) -> Result<()> {
        crate::error::check_same_len("alias weights", self.n, weights.len())?;
        check_weights(weights)?;
        match &mut self.storage {
            Storage::Host(rows, method) => cpu::build_into(weights, *method, rows, &Tracker::silent()),
            Storage::Device(t) => t.rebuild_from_host(weights),
        }
    }

    /// Rebuilds a device table from new weights in its device's memory. They are checked on
    /// the device in the build's first pass; weights that make no table (a bad weight, a total
    /// of zero or past the type's range) return the error and leave the table as it was.
    pub fn rebuild_from_device(&mut self, weights: &DeviceBuffer<F>) -> Result<()> {
        crate::error::check_same_len("alias weights", self.n, weights.len())?;
        match &mut self.storage {
            Storage::Device(t) => t.rebuild(weights),
            Storage::Host(..) => Err(Error::WrongDevice {
                buffer: "a device".into(),
                device: "a host table".into(),
            }),
        }
    }

    /// Items (rows).
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether the table has no rows (never: construction refuses empty weights).
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The method that built the table (on a backend that does not offer the one asked for,
    /// the backend's own).
    pub fn construction(&self) -> Construction {
        match &self.storage {
            Storage::Host(_, method) => *method,
            Storage::Device(t) => t.construction(),
        }
    }

    /// For a table on a device built from weights, their total as its build summed it: in the
    /// weights' type over a fixed grid (the same bits on every device), so for f32 weights it
    /// may differ in the last bits from a sum in f64. None for a table on the host, or one
    /// made from rows.
    pub fn device_total(&self) -> Option<f64> {
        match &self.storage {
            Storage::Device(t) => t.total(),
            Storage::Host(..) => None,
        }
    }

    /// The device holding the table, if any.
    pub fn device(&self) -> Option<&Device> {
        match &self.storage {
            Storage::Device(t) => Some(t.device()),
            Storage::Host(..) => None,
        }
    }

    /// The rows, copied to the host.
    pub fn rows(&self) -> Result<Vec<Row<F>>> {
        match &self.storage {
            Storage::Host(rows, _) => Ok(rows.clone()),
            Storage::Device(t) => t.rows(),
        }
    }

    /// The probability of each item as the table encodes it.
    pub fn probabilities(&self) -> Result<Vec<f64>> {
        let rows = self.rows()?;
        let n = rows.len() as f64;
        Ok(item_masses(&rows)?.into_iter().map(|m| m / n).collect())
    }

    /// `s` samples with replacement, keyed by three words of `rng`, drawn as `options` says
    /// (by default: in random order, by the method [`Sampling::auto`] picks for it); `s = 0`
    /// gives an empty vector. The same table, seed and options give the same samples on every
    /// device (the GPU and the emulator); the CPU backend draws from the same distribution.
    pub fn sample(
        &self,
        rng: &mut (impl RngCore + ?Sized),
        s: usize,
        options: SampleOptions,
    ) -> Result<Vec<u32>> {
        filled_by(s, |out| self.sample_into(rng, out, options))
    }

    /// Writes `out.len()` samples into `out`, as [`AliasTable::sample`] would return them:
    /// host memory (`&mut [u32]`; reuse it across calls, or make it a
    /// [`PinnedBuffer`](crate::PinnedBuffer) for the link's full speed), or a [`DeviceBuffer`]
    /// of the table's device. On a GPU, samples for host memory are drawn into device memory
    /// and copied back chunk by chunk through the staging buffers.
    pub fn sample_into<O: SampleOutput + ?Sized>(
        &self,
        rng: &mut (impl RngCore + ?Sized),
        out: &mut O,
        options: SampleOptions,
    ) -> Result<()> {
        let target = out.target();
        let len = match &target {
            Target::Host(h) => h.len(),
            Target::Device(d) => d.len(),
        };
        let on_host = matches!(self.storage, Storage::Host(..));
        let method = options.resolve(self.n, len, on_host);
        let (stream, code) = (stream_from(rng), options.order.code(method));
        match (target, &self.storage) {
            (Target::Device(out), _) => self.draw_on_device(stream, out, method, code),
            (Target::Host(out), Storage::Host(rows, _)) => {
                cpu::sample(rows, stream, out);
                Ok(())
            }
            (Target::Host(out), Storage::Device(t)) => {
                let mut drawn = t.device().workspace(out.len())?;
                t.sample_into(stream, &mut drawn, method, code)?;
                t.device().download_into(&drawn, out)
            }
        }
    }

    /// For benchmarks: draws as [`AliasTable::sample_into`] does, but stores only one word per
    /// GPU thread, the xor of its samples, at the position of its first sample, and leaves the
    /// rest of `out` as it was. This is the paper's own benchmark mode (samples consumed in
    /// registers): the cost of drawing without the cost of storing.
    #[cfg(feature = "checks")]
    #[doc(hidden)]
    pub fn sample_into_folded(
        &self,
        rng: &mut (impl RngCore + ?Sized),
        out: &mut DeviceBuffer<u32>,
        method: Sampling,
    ) -> Result<()> {
        self.draw_on_device(stream_from(rng), out, method, sample::OUTPUT_FOLDED)
    }

    /// A sampler on the host that draws one sample at a time from `rng`
    /// ([`rand::distr::Distribution`]): the table's rows, borrowed from a CPU table or copied
    /// from a device's. For a few draws at a time; [`AliasTable::sample`] for many.
    pub fn sampler(&self) -> Result<AliasSampler<'_, F>> {
        let rows = match &self.storage {
            Storage::Host(rows, _) => Cow::Borrowed(&rows[..]),
            Storage::Device(t) => Cow::Owned(t.rows()?),
        };
        Ok(AliasSampler { rows })
    }

    fn draw_on_device(
        &self,
        stream: Stream,
        out: &mut DeviceBuffer<u32>,
        method: Sampling,
        code: u32,
    ) -> Result<()> {
        match &self.storage {
            Storage::Device(t) => t.sample_into(stream, out, method, code),
            Storage::Host(..) => Err(Error::WrongDevice {
                buffer: "a device".into(),
                device: "a host table".into(),
            }),
        }
    }
}

/// Where [`AliasTable::sample_into`] writes: host memory (a `[u32]` slice, a `Vec<u32>` or a
/// [`PinnedBuffer<u32>`](crate::PinnedBuffer), each filled over its length) or a
/// [`DeviceBuffer<u32>`].
pub trait SampleOutput: sealed::Output {}

impl SampleOutput for [u32] {}
impl SampleOutput for Vec<u32> {}
impl SampleOutput for crate::PinnedBuffer<u32> {}
impl SampleOutput for DeviceBuffer<u32> {}

mod sealed {
    /// The memory a sampling call writes to.
    #[derive(Debug)]
    pub enum Target<'a> {
        Host(&'a mut [u32]),
        Device(&'a mut crate::DeviceBuffer<u32>),
    }

    pub trait Output {
        fn target(&mut self) -> Target<'_>;
    }

    /// Host memory: whatever dereferences to a `[u32]`.
    macro_rules! host_output {
        ($($t:ty),*) => {$(
            impl Output for $t {
                fn target(&mut self) -> Target<'_> {
                    Target::Host(&mut self[..])
                }
            }
        )*};
    }
    host_output!([u32], Vec<u32>, crate::PinnedBuffer<u32>);

    impl Output for crate::DeviceBuffer<u32> {
        fn target(&mut self) -> Target<'_> {
            Target::Device(self)
        }
    }
}

/// An alias table's rows on the host, drawing one sample per call from the caller's generator
/// ([`AliasTable::sampler`]): `sampler.sample(&mut rng)`, or `sampler.sample_iter(rng)` for
/// an iterator. Each draw takes one `u64` of `rng` and reads one row, the baseline sampler's
/// rule, so its samples follow the table's [`AliasTable::probabilities`] exactly.
#[derive(Debug, Clone)]
pub struct AliasSampler<'a, F: AliasWeight> {
    rows: Cow<'a, [Row<F>]>,
}

impl<F: AliasWeight> Distribution<u32> for AliasSampler<'_, F> {
    fn sample<R: rand::Rng + ?Sized>(&self, rng: &mut R) -> u32 {
        sample::draw(0, self.rows.len() as u32, rng.next_u64(), |i| {
            self.rows[i as usize]
        })
    }
}

/// The Philox stream of one call's samples: a key and a counter drawn from `rng`.
fn stream_from(rng: &mut (impl RngCore + ?Sized)) -> Stream {
    let key = rng.next_u64();
    Stream::from_words(key, [rng.next_u64(), rng.next_u64()])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weight_counts_leave_room_for_the_prefix_sums() {
        assert!(matches!(check_count(0), Err(Error::NoWeights)));
        assert!(check_count(crate::MAX_LEN as usize - 1).is_ok());
        assert!(matches!(
            check_count(crate::MAX_LEN as usize),
            Err(Error::TooLong { .. })
        ));
    }
}
