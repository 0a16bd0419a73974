//! Sampling: samples `2p` and `2p + 1` take the two 64-bit numbers of Philox block
//! `counter + p`; a number `r` picks row `⌊r·N / 2^64⌋`, and the fraction `r·N mod 2^64` (53
//! bits of it) decides between the row's item and its alias. The same functions on every
//! engine give the same samples for the same key and counter.

use super::sweep::{Row, Weight};
use crate::rng::permute::Permutation;
use crate::rng::philox::{counter_add, philox4x32_10};
use crate::simt::{global_x, grid_threads_x};

/// `output` code of a sampling launch: sample `t` stored at position `t`.
pub const OUTPUT_IN_ORDER: u32 = 0;
/// `output` code: sample `t` stored at `π(t)`, a keyed random permutation of `0..s`.
pub const OUTPUT_SHUFFLED: u32 = 1;
/// `output` code: nothing stored per sample; each thread xors its samples and stores that one
/// word at the position of its first sample (the seed's benchmark mode, samples consumed in
/// registers).
pub const OUTPUT_FOLDED: u32 = 2;

/// What a sampling launch does with its samples.
#[derive(Clone, Copy)]
pub enum Output {
    InOrder,
    Shuffled(Permutation),
    Folded,
}

impl Output {
    /// The output an `output` code asks for, for `s` samples keyed by `key`.
    #[inline(always)]
    pub fn new(code: u32, s: u64, key: [u32; 2]) -> Output {
        match code {
            OUTPUT_SHUFFLED if s > 0 => Output::Shuffled(Permutation::new(s, key)),
            OUTPUT_FOLDED => Output::Folded,
            _ => Output::InOrder,
        }
    }

    /// Sample number `t` is `x`: store it, or fold it into `acc`.
    ///
    /// # Safety
    /// `out` holds `s > t` elements.
    #[inline(always)]
    pub unsafe fn put(&self, out: *mut u32, t: u64, x: u32, acc: &mut u32) {
        // SAFETY: `t < s`, and a permutation of `0..s` stays below `s`.
        unsafe {
            match self {
                Output::InOrder => *out.add(t as usize) = x,
                Output::Shuffled(p) => *out.add(p.apply(t) as usize) = x,
                Output::Folded => *acc ^= x,
            }
        }
    }

    /// A thread's samples are done: when folding, its xor goes to `out[first]`, the position
    /// of its first sample, if it drew any.
    ///
    /// # Safety
    /// `out` holds `s` elements, and `first < s` when `drew`.
    #[inline(always)]
    pub unsafe fn finish(&self, out: *mut u32, first: u64, drew: bool, acc: u32) {
        if matches!(self, Output::Folded) && drew {
            // SAFETY: `first < s` (caller's contract).
            unsafe { *out.add(first as usize) = acc }
        }
    }
}

/// The sample of 64-bit random number `r` from the `rows` rows starting at row `first`
/// (`read(i)` gives row `first + i`): the whole table, or one section of it.
#[inline(always)]
pub fn draw<F: Weight>(first: u64, rows: u64, r: u64, read: impl Fn(u64) -> Row<F>) -> u32 {
    let wide = r as u128 * rows as u128;
    let local = (wide >> 64) as u64;
    let fraction = ((wide as u64) >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
    let row = read(local);
    if fraction < row.threshold.to_f64() {
        (first + local) as u32
    } else {
        row.alias
    }
}

/// Samples `2p` and `2p + 1` of the stream `(key, counter)`: one Philox block, two draws.
#[inline(always)]
pub fn draw_pair<F: Weight>(
    n: u64,
    key: [u32; 2],
    counter: [u32; 4],
    p: u64,
    read: impl Fn(u64) -> Row<F>,
) -> [u32; 2] {
    let w = philox4x32_10(counter_add(counter, p), key);
    let r = [
        w[0] as u64 | (w[1] as u64) << 32,
        w[2] as u64 | (w[3] as u64) << 32,
    ];
    [draw(0, n, r[0], &read), draw(0, n, r[1], &read)]
}

/// The key and counter of a launch's samples from its three u64 parameters.
#[inline(always)]
pub fn stream(key: u64, counter_lo: u64, counter_hi: u64) -> ([u32; 2], [u32; 4]) {
    let key = [key as u32, (key >> 32) as u32];
    let counter = [
        counter_lo as u32,
        (counter_lo >> 32) as u32,
        counter_hi as u32,
        (counter_hi >> 32) as u32,
    ];
    (key, counter)
}

macro_rules! sample_kernels {
    ($($name:ident: $f:ty),*) => {$(
        $crate::kernel! {
            /// Draws samples `0..s` with replacement (the seed's baseline: a random row, then
            /// its item or alias), a grid-stride loop, into `out` as `output` says
            /// ([`OUTPUT_IN_ORDER`] or [`OUTPUT_FOLDED`]).
            ///
            /// # Safety
            /// `table` holds `n > 0` rows whose aliases are below `n`, `out` `s` elements.
            #[allow(clippy::too_many_arguments)]
            pub unsafe fn $name(
                table: *const Row<$f>,
                n: u64,
                out: *mut u32,
                s: u64,
                key: u64,
                counter_lo: u64,
                counter_hi: u64,
                output: u32,
            ) {
                let (key, counter) = stream(key, counter_lo, counter_hi);
                let output = Output::new(output, s, key);
                let mut acc = 0;
                let mut p = global_x();
                // SAFETY: rows below `n`, outputs below `s`.
                unsafe {
                    while 2 * p < s {
                        let pair = draw_pair(n, key, counter, p, |r| *table.add(r as usize));
                        output.put(out, 2 * p, pair[0], &mut acc);
                        if 2 * p + 1 < s {
                            output.put(out, 2 * p + 1, pair[1], &mut acc);
                        }
                        p += grid_threads_x();
                    }
                    output.finish(out, 2 * global_x(), 2 * global_x() < s, acc);
                }
            }
        }
    )*};
}
sample_kernels!(alias_sample_baseline_f32: f32, alias_sample_baseline_f64: f64);
