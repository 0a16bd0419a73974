//! How a table is built and how samples are drawn: the methods callers choose among, and the
//! choice by table size and sample count that `auto` makes from the H100 figures.

use crate::runtime::backend::Backend;
use warpkit_kernels::alias::sample;
use warpkit_kernels::alias::tiled::{MAX_SECTIONS, MAX_SHIFT};

/// Rows of the largest table [`Sampling::Tiled`] takes: 768 sections of 16384 rows.
pub const TILED_MAX_ROWS: usize = (MAX_SECTIONS as usize) << MAX_SHIFT;

/// How a table is built. Every PSA method (and Vose's) builds one table from the same quantized
/// weights on every backend, every PSA+ method another; all give each item the same
/// probability. Samples drawn with one seed are the same only from the same table: name one
/// family on every backend ([`Construction::PSA_BASELINE`]) where that matters, as
/// [`Construction::auto`] picks PSA+ on the CPU and PSA on devices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Construction {
    /// Vose's method: one sequential sweep over the light and heavy items (CPU backend; devices
    /// build by [`Construction::FASTEST_ON_DEVICE`] when asked for it).
    Sequential,
    /// PSA: partition, prefix sums, splits, then sections packed in parallel. The CPU backend
    /// runs the baselines (binary split, one rayon task a section, weights beside indices);
    /// devices run every combination.
    Psa {
        /// How the splits between sections are found.
        split: SplitMethod,
        /// How each section is packed.
        pack: PackMethod,
        /// What the partition stores an item as.
        layout: Layout,
    },
    /// PSA+: each tile of 1024 items with enough light and heavy items first packs what it can
    /// from its own items (a greedy sweep while they are in shared memory), then PSA, by `split`
    /// and `pack`, builds the rest from what the tiles left (fewer items to scan, split and
    /// pack). The CPU backend runs it with the same tiles (so its tables equal a device's) and
    /// PSA's baselines.
    PsaPlus {
        /// How the splits of what the tiles left are found.
        split: SplitMethod,
        /// How its sections are packed.
        pack: PackMethod,
    },
}

impl Construction {
    /// PSA with the paper's baselines for both steps.
    pub const PSA_BASELINE: Construction = Construction::Psa {
        split: SplitMethod::Binary,
        pack: PackMethod::Baseline,
        layout: Layout::WeightsBeside,
    };

    /// PSA+ with the paper's baselines for the PSA step.
    pub const PSA_PLUS_BASELINE: Construction = Construction::PsaPlus {
        split: SplitMethod::Binary,
        pack: PackMethod::Baseline,
    };

    /// Whether `backend` offers this method: the CPU backend runs Vose's and PSA and PSA+ with
    /// the baselines, devices every PSA and PSA+ variant.
    pub(super) fn offered_by(self, backend: &Backend) -> bool {
        match backend {
            Backend::Cpu(_) => matches!(
                self,
                Construction::Sequential | Construction::PSA_BASELINE | Construction::PSA_PLUS_BASELINE
            ),
            Backend::Device(_) => self != Construction::Sequential,
        }
    }

    /// The device default: PSA with the binary split and the shared-memory pack (2048-row
    /// sections), the fastest of every method on an H100 in all four f64 cases measured
    /// ([results/alias.md](https://github.com/warpkit-rs/warpkit/blob/main/results/alias.md)): 0.47 / 3.80 ms for shuffled power-law weights and 0.49 / 3.83 ms
    /// for uniform ones at 10^7 / 10^8. PSA+ packs most uniform weights in its tiles but few
    /// power-law ones, and its extra passes cost more than they save (0.85 / 7.28 ms); the
    /// partial p-ary split, built for the paper's short sections, is slower on these long ones.
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

