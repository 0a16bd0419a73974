//! Alias tables (Lehmann et al., "Weighted Random Sampling on GPUs", 2021): PSA construction split into
//! partition, prefix sums, split and pack, and sampling, on the GPU and, through the same
//! functions, on the CPU.
//!
//! Weights are first quantized to integers in units of `avg / 2^31` ([`Quantizer::quantize`]),
//! so every later step is exact integer arithmetic: prefix sums (u64), split positions and the
//! weight a heavy item has left (u128, in units scaled by N so that one row holds exactly `Q`,
//! the total quantized weight). Rounding happens once per item (at most 2^-32 of a row) and
//! once per threshold (f64), so each item's mass is within about 1e-10 rows of `N w_i / W` at
//! any N, and every engine and method builds bit-identical tables for the same weights.
//!
//! The rows are filled in the order of one sequential sweep over the light items (`N q <= Q`)
//! and heavy items, each in index order ([`sweep`]): a heavy item's row is written as soon as
//! the light rows before it have taken all its weight beyond one row. A split at row `k` is the
//! sweep's state after `k` rows, found by a merge-path search ([`split`]), and sections between
//! splits are packed independently ([`pack`]). PSA+ ([`plus`]) first runs that sweep inside
//! each partition tile over the tile's own items and leaves only the rest to PSA. A transform
//! of one's own ([`transform`]) makes the weights from raw values in the first pass.

#[cfg(not(target_arch = "nvptx64"))]
pub mod kernels;
pub mod layout;
pub mod pack;
pub mod partition;
pub mod plus;
pub mod quantizer;
pub mod sample;
pub mod sectioned;
pub mod split;
pub mod sweep;
pub mod tiled;
pub mod transform;

pub use quantizer::{Quantizer, UNIT_BITS};
pub use sweep::{Entry, Row, Shape, Split, Weight};

/// Threads per block of the alias kernels.
pub const ALIAS_BLOCK_THREADS: u32 = 256;
