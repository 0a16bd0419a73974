//! Sampling: samples `2p` and `2p + 1` take the two 64-bit numbers of Philox block
//! `counter + p`; a number `r` picks row `⌊r·N / 2^64⌋`, and the fraction `r·N mod 2^64` (53
//! bits of it) decides between the row's item and its alias. The same functions on every
//! engine give the same samples for the same key and counter.

use super::sweep::{Row, Weight};
use crate::rng::philox::{counter_add, philox4x32_10};
use crate::simt::{global_x, grid_threads_x};

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
            /// Draws samples `0..s` with replacement into `out` (the seed's baseline: a random
            /// row, then its item or alias), a grid-stride loop.
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
            ) {
                let (key, counter) = stream(key, counter_lo, counter_hi);
                let mut p = global_x();
                while 2 * p < s {
                    // SAFETY: rows below `n`, outputs below `s`.
                    unsafe {
                        let pair = draw_pair(n, key, counter, p, |r| *table.add(r as usize));
                        *out.add(2 * p as usize) = pair[0];
                        if 2 * p + 1 < s {
                            *out.add(2 * p as usize + 1) = pair[1];
                        }
                    }
                    p += grid_threads_x();
                }
            }
        }
    )*};
}
sample_kernels!(alias_sample_baseline_f32: f32, alias_sample_baseline_f64: f64);
