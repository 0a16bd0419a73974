//! The multisplit kernels as the host launches them: their argument tuples and the table that
//! ties u32 and u64 keys to their instantiations (scatters for keys only and for 32- and 64-bit
//! value words).

use super::bucket::Key;
use super::digit_pass;

/// Parameters of the histogram kernels: keys, n, kind, splitters, ab, digit, tiles, table, m,
/// largest bucket at or past m (tagged), the call's tag.
pub type HistogramArgs<K> = (
    *const K,
    u64,
    u32,
    *const K,
    u64,
    u32,
    u64,
    *mut u32,
    u32,
    *mut u64,
    u32,
);
/// Parameters of the bounds kernels: keys, n, kind, splitters, ab, m, begin, end.
pub type BoundsArgs<K> = (*const K, u64, u32, *const K, u64, u32, *mut u32, *mut u32);
/// Parameters of the scatter kernels: keys, values, n, kind, splitters, ab, digit, tiles,
/// table (scanned), output keys, output values, bucket offsets.
pub type ScatterArgs<K, W> = (
    *const K,
    *const W,
    u64,
    u32,
    *const K,
    u64,
    u32,
    u64,
    *const u32,
    *mut K,
    *mut W,
    *mut u32,
);

crate::kernel_table! {
    /// The multisplit kernels of one key type (u32 or u64).
    pub trait MultisplitKernels: Key {
        Histogram: HistogramArgs<Self>;
        Bounds: BoundsArgs<Self>;
        DirectKeys: ScatterArgs<Self, u32>;
        WarpKeys: ScatterArgs<Self, u32>;
        BlockKeys: ScatterArgs<Self, u32>;
        CountedKeys: ScatterArgs<Self, u32>;
        Direct32: ScatterArgs<Self, u32>;
        Direct64: ScatterArgs<Self, u64>;
        Warp32: ScatterArgs<Self, u32>;
        Warp64: ScatterArgs<Self, u64>;
        Block32: ScatterArgs<Self, u32>;
        Block64: ScatterArgs<Self, u64>;
        Counted32: ScatterArgs<Self, u32>;
        Counted64: ScatterArgs<Self, u64>;
    }
    u32 {
        Histogram = digit_pass::multisplit_histogram_u32,
        Bounds = digit_pass::multisplit_bounds_u32,
        DirectKeys = digit_pass::multisplit_scatter_direct_u32_keys,
        WarpKeys = digit_pass::multisplit_scatter_warp_u32_keys,
        BlockKeys = digit_pass::multisplit_scatter_block_u32_keys,
        CountedKeys = digit_pass::multisplit_scatter_counted_u32_keys,
        Direct32 = digit_pass::multisplit_scatter_direct_u32_v32,
        Direct64 = digit_pass::multisplit_scatter_direct_u32_v64,
        Warp32 = digit_pass::multisplit_scatter_warp_u32_v32,
        Warp64 = digit_pass::multisplit_scatter_warp_u32_v64,
        Block32 = digit_pass::multisplit_scatter_block_u32_v32,
        Block64 = digit_pass::multisplit_scatter_block_u32_v64,
        Counted32 = digit_pass::multisplit_scatter_counted_u32_v32,
        Counted64 = digit_pass::multisplit_scatter_counted_u32_v64,
    }
    u64 {
        Histogram = digit_pass::multisplit_histogram_u64,
        Bounds = digit_pass::multisplit_bounds_u64,
        DirectKeys = digit_pass::multisplit_scatter_direct_u64_keys,
        WarpKeys = digit_pass::multisplit_scatter_warp_u64_keys,
        BlockKeys = digit_pass::multisplit_scatter_block_u64_keys,
        CountedKeys = digit_pass::multisplit_scatter_counted_u64_keys,
        Direct32 = digit_pass::multisplit_scatter_direct_u64_v32,
        Direct64 = digit_pass::multisplit_scatter_direct_u64_v64,
        Warp32 = digit_pass::multisplit_scatter_warp_u64_v32,
        Warp64 = digit_pass::multisplit_scatter_warp_u64_v64,
        Block32 = digit_pass::multisplit_scatter_block_u64_v32,
        Block64 = digit_pass::multisplit_scatter_block_u64_v64,
        Counted32 = digit_pass::multisplit_scatter_counted_u64_v32,
        Counted64 = digit_pass::multisplit_scatter_counted_u64_v64,
    }
}
