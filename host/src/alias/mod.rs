//! Weighted random sampling with alias tables (seed 000): build a table from weights once, then
//! draw any number of samples with replacement in constant time each.
//!
//! ```no_run
//! use rand_core::SeedableRng;
//! use warpkit::{Backend, alias::AliasTable};
//!
//! let weights = [1.0f64, 2.0, 0.0, 5.0];
//! let table = AliasTable::new(&Backend::auto(), &weights)?;
//! let mut rng = warpkit::Philox::seed_from_u64(42);
//! let samples: Vec<u32> = table.sample(&mut rng, 1_000_000)?; // item 2 never appears
//! # Ok::<(), warpkit::Error>(())
//! ```
//!
//! Construction follows PSA (partition into light and heavy items, prefix sums, splits, pack)
//! or PSA+ (the same after each tile of items has packed what it can on its own)
//! on exact integer weights (see `warpkit_kernels::alias`), so every backend and PSA method
//! builds the same table for the same quantized weights (every PSA+ method another), and the mass each item receives is within
//! about 1e-10 rows of `N·w_i / W`. Samples are a pure function of the table and of the key and
//! counter taken from the caller's generator: the same seed and method give the same samples
//! on every backend. The baseline sampler's output is in random order; the sectioned samplers'
//! is grouped by table section (see [`Sampling`]).

mod check;
mod cpu;
mod device;

#[doc(inline)]
pub use crate::error::TableDefect;
pub use check::{check_table, item_masses};
pub use warpkit_kernels::alias::{Entry, Row, Split};

use crate::error::{Error, Result};
use crate::runtime::backend::Backend;
use crate::runtime::device::{Device, DeviceBuffer};
use crate::runtime::element::Scalar;
use rand_core::RngCore;
use warpkit_kernels::alias::{Weight, pack, partition, plus, sample, sectioned};
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

/// How a table is built. Every method builds the same table from the same quantized weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Construction {
    /// Vose's method: one sequential sweep over the light and heavy items (CPU backend).
    Sequential,
    /// PSA: partition, prefix sums, splits, then sections packed in parallel. The CPU backend
    /// runs the baselines (binary split, one rayon task a section, weights beside indices);
    /// devices run every combination.
    Psa {
        split: SplitMethod,
        pack: PackMethod,
        layout: Layout,
    },
    /// PSA+: each tile of 1024 items with enough light and heavy items first packs what it can
    /// from its own items (a greedy sweep while they are in shared memory), then PSA, by `split`
    /// and `pack`, builds the rest from what the tiles left (fewer items to scan, split and
    /// pack). The CPU backend runs it with the same tiles (so its tables equal a device's) and
    /// PSA's baselines.
    PsaPlus { split: SplitMethod, pack: PackMethod },
}

impl Construction {
    /// PSA with the seed's baselines for both steps.
    pub const PSA_BASELINE: Construction = Construction::Psa {
        split: SplitMethod::Binary,
        pack: PackMethod::Baseline,
        layout: Layout::WeightsBeside,
    };

    /// PSA+ with the seed's baselines for the PSA step.
    pub const PSA_PLUS_BASELINE: Construction = Construction::PsaPlus {
        split: SplitMethod::Binary,
        pack: PackMethod::Baseline,
    };

    /// Whether the CPU backend offers this method (it runs PSA and PSA+ with the baselines).
    fn on_cpu(self) -> bool {
        matches!(
            self,
            Construction::Sequential | Construction::PSA_BASELINE | Construction::PSA_PLUS_BASELINE
        )
    }

    /// The device default: PSA with the binary split and the shared-memory pack (2048-row
    /// sections), the fastest of every method on an H100 in all four f64 cases measured
    /// (`results/alias.md`): 0.47 / 3.80 ms for shuffled power-law weights and 0.49 / 3.83 ms
    /// for uniform ones at 10^7 / 10^8. PSA+ packs most uniform weights in its tiles but few
    /// power-law ones, and its extra passes cost more than they save (0.85 / 7.28 ms); the
    /// partial p-ary split, built for the seed's short sections, is slower on these long ones.
    pub const FASTEST_ON_DEVICE: Construction = Construction::Psa {
        split: SplitMethod::Binary,
        pack: PackMethod::SharedMemory,
        layout: Layout::WeightsBeside,
    };

