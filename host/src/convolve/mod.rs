//! Sums of discrete random variables (after the post "Sums of Discrete Random Variables as
//! Banded Matrix Products", whose kernels v0 to v4 are kept as methods): the distribution of
//! `x + y` from those of `x` and `y`, `r[i] = Σ_j p[i − j] q[j]` (the full convolution,
//! `m + n − 1` entries), its gradients for learning, many pairs at once, and the sum of K
//! copies of one variable.
//!
//! ```
//! use warpkit::Backend;
//! use warpkit::convolve::Convolution;
//!
//! let die = [1.0f64 / 6.0; 6]; // faces 0..=5
//! let two_dice = Convolution::new().full(&Backend::cpu(), &die, &die)?;
//! assert_eq!(two_dice.len(), 11);
//! assert!((two_dice[5] - 6.0 / 36.0).abs() < 1e-15); // 0+5, 1+4, …, 5+0
//! let ten_dice = Convolution::new().power(&Backend::cpu(), &die, 10)?;
//! assert!((ten_dice.iter().sum::<f64>() - 1.0).abs() < 1e-12);
//! # Ok::<(), warpkit::Error>(())
//! ```
//!
//! By default sums are direct, not by FFT: every term is a product of non-negative numbers for
//! probabilities, so an entry of 1e-30 keeps its relative accuracy however large its
//! neighbours are ([`Accuracy::PerOutput`]). A caller who needs each output only to a fraction
//! of the total mass says so ([`Accuracy::OfMass`]), and a single long product then goes
//! through cuFFT ([`Method::Fft`]), 13 times faster in f32 and 28 in f64 at 65536 on an H200:
//!
//! ```no_run
//! use warpkit::convolve::{Accuracy, Convolution};
//! use warpkit::Device;
//!
//! let gpu = Device::gpu(0)?;
//! let p = gpu.upload(&vec![1.0f32 / 65536.0; 65536])?;
//! let mut r = gpu.zeros::<f32>(2 * 65536 - 1)?;
//! // Every output within 1e-6 of the total mass (1 here) of its exact value.
//! Convolution::new().with_accuracy(Accuracy::OfMass(1e-6)).full_into(&gpu, &p, &p, &mut r)?;
//! # Ok::<(), warpkit::Error>(())
//! ```
//!
//! The longer vector goes on the left whatever order the caller passes (the inner sum runs over
//! the shorter). Devices run the band kernel ([`warpkit_kernels::convolve::band`]), the lane
//! kernel for short calls ([`Method::Lanes`]), or the FFT where the contract admits it and it pays
//! ([`Method::auto_within`]), unless a [`Method`] forces another; the CPU backend sums in f64
//! with rayon whatever the contract and is the tests' reference. NaN and infinities propagate
//! as IEEE arithmetic says by every direct method: an output is NaN exactly where one of its
//! own terms is (or its infinite terms disagree in sign); by the FFT, one non-finite input makes
//! every output NaN.

mod cpu;
mod fft;
pub(crate) mod launch;
mod span;

use crate::error::{Error, Result, check_len, check_offsets, check_same_len};
use crate::runtime::backend::Backend;
use crate::runtime::device::{Device, DeviceBuffer};
use bytemuck::Pod;
pub use fft::{FFT_ERROR_UNITS, MAX_FFT_LEN, fft_error, fft_len};
pub use span::Span;
use std::fmt::Debug;
use warpkit_kernels::convolve::kernels::ConvolveKernels;

/// The longest vector: 2^31 − 1 elements (the post's kernels index with 32-bit lengths).
pub const MAX_LEN: u64 = i32::MAX as u64;

/// The most terms (multiply-adds) of a call [`Method::auto`] gives to the lane kernel
/// ([`Method::Lanes`]); longer calls go to the band kernel, but for [`WARPS_UP_TO`]'s.
pub const LANES_UP_TO: u64 = 1 << 23;

