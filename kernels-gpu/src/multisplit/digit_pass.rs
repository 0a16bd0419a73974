//! Multisplit by digit passes, with the paper's three ways of writing: direct, warp-level and
//! block-level.
//!
//! One pass splits stably by a digit of the bucket id, at most [`RADIX`] values: two passes (low
//! digit, then high digit) split by any bucket id below 2^16. A pass is three launches over
//! tiles of [`TILE`] keys:
//! 1. [`histogram`]: each tile's keys of each digit, summed over groups of
//!    [`HISTOGRAM_TILES`] tiles and, within a group, before each tile ([`TableParts`]);
//! 2. an exclusive scan of the group sums (the device scan): where group `g`'s keys of digit
//!    `d` start, and with the prefix within the group, tile `b`'s;
//! 3. [`scatter`]: the tile's keys moved to their places.
//!
//! Every lane loads all its keys first (eight independent loads in flight; the histogram's two
//! or four vector loads on whole tiles). The scatter then ranks the tile ([`crate::block::rank`]): each
//! warp takes its windows of 32 keys in input order and ranks every key among the warp's keys
//! of the same digit: its peers in the window (by a ballot up to 2 digits, by matching in
//! shared memory above: each lane ORs its bit into its digit's word and reads back who else
//! did), `popc` of the peers below it its rank in the window, and a running count per warp
//! and digit its place after the earlier windows. Stable, since tiles, warps, windows and lanes
//! all follow input order. The seed ranks by a ballot per bit of the digit; matching costs one
//! shared atomic per window whatever the radix, and on the H100 took the split of 2^28 keys
//! into 32 buckets from 115.8 to 148 G keys/s. The histogram needs only the counts
//! ([`crate::block::histogram`]), in any order: whole tiles read by 16-byte vectors with no
//! validity test a key; counted in registers up to 4 digits, by one shared atomic add per key
//! above.
//!
//! Kernels take a built-in bucket function by launch parameters and compile their body once
//! per function (`with_buckets!`); a bucket at or past `m` raises a flag word for the host
//! and is clamped to the last digit, never written out of bounds.
//!
//! The scatter then writes each key (and value) either straight to its place (direct: scattered
//! stores), or after grouping the warp's keys by digit in shared memory (warp-level: each
//! warp's run of a digit written by consecutive lanes), or after grouping the whole tile
//! (block-level: the longest runs, the best coalescing, the most shared memory).
//!
//! Then, for two passes, [`bounds`] finds where each bucket begins in the split keys (a binary
//! search a bucket); a single pass reads its buckets' offsets from the scan (group 0's starts). Bytes per key and
//! pass: read twice, written once, plus the values' read and write.
//!
//! This module gathers the kernel families and what the host builds their parameters from;
//! each family is declared, with its parameter struct and its plan, in the sibling module of
//! its launch: [`super::histogram`], [`super::scatter`] (with `scatter_warp`, `scatter_block`,
//! `scatter_counted`) and [`super::bounds`], on [`super::pass`] and [`super::table`].

pub use super::bounds::{Bounds, bounds};
pub use super::histogram::{Histogram, histogram, histogram_bytes};
pub use super::pass::{
    BUCKETS_BIT_FIELD, BUCKETS_HASH, BUCKETS_KEEP_AT_LEAST, BUCKETS_KEEP_BELOW, BUCKETS_KEEP_BIT_CLEAR,
    BUCKETS_KEEP_BIT_SET, BUCKETS_MODULO, BUCKETS_SPLITTERS, BuiltIn, RADIX, digit_param,
};
pub use super::scatter::{
    BLOCK_LEVEL, COUNTED, COUNTED_RADIX, DIRECT, Scatter, WARP_LEVEL, scatter, scatter_bytes,
};
pub use super::table::{PassTable, TableParts, tiles};
pub use crate::policy::multisplit::{HISTOGRAM_TILES, THREADS, TILE, WARP_KEYS};