    /// Every method a device offers: PSA in both layouts and PSA+, each with every split and
    /// pack.
    pub fn on_device() -> impl Iterator<Item = Construction> {
        let splits = [SplitMethod::Binary, SplitMethod::PartialPary];
        let packs = [
            PackMethod::Baseline,
            PackMethod::SharedMemory,
            PackMethod::Chunked,
        ];
        splits.into_iter().flat_map(move |split| {
            packs.into_iter().flat_map(move |pack| {
                [
                    Construction::Psa {
                        split,
                        pack,
                        layout: Layout::WeightsBeside,
                    },
                    Construction::Psa {
                        split,
                        pack,
                        layout: Layout::IndicesOnly,
                    },
                    Construction::PsaPlus { split, pack },
                ]
            })
        })
    }

    /// What [`AliasTable::new`] uses on `backend`: [`Construction::FASTEST_ON_DEVICE`] on a
    /// device, PSA+ on the CPU (on 16 cores: 2.6-2.8x PSA's speed on uniform weights, 1.03-1.05x
    /// on shuffled power law, at 10^7 and 10^8 items).
    pub fn auto(backend: &Backend) -> Construction {
        match backend {
            Backend::Device(_) => Construction::FASTEST_ON_DEVICE,
            Backend::Cpu(_) => Construction::PSA_PLUS_BASELINE,
        }
    }
}

/// How PSA's partition stores the light and heavy items for the pack (see
/// `warpkit_kernels::alias::layout`). Both build the same table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Each item's quantized weight beside its index (16 bytes an item): the pack reads
    /// everything it needs from the partitioned array. The seed's faster layout.
    WeightsBeside,
    /// The index alone (4 bytes an item): less for the partition to write, but the pack reads
    /// each weight through its index, a scattered load, and quantizes it again.
    IndicesOnly,
}

/// How PSA finds the sweep's state at each section boundary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SplitMethod {
    /// One binary search per boundary (the seed's baseline).
    Binary,
    /// The seed's partial p-ary search: a block narrows the range for its consecutive
    /// boundaries together, then each thread finishes with a binary search.
    PartialPary,
}

/// How PSA packs the sections.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PackMethod {
    /// One thread per section of 256 rows, reading light and heavy items from global memory.
    Baseline,
    /// The seed's shared-memory pack: a block copies the items of its 2048 rows to shared
    /// memory (coalesced), then each of its 256 threads finds where its 8 rows start (a search
    /// narrowed to the block's items) and sweeps them from there.
    SharedMemory,
    /// The seed's chunked pack: sections of 1024 rows, 64 a block, each thread's items loaded
    /// into shared memory 16 light and 16 heavy at a time as its sweep runs out of them.
    Chunked,
}

/// How samples are drawn on a device (the CPU backend always draws like [`Sampling::Baseline`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sampling {
    /// A random row, then its item or its alias: one table access per sample anywhere in the
    /// table. Samples come out in random order.
    Baseline,
    /// One block per section of `section_rows` rows draws that section's share of the samples
    /// (split by binomial deviates), reading the table through the cache. Samples come out
    /// grouped by section.
    CachedSectioned { section_rows: u32 },
    /// As `CachedSectioned`, with so much shared memory reserved that one block runs per
    /// multiprocessor, so blocks do not evict each other's sections from the cache.
    CachedLimitedSectioned { section_rows: u32 },
    /// Each block copies its section to shared memory first, 8 bytes a row whatever the
    /// float type (up to 6144 rows in 48 KiB), then draws from there; the launch reserves
    /// enough shared memory that at most 3 blocks share a multiprocessor. Samples come out
    /// grouped by section.
    SharedMemorySectioned,
}

/// The order samples come out in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Order {
    /// As the method draws them: random for [`Sampling::Baseline`] (and the CPU backend),
    /// grouped by section for the sectioned samplers. The fastest.
    #[default]
    AsDrawn,
    /// In random order: the same samples as [`Order::AsDrawn`] gives for the same seed, moved
    /// by a keyed random permutation of the positions. For the sectioned samplers this scatters
    /// every 4-byte store (several times the memory traffic); for the baseline, whose order is
    /// random already, it changes nothing.
    Shuffled,
}

impl Order {
    /// The kernels' output code for this order under `method` (the baseline's own order is
    /// random already, so it is never permuted).
    fn code(self, method: Sampling) -> u32 {
        match (self, method) {
            (Order::Shuffled, Sampling::Baseline) | (Order::AsDrawn, _) => sample::OUTPUT_IN_ORDER,
            (Order::Shuffled, _) => sample::OUTPUT_SHUFFLED,
        }
    }
}

