//! Construction and sampling on a device (GPU or emulator): the PSA pipeline of
//! `warpkit_kernels::alias`, with every buffer kept in a workspace so that rebuilding from new
//! weights allocates nothing.
//!
//! Launches per build: sum (fixed grid, so the total is the same bits on every device), the
//! tiles' quantized weights and their sum, the tiles' sums (PSA: light counts and weights; PSA+:
//! its greedy rows and what they leave) and one scan over them, the partition (entries and
//! prefix sums in one pass), split, pack: three passes over the weights before the pack. One
//! host round trip on the way, the total (the quantizer is set from it, and a bad weight or
//! total refused before the table changes), and for PSA+ a second, its leftover count (which
//! shapes its split and pack); the quantized total and the light count stay on the device,
//! where the kernels after read them. Weights already in device memory are checked in the
//! sum's pass (the check comes back with the total); host weights were checked on the host.

use super::{
    AliasWeight, Construction, Layout, PackMethod, Sampling, SplitMethod, Stream, check_count, quantize_scale,
};
use crate::error::{Error, Result};
use crate::runtime::bindings::Bindings;
use crate::runtime::device::{Device, DeviceBuffer, LaunchShape};
use std::marker::PhantomData;
use warpkit_kernels::alias::kernels::TransformKernels;
use warpkit_kernels::alias::layout::EntrySink;
use warpkit_kernels::alias::pack::{
    CHUNKED_PACK_ROWS, Pack, PackIndexed, Packing, SHARED_PACK_ROWS, plan_block_chunked, plan_block_shared,
    plan_thread_baseline,
};
use warpkit_kernels::alias::partition::{
    CheckSum, PARTITION_TILE, Partition, Quantized, TILE_COUNTS, TileCounts, TileTotal,
};
use warpkit_kernels::alias::plus::{GreedyTiles, LEFTOVER_SUMS, PartitionLeftovers};
use warpkit_kernels::alias::sample::{Draws, Sample};
use warpkit_kernels::alias::sectioned::{
    SectionShares, SectionSource, Sectioned, alias_section_shares, plan_sectioned, section_plan,
};
use warpkit_kernels::alias::split::{
    PrefixWord, Splits, alias_split_binary, alias_split_binary_plus, alias_split_pary, alias_split_pary_plus,
};
use warpkit_kernels::alias::sweep::Settled;
use warpkit_kernels::alias::tiled::{
    TILE, TileDraws, TileGather, TileRanks, TileSections, alias_tile_gather, alias_tile_ranks, tile_sections,
};
use warpkit_kernels::alias::transform::Transform;
use warpkit_kernels::alias::{Entry, Quantizer, Row, Shape, Split};
use warpkit_kernels::grid::reduce::{REDUCE_FIXED_GRID, Reduce};
use warpkit_kernels::kernel::{Checked, Kernel};
use warpkit_kernels::policy::{ALIAS_ROWS_PER_SECTION, TILED_ROUND_TILES};

/// Words (u64) that hold `len` values of `T`.
fn words<T>(len: usize) -> usize {
    (len * size_of::<T>()).div_ceil(8)
}

/// Scratch of one table's construction.
struct Workspace {
    /// Each partition tile's quantized weight.
    tile_q: DeviceBuffer<u64>,
    /// Per-tile sums, segment after segment of `tiles + 1` (the last of each 0), and their one
    /// exclusive scan (see `warpkit_kernels::alias::partition::TileScans`).
    tile_sums: DeviceBuffer<u64>,
    tile_scans: DeviceBuffer<u64>,
    /// The partitioned items: entries, or (indices only) u32 items.
    entries: DeviceBuffer<u64>,
    /// Prefix sums: u64 for PSA, `[u64; 2]` for PSA+.
    prefix: DeviceBuffer<u64>,
    splits: DeviceBuffer<u64>,
    /// The first bad weight's index (u64::MAX if none) and the weights' total (its bits).
    scalars: DeviceBuffer<u64>,
    total_q: DeviceBuffer<u64>,
    /// Light items of the PSA step, and (PSA+) all its items.
    counts: DeviceBuffer<u32>,
}

/// The weights a build reads: the caller's, or the table's staging buffer.
enum Weights<'a, F: AliasWeight> {
    Given(&'a DeviceBuffer<F>),
    Staged,
}

