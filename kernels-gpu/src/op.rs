//! The operators the warp, block and device primitives reduce and scan with, and the values
//! they carry.
//!
//! As in CUB, a primitive takes the operator as an argument: an identity and an associative
//! combine. [`Sum`] is the one the scans and reductions of the grid area use; [`ArgMin`]
//! (the nearest unit of a self-organizing map) and [`Moments`] (Chan's combine of count, mean
//! and squared deviations) carry values of several words, and a pair of operators combines
//! pairs component by component. A value crosses a warp shuffle or a shared-memory slot one
//! 32-bit word at a time ([`Words`]), so a primitive over any such value compiles to the
//! shuffles a hand-written one would (for [`Sum`] over the grid area's numbers, to the same PTX
//! as before the primitives took operators).

use crate::num::Element;

/// A value made of 32-bit words, as it crosses a warp shuffle or a tile status word.
pub trait Words: Copy {
    /// `self` with each 32-bit word `w` replaced by `f(w)`, in a fixed order (low word first),
    /// so that lanes exchanging values word by word reassemble the same value.
    fn map_words(self, f: impl FnMut(u32) -> u32) -> Self;
}

impl<T: Element> Words for T {
    #[inline(always)]
    fn map_words(self, mut f: impl FnMut(u32) -> u32) -> Self {
        let bits = self.to_bits64();
        let lo = f(bits as u32) as u64;
        if size_of::<T>() == 4 {
            T::from_bits64(lo)
        } else {
            let hi = f((bits >> 32) as u32) as u64;
            T::from_bits64(lo | hi << 32)
        }
    }
}

impl<A: Words, B: Words> Words for (A, B) {
    #[inline(always)]
    fn map_words(self, mut f: impl FnMut(u32) -> u32) -> Self {
        (self.0.map_words(&mut f), self.1.map_words(&mut f))
    }
}

/// An associative combine with its identity: `combine(identity(), x) == x` and
/// `combine(a, combine(b, c)) == combine(combine(a, b), c)` (for floats, up to rounding).
///
/// Primitives combine in a fixed order (lower lanes, warps and tiles on the left), so an
/// operator need not be commutative and results repeat bit for bit.
pub trait Operator<T>: Copy {
    /// Whether `combine(a, b)` and `combine(b, a)` give the same bits; primitives then skip
    /// keeping the order of their operands.
    const COMMUTATIVE: bool = false;
    /// The identity of [`Operator::combine`]; what missing elements count as.
    fn identity(self) -> T;
    /// `a` then `b`, combined.
    fn combine(self, a: T, b: T) -> T;
}

/// Two operators side by side over pairs, component by component: reduces or scans two values
/// in one pass, so that each round's shuffles of both are issued together (as a hand-written
/// loop over both would) rather than one whole reduction after the other.
impl<T, U, A: Operator<T>, B: Operator<U>> Operator<(T, U)> for (A, B) {
    const COMMUTATIVE: bool = A::COMMUTATIVE && B::COMMUTATIVE;
    #[inline(always)]
    fn identity(self) -> (T, U) {
        (self.0.identity(), self.1.identity())
    }
    #[inline(always)]
    fn combine(self, a: (T, U), b: (T, U)) -> (T, U) {
        (self.0.combine(a.0, b.0), self.1.combine(a.1, b.1))
    }
}

/// Addition ([`Element::add`]): wrapping for integers, IEEE for floats (commutative bit for bit
/// on numbers; NaN payloads may differ).
#[derive(Clone, Copy, Debug, Default)]
pub struct Sum;

impl<T: Element> Operator<T> for Sum {
    const COMMUTATIVE: bool = true;
    #[inline(always)]
    fn identity(self) -> T {
        T::ZERO
    }
    #[inline(always)]
    fn combine(self, a: T, b: T) -> T {
        a.add(b)
    }
}

/// The minimum ([`Element::lesser`]: NaN wins, -0 below +0), identity the greatest value.
#[derive(Clone, Copy, Debug, Default)]
pub struct Min;

impl<T: Element> Operator<T> for Min {
    const COMMUTATIVE: bool = true;
    #[inline(always)]
    fn identity(self) -> T {
        T::HIGHEST
    }
    #[inline(always)]
    fn combine(self, a: T, b: T) -> T {
        a.lesser(b)
    }
}

/// The maximum ([`Element::greater`]), identity the least value.
#[derive(Clone, Copy, Debug, Default)]
pub struct Max;

impl<T: Element> Operator<T> for Max {
    const COMMUTATIVE: bool = true;
    #[inline(always)]
    fn identity(self) -> T {
        T::LOWEST
    }
    #[inline(always)]
    fn combine(self, a: T, b: T) -> T {
        a.greater(b)
    }
}

/// The smallest value and its index, `(value, index)`: ties go to the smaller index and NaNs
/// rank above every number, so the result does not depend on the order of combination. The
/// identity is `(+inf, u32::MAX)`.
#[derive(Clone, Copy, Debug, Default)]
pub struct ArgMin;