impl Sampling {
    /// The method [`AliasTable::sample`] uses for `s` samples from `n` rows. Measured on an
    /// H100 at 10^9 f64 samples (`results/alias.md`): the baseline wins at 10^3 rows (349
    /// against 298 G samples/s), the shared-memory sectioned sampler from 10^6 rows on (352 /
    /// 348 / 325 G/s at 10^6 / 10^7 / 10^8, 2 to 14 times the others). The crossover lies
    /// between and is not measured finely; 2^13 rows (a 128 KiB f64 table, cached whole) is
    /// taken. Sectioning also needs several samples per row to repay copying the table: at
    /// 10^6 rows the baseline still wins at 10^6 samples (80 against 35 G/s) and loses at 10^7
    /// (93 against 172). Tables far beyond the L2 cache (from 2^26 rows; measured at 10^8) make
    /// every baseline draw a DRAM access (25 G/s), so sectioning wins earlier there: the
    /// shared-memory sampler from S = N (107 G/s at 10^8 samples), the cached sectioned one
    /// with 4096-row sections from S = N/10 (40 against 27 G/s at 10^7). Between 2^13 and 2^26
    /// rows only the S ≥ 4N rule is measured.
    pub fn auto(n: usize, s: usize) -> Sampling {
        const HUGE_TABLE: usize = 1 << 26;
        match (n, s) {
            (n, _) if n <= 1 << 13 => Sampling::Baseline,
            (n, s) if s >= 4 * n || (n >= HUGE_TABLE && s >= n) => Sampling::SharedMemorySectioned,
            (n, s) if n >= HUGE_TABLE && s >= n / 10 => Sampling::CachedSectioned { section_rows: 4096 },
            _ => Sampling::Baseline,
        }
    }
}

/// An alias table over `N` items, on the backend that built it (device memory for a device).
pub struct AliasTable<F: AliasWeight> {
    storage: Storage<F>,
    n: usize,
}

enum Storage<F: AliasWeight> {
    /// The rows and the method that builds them again on a rebuild.
    Host(Vec<Row<F>>, Construction),
    Device(Box<device::DeviceTable<F>>),
}

/// `Err` unless the weights can make a table: at least one, at most 2^32 − 2 (the prefix sums
/// scan one more element than there are weights).
fn check_count(n: usize) -> Result<()> {
    if n == 0 {
        return Err(Error::NoWeights);
    }
    crate::error::check_len("alias weights", n, crate::MAX_LEN - 1)
}

/// `Err` naming the first weight that is negative, NaN or infinite.
fn check_weights<F: AliasWeight>(weights: &[F]) -> Result<()> {
    check_count(weights.len())?;
    match weights
        .iter()
        .position(|w| !(w.to_f64() >= 0.0 && w.to_f64().is_finite()))
    {
        Some(index) => Err(Error::InvalidWeight { index }),
        None => Ok(()),
    }
}

/// The quantization `(shift, scale)` for weights of total `total` (see
/// `warpkit_kernels::alias::quantize_params`), or why the total cannot be used: it must be
/// finite in the weights' own type (a device sums f32 weights in f32) and positive.
fn quantize_scale<F: AliasWeight>(n: usize, total: f64) -> Result<(i32, f64)> {
    if !F::from_f64(total).to_f64().is_finite() {
        return Err(Error::WeightOverflow);
    }
    warpkit_kernels::alias::quantize_params(n as u64, total).ok_or(Error::AllWeightsZero)
}

impl<F: AliasWeight> AliasTable<F> {
    /// A table for `weights` on `backend`, by [`Construction::auto`].
    pub fn new(backend: &Backend, weights: &[F]) -> Result<AliasTable<F>> {
        AliasTable::build(backend, weights, Construction::auto(backend))
    }

    /// A table for `weights` on `backend` by `method` (`Err(UnsupportedMethod)` where the
    /// backend does not offer it).
    pub fn build(backend: &Backend, weights: &[F], method: Construction) -> Result<AliasTable<F>> {
        check_weights(weights)?;
        let storage = match backend {
            Backend::Device(d) if method != Construction::Sequential => {
                let mut table = device::DeviceTable::allocate(d, weights.len(), method)?;
                table.rebuild_from_host(weights)?;
                Storage::Device(Box::new(table))
            }
            Backend::Cpu(_) if method.on_cpu() => Storage::Host(cpu::build(weights, method)?, method),
            _ => {
                return Err(Error::UnsupportedMethod {
                    method: format!("{method:?}"),
                    backend: backend.describe(),
                });
            }
        };
        Ok(AliasTable {
            storage,
            n: weights.len(),
        })
    }