    /// What [`AliasTable::new`](super::AliasTable::new) uses on `backend`: [`Construction::FASTEST_ON_DEVICE`] on a
    /// device, PSA+ on the CPU (on 16 cores: 2.6-2.8x PSA's speed on uniform weights, 1.03-1.05x
    /// on shuffled power law, at 10^7 and 10^8 items).
    pub fn auto(backend: &Backend) -> Construction {
        match backend {
            Backend::Device(_) => Construction::FASTEST_ON_DEVICE,
            Backend::Cpu(_) => Construction::PSA_PLUS_BASELINE,
        }
    }
}

/// `PSA (binary split, shared-memory pack, weights beside)`, `PSA+ (binary split, baseline
/// pack)`, `Vose's sequential sweep`.
impl std::fmt::Display for Construction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let split = |s: &SplitMethod| match s {
            SplitMethod::Binary => "binary split",
            SplitMethod::PartialPary => "partial p-ary split",
        };
        let pack = |p: &PackMethod| match p {
            PackMethod::Baseline => "baseline pack",
            PackMethod::SharedMemory => "shared-memory pack",
            PackMethod::Chunked => "chunked pack",
        };
        match self {
            Construction::Sequential => write!(f, "Vose's sequential sweep"),
            Construction::Psa {
                split: s,
                pack: p,
                layout,
            } => {
                let layout = match layout {
                    Layout::WeightsBeside => "weights beside",
                    Layout::IndicesOnly => "indices only",
                };
                write!(f, "PSA ({}, {}, {layout})", split(s), pack(p))
            }
            Construction::PsaPlus { split: s, pack: p } => write!(f, "PSA+ ({}, {})", split(s), pack(p)),
        }
    }
}

/// How PSA's partition stores the light and heavy items for the pack (see
/// [`warpkit_kernels::alias::layout`]). Both build the same table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Each item's quantized weight beside its index (8 bytes a light item, whose weight fits
    /// 32 bits, and 16 a heavy one): the pack reads everything it needs from the partitioned
    /// array. The paper's faster layout.
    WeightsBeside,
    /// The index alone (4 bytes an item): less for the partition to write, but the pack reads
    /// each weight through its index, a scattered load, and quantizes it again.
    IndicesOnly,
}

/// How PSA finds the sweep's state at each section boundary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SplitMethod {
    /// One binary search per boundary (the paper's baseline).
    Binary,
    /// The paper's partial p-ary search: a block narrows the range for its consecutive
    /// boundaries together, then each thread finishes with a binary search.
    PartialPary,
}

/// How PSA packs the sections.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PackMethod {
    /// One thread per section of 256 rows, reading light and heavy items from global memory.
    Baseline,
    /// The paper's shared-memory pack: a block copies the items of its 2048 rows to shared
    /// memory (coalesced), then each of its 256 threads finds where its 8 rows start (a search
    /// narrowed to the block's items) and sweeps them from there.
    SharedMemory,
    /// The paper's chunked pack: sections of 1024 rows, 64 a block, each thread's items loaded
    /// into shared memory 16 light and 16 heavy at a time as its sweep runs out of them.
    Chunked,
}

/// How samples are drawn on a device (the CPU backend draws like [`Sampling::Baseline`] whatever
/// the method named: the same distribution, in random order, which every [`Order`] allows).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sampling {
    /// A random row, then its item or its alias: one table access per sample anywhere in the
    /// table. Samples come out in random order.
    Baseline,
    /// One block per section of `section_rows` rows draws that section's share of the samples
    /// (split by binomial deviates), reading the table through the cache. Samples come out
    /// grouped by section ([`Order::AsDrawn`]) unless shuffled.
    CachedSectioned {
        /// Rows a section.
        section_rows: u32,
    },
    /// As `CachedSectioned`, with so much shared memory reserved that one block runs per
    /// multiprocessor, so blocks do not evict each other's sections from the cache.
    CachedLimitedSectioned {
        /// Rows a section.
        section_rows: u32,
    },
    /// Each block copies its section to shared memory first, 8 bytes a row whatever the
    /// float type (up to 6144 rows in 48 KiB), then draws from there; the launch reserves
    /// enough shared memory that at most 3 blocks share a multiprocessor. Samples come out
    /// grouped by section ([`Order::AsDrawn`]) unless shuffled.
    SharedMemorySectioned,
    /// Samples in random order drawn from sections in shared memory: the output is cut into
    /// tiles of 16384 positions, each position picks a section as the baseline picks a row,
    /// a block a section draws its runs of every tile from shared memory, and each tile is then
    /// put in position order in shared memory (three launches, 12 bytes moved a sample where the
    /// baseline makes one random table read; `warpkit_kernels::alias::tiled`). Every position
    /// is an independent draw, as the baseline's; not the baseline's samples. Tables of up to
    /// [`TILED_MAX_ROWS`] rows (768 sections of 16384); a larger one is refused.
    Tiled,
}