/// The most terms of a single whole product of lengths within a factor of two that
/// [`Method::auto`] gives to [`Method::Lanes`], which runs it an output a warp: on the H100
/// 23-25 % faster than the band kernel at 4096 × 4096 (2^24 terms), 39-55 % slower at 8192 ×
/// 8192 (results/convolve.md). Measured on square products; the lengths within a factor of
/// two follow the same rule unmeasured.
pub const WARPS_UP_TO: u64 = 1 << 24;

/// Whether lengths `m` and `n` are within a factor of two of each other: a whole product's
/// outputs then rise and fall in terms along it, the shape an output a warp suits (a lopsided
/// product's outputs have nearly equal terms, where the lane kernel stays ahead).
pub(crate) fn comparable(m: u64, n: u64) -> bool {
    m <= n.saturating_mul(2) && n <= m.saturating_mul(2)
}

/// The element types convolved: f32 and f64.
pub trait Real: ConvolveKernels + Pod + Default + Debug + Send + Sync + Into<f64> {
    /// `x` rounded to this type.
    fn from_f64(x: f64) -> Self;
}

impl Real for f32 {
    fn from_f64(x: f64) -> f32 {
        x as f32
    }
}

impl Real for f64 {
    fn from_f64(x: f64) -> f64 {
        x
    }
}

/// The kernel a device runs. Every method gives the same sums up to rounding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// The article's v0: a thread per output testing every term against the band.
    V0,
    /// The article's v1: a thread per pair of outputs (`r[i]`, `r[i + m]`), equal work each.
    V1,
    /// The article's v2: v1 with `q` staged in shared memory.
    V2,
    /// The article's v3: v2 with `p` staged too.
    V3,
    /// The article's v4: a warp per pair of outputs, summed by shuffles.
    V4,
    /// warpkit's band kernel: tiles of outputs in registers, the inner sum split over blocks
    /// where the outputs alone would not fill the device (and the slices summed by a second
    /// launch); gradients, windows and batches of any shapes in one call.
    Band,
    /// warpkit's lane kernel, for short products: an output a lane, blocks of 32 outputs whose
    /// warps each sum a stretch of the inner index, added in order by one warp; or, for whole
    /// forward products of lengths within a factor of two whose outputs average 256 terms or
    /// more, an output a warp, its lanes' sums added by shuffles. One launch, however few the
    /// outputs. Gradients, windows and batches of equal pairs too (at most two products of
    /// different shapes a call).
    Lanes,
    /// cuFFT's transforms (on a GPU only): one forward product of whole vectors, each output
    /// within [`fft_error`] of the mass `Σ|p|·Σ|q|` ([`Accuracy::OfMass`]), not of itself.
    Fft,
}

impl Method {
    /// Every direct method (each output summed from its own terms), for callers that compare
    /// them; [`Method::Fft`] is apart, as its outputs are only as accurate as the mass allows.
    pub const DIRECT: [Method; 7] = [
        Method::V0,
        Method::V1,
        Method::V2,
        Method::V3,
        Method::V4,
        Method::Band,
        Method::Lanes,
    ];

    /// The method a device runs for `batch` equal forward products of lengths `m` and `n`
    /// unless told otherwise: the lane kernel up to [`LANES_UP_TO`] terms in all, where the
    /// band kernel's tiles are too few to fill the device in one launch, and for one product
    /// of lengths within a factor of two up to [`WARPS_UP_TO`]; the band kernel beyond
    /// ([results/convolve.md](https://github.com/warpkit-rs/warpkit/blob/main/results/convolve.md)).
    pub fn auto(m: usize, n: usize, batch: usize) -> Method {
        let terms = terms(m, n, batch);
        let warps = batch == 1 && comparable(m as u64, n as u64) && terms <= u128::from(WARPS_UP_TO);
        if terms <= u128::from(LANES_UP_TO) || warps {
            Method::Lanes
        } else {
            Method::Band
        }
    }

