//! The math the kernels need, in f32 and f64, as methods of [`FastMath`].
//!
//! f32 uses the special-function unit's approximations (`lg2.approx`, `ex2.approx`,
//! `sin.approx`, `cos.approx`: about 2^-22 relative for log/exp near 1, absolute 2^-20.9 for
//! sin/cos in [-pi, pi], degrading outside), one or two instructions each. PTX has no f64
//! approximations, so f64 uses correctly rounded `sqrt.rn.f64` and `libm`'s portable routines
//! (within 1 ulp). Device code has no `std`, hence this module.

use core::arch::asm;

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
}

macro_rules! unary_f32 {
    ($ptx:literal, $x:expr) => {{
        let y: f32;
        // SAFETY: a register-to-register instruction with no preconditions.
        unsafe { asm!(concat!($ptx, " {y}, {x};"), y = out(reg32) y, x = in(reg32) $x, options(pure, nomem, nostack)) };
        y
    }};
}

impl FastMath for f32 {
    #[inline(always)]
    fn fast_ln(self) -> f32 {
        unary_f32!("lg2.approx.f32", self) * core::f32::consts::LN_2
    }
    #[inline(always)]
    fn fast_exp(self) -> f32 {
        unary_f32!("ex2.approx.f32", self * core::f32::consts::LOG2_E)
    }
    #[inline(always)]
    fn fast_sin(self) -> f32 {
        unary_f32!("sin.approx.f32", self)
    }
    #[inline(always)]
    fn fast_cos(self) -> f32 {
        unary_f32!("cos.approx.f32", self)
    }
    #[inline(always)]
    fn sqrt(self) -> f32 {
        unary_f32!("sqrt.rn.f32", self)
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
        let y: f64;
        // SAFETY: a register-to-register instruction with no preconditions.
        unsafe {
            asm!("sqrt.rn.f64 {y}, {x};", y = out(reg64) y, x = in(reg64) self, options(pure, nomem, nostack))
        };
        y
    }
}
