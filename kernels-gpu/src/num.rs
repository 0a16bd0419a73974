//! The element types the scans and reductions accept, and the one addition they all use.
//!
//! Integers add with wrapping (as CUB and `Iterator::sum` in release builds would), floats with
//! IEEE addition. The host's CPU backend uses the same trait, so both sides agree on overflow.

/// A 4- or 8-byte number with an associative addition and its identity.
pub trait Element: Copy + PartialEq + Send + Sync + 'static {
    /// The identity of [`Element::add`].
    const ZERO: Self;
    /// Lower-case type name, as used in kernel names (`scan_exclusive_u32`).
    const NAME: &'static str;
    /// Addition: wrapping for integers, IEEE for floats.
    fn add(self, other: Self) -> Self;
    /// The raw bits, zero-extended to 64; how values cross warp shuffles and tile status words.
    fn to_bits64(self) -> u64;
    /// Inverse of [`Element::to_bits64`].
    fn from_bits64(bits: u64) -> Self;
}

macro_rules! int_element {
    ($($t:ty),*) => {$(
        impl Element for $t {
            const ZERO: Self = 0;
            const NAME: &'static str = stringify!($t);
            #[inline(always)]
            fn add(self, other: Self) -> Self { self.wrapping_add(other) }
            #[inline(always)]
            fn to_bits64(self) -> u64 { self as u64 }
            #[inline(always)]
            fn from_bits64(bits: u64) -> Self { bits as $t }
        }
    )*};
}
int_element!(u32, u64);

macro_rules! float_element {
    ($($t:ty => $bits:ty),*) => {$(
        impl Element for $t {
            const ZERO: Self = 0.0;
            const NAME: &'static str = stringify!($t);
            #[inline(always)]
            fn add(self, other: Self) -> Self { self + other }
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
}
