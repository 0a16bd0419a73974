//! Sampling: sample `k` takes the 64-bit random number `r` (words `2(k mod 2)` and
//! `2(k mod 2) + 1` of Philox block `counter + k/2`); its row is `⌊r·N / 2^64⌋` and the
//! fraction `r·N mod 2^64` (53 bits of it) decides between the row's item and its alias. The
//! same function on every engine gives the same samples for the same key and counter.

use super::sweep::{Row, Weight};
use crate::rng::philox::{counter_add, philox4x32_10};
use crate::simt::{global_x, grid_threads_x};

/// Sample `k` of the stream `(key, counter)` from `table` of `n` rows (`read(r)` gives row r).
#[inline(always)]
pub fn draw<F: Weight>(
    n: u64,
    key: [u32; 2],
    counter: [u32; 4],
    k: u64,
    read: impl Fn(u64) -> Row<F>,
) -> u32 {
    let words = philox4x32_10(counter_add(counter, k / 2), key);
    let h = 2 * (k % 2) as usize;
    let r = words[h] as u64 | (words[h + 1] as u64) << 32;
    let wide = r as u128 * n as u128;
    let row_index = (wide >> 64) as u64;
    let fraction = ((wide as u64) >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
    let row = read(row_index);
    if fraction < row.threshold.to_f64() {
        row_index as u32
    } else {
        row.alias
    }
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
                let key = [key as u32, (key >> 32) as u32];
                let counter = [counter_lo as u32, (counter_lo >> 32) as u32, counter_hi as u32, (counter_hi >> 32) as u32];
                let mut k = global_x();
                while k < s {
                    // SAFETY: rows below `n`, outputs below `s`.
                    unsafe { *out.add(k as usize) = draw(n, key, counter, k, |r| *table.add(r as usize)) };
                    k += grid_threads_x();
                }
            }
        }
    )*};
}
sample_kernels!(alias_sample_baseline_f32: f32, alias_sample_baseline_f64: f64);
