//! The alias kernels as the host sees them: each weight type (f32, f64) tied to its kernels,
//! and the kernels' argument tuples.

use crate::runtime::element::Scalar;
use warpkit_kernels::alias::{Entry, Row, Split, Weight, pack, partition, plus, sample, sectioned};
use warpkit_kernels::kernel::Kernel;

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

/// f32 or f64 weights, tied to their kernels.
pub trait AliasWeight: Weight + Scalar {
    #[doc(hidden)]
    type Check: Kernel<Args = (*const Self, u64, *mut Self, *mut u64)>;
    #[doc(hidden)]
    type TileTotal: Kernel<Args = (*const Self, u64, i32, f64, *mut u64)>;
    #[doc(hidden)]
    type TileCounts: Kernel<Args = (*const Self, u64, i32, f64, u64, *mut u64)>;
    #[doc(hidden)]
    type Partition: Kernel<Args = PartitionArgs<Self, Entry>>;
    #[doc(hidden)]
    type PartitionIndices: Kernel<Args = PartitionArgs<Self, u32>>;
    #[doc(hidden)]
    type GreedyTiles: Kernel<Args = GreedyArgs<Self>>;
    #[doc(hidden)]
    type PartitionLeftovers: Kernel<Args = LeftoverArgs<Self>>;
    #[doc(hidden)]
    type Pack: Kernel<Args = PackArgs<Self, u64>>;
    #[doc(hidden)]
    type PackShared: Kernel<Args = PackArgs<Self, u64>>;
    #[doc(hidden)]
    type PackChunked: Kernel<Args = PackArgs<Self, u64>>;
    #[doc(hidden)]
    type PackPlus: Kernel<Args = PackArgs<Self, [u64; 2]>>;
    #[doc(hidden)]
    type PackSharedPlus: Kernel<Args = PackArgs<Self, [u64; 2]>>;
    #[doc(hidden)]
    type PackChunkedPlus: Kernel<Args = PackArgs<Self, [u64; 2]>>;
    #[doc(hidden)]
    type PackIndices: Kernel<Args = IndexedPackArgs<Self>>;
    #[doc(hidden)]
    type PackSharedIndices: Kernel<Args = IndexedPackArgs<Self>>;
    #[doc(hidden)]
    type PackChunkedIndices: Kernel<Args = IndexedPackArgs<Self>>;
    #[doc(hidden)]
    type Sample: Kernel<Args = (*const Row<Self>, u64, *mut u32, u64, u64, u64, u64, u32)>;
    #[doc(hidden)]
    type SampleCached: Kernel<Args = SectionedArgs<Self>>;
    #[doc(hidden)]
    type SampleShared: Kernel<Args = SectionedArgs<Self>>;
    /// How close each item's mass must be to `N·w_i / W`, relative to the largest mass.
    const MASS_TOLERANCE: f64;
}

impl AliasWeight for f32 {
    type Check = partition::alias_check_sum_f32;
    type TileTotal = partition::alias_tile_total_f32;
    type TileCounts = partition::alias_tile_counts_f32;
    type Partition = partition::alias_partition_f32;
    type PartitionIndices = partition::alias_partition_indices_f32;
    type GreedyTiles = plus::alias_greedy_tiles_f32;
    type PartitionLeftovers = plus::alias_partition_leftovers_f32;
    type Pack = pack::alias_pack_baseline_f32;
    type PackShared = pack::alias_pack_shared_f32;
    type PackChunked = pack::alias_pack_chunked_f32;
    type PackPlus = pack::alias_pack_baseline_plus_f32;
    type PackSharedPlus = pack::alias_pack_shared_plus_f32;
    type PackChunkedPlus = pack::alias_pack_chunked_plus_f32;
    type PackIndices = pack::alias_pack_baseline_indices_f32;
    type PackSharedIndices = pack::alias_pack_shared_indices_f32;
    type PackChunkedIndices = pack::alias_pack_chunked_indices_f32;
    type Sample = sample::alias_sample_baseline_f32;
    type SampleCached = sectioned::alias_sample_cached_f32;
    type SampleShared = sectioned::alias_sample_shared_f32;
    const MASS_TOLERANCE: f64 = 1e-5;
}

impl AliasWeight for f64 {
    type Check = partition::alias_check_sum_f64;
    type TileTotal = partition::alias_tile_total_f64;
    type TileCounts = partition::alias_tile_counts_f64;
    type Partition = partition::alias_partition_f64;
    type PartitionIndices = partition::alias_partition_indices_f64;
    type GreedyTiles = plus::alias_greedy_tiles_f64;
    type PartitionLeftovers = plus::alias_partition_leftovers_f64;
    type Pack = pack::alias_pack_baseline_f64;
    type PackShared = pack::alias_pack_shared_f64;
    type PackChunked = pack::alias_pack_chunked_f64;
    type PackPlus = pack::alias_pack_baseline_plus_f64;
    type PackSharedPlus = pack::alias_pack_shared_plus_f64;
    type PackChunkedPlus = pack::alias_pack_chunked_plus_f64;
    type PackIndices = pack::alias_pack_baseline_indices_f64;
    type PackSharedIndices = pack::alias_pack_shared_indices_f64;
    type PackChunkedIndices = pack::alias_pack_chunked_indices_f64;
    type Sample = sample::alias_sample_baseline_f64;
    type SampleCached = sectioned::alias_sample_cached_f64;
    type SampleShared = sectioned::alias_sample_shared_f64;
    const MASS_TOLERANCE: f64 = 1e-9;
}