/// A table in device memory with its workspace.
pub(super) struct DeviceTable<F: AliasWeight> {
    device: Device,
    table: DeviceBuffer<u64>,
    work: Workspace,
    /// Host weights, copied here rather than into a new buffer each build (made on first use).
    staging: Option<DeviceBuffer<F>>,
    n: usize,
    method: Construction,
    /// The weights' total of the last build (summed in their type over the fixed grid), if
    /// the table was built from weights.
    total: Option<f64>,
}

impl<F: AliasWeight> DeviceTable<F> {
    /// Allocates a table and its workspace for `n` items, built by `method` (a PSA variant)
    /// by [`DeviceTable::rebuild`] or [`DeviceTable::rebuild_from_host`].
    pub fn allocate(device: &Device, n: usize, method: Construction) -> Result<DeviceTable<F>> {
        check_count(n)?;
        // Splits for the smallest sections of the packs (the baseline's).
        let sections = n.div_ceil(ALIAS_ROWS_PER_SECTION as usize);
        let tiles = (n as u64).div_ceil(PARTITION_TILE) as usize;
        let (sums, prefix_words) = match method {
            Construction::PsaPlus { .. } => (LEFTOVER_SUMS, 2),
            _ => (TILE_COUNTS, 1),
        };
        let entry_words = match method {
            Construction::Psa {
                layout: Layout::IndicesOnly,
                ..
            } => words::<u32>(n),
            _ => words::<Entry>(n),
        };
        // The kernels write every word of the large buffers before it is read, so they skip
        // the zeroing (which cost 1.3 ms of a 5 ms build at 10^8). The tile sums keep it (the
        // last slot of each segment is read and subtracted out), and so do the few scalar
        // words (the check's, the counts, the quantized total), some of which a method leaves
        // unwritten.
        let work = Workspace {
            tile_q: device.workspace(tiles)?,
            tile_sums: device.zeros(sums * (tiles + 1))?,
            tile_scans: device.workspace(sums * (tiles + 1))?,
            entries: device.workspace(entry_words)?,
            prefix: device.workspace(prefix_words * (n + 1))?,
            splits: device.workspace(words::<Split>(sections + 1))?,
            scalars: device.zeros(2)?,
            total_q: device.zeros(1)?,
            counts: device.zeros(2)?,
        };
        Ok(DeviceTable {
            device: device.clone(),
            table: device.workspace(words::<Row<F>>(n))?,
            work,
            staging: None,
            n,
            method,
            total: None,
        })
    }

    pub fn device(&self) -> &Device {
        &self.device
    }

    pub fn construction(&self) -> Construction {
        self.method
    }

    /// The weights' total of the last build, if the table was built from weights.
    pub fn total(&self) -> Option<f64> {
        self.total
    }

    /// Builds from `weights` of total `total` and records the total.
    fn construct_from(&mut self, weights: Weights<'_, F>, total: f64) -> Result<()> {
        let weights = match weights {
            Weights::Given(w) => w,
            Weights::Staged => self.staging.as_ref().expect("staged before the build"),
        };
        construct(
            &self.device,
            &mut self.work,
            &mut self.table,
            self.method,
            weights,
            total,
        )?;
        self.total = Some(total);
        Ok(())
    }

    /// The staging buffer: host weights are copied there, and a transform writes its weights
    /// there (made on first use).
    fn staging(&mut self) -> Result<&mut DeviceBuffer<F>> {
        if self.staging.is_none() {
            self.staging = Some(self.device.workspace(self.n)?);
        }
        Ok(self.staging.as_mut().expect("made above"))
    }

    /// Copies host weights (checked on the host) into the staging buffer and rebuilds from
    /// them.
    pub fn rebuild_from_host(&mut self, weights: &[F]) -> Result<()> {
        crate::error::check_same_len("alias weights", self.n, weights.len())?;
        let d = self.device.clone();
        d.copy_from_host(weights, self.staging()?)?;
        let staging = self.staging.as_ref().expect("made above");
        let total = checked_total(&d, &mut self.work.scalars, staging, false)?;
        self.construct_from(Weights::Staged, total)
    }

