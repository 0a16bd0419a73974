//! The alias kernels as the host launches them: their argument tuples and the table that ties
//! f32 and f64 weights to their instantiations.

use super::{Entry, Row, Split, Weight, pack, partition, plus, sample, sectioned};

/// Parameters of the pack kernels: entries, prefix sums (`W`: u64 for PSA, `[u64; 2]` for the
/// PSA step of PSA+), items, light items, quantized total, scale, splits, sections, table.
pub type PackArgs<F, W> = (
    *const Entry,
    *const W,
    u64,
    u64,
    u64,
    u64,
    *const Split,
    u64,
    *mut Row<F>,
);

/// Parameters of the pack kernels of the indices-only layout: the partitioned items, the
/// weights, their quantization shift and scale, then as [`PackArgs`] from the prefix sums on.
pub type IndexedPackArgs<F> = (
    *const u32,
    *const F,
    i32,
    f64,
    *const u64,
    u64,
    u64,
    u64,
    u64,
    *const Split,
    u64,
    *mut Row<F>,
);

/// Parameters of PSA's partition: weights, items, quantization shift and scale, quantized total,
/// the tiles' scans, entries (`E`: [`Entry`], or u32 for indices only), prefix sums, light
/// items.
pub type PartitionArgs<F, E> = (
    *const F,
    u64,
    i32,
    f64,
    u64,
    *const u64,
    *mut E,
    *mut u64,
    *mut u32,
);

/// Parameters of PSA+'s greedy pass: weights, items, quantization shift and scale, quantized
/// total, the tiles' sums, table.
pub type GreedyArgs<F> = (*const F, u64, i32, f64, u64, *mut u64, *mut Row<F>);

/// Parameters of PSA+'s leftover partition: weights, items, quantization shift and scale,
/// quantized total, the tiles' scans, entries, prefix sums, counts.
pub type LeftoverArgs<F> = (
    *const F,
    u64,
    i32,
    f64,
    u64,
    *const u64,
    *mut Entry,
    *mut [u64; 2],
    *mut u32,
);

/// Parameters of the sectioned samplers: table, rows, output, samples, key, counter (two
/// words), rows per section, the sections' shares, output code (`sample::OUTPUT_*`).
pub type SectionedArgs<F> = (
    *const Row<F>,
    u64,
    *mut u32,
    u64,
    u64,
    u64,
    u64,
    u64,
    *const [u64; 2],
    u32,
);

crate::kernel_table! {
    /// The alias kernels of one weight type (f32 or f64).
    pub trait AliasKernels: Weight; for f32, f64 {
        Check((*const Self, u64, *mut Self, *mut u64)) =
            partition::alias_check_sum_f32, partition::alias_check_sum_f64;
        TileTotal((*const Self, u64, i32, f64, *mut u64)) =
            partition::alias_tile_total_f32, partition::alias_tile_total_f64;
        TileCounts((*const Self, u64, i32, f64, u64, *mut u64)) =
            partition::alias_tile_counts_f32, partition::alias_tile_counts_f64;
        Partition(PartitionArgs<Self, Entry>) =
            partition::alias_partition_f32, partition::alias_partition_f64;
        PartitionIndices(PartitionArgs<Self, u32>) =
            partition::alias_partition_indices_f32, partition::alias_partition_indices_f64;
        GreedyTiles(GreedyArgs<Self>) = plus::alias_greedy_tiles_f32, plus::alias_greedy_tiles_f64;
        PartitionLeftovers(LeftoverArgs<Self>) =
            plus::alias_partition_leftovers_f32, plus::alias_partition_leftovers_f64;
        Pack(PackArgs<Self, u64>) = pack::alias_pack_baseline_f32, pack::alias_pack_baseline_f64;
        PackShared(PackArgs<Self, u64>) = pack::alias_pack_shared_f32, pack::alias_pack_shared_f64;
        PackChunked(PackArgs<Self, u64>) = pack::alias_pack_chunked_f32, pack::alias_pack_chunked_f64;
        PackPlus(PackArgs<Self, [u64; 2]>) =
            pack::alias_pack_baseline_plus_f32, pack::alias_pack_baseline_plus_f64;
        PackSharedPlus(PackArgs<Self, [u64; 2]>) =
            pack::alias_pack_shared_plus_f32, pack::alias_pack_shared_plus_f64;
        PackChunkedPlus(PackArgs<Self, [u64; 2]>) =
            pack::alias_pack_chunked_plus_f32, pack::alias_pack_chunked_plus_f64;
        PackIndices(IndexedPackArgs<Self>) =
            pack::alias_pack_baseline_indices_f32, pack::alias_pack_baseline_indices_f64;
        PackSharedIndices(IndexedPackArgs<Self>) =
            pack::alias_pack_shared_indices_f32, pack::alias_pack_shared_indices_f64;
        PackChunkedIndices(IndexedPackArgs<Self>) =
            pack::alias_pack_chunked_indices_f32, pack::alias_pack_chunked_indices_f64;
        Sample((*const Row<Self>, u64, *mut u32, u64, u64, u64, u64, u32)) =
            sample::alias_sample_baseline_f32, sample::alias_sample_baseline_f64;
        SampleCached(SectionedArgs<Self>) =
            sectioned::alias_sample_cached_f32, sectioned::alias_sample_cached_f64;
        SampleShared(SectionedArgs<Self>) =
            sectioned::alias_sample_shared_f32, sectioned::alias_sample_shared_f64;
    }
}
