//! One-pass moments (Chan et al.'s pairwise combine): count, mean, sum of squared deviations, minimum and maximum of
//! a vector in one read.
//!
//! Each thread folds its grid-stride share into shifted sums: the shift `K` is its first
//! element, and it keeps `Σ (x − K)` and `Σ (x − K)²`, two additions and an FMA an element, no
//! division. Because `K` is one of the values it sums, `m2 >= (K − mean)²`, so turning the
//! sums into a mean and `m2` loses at most a factor of the thread's count to cancellation
//! (under 1e-13 relative at 1e8 elements, some 750 a thread), and data far from zero (1e9 plus
//! unit noise) is the easy case: `x − K` is the noise. Threads, warps, blocks and the grid's
//! partials then combine by Chan's pairwise update on means kept as a shift and an offset
//! ([`Summarize`]). f32 input is summed in f64. [`columns`] does the same for each column of
//! a row-major matrix.

pub mod columns;
#[cfg(not(target_arch = "nvptx64"))]
pub mod kernels;

use crate::block;
use crate::grid::reduce::fold_partials;
use crate::launch::LaunchShape;
use crate::num::Element;
use crate::op::{Operator, Words};
use crate::policy::{REDUCE_BLOCK_THREADS, REDUCE_UNROLL, vector_len};
use crate::simt::math::FastMath;
use crate::simt::shared::SharedSlice;
use crate::simt::{WARP_SIZE, thread_x};

/// The moments of some values with their extremes. The mean is kept as `shift + offset`,
/// `shift` one of the values: where the data sit far from zero (1e9 plus unit noise) the
/// difference of two means, which Chan's combine squares, comes from the exact difference of
/// two shifts plus that of two small offsets, not from two rounded means at 1e9 (whose
/// rounding, 1e-7 there, would enter the variance at first order). A NaN among the values
/// makes `min` and `max` NaN; the empty summary has count 0, `min = +inf`, `max = −inf`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct Summary {
    /// Values seen.
    pub count: u32,
    /// One of them.
    pub shift: f64,
    /// Their mean less `shift`.
    pub offset: f64,
    /// The sum of their squared deviations from the mean.
    pub m2: f64,
    pub min: f64,
    pub max: f64,
}

/// Words of a [`Summary`] as the final kernel writes it: count, mean, m2, min, max (as f64).
pub const SUMMARY_WORDS: usize = 5;

impl Summary {
    /// The summary as [`SUMMARY_WORDS`] f64 (count, mean, m2, min, max), with NaN and the
    /// infinities (seen in `min` and `max`) given their IEEE meaning: any NaN makes all but the
    /// count NaN; an infinity makes the mean that infinity (NaN if both signs appear) and m2
    /// NaN. The device's shifted sums would otherwise give either depending on where the
    /// infinity fell.
    #[inline(always)]
    pub fn words(self) -> [f64; SUMMARY_WORDS] {
        let (min, max) = (self.min, self.max);
        let (mean, m2) = if min.is_nan() || max.is_nan() {
            (f64::NAN, f64::NAN)
        } else {
            match (min == f64::NEG_INFINITY, max == f64::INFINITY) {
                (false, false) => (self.shift + self.offset, self.m2),
                (true, true) => (f64::NAN, f64::NAN),
                (true, false) => (f64::NEG_INFINITY, f64::NAN),
                (false, true) => (f64::INFINITY, f64::NAN),
            }
        };
        [self.count as f64, mean, m2, min, max]
    }
}

impl Words for Summary {
    #[inline(always)]
    fn map_words(self, mut f: impl FnMut(u32) -> u32) -> Self {
        Summary {
            count: f(self.count),
            shift: self.shift.map_words(&mut f),
            offset: self.offset.map_words(&mut f),
            m2: self.m2.map_words(&mut f),
            min: self.min.map_words(&mut f),
            max: self.max.map_words(&mut f),
        }
    }
}

