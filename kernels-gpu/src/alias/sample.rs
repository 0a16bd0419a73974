//! Sampling: a 64-bit random number `r` picks row `⌊r·N / 2^64⌋`, and the fraction `r·N mod
//! 2^64` (53 bits of it) decides between the row's item and its alias. In the baseline,
//! samples `2p` and `2p + 1` take the two 64-bit numbers of Philox block `counter + p` (the
//! sectioned samplers number theirs per section: [`super::sectioned`]). The same functions on
//! every engine give the same samples for the same key and counter.

use super::sweep::{Row, Weight};
use crate::launch::LaunchShape;
use crate::rng::permute::Permutation;
use crate::rng::philox::{Stream, counter_add, philox4x32_10};
use crate::simt::math::mul_hi_lo;
use crate::simt::{global_x, grid_threads_x};

/// `output` code of a sampling launch: sample `t` stored at position `t`.
pub const OUTPUT_IN_ORDER: u32 = 0;
/// `output` code: sample `t` stored at `π(t)`, a keyed random permutation of `0..s`.
pub const OUTPUT_SHUFFLED: u32 = 1;
/// `output` code: nothing stored per sample; each thread xors its samples and stores that one
/// word at the position of its first sample (the paper's benchmark mode, samples consumed in
/// registers).
pub const OUTPUT_FOLDED: u32 = 2;

/// Where a sampling loop puts its samples. Loops are generic over the sink and compiled once
/// per kind (`with_sink!`): choosing per sample cost the loop a branch on the output code and
/// kept the three kinds' registers alive in it.
pub trait Sink {
    /// Sample number `t` is `x`.
    ///
    /// # Safety
    /// The sink's buffer holds `s > t` elements.
    unsafe fn put(&mut self, t: u64, x: u32);

    /// Samples `t` and `t + 1` (`t` even) are `x[0]` and `x[1]`.
    ///
    /// # Safety
    /// As for [`Sink::put`], for both.
    #[inline(always)]
    unsafe fn put_pair(&mut self, t: u64, x: [u32; 2]) {
        // SAFETY: the caller's contract.
        unsafe {
            self.put(t, x[0]);
            self.put(t + 1, x[1]);
        }
    }

    /// A thread's samples are done; `first` is the position of its first one, if it drew any.
    ///
    /// # Safety
    /// `first < s` when `drew`.
    #[inline(always)]
    unsafe fn finish(self, _first: u64, _drew: bool)
    where
        Self: Sized,
    {
    }
}

/// [`OUTPUT_IN_ORDER`]: sample `t` at `out[t]`; pairs with one 8-byte store when `out` is
/// 8-byte aligned (device buffers are), so that a warp's stores cover whole sectors.
pub struct InOrder {
    pub out: *mut u32,
    pub paired: bool,
}

impl Sink for InOrder {
    #[inline(always)]
    unsafe fn put(&mut self, t: u64, x: u32) {
        // SAFETY: `t < s` (the caller's contract).
        unsafe { *self.out.add(t as usize) = x }
    }

    #[inline(always)]
    unsafe fn put_pair(&mut self, t: u64, x: [u32; 2]) {
        // SAFETY: `t + 1 < s`; with `paired`, `out + t` is 8-byte aligned (`t` even).
        unsafe {
            if self.paired {
                *self.out.add(t as usize).cast::<u64>() = x[0] as u64 | (x[1] as u64) << 32;
            } else {
                self.put(t, x[0]);
                self.put(t + 1, x[1]);
            }
        }
    }
}

/// [`OUTPUT_SHUFFLED`]: sample `t` at `out[π(t)]`.
pub struct Shuffled {
    pub out: *mut u32,
    pub permutation: Permutation,
}

impl Sink for Shuffled {
    #[inline(always)]
    unsafe fn put(&mut self, t: u64, x: u32) {
        // SAFETY: a permutation of `0..s` stays below `s`.
        unsafe { *self.out.add(self.permutation.apply(t) as usize) = x }
    }
}

/// [`OUTPUT_FOLDED`]: the xor of a thread's samples, stored at its first sample's position.
pub struct Folded {
    pub out: *mut u32,
    pub acc: u32,
}

impl Sink for Folded {
    #[inline(always)]
    unsafe fn put(&mut self, _t: u64, x: u32) {
        self.acc ^= x;
    }

    #[inline(always)]
    unsafe fn finish(self, first: u64, drew: bool) {
        if drew {
            // SAFETY: `first < s` (the caller's contract).
            unsafe { *self.out.add(first as usize) = self.acc }
        }
    }
}

/// Runs `body` with `sink` bound to the [`Sink`] that the `output` code of a launch of `s`
/// samples into `out` under `key` names (unknown codes store in order).
macro_rules! with_sink {
    ($output:expr, $out:expr, $s:expr, $key:expr, |$sink:ident| $body:expr) => {{
        use $crate::alias::sample::{Folded, InOrder, OUTPUT_FOLDED, OUTPUT_SHUFFLED, Shuffled};
        let out: *mut u32 = $out;
        match $output {
            OUTPUT_SHUFFLED if $s > 0 => {
                let permutation = $crate::rng::permute::Permutation::new($s, $key);
                let $sink = Shuffled { out, permutation };
                $body
            }
            OUTPUT_FOLDED => {
                let $sink = Folded { out, acc: 0 };
                $body
            }
            _ => {
                let $sink = InOrder {
                    out,
                    paired: (out as usize) % 8 == 0,
                };
                $body
            }
        }
    }};
}
pub(crate) use with_sink;

