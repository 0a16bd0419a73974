//! Sampling: a 64-bit random number `r` picks row `⌊r·N / 2^64⌋`, and the fraction `r·N mod
//! 2^64` (53 bits of it) decides between the row's item and its alias ([`draw`]).
//!
//! A sample reads one 32-bit word, the high word `w` of its `r`: `w` alone fixes the row and
//! the decision unless the row's cut falls among the fractions its low words could still give,
//! about `2N / 2^32` of the time, and only then is the low word drawn ([`draw_word`]). So a
//! Philox block serves four samples instead of two, and every sample is still the draw of a
//! whole 64-bit number. In the baseline, samples `4p .. 4p + 3` take the four words of Philox
//! block `counter + p`, and sample `t`'s low word is word 0 of block `counter + t` under the key
//! xored with [`LOW_KEY`] (the sectioned samplers number theirs per section:
//! [`super::sectioned`]). The same functions on every engine give the same samples for the same
//! key and counter.

use super::sectioned::CutRow;
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

    /// Samples `t .. t + 4` (`t` a multiple of 4) are `x`.
    ///
    /// # Safety
    /// As for [`Sink::put`], for all four.
    #[inline(always)]
    unsafe fn put_quad(&mut self, t: u64, x: [u32; 4]) {
        // SAFETY: the caller's contract.
        unsafe {
            self.put_pair(t, [x[0], x[1]]);
            self.put_pair(t + 2, [x[2], x[3]]);
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

/// [`OUTPUT_IN_ORDER`]: sample `t` at `out[t]`; pairs and fours with one 8- or 16-byte store
/// when `out` is so aligned (device buffers are), so that a warp's stores cover whole sectors.
pub struct InOrder {
    pub out: *mut u32,
    pub paired: bool,
    pub quads: bool,
}

/// Four samples, for one 16-byte store.
#[repr(C, align(16))]
struct Quad([u32; 4]);

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

    #[inline(always)]
    unsafe fn put_quad(&mut self, t: u64, x: [u32; 4]) {
        // SAFETY: `t + 3 < s`; with `quads`, `out + t` is 16-byte aligned (`t` a multiple of 4).
        unsafe {
            if self.quads {
                *self.out.add(t as usize).cast::<Quad>() = Quad(x);
            } else {
                self.put_pair(t, [x[0], x[1]]);
                self.put_pair(t + 2, [x[2], x[3]]);
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
                    quads: (out as usize) % 16 == 0,
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

/// The low words of samples whose high words leave them open use the sampling key with this
/// mask xored in, a stream apart from the high words.
pub const LOW_KEY: u32 = 0xe15a_3c96;

/// Where a sample finds its low word should its high word leave it open: word 0 of Philox
/// block `counter + at` under `key` xored with [`LOW_KEY`] (`at`: the sample's own number, so
/// that no two samples of a launch share one).
#[derive(Clone, Copy)]
pub struct LowWord {
    pub key: [u32; 2],
    pub counter: [u32; 4],
    pub at: u64,
}

/// The sample of the 64-bit number `r = w·2^32 + v` from the `rows > 0` rows of `table` from
/// row `first`, as [`draw`] draws it, where `cut_row(i)` is row `first + i` as a [`CutRow`]
/// and the low word `v` is read from `low` only where `w` leaves the sample open.
///
/// With `w·rows = row·2^32 + top`, every `v` gives row `row` and a fraction whose top word lies
/// in `top ..= top + rows − 1`, unless that range wraps past 2^32 (the next row is possible):
/// so `w` settles the sample unless the range wraps or holds the row's cut, about
/// `2·rows / 2^32` of the time.
///
/// # Safety
/// `table` holds rows `first .. first + rows`, which `cut_row` describes.
#[inline(always)]
pub unsafe fn draw_word<F: Weight>(
    table: *const Row<F>,
    first: u32,
    rows: u32,
    w: u32,
    cut_row: impl FnOnce(u32) -> CutRow,
    low: LowWord,
) -> u32 {
    let (row, top) = mul_hi_lo(w, rows);
    if top <= u32::MAX - (rows - 1) {
        let cut = cut_row(row);
        if let Some(kept) = cut.settles(top, rows - 1) {
            return if kept { first + row } else { cut.alias() };
        }
    }
    let block = counter_add(low.counter, low.at);
    let block = (
        block[0] as u64 | (block[1] as u64) << 32,
        block[2] as u64 | (block[3] as u64) << 32,
    );
    // SAFETY: the caller's contract.
    unsafe { draw_refined(table, first, rows, w, low.key, block) }
}

/// The sample of the 64-bit number `r`, as [`draw`] draws it, settled by its high word where
/// that can ([`draw_word`]) and otherwise drawn whole.
///
/// Its first lines are [`draw_word`]'s: one helper taking the fallback as a closure made LLVM
/// duplicate the samplers' out-of-line calls (24 call sites where there are 12), in code that
/// was not the one measured.
///
/// # Safety
/// As for [`draw_word`].
#[inline(always)]
pub unsafe fn draw_number<F: Weight>(
    table: *const Row<F>,
    first: u32,
    rows: u32,
    r: u64,
    cut_row: impl FnOnce(u32) -> CutRow,
) -> u32 {
    let (row, top) = mul_hi_lo((r >> 32) as u32, rows);
    if top <= u32::MAX - (rows - 1) {
        let cut = cut_row(row);
        if let Some(kept) = cut.settles(top, rows - 1) {
            return if kept { first + row } else { cut.alias() };
        }
    }
    // SAFETY: the caller's contract.
    unsafe { draw_whole(table, first, rows, r) }
}

/// [`draw_number`]'s rare case, out of line.
///
/// # Safety
/// As for [`draw_word`].
#[cold]
#[inline(never)]
unsafe fn draw_whole<F: Weight>(table: *const Row<F>, first: u32, rows: u32, r: u64) -> u32 {
    // SAFETY: rows below `first + rows`.
    draw(first, rows, r, |i| unsafe {
        *table.add(first as usize + i as usize)
    })
}

/// [`draw_word`]'s rare case: the low word drawn (word 0 of Philox block `block`, as two 64-bit
/// halves, under `key` xored with [`LOW_KEY`]), the sample that of the whole number. Out of
/// line so that the compiler branches around it rather than predicating a Philox block into
/// every draw; its arguments are scalars, which calls pass in registers (a struct of them went
/// through local memory, 16 stores a draw: 3.5× slower).
///
/// # Safety
/// As for [`draw_word`].
#[cold]
#[inline(never)]
unsafe fn draw_refined<F: Weight>(
    table: *const Row<F>,
    first: u32,
    rows: u32,
    w: u32,
    key: [u32; 2],
    block: (u64, u64),
) -> u32 {
    let counter = [
        block.0 as u32,
        (block.0 >> 32) as u32,
        block.1 as u32,
        (block.1 >> 32) as u32,
    ];
    let v = philox4x32_10(counter, [key[0] ^ LOW_KEY, key[1]])[0];
    // SAFETY: rows below `first + rows`.
    draw(first, rows, (w as u64) << 32 | v as u64, |i| unsafe {
        *table.add(first as usize + i as usize)
    })
}

/// Samples `4p .. 4p + 4` of the stream `(key, counter)` from `table`, of `n > 0` rows: one
/// Philox block, a word a sample.
///
/// # Safety
/// `table` holds `n` rows.
#[inline(always)]
pub unsafe fn draw_quad<F: Weight>(
    table: *const Row<F>,
    n: u32,
    key: [u32; 2],
    counter: [u32; 4],
    p: u64,
) -> [u32; 4] {
    let w = philox4x32_10(counter_add(counter, p), key);
    core::array::from_fn(|k| {
        let low = LowWord {
            key,
            counter,
            at: 4 * p + k as u64,
        };
        // SAFETY: rows below `n`.
        unsafe { draw_word(table, 0, n, w[k], |r| CutRow::of(*table.add(r as usize)), low) }
    })
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
    /// once (the loop is grid-stride, four samples a thread a step).
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

/// The baseline's grid-stride loop: thread `g` draws fours `g`, `g + threads`, ... into `sink`.
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
        while 4 * p < s {
            let quad = draw_quad(table, n as u32, key, counter, p);
            if 4 * p + 3 < s {
                sink.put_quad(4 * p, quad);
            } else {
                for (k, &x) in quad.iter().enumerate() {
                    if 4 * p + (k as u64) < s {
                        sink.put(4 * p + k as u64, x);
                    }
                }
            }
            p += grid_threads_x();
        }
        sink.finish(4 * global_x(), 4 * global_x() < s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A high word's sample is the whole number's, its low word that of its [`LowWord`]: on
    /// tables of 1 to 40 000 rows with thresholds 0, 1, random, and high words placed so that
    /// the fraction's top words straddle a row's cut or the next row; both ways of settling
    /// and the refinement are taken.
    #[test]
    fn high_words_draw_as_whole_numbers() {
        let mut block = 0;
        let mut next = || {
            block += 1;
            philox4x32_10([block, 3, 0, 0], [5, 6])
        };
        let (mut refined, mut settled) = (0, 0);
        for t in 0..200 {
            let rows = [1u32, 2, 3, 1000, 16_384, 40_000][t % 6];
            let table: Vec<Row<f64>> = (0..rows)
                .map(|_| {
                    let w = next();
                    let uniform = (w[0] >> 11) as f64 / (1u64 << 21) as f64;
                    Row::new([0.0, 1.0, uniform, uniform][w[1] as usize % 4], w[2] % rows)
                })
                .collect();
            let low = LowWord {
                key: [7, 8],
                counter: [1, 2, 3, 4],
                at: t as u64,
            };
            for k in 0..2000u32 {
                let w = next();
                // Half the words land the fraction's top word just below a row's cut, or the
                // product just below the next row.
                let word = if k % 2 == 0 {
                    w[0]
                } else {
                    let row = w[1] % rows;
                    let cut = CutRow::of(table[row as usize]);
                    let target = if k % 4 == 1 {
                        (row as u64) << 32 | cut.cut.saturating_sub(w[2] % rows) as u64
                    } else {
                        ((row as u64 + 1) << 32) - 1 - (w[2] % rows) as u64
                    };
                    (target / rows as u64) as u32
                };
                let v = philox4x32_10(counter_add(low.counter, low.at), [7 ^ LOW_KEY, 8])[0];
                let want = draw(0, rows, (word as u64) << 32 | v as u64, |i| table[i as usize]);
                let cut_row = |i: u32| CutRow::of(table[i as usize]);
                // SAFETY: the table holds `rows` rows.
                let got = unsafe { draw_word(table.as_ptr(), 0, rows, word, cut_row, low) };
                assert_eq!(got, want, "rows {rows}, word {word:#x}");
                let (row, top) = mul_hi_lo(word, rows);
                let open = top > u32::MAX - (rows - 1)
                    || CutRow::of(table[row as usize]).settles(top, rows - 1).is_none();
                (refined, settled) = (refined + open as u32, settled + !open as u32);
            }
        }
        assert!(
            refined > 20_000 && settled > 200_000,
            "{refined} refined, {settled} settled"
        );
    }
}
