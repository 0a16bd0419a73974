//! The multisplit kernels as host code generic over the key type launches them: the table that
//! ties u32 and u64 keys to their instances (scatters for keys only and for 32- and 64-bit value
//! words).

use super::bounds::{self, Bounds};
use super::bucket::Key;
use super::histogram::{self, Histogram};
use super::scatter::{self, Scatter};

crate::kernel_table! {
    /// The multisplit kernels of one key type (u32 or u64).
    pub trait MultisplitKernels: Key {
        Histogram: Histogram<Self>;
        Bounds: Bounds<Self>;
        DirectKeys: Scatter<Self, u32>;
        WarpKeys: Scatter<Self, u32>;
        BlockKeys: Scatter<Self, u32>;
        CountedKeys: Scatter<Self, u32>;
        Direct32: Scatter<Self, u32>;
        Direct64: Scatter<Self, u64>;
        Warp32: Scatter<Self, u32>;
        Warp64: Scatter<Self, u64>;
        Block32: Scatter<Self, u32>;
        Block64: Scatter<Self, u64>;
        Counted32: Scatter<Self, u32>;
        Counted64: Scatter<Self, u64>;
    }
    u32 {
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
    u64 {
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