    /// A table on `device` for weights already in its memory, by
    /// [`Construction::FASTEST_ON_DEVICE`].
    pub fn from_device(device: &Device, weights: &DeviceBuffer<F>) -> Result<AliasTable<F>> {
        AliasTable::from_device_with(device, weights, Construction::FASTEST_ON_DEVICE)
    }

    /// A table on `device` for weights already in its memory, by `method`.
    pub fn from_device_with(
        device: &Device,
        weights: &DeviceBuffer<F>,
        method: Construction,
    ) -> Result<AliasTable<F>> {
        if method == Construction::Sequential {
            return Err(Error::UnsupportedMethod {
                method: format!("{method:?}"),
                backend: device.describe(),
            });
        }
        let mut table = device::DeviceTable::allocate(device, weights.len(), method)?;
        table.rebuild(weights)?;
        Ok(AliasTable {
            storage: Storage::Device(Box::new(table)),
            n: weights.len(),
        })
    }

    /// Rebuilds the table from new weights of the same count, reusing its memory (on a device:
    /// the table and every scratch buffer), for per-step use.
    pub fn rebuild(&mut self, weights: &[F]) -> Result<()> {
        crate::error::check_same_len("alias weights", self.n, weights.len())?;
        check_weights(weights)?;
        match &mut self.storage {
            Storage::Host(rows, method) => cpu::build_into(weights, *method, rows),
            Storage::Device(t) => t.rebuild_from_host(weights),
        }
    }

    /// Rebuilds a device table from new weights in its device's memory.
    pub fn rebuild_from_device(&mut self, weights: &DeviceBuffer<F>) -> Result<()> {
        crate::error::check_same_len("alias weights", self.n, weights.len())?;
        match &mut self.storage {
            Storage::Device(t) => t.rebuild(weights),
            Storage::Host(..) => Err(Error::WrongDevice {
                buffer: "a device".into(),
                device: "a host table".into(),
            }),
        }
    }

    /// Items (rows).
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether the table has no rows (never: construction refuses empty weights).
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The device holding the table, if any.
    pub fn device(&self) -> Option<&Device> {
        match &self.storage {
            Storage::Device(t) => Some(t.device()),
            Storage::Host(..) => None,
        }
    }

    /// The rows, copied to the host.
    pub fn rows(&self) -> Result<Vec<Row<F>>> {
        match &self.storage {
            Storage::Host(rows, _) => Ok(rows.clone()),
            Storage::Device(t) => t.rows(),
        }
    }

    /// The probability of each item as the table encodes it.
    pub fn probabilities(&self) -> Result<Vec<f64>> {
        let rows = self.rows()?;
        let n = rows.len() as f64;
        Ok(item_masses(&rows)?.into_iter().map(|m| m / n).collect())
    }

    /// `s` samples with replacement, keyed by three words of `rng`, by the method
    /// [`Sampling::auto`] picks on a device (the baseline on the CPU backend, its only one);
    /// `s = 0` gives an empty vector.
    pub fn sample(&self, rng: &mut impl RngCore, s: usize) -> Result<Vec<u32>> {
        let method = match self.storage {
            Storage::Host(..) => Sampling::Baseline,
            Storage::Device(_) => Sampling::auto(self.n, s),
        };
        self.sample_with(rng, s, method)
    }

    /// As [`AliasTable::sample`], by `method`: the same seed and method give the same samples
    /// on every device.
    pub fn sample_with(&self, rng: &mut impl RngCore, s: usize, method: Sampling) -> Result<Vec<u32>> {
        self.sample_ordered(rng, s, method, Order::AsDrawn)
    }

    /// As [`AliasTable::sample_with`], in `order`.
    pub fn sample_ordered(
        &self,
        rng: &mut impl RngCore,
        s: usize,
        method: Sampling,
        order: Order,
    ) -> Result<Vec<u32>> {
        let stream = Stream::from_rng(rng);
        match &self.storage {
            Storage::Host(rows, _) => {
                check_host_method(method)?;
                Ok(cpu::sample(rows, stream, s))
            }
            Storage::Device(t) => {
                let mut out = t.device().zeros(s)?;
                t.sample_into(stream, &mut out, method, order.code(method))?;
                t.device().download(&out)
            }
        }
    }