    /// The method a device runs for `batch` forward products of lengths `m` and `n` of `F`
    /// that must keep `accuracy`: the FFT for a single pair where the contract admits its error
    /// ([`fft_error`]) and a model of both methods' times (fitted to the H200) says it is
    /// faster, else [`Method::auto`]'s. (A call on a device that cannot run the FFT, the
    /// emulator or a process without cuFFT, runs [`Method::auto`]'s choice instead.)
    pub fn auto_within<F: Real>(m: usize, n: usize, batch: usize, accuracy: Accuracy) -> Method {
        let single = batch == 1 && m > 0 && n > 0;
        if single && fft::keeps::<F>(accuracy, m + n - 1) && fft::pays::<F>(m, n) {
            Method::Fft
        } else {
            Method::auto(m, n, batch)
        }
    }

    /// Whether this is one of the post's forward-only kernels, or the FFT.
    fn is_forward_only(self) -> bool {
        !matches!(self, Method::Band | Method::Lanes)
    }
}

/// The terms (multiply-adds) of `batch` full products of lengths `m` and `n`.
fn terms(m: usize, n: usize, batch: usize) -> u128 {
    m as u128 * n as u128 * batch as u128
}

/// What a call asks of each output's accuracy: the contract [`Method::auto_within`] meets by
/// the fastest method that keeps it. Both bound the error of output `i` against the exact sum
/// of its terms.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Accuracy {
    /// Each output summed from its own terms (the direct methods): its error is a few
    /// roundings of the sum of its terms' magnitudes, so outputs of non-negative inputs keep
    /// their relative accuracy however small (tails of 1e-30 next to entries of 1e-2). No
    /// method does better in the element type; [`Convolution::accumulate_f64`] sums f32 in
    /// f64 for long f32 vectors. The default.
    #[default]
    PerOutput,
    /// Each output within `tolerance · Σ|p| · Σ|q|` of its exact value: for probability
    /// vectors, a fraction of the total mass (1). Outputs far below the largest may lose all
    /// their digits (to about 1e-7 of the peak in f32), which admits the FFT wherever
    /// [`fft_error`] is within the tolerance: from about 1e-6 in f32 and 2e-15 in f64 at the
    /// lengths where it pays.
    OfMass(f64),
}

impl Accuracy {
    fn check(self) -> Result<Accuracy> {
        match self {
            Accuracy::OfMass(tol) if !(tol > 0.0 && tol.is_finite()) => Err(Error::BadParameter {
                what: "accuracy of the mass",
                value: tol,
                expected: "a positive finite tolerance",
            }),
            a => Ok(a),
        }
    }
}

/// One product to compute: `out[j] = Σ_k a[lo + j − k] b[k]` for `j < len`, vectors given as
/// spans (a negative stride reads one reversed) of the inputs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Product {
    pub a: Operand,
    pub b: Operand,
    pub lo: usize,
    pub len: usize,
}

/// One input of a [`Product`]: which of the call's inputs, and its span there, reversed or not.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Operand {
    pub input: usize,
    pub span: Span,
    pub reversed: bool,
}

impl Operand {
    fn new(input: usize, span: Span) -> Operand {
        Operand {
            input,
            span,
            reversed: false,
        }
    }

    fn reversed(self) -> Operand {
        Operand {
            reversed: true,
            ..self
        }
    }
}

/// The forward product of spans `p` and `q` of inputs 0 and 1, larger on the left.
fn forward(p: Operand, q: Operand) -> Product {
    let (a, b) = if q.span.len > p.span.len { (q, p) } else { (p, q) };
    Product {
        a,
        b,
        lo: 0,
        len: a.span.len + b.span.len - 1,
    }
}

/// The products of a call and where each goes, as an iterator: a batch's thousands of pairs
/// are never gathered in memory (allocating and filling them cost more than the kernel).
pub(crate) trait Work: Iterator<Item = (Product, Target)> + Clone {}

impl<W: Iterator<Item = (Product, Target)> + Clone> Work for W {}

/// Where a product's outputs go: a span of one of the call's outputs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Target {
    pub output: usize,
    pub span: Span,
}

/// How a device runs a call: the method, and whether f32 elements are summed in f64.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Plan {
    pub method: Method,
    pub wide: bool,
    /// Whether the caller named the method: if not, a band launch short enough for the lane
    /// kernel ([`LANES_UP_TO`]) runs that instead.
    pub forced: bool,
}

