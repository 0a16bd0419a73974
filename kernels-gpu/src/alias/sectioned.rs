//! Sectioned sampling (the paper's batched samplers): the table is cut into sections of
//! `section_rows` rows, one block each, and block `b` draws all the samples that fall into its
//! section, so its threads touch one small region of the table (in cache, or copied to shared
//! memory) instead of the whole table.
//!
//! How many of the `s` samples fall into each section is multinomial; as in Algorithm R it is
//! split recursively, halving the sections each level with a binomial deviate keyed by the
//! tree node, so each section's count and output offset follow from descending from the root,
//! without communication: one thread per section does it ([`section_shares`]) before
//! the sampler runs. The deviate is exact (inversion) while
//! `min(np, n(1 − p)) < 100` and the normal approximation (skewness below 0.1) above.
//!
//! Samples come out grouped by section unless the launch asks for them shuffled: then sample
//! `t` of the grouped order goes to position `π(t)` of a keyed random permutation
//! ([`crate::rng::permute::Permutation`]), at the cost of scattered 4-byte stores.

use super::ALIAS_BLOCK_THREADS;
use super::sample::{Draws, LowWord, Sink, draw_word, with_sink};
use super::sweep::{Row, Weight};
use crate::launch::{LaunchShape, Limits};
use crate::policy::SHARED_SAMPLER_BLOCKS_PER_SM;
use crate::rng::philox::{Stream, counter_add, philox4x32_10};
use crate::simt::math::FastMath;
use crate::simt::shared::SharedSlice;
use crate::simt::{block_dim_x, block_x, global_x, sync_threads, thread_x};

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
    /// Each section's count and offset, by [`section_shares`].
    pub shares: *const [u64; 2],
    /// An `OUTPUT_*` code of [`super::sample`].
    pub output: u32,
}

impl Launch {
    /// Where sample `at` of the launch finds its low word.
    #[inline(always)]
    fn low(&self, at: u64) -> LowWord {
        LowWord {
            key: self.key,
            counter: self.counter,
            at,
        }
    }
}

own_kernel! {
    /// Parameters of [`section_shares`].
    pub struct SectionShares {
        /// Samples drawn from a table of `n` rows.
        pub s: u64,
        pub n: u64,
        pub stream: Stream,
        /// Rows of each section but the last, and the sections.
        pub section_rows: u64,
        pub sections: u64,
        /// One `[count, offset]` pair per section.
        #[len(sections)]
        pub shares: *mut [u64; 2],
    }
    check |p, shape| section_rows > 0 && sections.checked_mul(section_rows).is_some() && shape.is_1d();
    /// Each section's share of the samples.
    fn section_shares => alias_section_shares;
}

/// Each section's share of `s` samples, `shares[b] = [count, offset]` ([`section_share`]), one
/// thread per section. Apart from the samplers because the tree's floating-point descent needs
/// 25 registers more than the sampling loop: in the sampler it held the H100 to 4 blocks per
/// multiprocessor instead of 8.
///
/// # Safety
/// `shares` holds `sections` pairs.
#[inline(always)]
pub unsafe fn section_shares(p: SectionShares) {
    let Stream { key, counter } = p.stream;
    let b = global_x();
    if b < p.sections {
        let (count, offset) = section_share(p.s, p.n, p.section_rows, p.sections, b, key, counter);
        // SAFETY: `b < sections`.
        unsafe { *p.shares.add(b as usize) = [count, offset] };
    }
}

/// Block `blockIdx.x`'s samples of its section: `draw(first_row, rows, w, at)` is the sample
/// of high word `w` from the section's `rows` rows from `first_row`, sample number `at` of the
/// launch (where its low word is, if needed: [`draw_word`]).
///
/// # Safety
/// `out` holds `s` elements; `shares` holds the block's share (any values: a share past `s` is
/// cut to it).
#[inline(always)]
unsafe fn sample_section(l: Launch, draw: impl Fn(u32, u32, u32, u64) -> u32) {
    let b = block_x() as u64;
    // SAFETY: the caller's contract.
    let [count, offset] = unsafe { *l.shares.add(b as usize) };
    // Shares from another launch cannot send a block past the samples: the clamp (once a
    // block) keeps every position below `s` whatever `shares` holds.
    let offset = offset.min(l.s);
    let count = count.min(l.s - offset);
    let first_row = b * l.section_rows;
    let rows = l.section_rows.min(l.n - first_row) as u32;
    let draw = |w, at| draw(first_row as u32, rows, w, at);
    // SAFETY: forwarded; the sink holds `s` samples and the block's lie in `offset..offset + count`.
    unsafe {
        with_sink!(l.output, l.out, l.s, l.key, |sink| draw_section(
            (offset, count),
            l,
            &draw,
            sink
        ))
    }
}