    /// Builds the table from `weights` (of the table's length) in place, checking them on the
    /// device on the way; a bad weight leaves the table as it was.
    pub fn rebuild(&mut self, weights: &DeviceBuffer<F>) -> Result<()> {
        crate::error::check_same_len("alias weights", self.n, weights.len())?;
        let total = checked_total(&self.device, &mut self.work.scalars, weights, true)?;
        self.construct_from(Weights::Given(weights), total)
    }

    /// Builds the table in place from the weights `transform` makes of `raw` (of the table's
    /// length), written to the staging buffer and checked in the same pass; a bad weight
    /// leaves the table as it was.
    pub fn rebuild_by<T: TransformKernels<F>>(&mut self, raw: &DeviceBuffer<F>, transform: T) -> Result<()> {
        crate::error::check_same_len("raw alias weights", self.n, raw.len())?;
        let d = self.device.clone();
        let n = self.n as u64;
        self.staging()?;
        let staging = self.staging.as_mut().expect("made above");
        let total = first_pass_total::<F>(&d, &mut self.work.scalars, self.n, |grid, partials, scalars| {
            let mut b = d.bind();
            let p = Transform {
                raw: b.read(raw)?,
                n,
                transform,
                weights: b.write(staging)?,
                partials: b.write(partials)?.cast(),
                first_bad: b.write(scalars)?,
            };
            b.launch::<T::Transform>(grid, p)
        })?;
        self.construct_from(Weights::Staged, total)
    }

    /// The rows, copied to the host. The table's words hold them as the kernels store them
    /// (`Row<F>` is `repr(C)`): the threshold's bits in the low half of an f32 row's word, or
    /// in the first word of an f64 row's two, the alias beside it.
    pub fn rows(&self) -> Result<Vec<Row<F>>> {
        let words = self.device.download(&self.table)?;
        let per_row = size_of::<Row<F>>() / size_of::<u64>();
        Ok(words
            .chunks_exact(per_row)
            .take(self.n)
            .map(|w| {
                let alias = if per_row == 2 { w[1] } else { w[0] >> 32 };
                Row::new(F::from_bits64(w[0]), alias as u32)
            })
            .collect())
    }

    /// Stores `rows` (one an item) as the table, in the words [`DeviceTable::rows`] reads.
    pub fn set_rows(&mut self, rows: &[Row<F>]) -> Result<()> {
        let per_row = size_of::<Row<F>>() / size_of::<u64>();
        let mut words = vec![0u64; self.table.len()];
        for (w, r) in words.chunks_exact_mut(per_row).zip(rows) {
            let (threshold, alias) = (r.threshold.to_bits64(), r.alias as u64);
            match w {
                [one] => *one = threshold | alias << 32,
                [first, second] => (*first, *second) = (threshold, alias),
                _ => unreachable!("a row is 8 or 16 bytes"),
            }
        }
        self.total = None;
        self.device.copy_from_host(&words, &mut self.table)
    }

