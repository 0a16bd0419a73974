//! Sectioned sampling (the seed's batched samplers): the table is cut into sections of
//! `section_rows` rows, one block each, and block `b` draws all the samples that fall into its
//! section, so its threads touch one small region of the table (in cache, or copied to shared
//! memory) instead of the whole table.
//!
//! How many of the `s` samples fall into each section is multinomial; as in Algorithm R it is
//! split recursively, halving the sections each level with a binomial deviate keyed by the
//! tree node, so every block finds its own count and output offset by descending from the
//! root, without communication. The deviate is exact (inversion) while
//! `min(np, n(1 − p)) < 100` and the normal approximation (skewness below 0.1) above.
//!
//! Samples come out grouped by section unless the launch asks for them shuffled: then sample
//! `t` of the grouped order goes to position `π(t)` of a keyed random permutation
//! ([`crate::rng::permute::Permutation`]), at the cost of scattered 4-byte stores.

use super::sample::{Sink, draw, pair_numbers, with_sink};
use super::sweep::{Row, Weight};
use crate::rng::philox::{counter_add, philox4x32_10};
use crate::simt::math::FastMath;
use crate::simt::shared::SharedSlice;
use crate::simt::{block_dim_x, block_x, sync_threads, thread_x};

/// The tree's random numbers use the sampling key with this mask xored in, a stream apart
/// from the samples'.
const TREE_KEY: u32 = 0x7ee5_ec71;

/// Where the exact binomial deviate gives way to the normal approximation.
const EXACT_BELOW: f64 = 100.0;

/// Two uniform numbers in (0, 1) for tree node `node`.
#[inline(always)]
fn node_uniforms(key: [u32; 2], counter: [u32; 4], node: u64) -> [f64; 2] {
    let w = philox4x32_10(counter_add(counter, node), [key[0] ^ TREE_KEY, key[1]]);
    let unit = |hi: u32, lo: u32| {
        ((((hi as u64) << 32 | lo as u64) >> 11) as f64 + 0.5) * (1.0 / (1u64 << 53) as f64)
    };
    [unit(w[0], w[1]), unit(w[2], w[3])]
}

/// A Binomial(n, p) deviate from two uniforms in (0, 1).
#[inline(always)]
pub fn binomial(n: u64, p: f64, u: [f64; 2]) -> u64 {
    let flip = p > 0.5;
    let q = if flip { 1.0 - p } else { p };
    let mean = n as f64 * q;
    let k = if q <= 0.0 || n == 0 {
        0
    } else if mean < EXACT_BELOW {
        // Inversion: walk the cumulative distribution from 0 (about `mean` steps).
        let mut pmf = (n as f64 * libm::log1p(-q)).fast_exp();
        let (mut cdf, mut k) = (pmf, 0u64);
        let ratio = q / (1.0 - q);
        while u[0] > cdf && k < n && pmf > 0.0 {
            pmf *= (n - k) as f64 / (k + 1) as f64 * ratio;
            k += 1;
            cdf += pmf;
        }
        k
    } else {
        // Box-Muller, with the continuity correction of rounding.
        let z = (-2.0 * u[0].fast_ln()).sqrt() * (2.0 * core::f64::consts::PI * u[1]).fast_cos();
        let x = mean + (mean * (1.0 - q)).sqrt() * z + 0.5;
        if x <= 0.0 { 0 } else { (x as u64).min(n) }
    };
    if flip { n - k } else { k }
}

/// Samples in section `b` of `sections`, and their offset in the output: the descent of the
/// binomial split tree from the root (node 1; node `v`'s children are `2v` and `2v + 1`).
#[inline(always)]
pub fn section_share(
    s: u64,
    n: u64,
    section_rows: u64,
    sections: u64,
    b: u64,
    key: [u32; 2],
    counter: [u32; 4],
) -> (u64, u64) {
    let rows_before = |section: u64| (section * section_rows).min(n);
    let (mut lo, mut hi, mut count, mut offset, mut node) = (0, sections, s, 0, 1u64);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        let left_rows = rows_before(mid) - rows_before(lo);
        let p = left_rows as f64 / (rows_before(hi) - rows_before(lo)) as f64;
        let left = binomial(count, p, node_uniforms(key, counter, node));
        if b < mid {
            (hi, count, node) = (mid, left, 2 * node);
        } else {
            (lo, count, offset, node) = (mid, count - left, offset + left, 2 * node + 1);
        }
    }
    (count, offset)
}

