//! The two kernels of the FFT method around cuFFT's transforms (the host's
//! `warpkit::convolve::Method::Fft`): [`pad`] copies both vectors into one buffer of two
//! zero-padded signals of the transform's length, so that one batched real-to-complex plan
//! transforms both in one call; [`multiply`] replaces the first spectrum by the product of the
//! two, scaled by `1 / len` (cuFFT's inverse is unnormalized), for the complex-to-real
//! inverse. Each is a grid-stride loop over its elements, so any 1D grid covers them: the host
//! sizes it to the device, not to the data.
//!
//! The scale multiplies the first factor before the product, `(s·a)·b`, one rounding more than
//! the product itself, the same count as scaling the output afterwards, with no launch for it.

use super::Real;
use crate::launch::LaunchShape;
use crate::simt::{global_x, grid_threads_x};

/// Threads per block of both kernels.
pub const THREADS: u32 = 256;

own_kernel! {
    /// Parameters of [`pad`]: `p` (`m` elements) and `q` (`n`) copied into `padded`, two
    /// signals of `len` elements each, the rest of each signal zeros.
    pub struct Pad<F: Real> {
        #[len(m)]
        pub p: *const F,
        pub m: u64,
        #[len(n)]
        pub q: *const F,
        pub n: u64,
        /// `2 · len` elements: `p` and its zeros, then `q` and its zeros.
        #[len(2 * u128::from(len))]
        pub padded: *mut F,
        pub len: u64,
    }
    check |p, shape| m <= len && n <= len && shape.is_1d();
    /// The padding, f32 and f64.
    fn pad => convolve_fft_pad_f32<f32>, convolve_fft_pad_f64<f64>;
}

own_kernel! {
    /// Parameters of [`multiply`]: two spectra of `bins` complex values each, one after the
    /// other, as `(re, im)` pairs; the first becomes their product times the scale.
    pub struct Spectra<F: Real> {
        #[len(4 * u128::from(bins))]
        pub spectra: *mut F,
        pub bins: u64,
        /// The scale's bits ([`Element::to_bits64`](crate::num::Element::to_bits64)).
        pub scale: u64,
    }
    check |p, shape| shape.is_1d();
    /// The spectra's product, f32 and f64.
    fn multiply => convolve_fft_product_f32<f32>, convolve_fft_product_f64<f64>;
}

/// A 1D grid of [`THREADS`]-thread blocks for `work` elements, at most `max_blocks` of them.
pub const fn shape(work: u64, max_blocks: u64) -> LaunchShape {
    let blocks = work.div_ceil(THREADS as u64);
    let blocks = if blocks < max_blocks { blocks } else { max_blocks };
    LaunchShape::linear(if blocks == 0 { 1 } else { blocks }, THREADS, 0)
}

/// Writes `padded[i] = p[i]` for `i < m` and `padded[len + i] = q[i]` for `i < n`, zeros at
/// every other index below `2 · len`.
///
/// # Safety
/// `p` holds `m` elements, `q` holds `n`, `padded` `2 · len`; `m, n <= len`.
pub unsafe fn pad<F: Real>(a: Pad<F>) {
    let mut i = global_x();
    while i < a.len {
        // SAFETY: `i < len`, and `i < m` (`n`) before `p` (`q`) is read (the contract).
        unsafe {
            let x = if i < a.m { *a.p.add(i as usize) } else { F::ZERO };
            let y = if i < a.n { *a.q.add(i as usize) } else { F::ZERO };
            *a.padded.add(i as usize) = x;
            *a.padded.add((a.len + i) as usize) = y;
        }
        i += grid_threads_x();
    }
}

/// Writes `s[k] = (scale · s[k]) · s[bins + k]` for each complex bin `k < bins`.
///
/// # Safety
/// `spectra` holds `4 · bins` elements.
pub unsafe fn multiply<F: Real>(a: Spectra<F>) {
    let scale = F::from_bits64(a.scale);
    let mut k = global_x();
    while k < a.bins {
        let (x, y) = (2 * k as usize, 2 * (a.bins + k) as usize);
        // SAFETY: `x + 1 < 2 · bins` and `y + 1 < 4 · bins` (the contract).
        unsafe {
            let (xr, xi) = (*a.spectra.add(x) * scale, *a.spectra.add(x + 1) * scale);
            let (yr, yi) = (*a.spectra.add(y), *a.spectra.add(y + 1));
            *a.spectra.add(x) = xr * yr - xi * yi;
            *a.spectra.add(x + 1) = (xr * yi).add(xi * yr);
        }
        k += grid_threads_x();
    }
}