    /// What every sampler takes: this table and `out`, bound in `b`, for `out.len()` samples of
    /// `stream`.
    fn draws<'a>(
        &'a self,
        b: &mut Bindings<'a>,
        out: &'a mut DeviceBuffer<u32>,
        stream: Stream,
    ) -> Result<Draws<F>> {
        let s = out.len() as u64;
        Ok(Draws {
            table: b.read(&self.table)?.cast(),
            n: self.n as u64,
            out: b.write(out)?,
            s,
            stream,
        })
    }

    /// Fills `out` with samples of `stream` by `method`, as the kernels' `output` code says
    /// (`warpkit_kernels::alias::sample::OUTPUT_*`).
    pub fn sample_into(
        &self,
        stream: Stream,
        out: &mut DeviceBuffer<u32>,
        method: Sampling,
        output: u32,
    ) -> Result<()> {
        let d = &self.device;
        let (n, s) = (self.n as u64, out.len() as u64);
        if s == 0 {
            return Ok(());
        }
        let (source, section_rows) = match method {
            Sampling::Baseline => {
                let mut b = d.bind();
                let p = Sample {
                    draws: self.draws(&mut b, out, stream)?,
                    output,
                };
                let shape = d.cap_to_resident::<F::Sample>(p.plan(), 1)?;
                return b.launch::<F::Sample>(shape, p);
            }
            Sampling::Tiled => return self.sample_tiled(stream, out),
            Sampling::CachedSectioned { section_rows } => (SectionSource::Cached, section_rows),
            Sampling::CachedLimitedSectioned { section_rows } => (SectionSource::CachedLimited, section_rows),
            Sampling::SharedMemorySectioned => (SectionSource::Shared, 0),
        };
        let (section_rows, shared) = section_plan(source, n, section_rows as u64, &d.limits().launch);
        if section_rows == 0 {
            return Err(Error::TooLong {
                what: "rows per section (at least 1)",
                len: 0,
                max: u32::MAX as u64,
            });
        }
        let sections = n.div_ceil(section_rows);
        let shape = plan_sectioned(n, section_rows, shared);
        // Refused before the shares' scratch is allocated (a section a row would ask for 16
        // bytes a row, kept for the device's lifetime).
        if let Some(reason) = d.limits().refusal(&shape) {
            return Err(Error::LaunchShape {
                kernel: "alias sectioned sampler",
                reason,
            });
        }
        let mut scratch = d.scratch(sections as usize * size_of::<[u64; 2]>())?;
        let shares = scratch.as_mut().expect("scratch allocated");
        let mut b = d.bind();
        let q = SectionShares {
            s,
            n,
            stream,
            section_rows,
            sections,
            shares: b.write(shares)?.cast(),
        };
        b.launch::<alias_section_shares>(q.plan(), q)?;
        let mut b = d.bind();
        let p = Sectioned {
            draws: self.draws(&mut b, out, stream)?,
            section_rows,
            shares: b.read(shares)?.cast(),
            output,
        };
        match source {
            SectionSource::Shared => b.launch::<F::SampleShared>(shape, p),
            _ => b.launch::<F::SampleCached>(shape, p),
        }
    }

    /// Tiled sampling (`warpkit_kernels::alias::tiled`) into `out` (not empty), in rounds of
    /// at most [`TILED_ROUND_TILES`] tiles, three launches each: the rounds' scratch (each
    /// tile's run starts and each position's place) stays that size whatever the sample count.
    fn sample_tiled(&self, stream: Stream, out: &mut DeviceBuffer<u32>) -> Result<()> {
        let d = &self.device;
        let (n, s) = (self.n as u64, out.len() as u64);
        let Some((shift, sections)) = tile_sections(n) else {
            return Err(Error::TooLong {
                what: "rows of a table sampled by Sampling::Tiled",
                len: n,
                max: super::method::TILED_MAX_ROWS as u64,
            });
        };
        let cut = TileSections { n, shift, sections };
        let tiles = s.div_ceil(TILE);
        let round = tiles.min(TILED_ROUND_TILES);
        // The starts first, rounded up to keep the places 256-byte aligned.
        let starts_bytes = (round as usize * (sections as usize + 1) * 4).next_multiple_of(256);
        let mut scratch = d.scratch(starts_bytes + round as usize * TILE as usize * 2)?;
        let scratch = scratch.as_mut().expect("scratch allocated");
        // Enough blocks for four waves of one a multiprocessor, in shares of the round's tiles.
        let multiprocessors = d.limits().launch.multiprocessors;
        let chunks = (4 * multiprocessors).div_ceil(sections);
        let mut first_tile = 0;
        while first_tile < tiles {
            let count = (tiles - first_tile).min(round) as u32;
            let mut b = d.bind();
            let base = b.write(scratch)?;
            let p = TileRanks {
                cut,
                s,
                stream,
                first_tile,
                starts: base.cast(),
                places: base.wrapping_add(starts_bytes).cast(),
            };
            b.launch::<alias_tile_ranks>(p.plan(count), p)?;
            let mut b = d.bind();
            let base = b.read(scratch)?;
            let q = TileDraws {
                draws: self.draws(&mut b, out, stream)?,
                shift,
                sections,
                first_tile,
                tiles: count,
                starts: base.cast(),
            };
            b.launch::<F::TileDraws>(q.plan(chunks.min(count)), q)?;
            let mut b = d.bind();
            let base = b.read(scratch)?;
            let g = TileGather {
                out: b.write(out)?,
                s,
                first_tile,
                places: base.wrapping_add(starts_bytes).cast(),
            };
            b.launch::<alias_tile_gather>(TileGather::plan(count), g)?;
            first_tile += count as u64;
        }
        Ok(())
    }
}