/// Banded convolution with a chosen or automatic [`Method`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Convolution {
    method: Option<Method>,
    wide: bool,
    accuracy: Accuracy,
}

impl Convolution {
    /// Convolution by the automatic method, each element type summed in itself (f32 in f32,
    /// f64 in f64; [`Convolution::accumulate_f64`] sums f32 in f64).
    pub fn new() -> Convolution {
        Convolution::default()
    }

    /// The same, run by `method` on a device; the CPU backend has one way, direct sums in f64,
    /// and runs it whatever the method (the crate's rule for methods).
    pub fn with_method(self, method: Method) -> Convolution {
        Convolution {
            method: Some(method),
            ..self
        }
    }

    /// The same, with f32 elements summed in f64 on devices and each output rounded once: for
    /// long f32 vectors whose small entries matter. It runs at about the f64 speed, by the band
    /// kernel only (forcing a seed method then fails with [`Error::MethodCannot`]). f64 sums
    /// are unchanged, and the CPU backend always sums in f64.
    pub fn accumulate_f64(self) -> Convolution {
        Convolution { wide: true, ..self }
    }

    /// The same, keeping `accuracy` ([`Accuracy::PerOutput`] unless told): the automatic
    /// method is then the fastest that keeps it ([`Method::auto_within`]). A tolerance that is
    /// not positive and finite is refused when the call runs (`Err(BadParameter)`).
    pub fn with_accuracy(self, accuracy: Accuracy) -> Convolution {
        Convolution { accuracy, ..self }
    }

    /// The accuracy asked ([`Convolution::with_accuracy`]).
    pub fn accuracy(&self) -> Accuracy {
        self.accuracy
    }

    /// The method forced by [`Convolution::with_method`], if any.
    pub fn method(&self) -> Option<Method> {
        self.method
    }

    /// Whether f32 is summed in f64 ([`Convolution::accumulate_f64`]).
    pub fn accumulates_f64(&self) -> bool {
        self.wide
    }

    /// Runs `work` on `device`, reading `inputs` and writing `outputs`.
    fn run<F: Real>(
        &self,
        device: &Device,
        inputs: &[&DeviceBuffer<F>],
        outputs: &mut [&mut DeviceBuffer<F>],
        work: impl Work,
    ) -> Result<()> {
        self.accuracy.check()?;
        let plan = self.plan::<F>(device, work.clone());
        if plan.method == Method::Fft {
            let mut work = work;
            return match (work.next(), work.next()) {
                (Some(one), None) if !plan.wide => fft::run(device, inputs, outputs, one),
                _ => Err(Error::MethodCannot {
                    method: format!("{:?}", Method::Fft),
                    what: "run a batch or sum f32 in f64",
                }),
            };
        }
        launch::run(device, plan, inputs, outputs, work)
    }

    /// How `device` runs `work`: by the forced method, else [`Method::auto_within`]'s for a
    /// single whole forward product of unit strides (the FFT only where the device can run it),
    /// else the band kernel or, for short work, the lane kernel (where f32 is summed in f64
    /// too).
    fn plan<F: Real>(&self, device: &Device, mut work: impl Work) -> Plan {
        let method = self.method.unwrap_or_else(|| match (work.next(), work.next()) {
            (Some((p, t)), None) if p.lo == 0 && !p.b.reversed && !self.wide => {
                let (m, n) = (p.a.span.len, p.b.span.len);
                let unit = p.a.span.stride == 1 && p.b.span.stride == 1 && t.span.stride == 1;
                match Method::auto_within::<F>(m, n, 1, self.accuracy) {
                    Method::Fft if !(unit && fft::ready(device)) => Method::auto(m, n, 1),
                    method => method,
                }
            }
            _ => Method::Band,
        });
        Plan {
            method,
            wide: self.wide,
            forced: self.method.is_some(),
        }
    }

