//! The multisplit kernels as host code generic over the key type and the bucket function
//! launches them: the table that ties a bucket function's parameters ([`BuiltIn`], or one's own
//! through `multisplit_kernels!`) and a key type to their instances (scatters for keys only and
//! for 32- and 64-bit value words).

use super::bounds::{self, Bounds};
use super::bucket::Key;
use super::histogram::{self, Histogram};
use super::pass::{BucketParams, BuiltIn};
use super::scatter::{self, Scatter};

crate::kernel_table! {
    /// The multisplit kernels of one bucket function (its launch parameters, `Self`) over one
    /// key type `K`.
    pub trait SplitKernels<K: Key>: BucketParams<K> {
        Histogram: Histogram<K, Self>;
        Bounds: Bounds<K, Self>;
        DirectKeys: Scatter<K, u32, Self>;
        WarpKeys: Scatter<K, u32, Self>;
        BlockKeys: Scatter<K, u32, Self>;
        CountedKeys: Scatter<K, u32, Self>;
        Direct32: Scatter<K, u32, Self>;
        Direct64: Scatter<K, u64, Self>;
        Warp32: Scatter<K, u32, Self>;
        Warp64: Scatter<K, u64, Self>;
        Block32: Scatter<K, u32, Self>;
        Block64: Scatter<K, u64, Self>;
        Counted32: Scatter<K, u32, Self>;
        Counted64: Scatter<K, u64, Self>;
    }
    BuiltIn<u32> where K = u32 {
        Histogram = histogram::multisplit_histogram_u32,
        Bounds = bounds::multisplit_bounds_u32,
        DirectKeys = scatter::multisplit_scatter_direct_u32_keys,
        WarpKeys = scatter::multisplit_scatter_warp_u32_keys,
        BlockKeys = scatter::multisplit_scatter_block_u32_keys,
        CountedKeys = scatter::multisplit_scatter_counted_u32_keys,
        Direct32 = scatter::multisplit_scatter_direct_u32_v32,
        Direct64 = scatter::multisplit_scatter_direct_u32_v64,
        Warp32 = scatter::multisplit_scatter_warp_u32_v32,
        Warp64 = scatter::multisplit_scatter_warp_u32_v64,
        Block32 = scatter::multisplit_scatter_block_u32_v32,
        Block64 = scatter::multisplit_scatter_block_u32_v64,
        Counted32 = scatter::multisplit_scatter_counted_u32_v32,
        Counted64 = scatter::multisplit_scatter_counted_u32_v64,
    }
    BuiltIn<u64> where K = u64 {
        Histogram = histogram::multisplit_histogram_u64,
        Bounds = bounds::multisplit_bounds_u64,
        DirectKeys = scatter::multisplit_scatter_direct_u64_keys,
        WarpKeys = scatter::multisplit_scatter_warp_u64_keys,
        BlockKeys = scatter::multisplit_scatter_block_u64_keys,
        CountedKeys = scatter::multisplit_scatter_counted_u64_keys,
        Direct32 = scatter::multisplit_scatter_direct_u64_v32,
        Direct64 = scatter::multisplit_scatter_direct_u64_v64,
        Warp32 = scatter::multisplit_scatter_warp_u64_v32,
        Warp64 = scatter::multisplit_scatter_warp_u64_v64,
        Block32 = scatter::multisplit_scatter_block_u64_v32,
        Block64 = scatter::multisplit_scatter_block_u64_v64,
        Counted32 = scatter::multisplit_scatter_counted_u64_v32,
        Counted64 = scatter::multisplit_scatter_counted_u64_v64,
    }
}