/// The weights' total (summed over a fixed grid, so the same bits on every device), and with
/// `check` the weights checked in the same pass: `Err(InvalidWeight)` naming the first one
/// that is negative, NaN or infinite. Two launches and one round trip for both.
fn checked_total<F: AliasWeight>(
    d: &Device,
    scalars: &mut DeviceBuffer<u64>,
    weights: &DeviceBuffer<F>,
    check: bool,
) -> Result<f64> {
    let n = weights.len() as u64;
    first_pass_total::<F>(d, scalars, weights.len(), |grid, partials, scalars| {
        let mut b = d.bind();
        if check {
            let p = CheckSum {
                weights: b.read(weights)?,
                n,
                partials: b.write(partials)?.cast(),
                first_bad: b.write(scalars)?,
            };
            b.launch::<F::Check>(grid, p)
        } else {
            let p = Reduce {
                input: b.read(weights)?,
                n,
                partials: b.write(partials)?.cast(),
            };
            b.launch::<F::Reduce>(grid, p)
        }
    })
}

/// The total of `n` weights whose sum's first pass `first` launches on the grid it is given
/// (a fixed one), writing a partial a block and lowering the first scalar to the index of
/// the first bad weight: the total, or `Err(InvalidWeight)` naming that weight.
fn first_pass_total<F: AliasWeight>(
    d: &Device,
    scalars: &mut DeviceBuffer<u64>,
    n: usize,
    first: impl FnOnce(LaunchShape, &mut DeviceBuffer<u8>, &mut DeviceBuffer<u64>) -> Result<()>,
) -> Result<f64> {
    d.copy_from_host(&[u64::MAX, 0], scalars)?;
    // The first bad index is the first word, the total (F is at most 8 bytes) the second.
    let total_at = size_of::<u64>();
    d.sum_over_grid_by::<F, u64>(n, scalars, total_at, REDUCE_FIXED_GRID, first)?;
    match d.download(scalars)?[..] {
        [u64::MAX, total] => Ok(F::from_bits64(total).to_f64()),
        [index, _] => Err(Error::InvalidWeight {
            index: index as usize,
        }),
        _ => unreachable!("two scalars"),
    }
}

/// The PSA and PSA+ pipelines: builds `table` from `weights` of sum `total` (their
/// [`checked_total`]) by `method`, with `work` as scratch.
fn construct<F: AliasWeight>(
    d: &Device,
    w: &mut Workspace,
    table: &mut DeviceBuffer<u64>,
    method: Construction,
    weights: &DeviceBuffer<F>,
    total: f64,
) -> Result<()> {
    let n = weights.len() as u64;
    let quantizer = quantize_scale::<F>(n as usize, total)?;
    let mut b = d.bind();
    let p = TileTotal {
        weights: b.read(weights)?,
        n,
        quantizer,
        tile_q: b.write(&mut w.tile_q)?,
        sums: b.write(&mut w.tile_sums)?,
    };
    b.launch::<F::TileTotal>(p.plan(), p)?;
    // The quantized total and (PSA) the light count stay on the device: the kernels after
    // read them there, so nothing waits for them.
    d.sum_into(&w.tile_q, &mut w.total_q)?;
    let items = Items { weights, quantizer };
    match method {
        Construction::Psa { split, pack, layout } => {
            let mut b = d.bind();
            let p = TileCounts {
                items: items.bind(&mut b, &w.total_q)?,
                sums: b.write(&mut w.tile_sums)?,
            };
            b.launch::<F::TileCounts>(p.plan(), p)?;
            d.exclusive_scan_into(&w.tile_sums, &mut w.tile_scans)?;
            match layout {
                Layout::WeightsBeside => partition::<F, Entry, F::Partition>(d, w, items)?,
                Layout::IndicesOnly => partition::<F, u32, F::PartitionIndices>(d, w, items)?,
            }
            let packs = split_sections::<PsaKernels>(d, w, &Shape::unsettled(n, n), split, pack)?;
            let mut b = d.bind();
            match layout {
                Layout::WeightsBeside => {
                    let p = packs.stored::<F>(&mut b, w, table)?;
                    packs.launch::<F::Pack, F::PackShared, F::PackChunked>(b, p)
                }
                Layout::IndicesOnly => {
                    let p = packs.indexed(&mut b, w, items, table)?;
                    packs.launch::<F::PackIndices, F::PackSharedIndices, F::PackChunkedIndices>(b, p)
                }
            }
        }
        Construction::PsaPlus { split, pack } => {
            let mut b = d.bind();
            let p = GreedyTiles {
                items: items.bind(&mut b, &w.total_q)?,
                sums: b.write(&mut w.tile_sums)?,
                table: b.write(table)?.cast(),
            };
            b.launch::<F::GreedyTiles>(p.plan(), p)?;
            d.exclusive_scan_into(&w.tile_sums, &mut w.tile_scans)?;
            partition_leftovers(d, w, items)?;
            // The leftovers' count shapes the split and pack launches: one round trip.
            let [_, left] = d.download(&w.counts)?[..] else {
                unreachable!("two counts")
            };
            if left == 0 {
                return Ok(());
            }
            let shape = Shape::unsettled(left as u64, n);
            let packs = split_sections::<PsaPlusKernels>(d, w, &shape, split, pack)?;
            let mut b = d.bind();
            let p = packs.stored::<F>(&mut b, w, table)?;
            packs.launch::<F::PackPlus, F::PackSharedPlus, F::PackChunkedPlus>(b, p)
        }
        Construction::Sequential => {
            unreachable!("devices build by PSA and PSA+ only (checked by the caller)")
        }
    }
}