    /// The distribution of `x + y`: the full convolution of `p` (length `m`) and `q` (length
    /// `n`), `m + n − 1` entries.
    pub fn full<F: Real>(&self, backend: &Backend, p: &[F], q: &[F]) -> Result<Vec<F>> {
        let (pm, qm) = (check_vector("p", p.len())?, check_vector("q", q.len())?);
        let product = forward(Operand::new(0, pm), Operand::new(1, qm));
        self.products_on_host(backend, &[p, q], [product].into_iter())
    }

    /// [`Convolution::full`] on a device: `r` holds `m + n − 1` elements.
    pub fn full_into<F: Real>(
        &self,
        device: &Device,
        p: &DeviceBuffer<F>,
        q: &DeviceBuffer<F>,
        r: &mut DeviceBuffer<F>,
    ) -> Result<()> {
        let (pm, qm) = (check_vector("p", p.len())?, check_vector("q", q.len())?);
        check_same_len("convolution output", p.len() + q.len() - 1, r.len())?;
        let product = forward(Operand::new(0, pm), Operand::new(1, qm));
        let target = Target {
            output: 0,
            span: Span::new(0, r.len(), 1),
        };
        self.run(device, &[p, q], &mut [r], [(product, target)].into_iter())
    }

    /// The article's strided form inside one device buffer, as when convolving rows or columns of
    /// a matrix in place: `r = p ⊛ q` with all three spans of `data`; `r` may not share an
    /// element with `p` or `q`.
    pub fn strided_into<F: Real>(
        &self,
        device: &Device,
        data: &mut DeviceBuffer<F>,
        p: Span,
        q: Span,
        r: Span,
    ) -> Result<()> {
        let mut product = strided_product(data.len(), p, q, r)?;
        // The operands are read from a copy of the stretch of `data` that holds them: where
        // `r` interleaves with them (columns of one matrix), no launch may read and write
        // `data` at once.
        let (a, b) = (&mut product.a.span, &mut product.b.span);
        let from = a.offset.min(b.offset);
        let to = a.index(a.len - 1).max(b.index(b.len - 1)) + 1;
        let mut operands = device.workspace::<F>(to - from)?;
        device.copy_part(data, from, &mut operands)?;
        (a.offset, b.offset) = (a.offset - from, b.offset - from);
        let work = [(product, Target { output: 0, span: r })].into_iter();
        self.run(device, &[&operands, &operands], &mut [data], work)
    }

    /// [`Convolution::strided_into`] on host data.
    pub fn strided<F: Real>(
        &self,
        backend: &Backend,
        data: &mut [F],
        p: Span,
        q: Span,
        r: Span,
    ) -> Result<()> {
        let product = strided_product(data.len(), p, q, r)?;
        let sums = self.products_on_host(backend, &[&*data, &*data], [product].into_iter())?;
        for (i, v) in sums.into_iter().enumerate() {
            data[r.index(i)] = v;
        }
        Ok(())
    }

    /// The gradients of a scalar `f(r)`, `r = p ⊛ q`, given `g = ∂f/∂r` (length `m + n − 1`):
    /// `(∂f/∂p, ∂f/∂q)` with `∂f/∂p[i] = Σ_l q[l] g[i + l]` and `∂f/∂q[j] = Σ_t p[t] g[t + j]`
    /// (the post's `band(q, m)ᵀ g` and `band(p, n)ᵀ g`). Devices run both as band products over
    /// `g` with `q` or `p` reversed, in one launch.
    pub fn gradients<F: Real>(
        &self,
        backend: &Backend,
        p: &[F],
        q: &[F],
        g: &[F],
    ) -> Result<(Vec<F>, Vec<F>)> {
        let products = self.gradient_products(p.len(), q.len(), g.len())?;
        let sums = self.products_on_host(backend, &[p, q, g], products.into_iter())?;
        let (dp, dq) = sums.split_at(p.len());
        Ok((dp.to_vec(), dq.to_vec()))
    }

