//! The FFT method ([`Method::Fft`]): one forward product by cuFFT. Both vectors are padded to a
//! transform length with no prime factor above 7 (`warpkit_kernels::convolve::fft::pad`, one
//! launch), transformed together by one batched real-to-complex call, multiplied bin by bin
//! with the inverse's `1 / len` folded in (one launch), transformed back by one complex-to-real
//! call, and the `m + n − 1` outputs copied out of the padded signal.
//!
//! Its rounding error is spread over all outputs and relative to the whole mass `Σ|p|·Σ|q|`
//! ([`fft_error`]): entries far below the largest lose their digits, so the method serves the
//! [`Accuracy::OfMass`] contract only.

use super::{Accuracy, Method, Product, Real, Target};
use crate::error::{Error, Result};
use crate::runtime::device::{Device, DeviceBuffer};
#[cfg(feature = "cuda")]
use crate::runtime::gpu::{Area, Gpu, Staged};
#[cfg(feature = "cuda")]
use warpkit_kernels::convolve::fft::{Pad, Spectra, shape};
#[cfg(feature = "cuda")]
use warpkit_kernels::grid::copy::{CopyBytes, copy_vec128};

/// The longest transform the method takes (cuFFT's lengths are 32-bit; two signals are
/// padded).
pub const MAX_FFT_LEN: usize = 1 << 30;

#[cfg(feature = "cuda")]
/// Blocks per multiprocessor of the padding and product launches at most (grid-stride loops).
const BLOCKS_PER_SM: u64 = 8;

/// The transform length for `outputs` outputs: the least `2^a 3^b 5^c 7^d` at or above it,
/// lengths cuFFT transforms without its slower algorithm for large primes.
pub fn fft_len(outputs: usize) -> usize {
    // Each 7-smooth number below the next power of two, as `3^b 5^c 7^d` doubled up to
    // `outputs`: a few hundred candidates where counting up would test millions.
    let n = outputs.max(1) as u128;
    let mut best = n.next_power_of_two();
    let mut p7 = 1u128;
    while p7 < best {
        let mut p5 = p7;
        while p5 < best {
            let mut p3 = p5;
            while p3 < best {
                let mut x = p3;
                while x < n {
                    x *= 2;
                }
                best = best.min(x);
                p3 *= 3;
            }
            p5 *= 5;
        }
        p7 *= 7;
    }
    best as usize
}

/// The error bound of the FFT method, as a multiple of the mass `Σ|p|·Σ|q|`, for a transform
/// of `len` elements of `F`: `u · (C · log2(len) + 2)`, `u` the type's unit roundoff (2^-24
/// for f32, 2^-53 for f64) and `C` = [`FFT_ERROR_UNITS`]. Every output of the method is within
/// this much of the exact sum times the mass, for finite inputs.
///
/// A radix-2 FFT's error grows at most like `u · log2(len)` relative to the signal's ℓ2 norm,
/// and a convolution by FFT keeps each output's error within a small multiple of that times
/// `‖p‖₂ ‖q‖₁` (or `‖p‖₁ ‖q‖₂`), at most the mass; the `2` covers the roundings of the product
/// and the output, which remain at length 1. `C` comes from cuFFT's errors measured on an H200
/// (`results/convolve.md`): the largest, on single spikes (all the mass on one output), was
/// 7.0 u in f64 at length 306180 (the bound 15.7 u) and 2-5.5 u in f32 at lengths 2000 to
/// 4201750: under half the bound.
pub fn fft_error<F: Real>(len: usize) -> f64 {
    let unit = if size_of::<F>() == 8 {
        f64::EPSILON / 2.0
    } else {
        f32::EPSILON as f64 / 2.0
    };
    unit * (FFT_ERROR_UNITS * (len.max(1) as f64).log2() + 2.0)
}

/// `C` of [`fft_error`].
pub const FFT_ERROR_UNITS: f64 = 0.75;

/// Whether the FFT method keeps `accuracy` for a product of `outputs` outputs of `F`.
pub(super) fn keeps<F: Real>(accuracy: Accuracy, outputs: usize) -> bool {
    match accuracy {
        Accuracy::PerOutput => false,
        Accuracy::OfMass(tol) => {
            let len = fft_len(outputs);
            len <= MAX_FFT_LEN && fft_error::<F>(len) <= tol
        }
    }
}

/// Whether the FFT takes less time than the band kernel for a product of lengths `m` and `n`,
/// by a model of both fitted to CUDA-event times on the H200 (`results/convolve.md`): the band
/// kernel's time grows with `m · n` (1.0e7 multiply-adds a µs in f32, 5.7e6 in f64, after 8
/// µs), the FFT's with the transform length after a fixed 30 µs (f32) or 60 µs (f64), which
/// covers its slowest small lengths (32768: 31 µs f32, 60 µs f64, where cuFFT's algorithm is
/// slower than at 131072). They cross near m = n = 15000 in f32 and 18000 in f64; below, the
/// band kernel is at most a few per cent slower where the FFT would win.
pub(super) fn pays<F: Real>(m: usize, n: usize) -> bool {
    let (rate, fixed, per_us) = if size_of::<F>() == 8 {
        (5.7e6, 60.0, 1.5e4)
    } else {
        (1.0e7, 30.0, 2.5e4)
    };
    let band = 8.0 + (m as f64) * (n as f64) / rate;
    let fft = fixed + fft_len(m + n - 1) as f64 / per_us;
    fft < band
}