/// The block's `count` samples from position `offset`, in rounds of four per thread: in round
/// `q`, thread `x` takes Philox block `offset + 4qB + x` (`B` threads) and draws samples `4qB +
/// x + kB` of the block (`k < 4`) with its words, so that each store of the warp covers 32
/// consecutive words. The blocks' ranges partition `0..s`, so no two samples share a number.
///
/// # Safety
/// As for [`sample_section`].
#[inline(always)]
unsafe fn draw_section(
    (offset, count): (u64, u64),
    l: Launch,
    draw: &impl Fn(u32, u64) -> u32,
    mut sink: impl Sink,
) {
    let threads = block_dim_x() as u64;
    let base = counter_add(l.counter, offset);
    let mut t = thread_x() as u64;
    // SAFETY: `offset + t + k·threads < offset + count <= s`.
    unsafe {
        while t < count {
            let w = philox4x32_10(counter_add(base, t), l.key);
            for (k, &w) in w.iter().enumerate() {
                let i = t + k as u64 * threads;
                if i < count {
                    sink.put(offset + i, draw(w, offset + i));
                }
            }
            t += 4 * threads;
        }
        let first = thread_x() as u64;
        sink.finish(offset + first, first < count);
    }
}

/// A row as the samplers decide it, in 8 bytes (as the shared-memory samplers keep it):
/// `cut = ⌊threshold·2^32⌋` (at most 2^32 − 1) and the alias. The top 32 bits `F` of a fraction
/// settle the draw exactly unless they equal the cut: `F < cut` means the fraction is below the
/// threshold, `F > cut` that it is not. So a sample's high word, which confines `F` to a short
/// range, settles it unless the cut lies in that range ([`super::sample::draw_word`]), and only
/// then is the whole number drawn and compared with the table's own threshold. Same samples as
/// comparing in f64, from one 8-byte shared load and an integer compare instead of a 16-byte
/// load (10-way bank conflicts on random rows, Nsight Compute at 10^6 rows) and a conversion to
/// f64.
#[derive(Clone, Copy, Default)]
#[repr(C, align(8))]
pub struct CutRow {
    pub(super) cut: u32,
    alias: u32,
}

impl CutRow {
    #[inline(always)]
    pub(super) fn of<F: Weight>(row: Row<F>) -> CutRow {
        let t = row.threshold.to_f64();
        let cut = if t >= 1.0 {
            u32::MAX
        } else {
            (t * 4_294_967_296.0) as u32
        };
        CutRow {
            cut,
            alias: row.alias,
        }
    }

    /// Whether every fraction whose top word lies in `from ..= from + span` (no wrap) keeps
    /// the row's item (`Some(true)`), none does (`Some(false)`), or that depends on the lower
    /// words (`None`: the cut is among those top words).
    #[inline(always)]
    pub(super) fn settles(self, from: u32, span: u32) -> Option<bool> {
        if from + span < self.cut {
            Some(true)
        } else if from > self.cut {
            Some(false)
        } else {
            None
        }
    }

    /// The row's alias.
    #[inline(always)]
    pub(super) fn alias(self) -> u32 {
        self.alias
    }
}

/// The dynamic shared memory the shared-memory sampler needs for sections of `section_rows`
/// rows (kept as [`CutRow`]s whatever the table's float type).
pub const fn shared_section_bytes(section_rows: u64) -> u32 {
    (section_rows * size_of::<CutRow>() as u64) as u32
}

/// Sections the shared-memory sampler aims for: about 16 per multiprocessor of an H100, in
/// waves of at most [`crate::policy::SHARED_SAMPLER_BLOCKS_PER_SM`] resident blocks. A
/// constant, not the device's count, so that every device draws the same samples.
pub const SHARED_SECTIONS: u64 = 2048;