    /// Fills `out` (in the table's device memory) with samples, keyed by `rng` as
    /// [`AliasTable::sample`] is.
    pub fn sample_into(&self, rng: &mut impl RngCore, out: &mut DeviceBuffer<u32>) -> Result<()> {
        self.sample_into_with(rng, out, Sampling::auto(self.n, out.len()))
    }

    /// As [`AliasTable::sample_into`], by `method`.
    pub fn sample_into_with(
        &self,
        rng: &mut impl RngCore,
        out: &mut DeviceBuffer<u32>,
        method: Sampling,
    ) -> Result<()> {
        self.sample_into_ordered(rng, out, method, Order::AsDrawn)
    }

    /// As [`AliasTable::sample_into_with`], in `order`.
    pub fn sample_into_ordered(
        &self,
        rng: &mut impl RngCore,
        out: &mut DeviceBuffer<u32>,
        method: Sampling,
        order: Order,
    ) -> Result<()> {
        self.sample_into_code(rng, out, method, order.code(method))
    }

    /// For benchmarks: draws as [`AliasTable::sample_into_with`] does, but stores only one
    /// word per GPU thread, the xor of its samples, at the position of its first sample, and
    /// leaves the rest of `out` as it was. This is the seed's own benchmark mode (samples
    /// consumed in registers): the cost of drawing without the cost of storing.
    #[doc(hidden)]
    pub fn sample_into_folded(
        &self,
        rng: &mut impl RngCore,
        out: &mut DeviceBuffer<u32>,
        method: Sampling,
    ) -> Result<()> {
        self.sample_into_code(rng, out, method, sample::OUTPUT_FOLDED)
    }

    fn sample_into_code(
        &self,
        rng: &mut impl RngCore,
        out: &mut DeviceBuffer<u32>,
        method: Sampling,
        output: u32,
    ) -> Result<()> {
        let stream = Stream::from_rng(rng);
        match &self.storage {
            Storage::Device(t) => t.sample_into(stream, out, method, output),
            Storage::Host(..) => Err(Error::WrongDevice {
                buffer: "a device".into(),
                device: "a host table".into(),
            }),
        }
    }
}

/// `Err` unless `method` runs on the CPU backend (the baseline only).
fn check_host_method(method: Sampling) -> Result<()> {
    if method == Sampling::Baseline {
        Ok(())
    } else {
        Err(Error::UnsupportedMethod {
            method: format!("{method:?}"),
            backend: "the CPU backend".into(),
        })
    }
}

/// The Philox key and counter of one call's samples.
#[derive(Clone, Copy, Debug)]
struct Stream {
    key: u64,
    counter: [u64; 2],
}

impl Stream {
    fn from_rng(rng: &mut impl RngCore) -> Stream {
        Stream {
            key: rng.next_u64(),
            counter: [rng.next_u64(), rng.next_u64()],
        }
    }

    fn key(&self) -> [u32; 2] {
        [self.key as u32, (self.key >> 32) as u32]
    }

    fn counter(&self) -> [u32; 4] {
        let [lo, hi] = self.counter;
        [lo as u32, (lo >> 32) as u32, hi as u32, (hi >> 32) as u32]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_sampling_follows_the_measured_winners() {
        // (rows, samples, the fastest on the H100; results/alias.md, Figure 4 and 10^9 runs)
        let measured = [
            (1_000, 1_000_000_000, Sampling::Baseline),
            (1_000_000, 1_000_000, Sampling::Baseline),
            (1_000_000, 10_000_000, Sampling::SharedMemorySectioned),
            (1_000_000, 1_000_000_000, Sampling::SharedMemorySectioned),
            (100_000_000, 1_000_000, Sampling::Baseline),
            (
                100_000_000,
                10_000_000,
                Sampling::CachedSectioned { section_rows: 4096 },
            ),
            (100_000_000, 100_000_000, Sampling::SharedMemorySectioned),
            (100_000_000, 1_000_000_000, Sampling::SharedMemorySectioned),
        ];
        for (n, s, best) in measured {
            assert_eq!(Sampling::auto(n, s), best, "{n} rows, {s} samples");
        }
    }

    #[test]
    fn weight_counts_leave_room_for_the_prefix_sums() {
        assert!(matches!(check_count(0), Err(Error::NoWeights)));
        assert!(check_count(crate::MAX_LEN as usize - 1).is_ok());
        assert!(matches!(
            check_count(crate::MAX_LEN as usize),
            Err(Error::TooLong { .. })
        ));
    }
}
