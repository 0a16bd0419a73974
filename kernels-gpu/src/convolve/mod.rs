//! Sums of discrete random variables (after the article "Sums of Discrete Random Variables as Banded Matrix Products"): the full convolution `r = band(p, n) q` of two
//! probability vectors, `r[i] = Σ_j p[i − j] q[j]`, summed directly so every term stays
//! non-negative and small tail probabilities keep their relative accuracy (an FFT's rounding
//! error is relative to the largest entry instead).
//!
//! [`seed`] holds the article's five kernels (v0 to v4) as entry points of their own, for
//! comparison; [`band`] the kernel the host runs: a block computes a tile of outputs over a
//! slice of the inner index, each thread eight consecutive outputs whose window of `p` slides
//! through registers, fed from shared memory by 128-bit loads. The same kernel computes the
//! gradients, which are correlations: a convolution with one input reversed (a negative
//! stride), of which only a window of outputs is wanted.

pub mod band;
#[cfg(not(target_arch = "nvptx64"))]
mod band_check;
pub mod fft;
pub mod job;
#[cfg(not(target_arch = "nvptx64"))]
pub mod kernels;
pub mod seed;

use crate::num::Element;
use crate::simt::math::FastMath;
use crate::simt::shared::{Quad, SharedSlice};

/// An element type as kept in memory (`Self`) against the [`Real`] type it is summed in: f32
/// and f64 in themselves, and f32 in f64 for sums that keep f64's precision.
pub trait Stored<F>: Copy {
    /// The value in the summed type, exactly.
    fn widen(self) -> F;
    /// `x` rounded to nearest.
    fn narrow(x: F) -> Self;
}

impl<F: Real> Stored<F> for F {
    #[inline(always)]
    fn widen(self) -> F {
        self
    }

    #[inline(always)]
    fn narrow(x: F) -> F {
        x
    }
}

impl Stored<f64> for f32 {
    #[inline(always)]
    fn widen(self) -> f64 {
        self as f64
    }

    #[inline(always)]
    fn narrow(x: f64) -> f32 {
        x as f32
    }
}

/// The element types convolved: f32 and f64.
pub trait Real:
    Element + FastMath + PartialOrd + core::ops::Mul<Output = Self> + core::ops::Sub<Output = Self>
{
    /// Four f32 or two f64.
    type Lanes: Copy;
    /// The exponent field of the bits ([`Element::to_bits64`]): all ones for infinities and NaN.
    const EXPONENT: u64;
    /// Whether the slice sums of partial sums of this type load eight slices before adding
    /// them (see [`crate::policy::convolve::BATCHED_SLICES_F32`]).
    const BATCHED_SLICES: bool;

    /// Elements `at .. at + 8` of `s` read as 16-byte vectors.
    ///
    /// # Safety
    /// `at` is a multiple of 8 and `at + 8 <= 4 * s.len()` (f32) or `2 * s.len()` (f64); the
    /// slice was carved 16-byte aligned.
    unsafe fn eight(s: &SharedSlice<Quad<Self::Lanes>>, at: u32) -> [Self; 8];
}

impl Real for f32 {
    type Lanes = [f32; 4];
    const EXPONENT: u64 = 0x7f80_0000;
    const BATCHED_SLICES: bool = crate::policy::convolve::BATCHED_SLICES_F32;

    #[inline(always)]
    unsafe fn eight(s: &SharedSlice<Quad<[f32; 4]>>, at: u32) -> [f32; 8] {
        // SAFETY: quads `at / 4` and `at / 4 + 1` are in range (the caller's contract).
        let (a, b) = unsafe { (s.get_unchecked(at / 4).0, s.get_unchecked(at / 4 + 1).0) };
        [a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]]
    }
}

impl Real for f64 {
    type Lanes = [f64; 2];
    const EXPONENT: u64 = 0x7ff0_0000_0000_0000;
    const BATCHED_SLICES: bool = crate::policy::convolve::BATCHED_SLICES_F64;

    #[inline(always)]
    unsafe fn eight(s: &SharedSlice<Quad<[f64; 2]>>, at: u32) -> [f64; 8] {
        let q = at / 2;
        // SAFETY: quads `at / 2 .. at / 2 + 4` are in range (the caller's contract).
        let [a, b, c, d] = unsafe {
            [
                s.get_unchecked(q).0,
                s.get_unchecked(q + 1).0,
                s.get_unchecked(q + 2).0,
                s.get_unchecked(q + 3).0,
            ]
        };
        [a[0], a[1], b[0], b[1], c[0], c[1], d[0], d[1]]
    }
}
