//! Construction and sampling on a device (GPU or emulator): the PSA pipeline of
//! `warpkit_kernels::alias`, with every buffer kept in a workspace so that rebuilding from new
//! weights allocates nothing.
//!
//! Launches per build: sum (fixed grid, so the total is the same bits on every device), the
//! tiles' quantized weights and their sum, the tiles' sums (PSA: light counts and weights; PSA+:
//! its greedy rows and what they leave) and one scan over them, the partition (entries and
//! prefix sums in one pass), split, pack: three passes over the weights before the pack. Three
//! host round trips on the way: the total, the quantized total, the light count (with PSA+'s
//! leftover count). Weights already in device memory are checked in the sum's pass (the check
//! comes back with the total); host weights were checked on the host.

use super::{
    AliasWeight, Construction, Layout, PackMethod, Sampling, SplitMethod, Stream, check_count, quantize_scale,
};
use crate::error::{Error, Result};
use crate::runtime::device::{Device, DeviceBuffer};
use warpkit_kernels::alias::pack::{
    CHUNKED_PACK_ROWS, Pack, PackIndexed, SHARED_PACK_ROWS, plan_block_chunked, plan_block_shared,
    plan_thread_baseline,
};
use warpkit_kernels::alias::partition::{
    CheckSum, PARTITION_TILE, Partition, TILE_COUNTS, TileCounts, TileTotal,
};
use warpkit_kernels::alias::plus::{GreedyTiles, LEFTOVER_SUMS, PartitionLeftovers};
use warpkit_kernels::alias::sample::Sample;
use warpkit_kernels::alias::sectioned::{
    SectionShares, SectionSource, Sectioned, alias_section_shares, section_plan,
};
use warpkit_kernels::alias::split::{
    PrefixWord, Splits, alias_split_binary, alias_split_binary_plus, alias_split_pary, alias_split_pary_plus,
};
use warpkit_kernels::alias::{Entry, Quantizer, Row, Shape, Split};
use warpkit_kernels::grid::reduce::{REDUCE_FIXED_GRID, Reduce};
use warpkit_kernels::kernel::Kernel;
use warpkit_kernels::policy::ALIAS_ROWS_PER_SECTION;

/// Words (u64) that hold `len` values of `T`.
fn words<T>(len: usize) -> usize {
    (len * size_of::<T>()).div_ceil(8)
}

/// Scratch of one table's construction.
struct Workspace {
    /// Items of the table it builds.
    items: usize,
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

/// A table in device memory with its workspace.
pub(super) struct DeviceTable<F: AliasWeight> {
    device: Device,
    table: DeviceBuffer<u64>,
    work: Workspace,
    /// Host weights, copied here rather than into a new buffer each build (made on first use).
    staging: Option<DeviceBuffer<F>>,
    n: usize,
    method: Construction,
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
        // last slot of each segment is read and subtracted out), and so do the few words read
        // back to the host whole, some of which a method leaves unwritten.
        let work = Workspace {
            items: n,
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
        })
    }

    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Copies host weights into the staging buffer and rebuilds from them.
    pub fn rebuild_from_host(&mut self, weights: &[F]) -> Result<()> {
        if self.staging.is_none() {
            self.staging = Some(self.device.zeros(self.n)?);
        }
        let staging = self.staging.as_mut().expect("made above");
        self.device.copy_from_host(weights, staging)?;
        construct(
            &self.device,
            &mut self.work,
            &mut self.table,
            self.method,
            staging,
            false,
        )
    }

    /// Builds the table from `weights` (of the table's length) in place, checking them on the
    /// device on the way (host weights were checked on the host); a bad weight leaves the
    /// table as it was.
    pub fn rebuild(&mut self, weights: &DeviceBuffer<F>) -> Result<()> {
        construct(
            &self.device,
            &mut self.work,
            &mut self.table,
            self.method,
            weights,
            true,
        )
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
                    table: b.read(&self.table)?.cast::<Row<F>>(),
                    n,
                    out: b.write(out)?,
                    s,
                    stream,
                    output,
                };
                let shape = d.cap_to_resident::<F::Sample>(p.plan(), 1)?;
                return b.launch::<F::Sample>(shape, p);
            }
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
        let plain = Sectioned::<F> {
            table: std::ptr::null(),
            n,
            out: std::ptr::null_mut(),
            s,
            stream,
            section_rows,
            shares: std::ptr::null(),
            output,
        };
        let shape = plain.plan(shared);
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
            table: b.read(&self.table)?.cast(),
            out: b.write(out)?,
            shares: b.read(shares)?.cast(),
            ..plain
        };
        match source {
            SectionSource::Shared => b.launch::<F::SampleShared>(shape, p),
            _ => b.launch::<F::SampleCached>(shape, p),
        }
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
    d.copy_from_host(&[u64::MAX, 0], scalars)?;
    let n = weights.len() as u64;
    // The first bad index is the first word, the total (F is at most 8 bytes) the second.
    let total_at = size_of::<u64>();
    d.sum_over_grid_by::<F, u64>(
        weights.len(),
        scalars,
        total_at,
        REDUCE_FIXED_GRID,
        |grid, partials, scalars| {
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
        },
    )?;
    match d.download(scalars)?[..] {
        [u64::MAX, total] => Ok(F::from_bits64(total).to_f64()),
        [index, _] => Err(Error::InvalidWeight {
            index: index as usize,
        }),
        _ => unreachable!("two scalars"),
    }
}