/// A construction's weights on the device and their quantizer: with their quantized total in
/// device memory, what its tile kernels take as [`Quantized`].
#[derive(Clone, Copy)]
struct Items<'a, F> {
    weights: &'a DeviceBuffer<F>,
    quantizer: Quantizer,
}

impl<'a, F: AliasWeight> Items<'a, F> {
    /// The kernels' parameters, the weights and `total` (one word) bound in `b` for reading.
    fn bind(self, b: &mut Bindings<'a>, total: &'a DeviceBuffer<u64>) -> Result<Quantized<F>> {
        Ok(Quantized {
            weights: b.read(self.weights)?,
            n: self.weights.len() as u64,
            quantizer: self.quantizer,
            total: b.read(total)?,
        })
    }
}

/// PSA's partition of `items` into `w.entries` as `E` (entries or indices), with their
/// prefix sums and light count, given the scans of their tile counts in `w`.
fn partition<F: AliasWeight, E: EntrySink, K: Kernel<Params = Partition<F, E>>>(
    d: &Device,
    w: &mut Workspace,
    items: Items<F>,
) -> Result<()> {
    let mut b = d.bind();
    let p = Partition {
        items: items.bind(&mut b, &w.total_q)?,
        scans: b.read(&w.tile_scans)?,
        entries: b.write(&mut w.entries)?.cast::<E>(),
        prefix: b.write(&mut w.prefix)?,
        n_light: b.write(&mut w.counts)?,
    };
    b.launch::<K>(p.plan(), p)
}

/// PSA+'s partition of the leftovers of `items` into `w.entries`, with their `[Σq, Σrem]`
/// prefix sums and counts, given the scans of their greedy tiles' sums in `w`.
fn partition_leftovers<F: AliasWeight>(d: &Device, w: &mut Workspace, items: Items<F>) -> Result<()> {
    let mut b = d.bind();
    let p = PartitionLeftovers {
        items: items.bind(&mut b, &w.total_q)?,
        scans: b.read(&w.tile_scans)?,
        entries: b.write(&mut w.entries)?.cast(),
        prefix: b.write(&mut w.prefix)?.cast(),
        counts: b.write(&mut w.counts)?,
    };
    b.launch::<F::PartitionLeftovers>(p.plan(), p)
}

/// The split kernels of one prefix-sum word: PSA's or those of PSA+'s PSA step.
trait Splitters {
    type Word: PrefixWord;
    type Binary: Kernel<Params = Splits<Self::Word>>;
    type Pary: Kernel<Params = Splits<Self::Word>>;
}

struct PsaKernels;
struct PsaPlusKernels;

impl Splitters for PsaKernels {
    type Word = u64;
    type Binary = alias_split_binary;
    type Pary = alias_split_pary;
}

impl Splitters for PsaPlusKernels {
    type Word = [u64; 2];
    type Binary = alias_split_binary_plus;
    type Pary = alias_split_pary_plus;
}