/// The launch parameters every sectioned sampler shares.
#[derive(Clone, Copy)]
pub struct Launch {
    pub n: u64,
    pub out: *mut u32,
    pub s: u64,
    pub key: [u32; 2],
    pub counter: [u32; 4],
    pub section_rows: u64,
    pub sections: u64,
    /// An `OUTPUT_*` code of [`super::sample`].
    pub output: u32,
}

/// Block `blockIdx.x`'s samples of its section, read through `read(row within section)`.
///
/// # Safety
/// `out` holds `s` elements; the block's section is in the table.
#[inline(always)]
unsafe fn sample_section<F: Weight>(l: Launch, read: impl Fn(u32) -> Row<F>) {
    let b = block_x() as u64;
    let (count, offset) = section_share(l.s, l.n, l.section_rows, l.sections, b, l.key, l.counter);
    let first_row = b * l.section_rows;
    let rows = l.section_rows.min(l.n - first_row) as u32;
    // SAFETY: forwarded; the sink holds `s` samples and the block's lie in `offset..offset + count`.
    unsafe {
        with_sink!(l.output, l.out, l.s, l.key, |sink| {
            draw_section(first_row as u32, rows, (offset, count), l, &read, sink)
        })
    }
}

/// The block's `count` samples from position `offset`, in rounds of two per thread: in round
/// `q`, thread `x` takes Philox block `offset + 2qB + x` (`B` threads) and draws samples `2qB +
/// x` and `2qB + B + x` of the block, so that each store of the warp covers 32 consecutive
/// words (the pair of neighbours it used to write left every sector half empty). The blocks'
/// ranges partition `0..s`, so no two samples share a number.
///
/// # Safety
/// As for [`sample_section`].
#[inline(always)]
unsafe fn draw_section<F: Weight>(
    first_row: u32,
    rows: u32,
    (offset, count): (u64, u64),
    l: Launch,
    read: &impl Fn(u32) -> Row<F>,
    mut sink: impl Sink,
) {
    let threads = block_dim_x() as u64;
    let base = counter_add(l.counter, offset);
    let mut t = thread_x() as u64;
    // SAFETY: `offset + t < offset + count <= s`.
    unsafe {
        while t < count {
            let r = pair_numbers(philox4x32_10(counter_add(base, t), l.key));
            sink.put(offset + t, draw(first_row, rows, r[0], read));
            if t + threads < count {
                sink.put(offset + t + threads, draw(first_row, rows, r[1], read));
            }
            t += 2 * threads;
        }
        let first = thread_x() as u64;
        sink.finish(offset + first, first < count);
    }
}

/// The dynamic shared memory the shared-memory sampler needs for sections of `section_rows`
/// rows of `F`.
pub const fn shared_section_bytes<F: Weight>(section_rows: u64) -> u32 {
    (section_rows * size_of::<Row<F>>() as u64) as u32
}

/// Sections the shared-memory sampler aims for: about 16 blocks per multiprocessor of an
/// H100. A constant, not the device's count, so that every device draws the same samples.
pub const SHARED_SECTIONS: u64 = 2048;

/// Rows per section of the shared-memory sampler for a table of `n` rows of `F` and
/// `shared_bytes` of shared memory per block: as many as fit, but no more than leave
/// [`SHARED_SECTIONS`] sections. Fewer, larger sections idle the GPU: a 10^6-row f64 table in
/// 48 KiB sections is 326 blocks, 2.5 per H100 multiprocessor (215 G samples/s against 282 at
/// 10^7 rows, measured).
pub const fn shared_section_rows<F: Weight>(n: u64, shared_bytes: u32) -> u64 {
    let fit = shared_bytes as u64 / size_of::<Row<F>>() as u64;
    let spread = n.div_ceil(SHARED_SECTIONS);
    let rows = if spread < fit { spread } else { fit };
    if rows == 0 { 1 } else { rows }
}

/// Cached sectioned sampling (and, launched with shared memory reserved so that one block runs
/// per multiprocessor, cached limited sectioned): block `b` draws its section's samples reading
/// the table in global memory, through the cache.
///
/// # Safety
/// `table` holds `n` rows, `out` `s` elements; one block per section (`sections =
/// ceil(n / section_rows)`).
#[inline(always)]
pub unsafe fn sample_cached<F: Weight>(table: *const Row<F>, l: Launch) {
    let first = block_x() as u64 * l.section_rows;
    // SAFETY: rows of the block's section; outputs below `s`.
    unsafe { sample_section(l, |r| *table.add(first as usize + r as usize)) }
}