/// The PSA and PSA+ pipelines: builds `table` from `weights` by `method`, with `work` as
/// scratch, checking the weights first with `check` (else they were checked on the host).
fn construct<F: AliasWeight>(
    d: &Device,
    w: &mut Workspace,
    table: &mut DeviceBuffer<u64>,
    method: Construction,
    weights: &DeviceBuffer<F>,
    check: bool,
) -> Result<()> {
    let n = weights.len() as u64;
    crate::error::check_same_len("alias weights", w.items, weights.len())?;
    let src = d.ptr(weights)?;
    let total = checked_total(d, &mut w.scalars, weights, check)?;
    let (shift, scale) = quantize_scale::<F>(n as usize, total)?;
    let quantizer = Quantizer { shift, scale };
    let mut b = d.bind();
    let p = TileTotal {
        weights: b.read(weights)?,
        n,
        quantizer,
        tile_q: b.write(&mut w.tile_q)?,
    };
    b.launch::<F::TileTotal>(p.plan(), p)?;
    d.sum_into(&w.tile_q, &mut w.total_q)?;
    let total = d.download(&w.total_q)?[0];
    let entries = d.ptr_mut(&mut w.entries)?.cast::<Entry>();
    let (scans, counts) = (d.ptr(&w.tile_scans)?, d.ptr_mut(&mut w.counts)?);
    match method {
        Construction::Psa { split, pack, layout } => {
            let mut b = d.bind();
            let p = TileCounts {
                weights: b.read(weights)?,
                n,
                quantizer,
                total,
                sums: b.write(&mut w.tile_sums)?,
            };
            b.launch::<F::TileCounts>(p.plan(), p)?;
            d.exclusive_scan_into(&w.tile_sums, &mut w.tile_scans)?;
            let prefix = d.ptr_mut(&mut w.prefix)?;
            let n_light = d.ptr_mut(&mut w.counts)?;
            // SAFETY: n > 0 weights, room for n entries (16-byte aligned: device buffers are
            // 256-byte aligned) and n + 1 prefix sums; the scan of these weights' tile sums;
            // the plan's block per tile with the partition's shared memory.
            unsafe {
                match layout {
                    Layout::WeightsBeside => {
                        let p = Partition {
                            weights: src,
                            n,
                            quantizer,
                            total,
                            scans,
                            entries,
                            prefix,
                            n_light,
                        };
                        d.launch_unchecked::<F::Partition>(p.plan(), p)?
                    }
                    Layout::IndicesOnly => {
                        let entries = entries.cast::<u32>();
                        let p = Partition {
                            weights: src,
                            n,
                            quantizer,
                            total,
                            scans,
                            entries,
                            prefix,
                            n_light,
                        };
                        d.launch_unchecked::<F::PartitionIndices>(p.plan(), p)?
                    }
                }
            };
            let n_light = d.download(&w.counts)?[0] as u64;
            let shape = Shape::whole(n, n_light, total);
            let rows = d.ptr_mut(table)?.cast::<Row<F>>();
            let packs = split_sections::<F, PsaKernels>(d, w, &shape, split, pack, rows)?;
            // SAFETY: the partitioned items in the chosen layout (for indices, the weights and
            // quantization the partition read), their prefix sums and the splits just computed.
            unsafe {
                match layout {
                    Layout::WeightsBeside => {
                        let p = packs.stored(entries.cast_const());
                        packs.launch::<F::Pack, F::PackShared, F::PackChunked>(d, p)
                    }
                    Layout::IndicesOnly => {
                        let p = packs.indexed(entries.cast::<u32>().cast_const(), src, quantizer);
                        packs.launch::<F::PackIndices, F::PackSharedIndices, F::PackChunkedIndices>(d, p)
                    }
                }
            }
        }
        Construction::PsaPlus { split, pack } => {
            let mut b = d.bind();
            let p = GreedyTiles {
                weights: b.read(weights)?,
                n,
                quantizer,
                total,
                sums: b.write(&mut w.tile_sums)?,
                table: b.write(table)?.cast(),
            };
            b.launch::<F::GreedyTiles>(p.plan(), p)?;
            d.exclusive_scan_into(&w.tile_sums, &mut w.tile_scans)?;
            let prefix = d.ptr_mut(&mut w.prefix)?.cast::<[u64; 2]>();
            let p = PartitionLeftovers {
                weights: src,
                n,
                quantizer,
                total,
                scans,
                entries,
                prefix,
                counts,
            };
            // SAFETY: as for PSA's partition, with room for n + 1 prefix pairs (the leftovers
            // are at most n).
            unsafe { d.launch_unchecked::<F::PartitionLeftovers>(p.plan(), p)? };
            let [n_light, left] = d.download(&w.counts)?[..] else {
                unreachable!("two counts")
            };
            if left == 0 {
                return Ok(());
            }
            let shape = Shape {
                n: left as u64,
                n_light: n_light as u64,
                total,
                scale: n,
            };
            let rows = d.ptr_mut(table)?.cast::<Row<F>>();
            let packs = split_sections::<F, PsaPlusKernels>(d, w, &shape, split, pack, rows)?;
            let p = packs.stored(entries.cast_const());
            // SAFETY: the leftovers' entries, their prefix sums and the splits just computed;
            // the greedy sweeps wrote the other rows.
            unsafe { packs.launch::<F::PackPlus, F::PackSharedPlus, F::PackChunkedPlus>(d, p) }
        }
        Construction::Sequential => {
            unreachable!("devices build by PSA and PSA+ only (checked by the caller)")
        }
    }
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

/// PSA's split over the prefix sums in `w` (of `shape.n` items, `shape.n > 0`) at the section
/// boundaries of `pack`, into `w.splits`; what its pack into `table` then needs.
fn split_sections<F: AliasWeight, K: Splitters>(
    d: &Device,
    w: &mut Workspace,
    shape: &Shape,
    split: SplitMethod,
    pack: PackMethod,
    table: *mut Row<F>,
) -> Result<Packs<F, K::Word>> {
    let rows_per_section = match pack {
        PackMethod::Baseline => ALIAS_ROWS_PER_SECTION,
        PackMethod::SharedMemory => SHARED_PACK_ROWS,
        PackMethod::Chunked => CHUNKED_PACK_ROWS,
    };
    let p = Splits {
        prefix: d.ptr(&w.prefix)?.cast::<K::Word>(),
        shape: *shape,
        sections: shape.n.div_ceil(rows_per_section),
        rows_per_section,
        splits: d.ptr_mut(&mut w.splits)?.cast::<Split>(),
    };
    // SAFETY: n + 1 prefix sums, sections + 1 splits (the buffer holds those of the smallest
    // sections), sections × rows per section >= n; the plan gives the p-ary search's block
    // reduction a u64 of shared memory per warp.
    unsafe {
        match split {
            SplitMethod::PartialPary => d.launch_unchecked::<K::Pary>(p.plan(), p)?,
            SplitMethod::Binary => d.launch_unchecked::<K::Binary>(p.plan(), p)?,
        }
    };
    Ok(Packs {
        pack,
        shape: *shape,
        prefix: p.prefix,
        splits: p.splits.cast_const(),
        sections: p.sections,
        table,
    })
}

/// A pack of split sections: every parameter but where the items come from.
struct Packs<F: AliasWeight, W> {
    pack: PackMethod,
    shape: Shape,
    prefix: *const W,
    splits: *const Split,
    sections: u64,
    table: *mut Row<F>,
}

impl<F: AliasWeight, W: PrefixWord> Packs<F, W> {
    /// The parameters of the packs that read entries, weights beside indices.
    fn stored(&self, entries: *const Entry) -> Pack<F, W> {
        let Packs {
            shape,
            prefix,
            splits,
            sections,
            table,
            ..
        } = *self;
        Pack {
            entries,
            prefix,
            shape,
            splits,
            sections,
            table,
        }
    }

    /// Launches the kernel of this pack method (`B`, `S`, `C`: baseline, shared-memory,
    /// chunked) with `params`.
    ///
    /// # Safety
    /// `params` are this pack's, with items partitioned as the kernels read them; every row of
    /// the table is written by one section (or was by a greedy sweep).
    unsafe fn launch<B, S, C>(&self, d: &Device, params: B::Params) -> Result<()>
    where
        B: Kernel,
        S: Kernel<Params = B::Params>,
        C: Kernel<Params = B::Params>,
    {
        let sections = self.sections;
        // SAFETY: the caller's contract; each pack's plan gives it its sections' blocks and
        // shared memory.
        unsafe {
            match self.pack {
                PackMethod::Baseline => d.launch_unchecked::<B>(plan_thread_baseline(sections), params),
                PackMethod::Chunked => d.launch_unchecked::<C>(plan_block_chunked(sections), params),
                PackMethod::SharedMemory => {
                    d.launch_unchecked::<S>(plan_block_shared(sections, size_of::<W>()), params)
                }
            }
        }
    }
}

impl<F: AliasWeight> Packs<F, u64> {
    /// The parameters of PSA's packs that read indices only, with the weights and their
    /// quantization.
    fn indexed(&self, items: *const u32, weights: *const F, quantizer: Quantizer) -> PackIndexed<F> {
        let Packs {
            shape,
            prefix,
            splits,
            sections,
            table,
            ..
        } = *self;
        PackIndexed {
            items,
            weights,
            quantizer,
            prefix,
            shape,
            splits,
            sections,
            table,
        }
    }
}