/// Rows per section of the shared-memory sampler for a table of `n` rows and `shared_bytes`
/// of shared memory per block: as many as fit, but no more than leave
/// [`SHARED_SECTIONS`] sections. Fewer, larger sections idle the GPU: when shared memory held
/// 16-byte rows, a 10^6-row f64 table in 48 KiB sections was 326 blocks, 2.5 per H100
/// multiprocessor (215 G samples/s against 282 at 10^7 rows, measured).
pub const fn shared_section_rows(n: u64, shared_bytes: u32) -> u64 {
    let fit = shared_bytes as u64 / size_of::<CutRow>() as u64;
    let spread = n.div_ceil(SHARED_SECTIONS);
    let rows = if spread < fit { spread } else { fit };
    if rows == 0 { 1 } else { rows }
}

/// Cached sectioned sampling (and, launched with shared memory reserved so that one block runs
/// per multiprocessor, cached limited sectioned): block `b` draws its section's samples reading
/// the table in global memory, through the cache.
///
/// # Safety
/// `table` holds `n` rows, `out` `s` elements; at most one block per section (`sections =
/// ceil(n / section_rows)`), and `shares` a pair a block: their shares by [`section_shares`] of
/// the same `s`, `n`, key, counter and sections, for the samples to follow the distribution
/// (other values stay inside `out`).
#[inline(always)]
pub unsafe fn sample_cached<F: Weight>(p: Sectioned<F>) {
    let (table, l) = (p.draws.table, p.launch());
    // SAFETY: rows of the block's section; outputs below `s`.
    unsafe {
        sample_section(l, |first, rows, w, at| {
            let cut_row = |i: u32| CutRow::of(*table.add(first as usize + i as usize));
            draw_word(table, first, rows, w, cut_row, l.low(at))
        })
    }
}

/// Shared-memory sectioned sampling: block `b` first copies its section of the table to shared
/// memory as [`CutRow`]s (coalesced reads), then draws its samples from there.
///
/// # Safety
/// As for [`sample_cached`], with at least `shared_section_bytes(section_rows)` bytes of
/// dynamic shared memory (the host reserves more, to limit residency).
#[inline(always)]
pub unsafe fn sample_shared<F: Weight>(p: Sectioned<F>) {
    let (table, l) = (p.draws.table, p.launch());
    let first = block_x() as u64 * l.section_rows;
    let rows = l.section_rows.min(l.n - first);
    // SAFETY: the launch gives the section's bytes of shared memory; rows copied are the
    // section's; the barrier is reached by every thread.
    unsafe {
        let local = SharedSlice::<CutRow>::carve(0, rows as u32);
        let mut r = thread_x() as u64;
        while r < rows {
            local.set(r as u32, CutRow::of(*table.add((first + r) as usize)));
            r += block_dim_x() as u64;
        }
        sync_threads();
        sample_section(l, |first, rows, w, at| {
            draw_word(table, first, rows, w, |i| local.get(i), l.low(at))
        });
    }
}

own_kernel! {
    /// Parameters of the sectioned samplers.
    pub struct Sectioned<F: Weight> {
        #[group]
        pub draws: Draws<F>,
        /// Rows of each section but the last.
        pub section_rows: u64,
        /// Each section's count and offset, by [`section_shares`].
        #[len(shape.grid[0])]
        pub shares: *const [u64; 2],
        /// An `OUTPUT_*` code of [`super::sample`].
        pub output: u32,
    }
    check |p, shape| section_rows > 0
        && shape.is_1d()
        && shape.grid[0] as u64 <= draws.n.div_ceil(section_rows);
    /// Sectioned sampling through the cache, grouped by section, shuffled or folded.
    fn sample_cached => alias_sample_cached_f32<f32>, alias_sample_cached_f64<f64>;
    /// Sectioned sampling from shared memory, grouped by section, shuffled or folded.
    fn sample_shared => alias_sample_shared_f32<f32>, alias_sample_shared_f64<f64>;
}

impl<F: Weight> Sectioned<F> {
    /// What every sectioned sampler's blocks share.
    #[inline(always)]
    fn launch(&self) -> Launch {
        let Draws {
            n, out, s, stream, ..
        } = self.draws;
        Launch {
            n,
            out,
            s,
            key: stream.key,
            counter: stream.counter,
            section_rows: self.section_rows,
            shares: self.shares,
            output: self.output,
        }
    }
}

