//! The alias kernels as host code generic over the weight type launches them: the table that
//! ties f32 and f64 weights to their instances, and the table of a weight transform of one's own.

use super::Weight;
use super::pack::{Pack, PackIndexed};
use super::partition::{CheckSum, Partition, TileCounts, TileTotal};
use super::plus::{GreedyTiles, PartitionLeftovers};
use super::sample::Sample;
use super::sectioned::Sectioned;
use super::sweep::Entry;
use super::tiled::TileDraws;
use super::transform::{Transform, WeightFn};
use super::{pack, partition, plus, sample, sectioned, tiled};

crate::kernel_table! {
    /// The kernel of a weight transform of one's own (`Self`) over `F` weights, declared by
    /// `alias_kernels!`.
    pub trait TransformKernels<F: Weight>: WeightFn<F> {
        /// Raw values to weights, with the first pass of their checked sum.
        Transform: Transform<F, Self>;
    }
}

crate::kernel_table! {
    /// The alias kernels of one weight type (f32 or f64).
    pub trait AliasKernels: Weight {
        Check: CheckSum<Self>;
        TileTotal: TileTotal<Self>;
        TileCounts: TileCounts<Self>;
        Partition: Partition<Self, Entry>;
        PartitionIndices: Partition<Self, u32>;
        GreedyTiles: GreedyTiles<Self>;
        PartitionLeftovers: PartitionLeftovers<Self>;
        Pack: Pack<Self, u64>;
        PackShared: Pack<Self, u64>;
        PackChunked: Pack<Self, u64>;
        PackPlus: Pack<Self, [u64; 2]>;
        PackSharedPlus: Pack<Self, [u64; 2]>;
        PackChunkedPlus: Pack<Self, [u64; 2]>;
        PackIndices: PackIndexed<Self>;
        PackSharedIndices: PackIndexed<Self>;
        PackChunkedIndices: PackIndexed<Self>;
        Sample: Sample<Self>;
        SampleCached: Sectioned<Self>;
        SampleShared: Sectioned<Self>;
        TileDraws: TileDraws<Self>;
    }
    f32 {
        Check = partition::alias_check_sum_f32,
        TileTotal = partition::alias_tile_total_f32,
        TileCounts = partition::alias_tile_counts_f32,
        Partition = partition::alias_partition_f32,
        PartitionIndices = partition::alias_partition_indices_f32,
        GreedyTiles = plus::alias_greedy_tiles_f32,
        PartitionLeftovers = plus::alias_partition_leftovers_f32,
        Pack = pack::alias_pack_baseline_f32,
        PackShared = pack::alias_pack_shared_f32,
        PackChunked = pack::alias_pack_chunked_f32,
        PackPlus = pack::alias_pack_baseline_plus_f32,
        PackSharedPlus = pack::alias_pack_shared_plus_f32,
        PackChunkedPlus = pack::alias_pack_chunked_plus_f32,
        PackIndices = pack::alias_pack_baseline_indices_f32,
        PackSharedIndices = pack::alias_pack_shared_indices_f32,
        PackChunkedIndices = pack::alias_pack_chunked_indices_f32,
        Sample = sample::alias_sample_baseline_f32,
        SampleCached = sectioned::alias_sample_cached_f32,
        SampleShared = sectioned::alias_sample_shared_f32,
        TileDraws = tiled::alias_tile_draws_f32,
    }
    f64 {
        Check = partition::alias_check_sum_f64,
        TileTotal = partition::alias_tile_total_f64,
        TileCounts = partition::alias_tile_counts_f64,
        Partition = partition::alias_partition_f64,
        PartitionIndices = partition::alias_partition_indices_f64,
        GreedyTiles = plus::alias_greedy_tiles_f64,
        PartitionLeftovers = plus::alias_partition_leftovers_f64,
        Pack = pack::alias_pack_baseline_f64,
        PackShared = pack::alias_pack_shared_f64,
        PackChunked = pack::alias_pack_chunked_f64,
        PackPlus = pack::alias_pack_baseline_plus_f64,
        PackSharedPlus = pack::alias_pack_shared_plus_f64,
        PackChunkedPlus = pack::alias_pack_chunked_plus_f64,
        PackIndices = pack::alias_pack_baseline_indices_f64,
        PackSharedIndices = pack::alias_pack_shared_indices_f64,
        PackChunkedIndices = pack::alias_pack_chunked_indices_f64,
        Sample = sample::alias_sample_baseline_f64,
        SampleCached = sectioned::alias_sample_cached_f64,
        SampleShared = sectioned::alias_sample_shared_f64,
        TileDraws = tiled::alias_tile_draws_f64,
    }
}