    /// [`Convolution::gradients`] on a device, into `dp` (length `m`) and `dq` (length `n`).
    pub fn gradients_into<F: Real>(
        &self,
        device: &Device,
        (p, q, g): (&DeviceBuffer<F>, &DeviceBuffer<F>, &DeviceBuffer<F>),
        dp: &mut DeviceBuffer<F>,
        dq: &mut DeviceBuffer<F>,
    ) -> Result<()> {
        let [to_p, to_q] = self.gradient_products(p.len(), q.len(), g.len())?;
        check_same_len("gradient of p", p.len(), dp.len())?;
        check_same_len("gradient of q", q.len(), dq.len())?;
        let work = [
            (
                to_p,
                Target {
                    output: 0,
                    span: Span::new(0, dp.len(), 1),
                },
            ),
            (
                to_q,
                Target {
                    output: 1,
                    span: Span::new(0, dq.len(), 1),
                },
            ),
        ]
        .into_iter();
        self.run(device, &[p, q, g], &mut [dp, dq], work)
    }

    fn gradient_products(&self, m: usize, n: usize, g: usize) -> Result<[Product; 2]> {
        let (pm, qm) = (check_vector("p", m)?, check_vector("q", n)?);
        check_same_len("upstream gradient", m + n - 1, g)?;
        if let Some(method) = self.method.filter(|m| m.is_forward_only()) {
            return Err(Error::MethodCannot {
                method: format!("{method:?}"),
                what: "compute gradients",
            });
        }
        let gm = Operand::new(2, Span::new(0, g, 1));
        Ok([
            Product {
                a: gm,
                b: Operand::new(1, qm).reversed(),
                lo: n - 1,
                len: m,
            },
            Product {
                a: gm,
                b: Operand::new(0, pm).reversed(),
                lo: m - 1,
                len: n,
            },
        ])
    }

    /// Many independent pairs in one launch: pair `i` is `p[p_offsets[i] .. p_offsets[i + 1]]`
    /// and `q[q_offsets[i] .. q_offsets[i + 1]]` (offsets start at 0, end at the data's length,
    /// every pair non-empty); the outputs follow one another, pair `i`'s from
    /// `output_offsets(..)[i]`.
    pub fn batch<F: Real>(
        &self,
        backend: &Backend,
        (p, p_offsets): (&[F], &[usize]),
        (q, q_offsets): (&[F], &[usize]),
    ) -> Result<Vec<F>> {
        let products = batch_products((p.len(), p_offsets), (q.len(), q_offsets))?;
        self.products_on_host(backend, &[p, q], products)
    }

    /// [`Convolution::batch`] on a device, into `r` of `output_offsets(..)`'s last entry.
    pub fn batch_into<F: Real>(
        &self,
        device: &Device,
        (p, p_offsets): (&DeviceBuffer<F>, &[usize]),
        (q, q_offsets): (&DeviceBuffer<F>, &[usize]),
        r: &mut DeviceBuffer<F>,
    ) -> Result<()> {
        let products = batch_products((p.len(), p_offsets), (q.len(), q_offsets))?;
        let outputs = products.clone().map(|p| p.len).sum();
        check_same_len("batch output", outputs, r.len())?;
        self.run(device, &[p, q], &mut [r], stacked(products))
    }

    /// The distribution of the sum of `k` independent copies of a variable with probabilities
    /// `p` (length `m`): `k·(m − 1) + 1` entries, `[1]` for `k = 0`. Entry `i` is the probability
    /// that the sum of the `k` indices is `i`: for a die whose faces `1..=6` are `p[0..6]`, entry
    /// `i` is a total of `i + k`. By repeated squaring: about
    /// `log2 k` convolutions whose last dominates, `(k·m)² / 4` multiply-adds against `(k·m)² /
    /// 2` for adding one copy at a time, and far fewer launches; it pays from `k = 3` on.
    pub fn power<F: Real>(&self, backend: &Backend, p: &[F], k: u32) -> Result<Vec<F>> {
        check_vector("p", p.len())?;
        check_len(
            "k-fold sum",
            (p.len() - 1).saturating_mul(k as usize),
            MAX_LEN - 1,
        )?;
        let mut result: Option<Vec<F>> = None;
        let mut base = p.to_vec();
        let mut k = k;
        while k > 0 {
            if k & 1 == 1 {
                result = Some(match result {
                    None => base.clone(),
                    Some(r) => self.full(backend, &r, &base)?,
                });
            }
            k >>= 1;
            if k > 0 {
                base = self.full(backend, &base, &base)?;
            }
        }
        Ok(result.unwrap_or_else(|| vec![F::from_f64(1.0)]))
    }