/// The sum of squared deviations from the mean, from sums about a point off the mean:
/// `s2 = Σ d²`, `s1 = Σ d` and `offset = s1 / n`, as `s2 − s1 · offset` (the CPU backend's
/// two-pass correction too). A sum of squares that overflowed stays +inf (the correction, at
/// most `s2`, would make it inf − inf = NaN); rounding's tiny negatives become 0; NaN stays NaN.
#[inline(always)]
pub fn corrected_m2(s2: f64, s1: f64, offset: f64) -> f64 {
    if s2 == f64::INFINITY {
        return s2;
    }
    let m2 = s2 - s1 * offset;
    if m2 < 0.0 { 0.0 } else { m2 }
}

/// Chan, Golub and LeVeque's pairwise combine of the moments, on shifted means, and the
/// extremes.
#[derive(Clone, Copy, Debug, Default)]
pub struct Summarize;

impl Operator<Summary> for Summarize {
    #[inline(always)]
    fn identity(self) -> Summary {
        Summary {
            count: 0,
            shift: 0.0,
            offset: 0.0,
            m2: 0.0,
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
        }
    }

    #[inline(always)]
    fn combine(self, a: Summary, b: Summary) -> Summary {
        if b.count == 0 {
            return a;
        }
        if a.count == 0 {
            return b;
        }
        let count = a.count + b.count;
        let (na, nb, n) = (a.count as f64, b.count as f64, count as f64);
        let delta = (b.shift - a.shift) + (b.offset - a.offset);
        Summary {
            count,
            shift: a.shift,
            offset: a.offset + delta * (nb / n),
            m2: a.m2 + b.m2 + delta * delta * (na * nb / n),
            min: a.min.lesser(b.min),
            max: a.max.greater(b.max),
        }
    }
}

/// A thread's running state: count, shift, `Σ (x − shift)`, `Σ (x − shift)²` and the extremes
/// (by [`Element::lesser`] and [`Element::greater`]: NaN wins, -0 below +0, the crate's one
/// order for the extremes whatever the order of the values). The extremes stay in the input's
/// type, exact either way: f32 data compares in f32, at twice f64's rate on the GPU.
#[derive(Clone, Copy)]
struct Shifted<T> {
    count: u32,
    shift: f64,
    s1: f64,
    s2: f64,
    min: T,
    max: T,
}

impl<T: Element + Into<f64>> Shifted<T> {
    const EMPTY: Shifted<T> = Shifted {
        count: 0,
        shift: 0.0,
        s1: 0.0,
        s2: 0.0,
        min: T::HIGHEST,
        max: T::LOWEST,
    };

    #[inline(always)]
    fn add(self, x: T) -> Shifted<T> {
        let wide: f64 = x.into();
        let shift = if self.count == 0 { wide } else { self.shift };
        let d = wide - shift;
        Shifted {
            count: self.count + 1,
            shift,
            s1: self.s1 + d,
            s2: d.fma(d, self.s2),
            min: self.min.lesser(x),
            max: self.max.greater(x),
        }
    }

    #[inline(always)]
    fn summary(self) -> Summary {
        if self.count == 0 {
            return Summarize.identity();
        }
        let offset = self.s1 / self.count as f64;
        Summary {
            count: self.count,
            shift: self.shift,
            offset,
            m2: corrected_m2(self.s2, self.s1, offset),
            min: self.min.into(),
            max: self.max.into(),
        }
    }
}

/// Dynamic shared memory of either moments kernel: a [`Summary`] a warp.
pub const SHARED_BYTES: u32 = REDUCE_BLOCK_THREADS / WARP_SIZE * size_of::<Summary>() as u32;

// The body is not named `partials`: on nvptx the entry's parameter of that name would shadow it.
own_kernel! {
    /// Parameters of [`partial_summaries`].
    pub struct Partials<T: Element> {
        /// The `n` values.
        #[len(n)]
        pub input: *const T,
        pub n: u64,
        /// One summary per block.
        #[len(shape.grid[0])]
        pub partials: *mut Summary,
    }
    check |p, shape| shape.is_linear(REDUCE_BLOCK_THREADS, SHARED_BYTES);
    /// f32 values (16-byte vectors of 4), summed in f64.
    fn partial_summaries::<f32, 4> => moments_partials_f32<f32>;
    /// f64 values (16-byte vectors of 2).
    fn partial_summaries::<f64, 2> => moments_partials_f64<f64>;
}