/// PSA's split over the prefix sums in `w` (of `shape.n` items, `shape.n > 0`; the light count
/// and quantized total are read on the device from `w`) at the section boundaries of `pack`,
/// into `w.splits`; what its pack then needs.
fn split_sections<K: Splitters>(
    d: &Device,
    w: &mut Workspace,
    shape: &Shape,
    split: SplitMethod,
    pack: PackMethod,
) -> Result<Packs<K::Word>> {
    let packs = Packs::<K::Word>::new(pack, shape);
    let mut b = d.bind();
    let p = Splits {
        prefix: b.read(&w.prefix)?.cast::<K::Word>(),
        shape: *shape,
        settled: settled(&mut b, &w.counts, &w.total_q)?,
        sections: packs.sections,
        rows_per_section: packs.rows_per_section(),
        splits: b.write(&mut w.splits)?.cast::<Split>(),
    };
    match split {
        SplitMethod::PartialPary => b.launch::<K::Pary>(p.plan(), p)?,
        SplitMethod::Binary => b.launch::<K::Binary>(p.plan(), p)?,
    };
    Ok(packs)
}

/// Where the build's partition and tile sums leave the light count (`counts`) and the
/// quantized total (`total_q`), bound in `b` for the split and packs to read.
fn settled<'a>(
    b: &mut Bindings<'a>,
    counts: &'a DeviceBuffer<u32>,
    total_q: &'a DeviceBuffer<u64>,
) -> Result<Settled> {
    Ok(Settled {
        light: b.read(counts)?,
        total: b.read(total_q)?,
    })
}

/// A pack of split sections: every parameter but the buffers.
struct Packs<W> {
    pack: PackMethod,
    shape: Shape,
    sections: u64,
    word: PhantomData<W>,
}

impl<W: PrefixWord> Packs<W> {
    /// The pack of `shape`'s rows by `pack`, in sections of that method's rows.
    fn new(pack: PackMethod, shape: &Shape) -> Packs<W> {
        let mut packs = Packs {
            pack,
            shape: *shape,
            sections: 0,
            word: PhantomData,
        };
        packs.sections = shape.n.div_ceil(packs.rows_per_section());
        packs
    }

    fn rows_per_section(&self) -> u64 {
        match self.pack {
            PackMethod::Baseline => ALIAS_ROWS_PER_SECTION,
            PackMethod::SharedMemory => SHARED_PACK_ROWS,
            PackMethod::Chunked => CHUNKED_PACK_ROWS,
        }
    }

    /// The parameters of the packs that read entries, weights beside indices, bound in `b`.
    fn stored<'a, F: AliasWeight>(
        &self,
        b: &mut Bindings<'a>,
        w: &'a Workspace,
        table: &'a mut DeviceBuffer<u64>,
    ) -> Result<Pack<F, W>> {
        Ok(Pack {
            entries: b.read(&w.entries)?.cast(),
            packing: Packing {
                prefix: b.read(&w.prefix)?.cast(),
                shape: self.shape,
                splits: b.read(&w.splits)?.cast(),
                sections: self.sections,
                table: b.write(table)?.cast(),
            },
            settled: settled(b, &w.counts, &w.total_q)?,
        })
    }

    /// Launches the kernel of this pack method (`B`, `S`, `C`: baseline, shared-memory,
    /// chunked) with `params` bound in `b`.
    fn launch<B, S, C>(&self, b: Bindings<'_>, params: B::Params) -> Result<()>
    where
        B: Kernel,
        B::Params: Checked,
        S: Kernel<Params = B::Params>,
        C: Kernel<Params = B::Params>,
    {
        let sections = self.sections;
        match self.pack {
            PackMethod::Baseline => b.launch::<B>(plan_thread_baseline(sections), params),
            PackMethod::Chunked => b.launch::<C>(plan_block_chunked(sections), params),
            PackMethod::SharedMemory => b.launch::<S>(plan_block_shared(sections, size_of::<W>()), params),
        }
    }
}

impl Packs<u64> {
    /// The parameters of PSA's packs that read indices only (the entries' buffer holds them),
    /// with the items' weights and quantizer, bound in `b`.
    fn indexed<'a, F: AliasWeight>(
        &self,
        b: &mut Bindings<'a>,
        w: &'a Workspace,
        items: Items<'a, F>,
        table: &'a mut DeviceBuffer<u64>,
    ) -> Result<PackIndexed<F>> {
        let Pack {
            entries,
            packing,
            settled,
        } = self.stored(b, w, table)?;
        Ok(PackIndexed {
            items: entries.cast(),
            weights: b.read(items.weights)?,
            quantizer: items.quantizer,
            packing,
            settled,
        })
    }
}