impl SectionShares {
    /// One thread a section.
    pub const fn plan(&self) -> LaunchShape {
        LaunchShape::linear(
            super::partition::blocks_for(self.sections),
            ALIAS_BLOCK_THREADS,
            0,
        )
    }
}

/// Where the sectioned samplers keep their sections.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SectionSource {
    /// The table in global memory, through the cache ([`sample_cached`]).
    Cached,
    /// The same, with shared memory reserved so that one block runs per multiprocessor.
    CachedLimited,
    /// A copy in shared memory ([`sample_shared`]).
    Shared,
}

/// Rows per section and dynamic shared memory of the sectioned samplers of a table of `n`
/// rows; `section_rows` is the caller's choice for the cached samplers.
pub const fn section_plan(source: SectionSource, n: u64, section_rows: u64, limits: &Limits) -> (u64, u32) {
    match source {
        SectionSource::Cached => (section_rows, 0),
        SectionSource::CachedLimited => (section_rows, limits.shared_per_block_optin),
        SectionSource::Shared => {
            let rows = shared_section_rows(n, limits.shared_per_block);
            let cap = limits.shared_for_blocks_per_multiprocessor(SHARED_SAMPLER_BLOCKS_PER_SM);
            let bytes = shared_section_bytes(rows);
            (rows, if bytes > cap { bytes } else { cap })
        }
    }
}

/// The sectioned samplers' launch over `n` rows: one block a section of `section_rows` rows
/// (the caller's, or [`section_plan`]'s), with `shared_bytes` of dynamic shared memory.
pub const fn plan_sectioned(n: u64, section_rows: u64, shared_bytes: u32) -> LaunchShape {
    LaunchShape::linear(n.div_ceil(section_rows), ALIAS_BLOCK_THREADS, shared_bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alias::sample::{keeps, locate};

    /// A cut row decides as the float compare wherever a fraction's top word is not the cut,
    /// and leaves the rest open: thresholds 0, 1 and random, in f64 and f32 tables, fractions
    /// random, equal to the cut in their top word and on either side.
    #[test]
    fn cut_rows_decide_as_their_thresholds_do() {
        let mut block = 0;
        let mut next = || {
            block += 1;
            let w = philox4x32_10([block, 0, 0, 0], [5, 6]);
            (w[0] as u64) << 32 | w[1] as u64
        };
        fn check<F: Weight>(row: Row<F>, fractions: [u64; 4]) {
            let cut = CutRow::of(row);
            for f in fractions {
                let top = (f >> 32) as u32;
                let want = (top != cut.cut).then(|| keeps(f, row.threshold.to_f64()));
                assert_eq!(
                    cut.settles(top, 0),
                    want,
                    "threshold {}, fraction {f:#x}",
                    row.threshold.to_f64()
                );
            }
        }
        for k in 0..100_000 {
            let uniform = (next() >> 11) as f64 / (1u64 << 53) as f64;
            let threshold = [0.0, 1.0, uniform, uniform][k % 4];
            let wide = Row::<f64>::new(threshold, 7);
            let narrow = Row::<f32>::new(threshold as f32, 7);
            for cut in [CutRow::of(wide).cut, CutRow::of(narrow).cut] {
                let at = (cut as u64) << 32;
                let fractions = [
                    next(),
                    at | next() >> 32,
                    at.wrapping_sub(1),
                    at.wrapping_add(1 << 32),
                ];
                check(wide, fractions);
                check(narrow, fractions);
            }
        }
    }

    /// `locate` is the 128-bit product's high word and low 64 bits, at the edges too.
    #[test]
    fn locate_matches_the_128_bit_product() {
        let mut block = 0;
        let mut next = || {
            block += 1;
            philox4x32_10([block, 1, 0, 0], [5, 6])
        };
        let edges = [0, 1, u64::MAX, 1 << 63, u32::MAX as u64, (u32::MAX as u64) << 32];
        for k in 0..100_000 {
            let w = next();
            let r = if k < edges.len() * 4 {
                edges[k % edges.len()]
            } else {
                (w[0] as u64) << 32 | w[1] as u64
            };
            let rows = [1, 2, u32::MAX, w[2] | 1][k % 4];
            let wide = r as u128 * rows as u128;
            assert_eq!(
                locate(rows, r),
                ((wide >> 64) as u32, wide as u64),
                "r {r:#x}, rows {rows}"
            );
        }
    }

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