impl<T: Element> Partials<T> {
    /// A block of `REDUCE_BLOCK_THREADS` with [`SHARED_BYTES`] for every `REDUCE_UNROLL`
    /// 16-byte vectors a thread, at least one; the host caps the grid at the blocks that fit
    /// the device at once (the loop is grid-stride), whose partials [`Combine`] then combines.
    pub const fn plan(&self) -> LaunchShape {
        let per_block = (REDUCE_BLOCK_THREADS * REDUCE_UNROLL * vector_len(size_of::<T>())) as u64;
        let blocks = self.n.div_ceil(per_block);
        LaunchShape::linear(
            if blocks > 1 { blocks } else { 1 },
            REDUCE_BLOCK_THREADS,
            SHARED_BYTES,
        )
    }
}

/// Writes block `b`'s grid-stride share of the input's [`Summary`] to `partials[b]`, reading
/// `V`-element vectors.
///
/// # Safety
/// `input` holds `n` elements, `partials` one per block; blocks of `REDUCE_BLOCK_THREADS` with
/// [`SHARED_BYTES`] of dynamic shared memory.
#[inline(always)]
pub unsafe fn partial_summaries<T: Element + Into<f64>, const V: usize>(p: Partials<T>) {
    let Partials { input, n, partials } = p;
    // SAFETY: forwarded to the launch contract above.
    unsafe {
        fold_partials::<T, Shifted<T>, Summary, Summarize, V, 1, false>(
            input,
            n,
            partials,
            Summarize,
            Shifted::EMPTY,
            |s, _, x| s.add(x),
            Shifted::summary,
        )
    }
}

own_kernel! {
    /// Parameters of [`combine`].
    pub struct Combine {
        /// The `count` partial summaries.
        #[len(count)]
        pub partials: *const Summary,
        pub count: u64,
        /// [`SUMMARY_WORDS`] f64.
        #[len(SUMMARY_WORDS as u64)]
        pub out: *mut f64,
    }
    check |p, shape| *shape == p.plan();
    /// The combine of either input type's partials.
    fn combine => moments_combine;
}

impl Combine {
    /// One block of `REDUCE_BLOCK_THREADS` with [`SHARED_BYTES`].
    pub const fn plan(&self) -> LaunchShape {
        LaunchShape::linear(1, REDUCE_BLOCK_THREADS, SHARED_BYTES)
    }
}

/// Combines `count` partial summaries in order and writes the total to `out` as its
/// [`Summary::words`].
///
/// # Safety
/// `partials` holds `count` summaries, `out` [`SUMMARY_WORDS`] f64; one block of
/// `REDUCE_BLOCK_THREADS` with [`SHARED_BYTES`] of dynamic shared memory.
#[inline(always)]
pub unsafe fn combine(p: Combine) {
    let Combine { partials, count, out } = p;
    let t = thread_x() as u64;
    // Thread t takes a run of consecutive partials, so the block combines them in order.
    let per = count.div_ceil(REDUCE_BLOCK_THREADS as u64);
    let mut mine = Summarize.identity();
    let mut i = t * per;
    while i < count.min((t + 1) * per) {
        // SAFETY: `i < count`.
        mine = Summarize.combine(mine, unsafe { *partials.add(i as usize) });
        i += 1;
    }
    // SAFETY: the launch gives one `Summary` a warp of shared memory; the whole block is here.
    let total = unsafe {
        let scratch = SharedSlice::<Summary>::carve(0, REDUCE_BLOCK_THREADS / WARP_SIZE);
        block::reduce(mine, Summarize, scratch)
    };
    if t == 0 {
        for (k, w) in total.words().into_iter().enumerate() {
            // SAFETY: `out` holds `SUMMARY_WORDS` f64.
            unsafe { *out.add(k) = w };
        }
    }
}
