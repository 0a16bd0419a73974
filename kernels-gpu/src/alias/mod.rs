//! Alias tables (seed 000, "Weighted Random Sampling on GPUs"): PSA construction split into
//! partition, prefix sums, split and pack, and sampling, on the GPU and, through the same
//! functions, on the CPU.
//!
//! Weights are first quantized to integers in units of `avg / 2^31` ([`quantize`]), so every
//! later step is exact integer arithmetic: prefix sums (u64), split positions and the weight a
//! heavy item has left (u128, in units scaled by N so that one row holds exactly `Q`, the total
//! quantized weight). Rounding happens once per item (at most 2^-32 of a row) and once per
//! threshold (f64), so each item's mass is within about 1e-10 rows of `N w_i / W` at any N, and
//! every engine and method builds bit-identical tables for the same weights.
//!
//! The rows are filled in the order of one sequential sweep over the light items (`N q <= Q`)
//! and heavy items, each in index order ([`sweep`]): a heavy item's row is written as soon as
//! the light rows before it have taken all its weight beyond one row. A split at row `k` is the
//! sweep's state after `k` rows, found by a merge-path search ([`split`]), and sections between
//! splits are packed independently ([`pack`]). PSA+ ([`plus`]) first runs that sweep inside
//! each partition tile over the tile's own items and leaves only the rest to PSA.

pub mod layout;
pub mod pack;
pub mod partition;
pub mod plus;
pub mod sample;
pub mod sectioned;
pub mod split;
pub mod sweep;

pub use sweep::{Entry, Row, Shape, Split, Weight};

/// Quantized weights are in units of `avg / 2^UNIT_BITS`: one row holds `N·2^31` units in
/// total, and Q < 2^63 for every N < 2^32.
pub const UNIT_BITS: u32 = 31;

/// How to quantize weights of total `total` over `n` items: `(shift, scale)` such that
/// `w · 2^shift · scale = w · N·2^31 / W`. The shift takes out the total's binary exponent
/// exactly, so neither factor overflows for any positive finite total (weights of 1e-300 have
/// a scale of 2^1000 and more). `None` for a total that is not positive and finite.
pub fn quantize_params(n: u64, total: f64) -> Option<(i32, f64)> {
    if !(total > 0.0 && total.is_finite()) {
        return None;
    }
    let (mantissa, exponent) = libm::frexp(total); // total = mantissa · 2^exponent
    Some((-exponent, n as f64 * (1u64 << UNIT_BITS) as f64 / mantissa))
}

/// The quantized weight of `w` (rounded to nearest; the scale's own rounding multiplies every
/// item alike and cancels in the probabilities). At most `N·2^31` since `w <= W`.
#[inline(always)]
pub fn quantize(w: f64, shift: i32, scale: f64) -> u64 {
    (libm::scalbn(w, shift) * scale + 0.5) as u64
}

/// Threads per block of the alias kernels.
pub const ALIAS_BLOCK_THREADS: u32 = 256;