/// The order samples come out in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Order {
    /// In random order, the default of every call that does not name an order: any `k` of the
    /// samples are `k` independent draws, as `torch.multinomial` and `rand_distr` give them.
    /// The same samples as [`Order::AsDrawn`] gives for the same seed, moved by a keyed random
    /// permutation of the positions. For the sectioned samplers this scatters every 4-byte
    /// store (several times the memory traffic); for the baseline and the tiled sampler, whose
    /// order is random already, it changes nothing.
    #[default]
    Shuffled,
    /// As the method draws them: random for [`Sampling::Baseline`], [`Sampling::Tiled`] (and
    /// the CPU backend), grouped by section for the sectioned samplers (consecutive samples
    /// then come from the same few rows). The fastest; for callers that use the samples as a multiset.
    AsDrawn,
}

/// How a sampling call draws ([`AliasTable::sample`](super::AliasTable::sample),
/// [`AliasTable::sample_into`](super::AliasTable::sample_into)): by which method (or by the one
/// [`Sampling::auto`] picks for the table and sample count), and in which order.
/// `SampleOptions::default()` is random order by the method picked.
///
/// ```
/// use warpkit::alias::{Order, SampleOptions, Sampling};
/// let grouped = SampleOptions::default().order(Order::AsDrawn);
/// let shared = SampleOptions::default().method(Sampling::SharedMemorySectioned);
/// # let _ = (grouped, shared);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SampleOptions {
    /// The sampler, or `None` for the one [`Sampling::auto`] picks.
    pub method: Option<Sampling>,
    /// The order the samples come out in.
    pub order: Order,
}

impl SampleOptions {
    /// These options drawing by `method`.
    pub const fn method(mut self, method: Sampling) -> SampleOptions {
        self.method = Some(method);
        self
    }

    /// These options giving samples in `order`.
    pub const fn order(mut self, order: Order) -> SampleOptions {
        self.order = order;
        self
    }

    /// The method that draws `s` samples from `n` rows, on a device or (`on_host`) on the CPU
    /// backend, which draws by the baseline whatever the method named.
    pub(super) fn resolve(self, n: usize, s: usize, on_host: bool) -> Sampling {
        match self.method {
            _ if on_host => Sampling::Baseline,
            Some(method) => method,
            None => Sampling::auto(n, s, self.order),
        }
    }
}

impl Order {
    /// The kernels' output code for this order under `method` (the baseline's and the tiled
    /// sampler's own order is random already, so it is never permuted).
    pub(super) fn code(self, method: Sampling) -> u32 {
        match (self, method) {
            (Order::Shuffled, Sampling::Baseline | Sampling::Tiled) | (Order::AsDrawn, _) => {
                sample::OUTPUT_IN_ORDER
            }
            (Order::Shuffled, _) => sample::OUTPUT_SHUFFLED,
        }
    }
}