macro_rules! arg_min {
    ($($f:ty),*) => {$(
        impl Operator<($f, u32)> for ArgMin {
            const COMMUTATIVE: bool = true;
            #[inline(always)]
            fn identity(self) -> ($f, u32) {
                (<$f>::INFINITY, u32::MAX)
            }
            #[inline(always)]
            fn combine(self, a: ($f, u32), b: ($f, u32)) -> ($f, u32) {
                // Order by (is NaN, value, index): NaNs last, ties to the smaller index.
                let b_first = match (a.0.is_nan(), b.0.is_nan()) {
                    (false, false) => b.0 < a.0 || (b.0 == a.0 && b.1 < a.1),
                    (nan_a, nan_b) => nan_a && (!nan_b || b.1 < a.1),
                };
                if b_first { b } else { a }
            }
        }
    )*};
}
arg_min!(f32, f64);

/// Count, mean and sum of squared deviations from the mean (`m2`) of some values: the
/// variance is `m2 / count` (or `m2 / (count - 1)`). Combined by Chan, Golub and LeVeque's
/// pairwise update, which stays accurate where the sum of squares would cancel. The count is
/// exact up to 2^32 - 1 values per partial.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct Moments<F> {
    /// Values seen.
    pub count: u32,
    /// Their mean (0 when there are none).
    pub mean: F,
    /// Sum of squared deviations from `mean`.
    pub m2: F,
}

/// Chan's combine of [`Moments`].
#[derive(Clone, Copy, Debug, Default)]
pub struct MomentsCombine;

macro_rules! moments {
    ($($f:ty),*) => {$(
        impl Moments<$f> {
            /// The moments of the single value `x`.
            #[inline(always)]
            pub fn of(x: $f) -> Self {
                Moments { count: 1, mean: x, m2: 0.0 }
            }
        }

        impl Words for Moments<$f> {
            #[inline(always)]
            fn map_words(self, mut f: impl FnMut(u32) -> u32) -> Self {
                Moments {
                    count: f(self.count),
                    mean: self.mean.map_words(&mut f),
                    m2: self.m2.map_words(&mut f),
                }
            }
        }

        impl Operator<Moments<$f>> for MomentsCombine {
            #[inline(always)]
            fn identity(self) -> Moments<$f> {
                Moments { count: 0, mean: 0.0, m2: 0.0 }
            }
            #[inline(always)]
            fn combine(self, a: Moments<$f>, b: Moments<$f>) -> Moments<$f> {
                let count = a.count + b.count;
                if count == 0 {
                    return a;
                }
                let (na, nb, n) = (a.count as $f, b.count as $f, count as $f);
                let delta = b.mean - a.mean;
                Moments {
                    count,
                    mean: a.mean + delta * (nb / n),
                    m2: a.m2 + b.m2 + delta * delta * (na * nb / n),
                }
            }
        }
    )*};
}
moments!(f32, f64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_map_in_order() {
        let v = (
            Moments {
                count: 7,
                mean: 1.5f64,
                m2: -2.0,
            },
            9u32,
        );
        let mut seen = [0u32; 6];
        let mut k = 0;
        let same = v.map_words(|w| {
            seen[k] = w;
            k += 1;
            w
        });
        assert_eq!((same, k), (v, 6));
        assert_eq!(seen[0], 7);
        assert_eq!(seen[1] as u64 | (seen[2] as u64) << 32, 1.5f64.to_bits());
        assert_eq!(seen[5], 9);
        assert_eq!(u64::MAX.map_words(|w| w >> 1), 0x7fff_ffff_7fff_ffff);
    }

    #[test]
    fn arg_min_prefers_smaller_value_then_index() {
        let op = ArgMin;
        assert_eq!(op.combine((2.0f32, 1), (1.0, 5)), (1.0, 5));
        assert_eq!(op.combine((1.0f32, 5), (1.0, 3)), (1.0, 3));
        assert_eq!(op.combine(op.identity(), (3.0f64, 0)), (3.0, 0));
        assert_eq!(op.combine((f32::NAN, 0), (4.0, 2)), (4.0, 2));
        assert_eq!(op.combine((4.0f32, 2), (f32::NAN, 0)), (4.0, 2));
    }

    #[test]
    fn pairs_combine_component_by_component() {
        let op = (Sum, Min);
        assert_eq!(op.identity(), (0u32, f32::INFINITY));
        assert_eq!(op.combine((2u32, 3.0f32), (5, -1.0)), (7, -1.0));
        const { assert!(<(Sum, Min) as Operator<(u32, f32)>>::COMMUTATIVE) };
        const { assert!(!<(Sum, MomentsCombine) as Operator<(u32, Moments<f64>)>>::COMMUTATIVE) };
    }

    #[test]
    fn moments_combine_matches_two_pass() {
        let xs = [1.0f64, 4.0, 4.5, -2.0, 10.0, 3.25, 0.5];
        let op = MomentsCombine;
        // Left and right halves combined, against the two-pass formula.
        let fold = |s: &[f64]| {
            s.iter()
                .fold(op.identity(), |m, &x| op.combine(m, Moments::<f64>::of(x)))
        };
        let all = op.combine(fold(&xs[..3]), fold(&xs[3..]));
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        let m2: f64 = xs.iter().map(|x| (x - mean) * (x - mean)).sum();
        assert_eq!(all.count, 7);
        assert!((all.mean - mean).abs() < 1e-12 && (all.m2 - m2).abs() < 1e-10);
        assert_eq!(op.combine(op.identity(), all), all);
        assert_eq!(op.combine(all, op.identity()), all);
    }
}
