//! The math the kernels need: in f32 and f64 as methods of [`FastMath`], and the integer
//! multiply whose Rust spelling compiles badly ([`mul_hi_lo`]).
//!
//! f32 uses the special-function unit's approximations (`lg2.approx`, `ex2.approx`,
//! `sin.approx`, `cos.approx`: about 2^-22 relative for log/exp near 1, absolute 2^-20.9 for
//! sin/cos in [-pi, pi], degrading outside), one or two instructions each; the emulator uses
//! the host's correctly rounded functions instead, so f32 results may differ from the GPU's in
//! the last bits. PTX has no f64 approximations, so f64 uses correctly rounded `sqrt` and
//! `libm`'s portable routines (within 1 ulp), the same code on both engines: f64 results are
//! identical. Device code has no `std`, hence this module.

use super::hw;

/// Math functions on the device.
pub trait FastMath: Copy {
    /// Natural logarithm.
    fn fast_ln(self) -> Self;
    /// e^x.
    fn fast_exp(self) -> Self;
    /// Sine (radians).
    fn fast_sin(self) -> Self;
    /// Cosine (radians).
    fn fast_cos(self) -> Self;
    /// Correctly rounded square root.
    fn sqrt(self) -> Self;
    /// `self·b + c` rounded once (one FMA instruction on both engines, the same bits).
    fn fma(self, b: Self, c: Self) -> Self;
}

impl FastMath for f32 {
    #[inline(always)]
    fn fast_ln(self) -> f32 {
        hw::lg2_approx_f32(self) * core::f32::consts::LN_2
    }
    #[inline(always)]
    fn fast_exp(self) -> f32 {
        hw::ex2_approx_f32(self * core::f32::consts::LOG2_E)
    }
    #[inline(always)]
    fn fast_sin(self) -> f32 {
        hw::sin_approx_f32(self)
    }
    #[inline(always)]
    fn fast_cos(self) -> f32 {
        hw::cos_approx_f32(self)
    }
    #[inline(always)]
    fn sqrt(self) -> f32 {
        hw::sqrt_f32(self)
    }
    #[inline(always)]
    fn fma(self, b: f32, c: f32) -> f32 {
        hw::fma_f32(self, b, c)
    }
}

impl FastMath for f64 {
    #[inline(always)]
    fn fast_ln(self) -> f64 {
        libm::log(self)
    }
    #[inline(always)]
    fn fast_exp(self) -> f64 {
        libm::exp(self)
    }
    #[inline(always)]
    fn fast_sin(self) -> f64 {
        libm::sin(self)
    }
    #[inline(always)]
    fn fast_cos(self) -> f64 {
        libm::cos(self)
    }
    #[inline(always)]
    fn sqrt(self) -> f64 {
        hw::sqrt_f64(self)
    }
    #[inline(always)]
    fn fma(self, b: f64, c: f64) -> f64 {
        hw::fma_f64(self, b, c)
    }
}

/// `v` unchanged, computed where it stands: on the GPU LLVM may not sink the computation of
/// `v` past this point to its first use. A loop that packs a result a pass (a rank and its
/// digit in one word) keeps one register a finished pass so, instead of the two or three
/// inputs LLVM would otherwise carry to the loop's end (the block ranking's 16 windows).
#[inline(always)]
pub fn pin(v: u32) -> u32 {
    hw::pin_u32(v)
}

/// The high and low words of the 64-bit product `a·b`. On the GPU one wide multiply whose
/// halves stay 32-bit registers: the plain `a as u64 * b as u64` let LLVM widen the xors
/// around it to 64 bits, twice the instructions in Philox's rounds.
#[inline(always)]
pub fn mul_hi_lo(a: u32, b: u32) -> (u32, u32) {
    hw::mul_hi_lo_u32(a, b)
}