impl Sampling {
    /// The fastest method for `s` samples from `n` rows in `order`. In random order (the
    /// default of [`AliasTable::sample`](super::AliasTable::sample) and the calls without an
    /// order) a method whose draws come out in random order already: every sectioned sampler,
    /// shuffled, is slower than the baseline (H100, 2026-11-26, 10^7 and 10^8 samples from 10^6
    /// rows: baseline 93 G samples/s, the fastest shuffled sectioned one 50 and 14). The
    /// baseline reads a random row a sample, from the L2 cache while the table fits it; the
    /// tiled sampler reads rows from shared memory but moves each sample three times. H200,
    /// 10^9 samples of f64 tables (16-byte rows), baseline against tiled: 10^6 rows 110 / 67 G/s,
    /// 2·10^6 94 / 69, 4·10^6 64 / 63, 10^7 42 / 58, 1.2·10^7 40 / 56; so the tiled sampler from
    /// 2^22 rows up to the largest table it takes ([`TILED_MAX_ROWS`]), where the samples are at
    /// least 4 a row (its rounds copy the table's sections into shared memory, about 16 bytes a
    /// row, against 16 bytes moved a sample; not measured below 10^9 samples). f32 rows are half
    /// as large and stay in the cache to twice the rows: their crossover is not measured.
    /// Grouped by section ([`Order::AsDrawn`]), the rule of [`Sampling::auto_as_drawn`].
    pub fn auto(n: usize, s: usize, order: Order) -> Sampling {
        const TILED_FROM_ROWS: usize = 1 << 22;
        match order {
            Order::Shuffled if (TILED_FROM_ROWS..=TILED_MAX_ROWS).contains(&n) && s / 4 >= n => {
                Sampling::Tiled
            }
            Order::Shuffled => Sampling::Baseline,
            Order::AsDrawn => Sampling::auto_as_drawn(n, s),
        }
    }

    /// The fastest method for `s` samples from `n` rows where the output may stay grouped by
    /// section ([`Order::AsDrawn`]). Measured on an
    /// H100 at 10^9 f64 samples ([results/alias.md](https://github.com/warpkit-rs/warpkit/blob/main/results/alias.md)): the baseline wins at 10^3 rows (349
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
    pub fn auto_as_drawn(n: usize, s: usize) -> Sampling {
        const HUGE_TABLE: usize = 1 << 26;
        match (n, s) {
            (n, _) if n <= 1 << 13 => Sampling::Baseline,
            (n, s) if s >= 4 * n || (n >= HUGE_TABLE && s >= n) => Sampling::SharedMemorySectioned,
            (n, s) if n >= HUGE_TABLE && s >= n / 10 => Sampling::CachedSectioned { section_rows: 4096 },
            _ => Sampling::Baseline,
        }
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
            assert_eq!(
                Sampling::auto(n, s, Order::AsDrawn),
                best,
                "{n} rows, {s} samples"
            );
        }
        // (rows, samples, the fastest in random order on the H200; results/alias.md)
        let shuffled = [
            (1_000, 1_000_000_000, Sampling::Baseline),
            (1_000_000, 1_000_000_000, Sampling::Baseline),
            (2_000_000, 1_000_000_000, Sampling::Baseline),
            (10_000_000, 1_000_000_000, Sampling::Tiled),
            (12_000_000, 1_000_000_000, Sampling::Tiled),
            (100_000_000, 1_000_000_000, Sampling::Baseline),
        ];
        for (n, s, best) in shuffled {
            assert_eq!(
                Sampling::auto(n, s, Order::Shuffled),
                best,
                "{n} rows, {s} samples"
            );
        }
        // Too few samples a row to repay the sections' copies, or too many rows for them.
        assert_eq!(
            Sampling::auto(10_000_000, 10_000_000, Order::Shuffled),
            Sampling::Baseline
        );
        assert_eq!(
            Sampling::auto(TILED_MAX_ROWS + 1, usize::MAX, Order::Shuffled),
            Sampling::Baseline
        );
    }
}