    /// Runs `products` on host inputs and returns their outputs one after another.
    fn products_on_host<F: Real>(
        &self,
        backend: &Backend,
        inputs: &[&[F]],
        products: impl Iterator<Item = Product> + Clone,
    ) -> Result<Vec<F>> {
        self.accuracy.check()?;
        match backend {
            Backend::Cpu(_) => cpu::run(inputs, &products.collect::<Vec<_>>()),
            Backend::Device(d) => {
                let buffers = inputs.iter().map(|x| d.upload(x)).collect::<Result<Vec<_>>>()?;
                let mut out = d.workspace::<F>(products.clone().map(|p| p.len).sum())?;
                let inputs: Vec<&DeviceBuffer<F>> = buffers.iter().collect();
                self.run(d, &inputs, &mut [&mut out], stacked(products))?;
                d.download(&out)
            }
        }
    }
}

/// The offsets of a batch's outputs: `m_i + n_i − 1` entries for pair `i`, from 0.
pub fn output_offsets(p_offsets: &[usize], q_offsets: &[usize]) -> Result<Vec<usize>> {
    check_same_len("q offsets", p_offsets.len(), q_offsets.len())?;
    let mut out = vec![0];
    for (p, q) in p_offsets.windows(2).zip(q_offsets.windows(2)) {
        let len = (p[1].saturating_sub(p[0]) + q[1].saturating_sub(q[0])).saturating_sub(1);
        out.push(out[out.len() - 1] + len);
    }
    Ok(out)
}

/// The forward products of a batch, after checking its offsets.
fn batch_products<'a>(
    (p_len, p_offsets): (usize, &'a [usize]),
    (q_len, q_offsets): (usize, &'a [usize]),
) -> Result<impl Iterator<Item = Product> + Clone + 'a> {
    check_same_len("q offsets", p_offsets.len(), q_offsets.len())?;
    check_offsets("p offsets", p_len, p_offsets, MAX_LEN)?;
    check_offsets("q offsets", q_len, q_offsets, MAX_LEN)?;
    Ok(p_offsets.windows(2).zip(q_offsets.windows(2)).map(|(p, q)| {
        forward(
            Operand::new(0, Span::new(p[0], p[1] - p[0], 1)),
            Operand::new(1, Span::new(q[0], q[1] - q[0], 1)),
        )
    }))
}

/// `products` writing one after another into output 0.
fn stacked(products: impl Iterator<Item = Product> + Clone) -> impl Work {
    products.scan(0, |at, p| {
        let span = Span {
            offset: *at,
            len: p.len,
            stride: 1,
        };
        *at += p.len;
        Some((p, Target { output: 0, span }))
    })
}

/// The forward product of spans `p` and `q` inside one buffer of `len` elements writing span
/// `r`, or why there is none.
fn strided_product(len: usize, p: Span, q: Span, r: Span) -> Result<Product> {
    for (what, s) in [("p", p), ("q", q), ("r", r)] {
        check_vector(what, s.len)?;
        s.check(what, len)?;
    }
    check_same_len("convolution output", p.len + q.len - 1, r.len)?;
    for (what, s) in [("p", p), ("q", q)] {
        if r.meets(&s) {
            return Err(Error::Overlap { what });
        }
    }
    Ok(forward(Operand::new(0, p), Operand::new(1, q)))
}

/// A whole vector of `len` elements as a span, or why it cannot be one.
fn check_vector(what: &'static str, len: usize) -> Result<Span> {
    if len == 0 {
        return Err(Error::EmptyVector { what });
    }
    check_len(what, len, MAX_LEN)?;
    Ok(Span::new(0, len, 1))
}
