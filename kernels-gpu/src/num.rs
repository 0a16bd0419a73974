//! The element types the scans and reductions accept, and the one addition they all use.
//!
//! Integers add with wrapping (as CUB and `Iterator::sum` in release builds would), floats with
//! IEEE addition. The host's CPU backend uses the same trait, so both sides agree on overflow.

/// A 4- or 8-byte number with an associative addition and its identity, and a minimum and
/// maximum that give the same bits in any order of combination.
pub trait Element: Copy + PartialEq + Send + Sync + 'static {
    /// The identity of [`Element::add`].
    const ZERO: Self;
    /// The greatest value (`+inf` for floats): the identity of [`Element::lesser`].
    const HIGHEST: Self;
    /// The least value (`-inf` for floats): the identity of [`Element::greater`].
    const LOWEST: Self;
    /// Lower-case type name, as used in kernel names (`scan_exclusive_u32`).
    const NAME: &'static str;
    /// Addition: wrapping for integers, IEEE for floats.
    fn add(self, other: Self) -> Self;
    /// The raw bits, zero-extended to 64; how values cross warp shuffles and tile status words.
    fn to_bits64(self) -> u64;
    /// Inverse of [`Element::to_bits64`].
    fn from_bits64(bits: u64) -> Self;
    /// The smaller value. For floats: NaN (the canonical one) when either is NaN, as NumPy's
    /// and PyTorch's `min` give, and -0 below +0, so that the result does not depend on order.
    fn lesser(self, other: Self) -> Self;
    /// The greater value, with NaN and signed zeros as in [`Element::lesser`] (+0 above -0).
    fn greater(self, other: Self) -> Self;
}

macro_rules! int_element {
    ($($t:ty => $bits:ty),*) => {$(
        impl Element for $t {
            const ZERO: Self = 0;
            const HIGHEST: Self = <$t>::MAX;
            const LOWEST: Self = <$t>::MIN;
            const NAME: &'static str = stringify!($t);
            #[inline(always)]
            fn add(self, other: Self) -> Self { self.wrapping_add(other) }
            #[inline(always)]
            fn lesser(self, other: Self) -> Self { if other < self { other } else { self } }
            #[inline(always)]
            fn greater(self, other: Self) -> Self { if other > self { other } else { self } }
            #[inline(always)]
            fn to_bits64(self) -> u64 { self as $bits as u64 }
            #[inline(always)]
            fn from_bits64(bits: u64) -> Self { bits as $bits as $t }
        }
    )*};
}
int_element!(u32 => u32, u64 => u64, i32 => u32, i64 => u64);

macro_rules! float_element {
    ($($t:ty => $bits:ty),*) => {$(
        impl Element for $t {
            const ZERO: Self = 0.0;
            const HIGHEST: Self = <$t>::INFINITY;
            const LOWEST: Self = <$t>::NEG_INFINITY;
            const NAME: &'static str = stringify!($t);
            #[inline(always)]
            fn add(self, other: Self) -> Self { self + other }
            #[inline(always)]
            fn lesser(self, other: Self) -> Self {
                // Selects only, no branch: a loop over it (a column's running minimum) keeps
                // its loads in flight, where branches held each load until the one before had
                // been compared (the column summaries took twice as long). Equal values, ±0
                // among them, give the OR of their bits: -0 when either is.
                let least = if other < self { other } else { self };
                let least = if other == self { <$t>::from_bits(self.to_bits() | other.to_bits()) } else { least };
                if self.is_nan() | other.is_nan() { <$t>::NAN } else { least }
            }
            #[inline(always)]
            fn greater(self, other: Self) -> Self {
                // As `lesser`; the AND of equal values' bits: +0 when either is.
                let most = if other > self { other } else { self };
                let most = if other == self { <$t>::from_bits(self.to_bits() & other.to_bits()) } else { most };
                if self.is_nan() | other.is_nan() { <$t>::NAN } else { most }
            }
            #[inline(always)]
            fn to_bits64(self) -> u64 { self.to_bits() as u64 }
            #[inline(always)]
            fn from_bits64(bits: u64) -> Self { <$t>::from_bits(bits as $bits) }
        }
    )*};
}
float_element!(f32 => u32, f64 => u64);

#[cfg(test)]
mod tests {
    use super::Element;

    #[test]
    fn integers_wrap_and_bits_round_trip() {
        assert_eq!(u32::MAX.add(2), 1);
        assert_eq!(u64::MAX.add(1), 0);
        for v in [0.0f32, -1.5, f32::MAX, f32::MIN_POSITIVE] {
            assert_eq!(f32::from_bits64(v.to_bits64()), v);
        }
        assert_eq!(f64::from_bits64((-2.25f64).to_bits64()), -2.25);
        assert_eq!(u64::from_bits64(u64::MAX.to_bits64()), u64::MAX);
    }

    #[test]
    fn min_and_max_give_the_same_bits_in_either_order() {
        let values = [
            0.0f64,
            -0.0,
            1.5,
            -2.0,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        for &a in &values {
            for &b in &values {
                assert_eq!(a.lesser(b).to_bits(), b.lesser(a).to_bits(), "min({a}, {b})");
                assert_eq!(a.greater(b).to_bits(), b.greater(a).to_bits(), "max({a}, {b})");
            }
            assert_eq!(a.lesser(f64::HIGHEST).to_bits(), a.to_bits(), "identity of min");
            assert_eq!(a.greater(f64::LOWEST).to_bits(), a.to_bits(), "identity of max");
        }
        assert!(1.0f32.lesser(f32::NAN).is_nan() && f32::NAN.greater(1.0).is_nan());
        assert_eq!((-0.0f32).greater(0.0).to_bits(), 0.0f32.to_bits());
        assert_eq!(3u32.lesser(5).greater(4), 4);
        assert_eq!((u64::HIGHEST, u64::LOWEST), (u64::MAX, 0));
    }
}
