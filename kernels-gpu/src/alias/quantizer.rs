//! Quantizing weights: each weight to an integer in units of `avg / 2^31`, so that every later
//! step of the construction is exact integer arithmetic (see the [area docs](super)). A multiply
//! per weight (two where the total is below `N·2^-993`, about 1e-299 to 1e-289); no memory
//! traffic of its own.

/// Quantized weights are in units of `avg / 2^UNIT_BITS`: one row holds `N·2^31` units in
/// total, and Q < 2^63 for every N < 2^32.
pub const UNIT_BITS: u32 = 31;

/// How to quantize weights of one total over `n` items: `w · N·2^31 / W`, rounded to nearest
/// ([`Quantizer::quantize`]). The same bits on every device and the CPU backend.
#[derive(Clone, Copy)]
#[repr(C)]
pub struct Quantizer {
    /// `-e` for a total `W = m·2^e` (`0.5 <= m < 1`): taking out the total's binary exponent
    /// exactly keeps the factors finite for any positive finite total (weights of 1e-300 have a
    /// scale of 2^1000 and more).
    pub shift: i32,
    /// `N·2^31 / m`.
    pub scale: f64,
    /// `scale · 2^shift` where that is a normal double (totals from `N·2^-993` up), else 0.
    /// Multiplying by it gives the bits of scaling by `2^shift` then by `scale` (below).
    pub factor: f64,
}

impl Quantizer {
    /// The quantizer of weights of total `total` over `n` items; `None` for a total that is not
    /// positive and finite.
    pub fn new(n: u64, total: f64) -> Option<Quantizer> {
        if !(total > 0.0 && total.is_finite()) {
            return None;
        }
        let (mantissa, exponent) = libm::frexp(total); // total = mantissa · 2^exponent
        let (shift, scale) = (-exponent, n as f64 * (1u64 << UNIT_BITS) as f64 / mantissa);
        let factor = libm::scalbn(scale, shift);
        let factor = if factor.is_normal() { factor } else { 0.0 };
        Some(Quantizer { shift, scale, factor })
    }

    /// The quantized weight of `w` (at most `W`; rounded to nearest, the scale's own rounding
    /// multiplying every item alike, so it cancels in the probabilities). At most `N·2^31`.
    ///
    /// With `factor` normal, `w · factor` is the one rounding of the exact product, as is
    /// `scalbn(w, shift) · scale` wherever the scaling is exact; where it is not, `w · 2^shift`
    /// lies below 2^-1022 and both products below 2^-958, which round to 0 alike.
    #[inline(always)]
    pub fn quantize(&self, w: f64) -> u64 {
        let scaled = if self.factor != 0.0 {
            w * self.factor
        } else {
            libm::scalbn(w, self.shift) * self.scale
        };
        (scaled + 0.5) as u64
    }
}

#[cfg(not(target_arch = "nvptx64"))]
// SAFETY: a shift and two factors, numbers only.
unsafe impl crate::kernel::Plain for Quantizer {}