/// Where 64-bit random number `r` lands among `rows` rows: the row, the high word of the
/// 96-bit product `r·rows`, and the fraction within it, the low 64 bits. Formed from two
/// 32×32-bit products (`rows` fits in 32 bits: tables have at most 2^32 − 1 rows) rather than a
/// 128-bit multiply.
#[inline(always)]
pub fn locate(rows: u32, r: u64) -> (u32, u64) {
    let (low_hi, low_lo) = mul_hi_lo(r as u32, rows);
    let (high_hi, high_lo) = mul_hi_lo((r >> 32) as u32, rows);
    let (middle, carry) = high_lo.overflowing_add(low_hi);
    (high_hi + carry as u32, (middle as u64) << 32 | low_lo as u64)
}

/// Whether a row keeps its own item for the fraction `fraction_bits / 2^64` (53 bits of it):
/// the fraction is below the threshold.
#[inline(always)]
pub fn keeps(fraction_bits: u64, threshold: f64) -> bool {
    ((fraction_bits >> 11) as f64 * (1.0 / (1u64 << 53) as f64)) < threshold
}

/// The sample of 64-bit random number `r` from the `rows` rows starting at row `first`
/// (`read(i)` gives row `first + i`): the whole table, or one section of it.
#[inline(always)]
pub fn draw<F: Weight>(first: u32, rows: u32, r: u64, read: impl Fn(u32) -> Row<F>) -> u32 {
    let (local, fraction_bits) = locate(rows, r);
    let row = read(local);
    if keeps(fraction_bits, row.threshold.to_f64()) {
        first + local
    } else {
        row.alias
    }
}

/// The two 64-bit numbers of one Philox block: words 0 and 1, then 2 and 3.
#[inline(always)]
pub fn pair_numbers(w: [u32; 4]) -> [u64; 2] {
    [
        w[0] as u64 | (w[1] as u64) << 32,
        w[2] as u64 | (w[3] as u64) << 32,
    ]
}

/// Samples `2p` and `2p + 1` of the stream `(key, counter)` from a table of `n` rows: one
/// Philox block, two draws.
#[inline(always)]
pub fn draw_pair<F: Weight>(
    n: u32,
    key: [u32; 2],
    counter: [u32; 4],
    p: u64,
    read: impl Fn(u32) -> Row<F>,
) -> [u32; 2] {
    let r = pair_numbers(philox4x32_10(counter_add(counter, p), key));
    [draw(0, n, r[0], &read), draw(0, n, r[1], &read)]
}

crate::kernel_group! {
    /// What every sampler takes: a table of `n` rows, whose aliases are below `n`, and where
    /// its `s` samples of `stream` go (as the sampler's `output` code says).
    pub struct Draws<F: Weight> {
        #[len(n)]
        pub table: *const Row<F>,
        pub n: u64,
        #[len(s)]
        pub out: *mut u32,
        pub s: u64,
        pub stream: Stream,
    }
}

own_kernel! {
    /// Parameters of the baseline sampler.
    pub struct Sample<F: Weight> {
        /// Samples of a table of `n > 0` rows.
        #[group]
        pub draws: Draws<F>,
        /// [`OUTPUT_IN_ORDER`], [`OUTPUT_FOLDED`] or [`OUTPUT_SHUFFLED`].
        pub output: u32,
    }
    check |p, shape| draws.n > 0 && draws.n <= u32::MAX as u64 && shape.is_1d();
    /// The paper's baseline sampler.
    fn sample_baseline => alias_sample_baseline_f32<f32>, alias_sample_baseline_f64<f64>;
}

impl<F: Weight> Sample<F> {
    /// A thread a sample at most; the host caps the grid at the blocks that fit the device at
    /// once (the loop is grid-stride, a pair a thread a step).
    pub const fn plan(&self) -> LaunchShape {
        LaunchShape::linear(
            super::partition::blocks_for(self.draws.s),
            super::ALIAS_BLOCK_THREADS,
            0,
        )
    }
}

/// Draws samples `0..s` with replacement (the paper's baseline: a random row, then its item or
/// alias), a grid-stride loop, into `out` as `output` says.
///
/// # Safety
/// `table` holds `n > 0` rows whose aliases are below `n`, `out` `s` elements.
#[inline(always)]
pub unsafe fn sample_baseline<F: Weight>(p: Sample<F>) {
    let d = p.draws;
    let Stream { key, counter } = d.stream;
    // SAFETY: forwarded to the launch contract above.
    unsafe {
        with_sink!(p.output, d.out, d.s, key, |sink| draw_all(
            d.table, d.n, d.s, key, counter, sink
        ))
    }
}

/// The baseline's grid-stride loop: thread `g` draws pairs `g`, `g + threads`, ... into `sink`.
///
/// # Safety
/// `table` holds `n > 0` rows whose aliases are below `n`; the sink holds `s` samples.
#[inline(always)]
unsafe fn draw_all<F: Weight>(
    table: *const Row<F>,
    n: u64,
    s: u64,
    key: [u32; 2],
    counter: [u32; 4],
    mut sink: impl Sink,
) {
    let mut p = global_x();
    // SAFETY: rows below `n`, samples below `s`.
    unsafe {
        while 2 * p < s {
            let pair = draw_pair(n as u32, key, counter, p, |r| *table.add(r as usize));
            if 2 * p + 1 < s {
                sink.put_pair(2 * p, pair);
            } else {
                sink.put(2 * p, pair[0]);
            }
            p += grid_threads_x();
        }
        sink.finish(2 * global_x(), 2 * global_x() < s);
    }
}