/// Words of poison past each buffer that [`construct_with_contents`] lets a kernel write.
#[cfg(feature = "checks")]
const GUARD: usize = 4096;

/// Runs the partition of `method` and (but for the shared-memory pack, which may trap on such
/// contents: safe, but it ends the context) its pack over `weights`, each reading words from
/// `word` where the step before would have left its results (the quantized total and the tile
/// scans; the entries, prefix sums and splits, and the light count), with `GUARD` words of poison past each
/// buffer they write. Whether every guard is intact: no store past a buffer's end, whatever
/// the buffers held.
#[cfg(feature = "checks")]
pub fn construct_with_contents<F: AliasWeight>(
    d: &Device,
    weights: &DeviceBuffer<F>,
    method: Construction,
    word: impl Fn(usize) -> u64,
) -> Result<bool> {
    const POISON: u64 = 0xdead_beef_dead_beef;
    let n = weights.len();
    let noise = |len: usize| (0..len).map(&word).collect::<Vec<u64>>();
    let guarded = |len: usize| d.filled(len + GUARD, POISON);
    let intact = |buf: &DeviceBuffer<u64>| -> Result<bool> {
        let words = d.download(buf)?;
        Ok(words[words.len() - GUARD..].iter().all(|&w| w == POISON))
    };
    let mut w = DeviceTable::<F>::allocate(d, n, method)?.work;
    let items = Items {
        weights,
        quantizer: Quantizer {
            shift: 0,
            scale: 1.0,
            factor: 1.0,
        },
    };
    d.copy_from_host(&[word(0) | 1], &mut w.total_q)?;
    d.copy_from_host(&noise(w.tile_scans.len()), &mut w.tile_scans)?;
    let (entries, prefix) = (w.entries.len(), w.prefix.len());
    w.entries = guarded(entries)?;
    w.prefix = guarded(prefix)?;
    let pack = match method {
        Construction::Psa { pack, layout, .. } => {
            match layout {
                Layout::WeightsBeside => partition::<F, Entry, F::Partition>(d, &mut w, items)?,
                Layout::IndicesOnly => partition::<F, u32, F::PartitionIndices>(d, &mut w, items)?,
            }
            pack
        }
        Construction::PsaPlus { pack, .. } => {
            partition_leftovers(d, &mut w, items)?;
            pack
        }
        Construction::Sequential => {
            return Err(Error::UnsupportedMethod {
                method: "Sequential".into(),
                backend: d.describe(),
            });
        }
    };
    let partitioned = intact(&w.entries)? && intact(&w.prefix)?;
    if !partitioned || pack == PackMethod::SharedMemory {
        return Ok(partitioned);
    }
    d.copy_from_host(&noise(w.entries.len()), &mut w.entries)?;
    d.copy_from_host(&noise(w.prefix.len()), &mut w.prefix)?;
    d.copy_from_host(&noise(w.splits.len()), &mut w.splits)?;
    // The light count the pack reads (the partition's own may be anything; past `n` too).
    d.copy_from_host(&[word(1) as u32, 0], &mut w.counts)?;
    let shape = Shape::unsettled(n as u64, n as u64);
    let mut table = guarded(words::<Row<F>>(n))?;
    let mut b = d.bind();
    match method {
        Construction::Psa {
            layout: Layout::WeightsBeside,
            ..
        } => {
            let packs = Packs::<u64>::new(pack, &shape);
            let p = packs.stored::<F>(&mut b, &w, &mut table)?;
            packs.launch::<F::Pack, F::PackShared, F::PackChunked>(b, p)?
        }
        Construction::Psa { .. } => {
            let packs = Packs::<u64>::new(pack, &shape);
            let p = packs.indexed(&mut b, &w, items, &mut table)?;
            packs.launch::<F::PackIndices, F::PackSharedIndices, F::PackChunkedIndices>(b, p)?
        }
        _ => {
            let packs = Packs::<[u64; 2]>::new(pack, &shape);
            let p = packs.stored::<F>(&mut b, &w, &mut table)?;
            packs.launch::<F::PackPlus, F::PackSharedPlus, F::PackChunkedPlus>(b, p)?
        }
    }
    intact(&table)
}
