//! Quantizing weights: each weight to an integer in units of `avg / 2^31`, so that every later
//! step of the construction is exact integer arithmetic (see the [area docs](super)). A scaling
//! by a power of two and a multiply per weight; no memory traffic of its own.

/// Quantized weights are in units of `avg / 2^UNIT_BITS`: one row holds `N·2^31` units in
/// total, and Q < 2^63 for every N < 2^32.
pub const UNIT_BITS: u32 = 31;

/// How to quantize weights of total `total` over `n` items: `(shift, scale)` such that
/// `w · 2^shift · scale = w · N·2^31 / W`. The shift takes out the total's binary exponent
/// exactly, so neither factor overflows for any positive finite total (weights of 1e-300 have
/// a scale of 2^1000 and more). `None` for a total that is not positive and finite.
pub fn quantize_params(n: u64, total: f64) -> Option<(i32, f64)> {
    if !(total > 0.0 && total.is_finite()) {
        return None;
    }
    let (mantissa, exponent) = libm::frexp(total); // total = mantissa · 2^exponent
    Some((-exponent, n as f64 * (1u64 << UNIT_BITS) as f64 / mantissa))
}

/// The quantized weight of `w` (rounded to nearest; the scale's own rounding multiplies every
/// item alike and cancels in the probabilities). At most `N·2^31` since `w <= W`.
#[inline(always)]
pub fn quantize(w: f64, shift: i32, scale: f64) -> u64 {
    (libm::scalbn(w, shift) * scale + 0.5) as u64
}

/// How to quantize weights: `quantize(w, shift, scale)` (see [`quantize_params`]).
#[derive(Clone, Copy)]
#[repr(C)]
pub struct Quantizer {
    pub shift: i32,
    pub scale: f64,
}

#[cfg(not(target_arch = "nvptx64"))]
// SAFETY: a shift and a scale, numbers only.
unsafe impl crate::kernel::Plain for Quantizer {}