/// Whether `d` can run the FFT method: a GPU whose process can load cuFFT.
pub(super) fn ready(d: &Device) -> bool {
    match d {
        #[cfg(feature = "cuda")]
        Device::Gpu(_) => crate::runtime::gpu::fft_present(),
        _ => false,
    }
}

/// Runs one forward `product` of unit-stride operands by FFT into its unit-stride `target`.
#[cfg_attr(not(feature = "cuda"), allow(unused_variables))]
pub(super) fn run<F: Real>(
    d: &Device,
    inputs: &[&DeviceBuffer<F>],
    outputs: &mut [&mut DeviceBuffer<F>],
    (product, target): (Product, Target),
) -> Result<()> {
    let (a, b) = (product.a, product.b);
    let cannot = |what| {
        Err(Error::MethodCannot {
            method: format!("{:?}", Method::Fft),
            what,
        })
    };
    let forward = product.lo == 0 && product.len == a.span.len + b.span.len - 1;
    if !forward || a.reversed || b.reversed {
        return cannot("compute gradients or windows of a product");
    }
    if a.span.stride != 1 || b.span.stride != 1 || target.span.stride != 1 {
        return cannot("read or write strided spans");
    }
    let len = fft_len(product.len);
    if len > MAX_FFT_LEN {
        return Err(Error::TooLong {
            what: "FFT transform",
            len: len as u64,
            max: MAX_FFT_LEN as u64,
        });
    }
    match d {
        #[cfg(feature = "cuda")]
        Device::Gpu(g) => on_gpu(d, g, inputs, outputs, (product, target)),
        _ => cannot("run without a GPU (cuFFT transforms it)"),
    }
}

/// [`run`] on GPU `g` (device `d`), after its checks.
#[cfg(feature = "cuda")]
fn on_gpu<F: Real>(
    d: &Device,
    g: &Gpu,
    inputs: &[&DeviceBuffer<F>],
    outputs: &mut [&mut DeviceBuffer<F>],
    (product, target): (Product, Target),
) -> Result<()> {
    let (a, b) = (product.a, product.b);
    let size = size_of::<F>();
    let len = fft_len(product.len);
    let bins = len / 2 + 1;
    // The workspace: the two signals (`2 · len` reals), then the two spectra (`2 · bins`
    // complex values, aligned as complex values since `2 · len` reals are).
    let (bytes, spectra_at) = ((2 * len + 4 * bins) * size, (2 * len * size) as u64);
    let plans = g.real_fft(len, size == 8, bytes)?;
    let max_blocks = BLOCKS_PER_SM * u64::from(d.limits().launch.multiprocessors);
    let product_of = |spectra: *mut F| Spectra {
        spectra,
        bins: bins as u64,
        scale: F::from_f64(1.0 / len as f64).to_bits64(),
    };
    let launch_shape = shape(bins as u64, max_blocks);
    // The kernels' module loads before any capture begins (loading is not captured).
    g.area(Area::Convolve)?;
    let mut staged = plans.lock(g, bytes, (0, spectra_at), |stream, at| {
        // SAFETY: `at` holds the two spectra, `4 · bins` elements, in the plan's workspace.
        unsafe { g.launch_on::<F::FftProduct>(stream, launch_shape, product_of(at as *mut F)) }
    })?;
    let mut fresh = None;
    let (work, graph) = match &mut *staged {
        Some(Staged { work, graph }) => (work, Some(&*graph)),
        None => (fresh.insert(d.workspace::<u8>(bytes)?), None),
    };
    let mut bind = d.bind();
    let pad = Pad {
        p: bind.read(inputs[a.input])?.wrapping_add(a.span.offset),
        m: a.span.len as u64,
        q: bind.read(inputs[b.input])?.wrapping_add(b.span.offset),
        n: b.span.len as u64,
        padded: bind.write(work)?.cast(),
        len: len as u64,
    };
    bind.launch::<F::FftPad>(shape(len as u64, max_blocks), pad)?;
    match graph {
        Some(graph) => plans.replay(g, graph)?,
        None => {
            let signals = work.kernel_ptr() as u64;
            // SAFETY: `work` holds both parts at these sizes and lives past the transforms
            // (freed in stream order).
            unsafe { plans.forward(g, signals, signals + spectra_at)? };
            let mut bind = d.bind();
            let spectra = bind.write(work)?.wrapping_add(spectra_at as usize).cast();
            bind.launch::<F::FftProduct>(launch_shape, product_of(spectra))?;
            // SAFETY: as above.
            unsafe { plans.inverse(g, signals + spectra_at, signals)? };
        }
    }
    let mut bind = d.bind();
    let copy = CopyBytes {
        src: bind.read(work)?,
        dst: bind
            .write(outputs[target.output])?
            .wrapping_add(target.span.offset)
            .cast(),
        bytes: (product.len * size) as u64,
    };
    let copy_shape = d.cap_to_resident::<copy_vec128>(copy.plan(), 1)?;
    let queued = bind.launch::<copy_vec128>(copy_shape, copy);
    // Plans past the cache limit drop when this call returns; their graph, work areas and
    // workspace must outlive the work queued on them.
    if !plans.kept() {
        g.synchronize()?;
    }
    queued
}