/// Shared-memory sectioned sampling: block `b` first copies its section of the table to shared
/// memory (coalesced), then draws its samples from there.
///
/// # Safety
/// As for [`sample_cached`], with `shared_section_bytes(section_rows)` bytes of dynamic shared
/// memory.
#[inline(always)]
pub unsafe fn sample_shared<F: Weight>(table: *const Row<F>, l: Launch) {
    let first = block_x() as u64 * l.section_rows;
    let rows = l.section_rows.min(l.n - first);
    // SAFETY: the launch gives the section's bytes of shared memory; rows copied are the
    // section's; the barrier is reached by every thread.
    unsafe {
        let local = SharedSlice::<Row<F>>::carve(0, rows as u32);
        let mut r = thread_x() as u64;
        while r < rows {
            local.set(r as u32, *table.add((first + r) as usize));
            r += block_dim_x() as u64;
        }
        sync_threads();
        sample_section(l, |r| local.get(r));
    }
}

macro_rules! sectioned_kernels {
    ($($name:ident: $f:ty => $body:ident;)*) => {$(
        $crate::kernel! {
            #[doc = concat!("Sectioned sampling by [`", stringify!($body), "`], into `out` as `output`")]
            /// says (grouped by section, shuffled or folded: see [`super::sample::Sink`]).
            ///
            /// # Safety
            #[doc = concat!("As for [`", stringify!($body), "`].")]
            #[allow(clippy::too_many_arguments)]
            pub unsafe fn $name(
                table: *const Row<$f>,
                n: u64,
                out: *mut u32,
                s: u64,
                key: u64,
                counter_lo: u64,
                counter_hi: u64,
                section_rows: u64,
                sections: u64,
                output: u32,
            ) {
                let (key, counter) = super::sample::stream(key, counter_lo, counter_hi);
                let launch = Launch { n, out, s, key, counter, section_rows, sections, output };
                // SAFETY: forwarded to the launch contract above.
                unsafe { $body(table, launch) }
            }
        }
    )*};
}
sectioned_kernels! {
    alias_sample_cached_f32: f32 => sample_cached;
    alias_sample_cached_f64: f64 => sample_cached;
    alias_sample_shared_f32: f32 => sample_shared;
    alias_sample_shared_f64: f64 => sample_shared;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Mean and variance of 200 000 deviates against np and np(1 − p), within 5 standard
    /// errors, in the exact and in the normal regime, and the tree's counts add up.
    #[test]
    fn binomial_deviates_have_the_right_moments() {
        for (n, p) in [
            (50u64, 0.3),
            (1000, 0.02),
            (1_000_000, 0.4),
            (5_000_000_000, 0.999),
        ] {
            let trials = 200_000u64;
            let (m, v) = (n as f64 * p, n as f64 * p * (1.0 - p));
            // Moments about the expected mean: k² itself would lose the variance to rounding.
            let (mut sum, mut sum2) = (0.0, 0.0);
            for t in 0..trials {
                let d = binomial(n, p, node_uniforms([1, 2], [3, 4, 5, 6], t)) as f64 - m;
                sum += d;
                sum2 += d * d;
            }
            let mean = m + sum / trials as f64;
            let var = sum2 / trials as f64 - (sum / trials as f64).powi(2);
            assert!(
                (mean - m).abs() < 5.0 * (v / trials as f64).sqrt(),
                "n={n} p={p}: mean {mean}, expected {m}"
            );
            assert!(
                (var - v).abs() < 5.0 * v * (2.0 / trials as f64).sqrt() + 0.01,
                "n={n} p={p}: variance {var}, expected {v}"
            );
        }
        let (n, rows, sections) = (10_007u64, 100u64, 101u64);
        let shares: Vec<(u64, u64)> = (0..sections)
            .map(|b| section_share(1 << 30, n, rows, sections, b, [7, 8], [0; 4]))
            .collect();
        let mut offset = 0;
        for &(count, at) in &shares {
            assert_eq!(at, offset);
            offset += count;
        }
        assert_eq!(offset, 1 << 30);
    }
}
