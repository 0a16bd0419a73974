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
//! or four vector loads on full tiles). The scatter then ranks the tile ([`crate::block::rank`]): each
//! warp takes its windows of 32 keys in input order and ranks every key among the warp's keys
//! of the same digit: its peers in the window (by a ballot up to 2 digits, by matching in
//! shared memory above: each lane ORs its bit into its digit's word and reads back who else
//! did), `popc` of the peers below it its rank in the window, and a running count per warp
//! and digit its place after the earlier windows. Stable, since tiles, warps, windows and lanes
//! all follow input order. The seed ranks by a ballot per bit of the digit; matching costs one
//! shared atomic per window whatever the radix, and on the H100 took the split of 2^28 keys
//! into 32 buckets from 115.8 to 148 G keys/s. The histogram needs only the counts
//! ([`crate::block::histogram`]), in any order: full tiles read by 16-byte vectors, counted in registers up
//! to 4 digits, by one shared atomic add per key above.
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
//! Then, for two passes, [`bounds`] finds where each bucket begins and ends in the split keys;
//! a single pass reads its buckets' offsets from the scan (group 0's starts). Bytes per key and
//! pass: read twice, written once, plus the values' read and write.
//!
//! This module declares the kernels and gathers what the host sizes launches by; the parts are
//! the sibling modules [`super::pass`], [`super::table`], [`super::histogram`],
//! [`super::scatter`] (with `scatter_warp`, `scatter_block`, `scatter_counted`) and
//! [`super::bounds`].

use super::bounds::bounds;
use super::histogram::histogram;
pub use super::histogram::histogram_bytes;
pub use super::pass::{
    BUCKETS_BIT_FIELD, BUCKETS_HASH, BUCKETS_KEEP_AT_LEAST, BUCKETS_KEEP_BELOW, BUCKETS_KEEP_BIT_CLEAR,
    BUCKETS_KEEP_BIT_SET, BUCKETS_MODULO, BUCKETS_SPLITTERS, RADIX,
};
use super::pass::{Pass, with_buckets};
use super::scatter::scatter;
pub use super::scatter::{BLOCK_LEVEL, COUNTED, COUNTED_RADIX, DIRECT, WARP_LEVEL, scatter_bytes};
pub use super::table::TableParts;
pub use crate::policy::multisplit::{HISTOGRAM_TILES, THREADS, TILE, WARP_KEYS};

macro_rules! direct_kernels {
    ($($k:ty, $vector:literal => $histogram:ident, $bounds:ident, $($scatter:ident: $v:ty, $write:expr, $values:expr),*;)*) => {$(
        $crate::kernel! {
            /// [`histogram`] of these keys, by the pass the parameters name (the bucket function
            /// of `with_buckets!`, `digit` of [`Pass::new`]), checking buckets against `m`
            /// (into `largest`, marked with `tag`).
            ///
            /// # Safety
            /// As for [`histogram`]; splitters as `with_buckets!` says.
            #[allow(clippy::too_many_arguments)]
            pub unsafe fn $histogram(
                keys: *const $k,
                n: u64,
                kind: u32,
                splitters: *const $k,
                ab: u64,
                digit: u32,
                tiles: u64,
                table: *mut u32,
                m: u32,
                largest: *mut u64,
                tag: u32,
            ) {
                // SAFETY: forwarded to the launch contract above.
                unsafe {
                    with_buckets!(kind, splitters, ab, |f| {
                        let pass = Pass::new(f, digit);
                        histogram::<_, _, $vector>(keys, n, pass, tiles, table, (m, largest, tag))
                    })
                }
            }
        }
        $crate::kernel! {
            /// [`bounds`] of these split keys under the bucket function the parameters name.
            ///
            /// # Safety
            /// As for [`bounds`]; splitters as `with_buckets!` says.
            #[allow(clippy::too_many_arguments)]
            pub unsafe fn $bounds(
                keys: *const $k,
                n: u64,
                kind: u32,
                splitters: *const $k,
                ab: u64,
                m: u32,
                begin: *mut u32,
                end: *mut u32,
            ) {
                // SAFETY: forwarded to the launch contract above.
                unsafe { with_buckets!(kind, splitters, ab, |f| bounds(keys, n, f, m, (begin, end))) }
            }
        }
        $($crate::kernel! {
            /// [`scatter`] of these keys, and values unless the kernel is a keys-only one
            /// (`_keys`: `values` and `out_values` untouched), by the pass the parameters name,
            /// written as `$write` says; bucket offsets to `offsets` unless it is null.
            ///
            /// # Safety
            /// As for [`scatter`]; splitters as `with_buckets!` says.
            #[allow(clippy::too_many_arguments)]
            pub unsafe fn $scatter(
                keys: *const $k,
                values: *const $v,
                n: u64,
                kind: u32,
                splitters: *const $k,
                ab: u64,
                digit: u32,
                tiles: u64,
                table: *const u32,
                out_keys: *mut $k,
                out_values: *mut $v,
                offsets: *mut u32,
            ) {
                // SAFETY: forwarded to the launch contract above.
                unsafe {
                    let out = (out_keys, out_values);
                    with_buckets!(kind, splitters, ab, |f| {
                        let pass = Pass::new(f, digit);
                        scatter::<_, _, _, $write, $values>(keys, values, n, pass, tiles, table, out, offsets)
                    })
                }
            }
        })*
    )*};
}
direct_kernels! {
    u32, 4 => multisplit_histogram_u32, multisplit_bounds_u32,
        multisplit_scatter_direct_u32_keys: u32, DIRECT, false,
        multisplit_scatter_direct_u32_v32: u32, DIRECT, true,
        multisplit_scatter_direct_u32_v64: u64, DIRECT, true,
        multisplit_scatter_warp_u32_keys: u32, WARP_LEVEL, false,
        multisplit_scatter_warp_u32_v32: u32, WARP_LEVEL, true,
        multisplit_scatter_warp_u32_v64: u64, WARP_LEVEL, true,
        multisplit_scatter_block_u32_keys: u32, BLOCK_LEVEL, false,
        multisplit_scatter_block_u32_v32: u32, BLOCK_LEVEL, true,
        multisplit_scatter_block_u32_v64: u64, BLOCK_LEVEL, true,
        multisplit_scatter_counted_u32_keys: u32, COUNTED, false,
        multisplit_scatter_counted_u32_v32: u32, COUNTED, true,
        multisplit_scatter_counted_u32_v64: u64, COUNTED, true;
    u64, 2 => multisplit_histogram_u64, multisplit_bounds_u64,
        multisplit_scatter_direct_u64_keys: u32, DIRECT, false,
        multisplit_scatter_direct_u64_v32: u32, DIRECT, true,
        multisplit_scatter_direct_u64_v64: u64, DIRECT, true,
        multisplit_scatter_warp_u64_keys: u32, WARP_LEVEL, false,
        multisplit_scatter_warp_u64_v32: u32, WARP_LEVEL, true,
        multisplit_scatter_warp_u64_v64: u64, WARP_LEVEL, true,
        multisplit_scatter_block_u64_keys: u32, BLOCK_LEVEL, false,
        multisplit_scatter_block_u64_v32: u32, BLOCK_LEVEL, true,
        multisplit_scatter_block_u64_v64: u64, BLOCK_LEVEL, true,
        multisplit_scatter_counted_u64_keys: u32, COUNTED, false,
        multisplit_scatter_counted_u64_v32: u32, COUNTED, true,
        multisplit_scatter_counted_u64_v64: u64, COUNTED, true;
}
