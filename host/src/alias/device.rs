//! Construction and sampling on a device (GPU or emulator): the PSA pipeline of
//! `warpkit_kernels::alias`, with every buffer kept in a workspace so that rebuilding from new
//! weights allocates nothing.
//!
//! Launches per build: sum (fixed grid, so the total is the same bits on every device), the
//! tiles' quantized weights and their sum, the tiles' light counts and weights and their three
//! short scans, the partition (entries and prefix sums in one pass), split, pack: three passes
//! over the weights before the pack. Three scalars come back to the host on the way (total,
//! quantized total, light count). Weights already in device memory are checked there first
//! (one more launch and scalar); host weights were checked on the host.

use super::{
    AliasWeight, Construction, PackMethod, Sampling, SectionedArgs, SplitMethod, Stream, check_count,
    quantize_scale,
};
use crate::device::{Device, DeviceBuffer, LaunchShape};
use crate::error::{Error, Result};
use warpkit_kernels::alias::pack::{
    CHUNKED_PACK_ROWS, CHUNKED_PACK_THREADS, SHARED_PACK_ROWS, SHARED_PACK_THREADS, chunked_pack_bytes,
    shared_pack_bytes,
};
use warpkit_kernels::alias::partition::{PARTITION_TILE, TILE_SUM_BYTES, blocks_for, partition_bytes};
use warpkit_kernels::alias::sectioned::{shared_section_bytes, shared_section_rows};
use warpkit_kernels::alias::split::{alias_split_binary, alias_split_pary};
use warpkit_kernels::alias::{ALIAS_BLOCK_THREADS, Entry, Row, Split};
use warpkit_kernels::policy::{ALIAS_ROWS_PER_SECTION, REDUCE_FIXED_GRID};

/// Words (u64) that hold `len` values of `T`.
fn words<T>(len: usize) -> usize {
    (len * size_of::<T>()).div_ceil(8)
}

/// Scratch of one table's construction.
struct Workspace<F> {
    /// Each partition tile's quantized weight.
    tile_q: DeviceBuffer<u64>,
    /// Each tile's light items, light weight and heavy weight, then their exclusive scans
    /// (`tiles + 1` elements, the last input 0, so the last output is the grand total).
    tile_sums: [DeviceBuffer<u64>; 3],
    tile_scans: [DeviceBuffer<u64>; 3],
    entries: DeviceBuffer<u64>,
    prefix: DeviceBuffer<u64>,
    splits: DeviceBuffer<u64>,
    first_bad: DeviceBuffer<u64>,
    total: DeviceBuffer<F>,
    total_q: DeviceBuffer<u64>,
    n_light: DeviceBuffer<u32>,
}

/// A table in device memory with its workspace.
pub(super) struct DeviceTable<F: AliasWeight> {
    device: Device,
    table: DeviceBuffer<u64>,
    work: Workspace<F>,
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
        // Splits for the smaller sections of the two packs.
        let sections = n.div_ceil(SHARED_PACK_ROWS as usize);
        let tiles = (n as u64).div_ceil(PARTITION_TILE) as usize;
        let work = Workspace {
            tile_q: device.zeros(tiles)?,
            tile_sums: [
                device.zeros(tiles + 1)?,
                device.zeros(tiles + 1)?,
                device.zeros(tiles + 1)?,
            ],
            tile_scans: [
                device.zeros(tiles + 1)?,
                device.zeros(tiles + 1)?,
                device.zeros(tiles + 1)?,
            ],
            entries: device.zeros(words::<Entry>(n))?,
            prefix: device.zeros(n + 1)?,
            splits: device.zeros(words::<Split>(sections + 1))?,
            first_bad: device.zeros(1)?,
            total: device.zeros(1)?,
            total_q: device.zeros(1)?,
            n_light: device.zeros(1)?,
        };
        Ok(DeviceTable {
            device: device.clone(),
            table: device.zeros(words::<Row<F>>(n))?,
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
        )
    }

    /// Builds the table from `weights` (of the table's length) in place, after checking them
    /// on the device (host weights were checked on the host).
    pub fn rebuild(&mut self, weights: &DeviceBuffer<F>) -> Result<()> {
        check_on_device(&self.device, &mut self.work.first_bad, weights)?;
        construct(
            &self.device,
            &mut self.work,
            &mut self.table,
            self.method,
            weights,
        )
    }

    /// The rows, copied to the host.
    pub fn rows(&self) -> Result<Vec<Row<F>>> {
        let words = self.device.download(&self.table)?;
        // SAFETY: the words hold `n` rows laid out by the kernels (`Row<F>` is `repr(C)`, any
        // bits are a valid float and u32); a Vec<u64> is aligned for them.
        Ok((0..self.n)
            .map(|r| unsafe { words.as_ptr().cast::<Row<F>>().add(r).read() })
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
        let dst = d.ptr_mut(out)?;
        if s == 0 {
            return Ok(());
        }
        let table = d.ptr(&self.table)?.cast::<Row<F>>();
        let ([lo, hi], key) = (stream.counter, stream.key);
        let sectioned = |section_rows: u64, shared: u32| -> Result<(LaunchShape, SectionedArgs<F>)> {
            if section_rows == 0 {
                return Err(Error::TooLong {
                    what: "rows per section (at least 1)",
                    len: 0,
                    max: u32::MAX as u64,
                });
            }
            let sections = n.div_ceil(section_rows);
            let shape = LaunchShape::linear(sections, ALIAS_BLOCK_THREADS, shared);
            Ok((
                shape,
                (table, n, dst, s, key, lo, hi, section_rows, sections, output),
            ))
        };
        // SAFETY (every launch): the table holds n valid rows; `out` holds s elements; one
        // block per section, with the shared memory the shared-memory sampler carves.
        unsafe {
            match method {
                Sampling::Baseline => {
                    let resident = d.resident_blocks::<F::Sample>(ALIAS_BLOCK_THREADS, 0)?;
                    let shape = LaunchShape::linear(blocks_for(s).min(resident), ALIAS_BLOCK_THREADS, 0);
                    d.launch::<F::Sample>(shape, (table, n, dst, s, key, lo, hi, output))
                }
                Sampling::CachedSectioned { section_rows } => {
                    let (shape, args) = sectioned(section_rows as u64, 0)?;
                    d.launch::<F::SampleCached>(shape, args)
                }
                Sampling::CachedLimitedSectioned { section_rows } => {
                    let reserve = d.limits().shared_per_block_optin;
                    let (shape, args) = sectioned(section_rows as u64, reserve)?;
                    d.launch::<F::SampleCached>(shape, args)
                }
                Sampling::SharedMemorySectioned => {
                    let rows = shared_section_rows::<F>(n, d.limits().shared_per_block);
                    let (shape, args) = sectioned(rows, shared_section_bytes::<F>(rows))?;
                    d.launch::<F::SampleShared>(shape, args)
                }
            }
        }
    }
}

/// The grid of the element-wise (grid-stride) kernels: one block per 256 items, at most what
/// the device keeps resident.
fn element_grid<K: warpkit_kernels::kernel::Kernel>(d: &Device, n: u64) -> Result<LaunchShape> {
    let resident = d.resident_blocks::<K>(ALIAS_BLOCK_THREADS, 0)?;
    Ok(LaunchShape::linear(
        blocks_for(n).min(resident),
        ALIAS_BLOCK_THREADS,
        0,
    ))
}

/// `Err(InvalidWeight)` naming the first weight in device memory that is negative, NaN or
/// infinite: one launch and one word back to the host.
fn check_on_device<F: AliasWeight>(
    d: &Device,
    first_bad: &mut DeviceBuffer<u64>,
    weights: &DeviceBuffer<F>,
) -> Result<()> {
    let n = weights.len() as u64;
    d.copy_from_host(&[u64::MAX], first_bad)?;
    let grid = element_grid::<F::Check>(d, n)?;
    // SAFETY: `weights` holds n elements, `first_bad` one word.
    unsafe { d.launch::<F::Check>(grid, (d.ptr(weights)?, n, d.ptr_mut(first_bad)?))? };
    match d.download(first_bad)?[0] {
        u64::MAX => Ok(()),
        index => Err(Error::InvalidWeight {
            index: index as usize,
        }),
    }
}

/// The PSA pipeline: builds `table` from `weights` (already checked) by `method`, with `work`
/// as scratch.
fn construct<F: AliasWeight>(
    d: &Device,
    w: &mut Workspace<F>,
    table: &mut DeviceBuffer<u64>,
    method: Construction,
    weights: &DeviceBuffer<F>,
) -> Result<()> {
    let n = weights.len() as u64;
    crate::error::check_same_len("alias weights", w.prefix.len() - 1, weights.len())?;
    let src = d.ptr(weights)?;
    d.sum_over_grid(weights, &mut w.total, REDUCE_FIXED_GRID)?;
    let (shift, scale) = quantize_scale::<F>(n as usize, d.download(&w.total)?[0].to_f64())?;
    let tiles = n.div_ceil(PARTITION_TILE);
    let tile_grid = |shared| LaunchShape::linear(tiles, ALIAS_BLOCK_THREADS, shared);
    // SAFETY: `weights` holds n elements, `tile_q` one per tile; one block per tile with
    // the shared memory the tile sums carve.
    unsafe {
        let args = (src, n, shift, scale, d.ptr_mut(&mut w.tile_q)?);
        d.launch::<F::TileTotal>(tile_grid(TILE_SUM_BYTES), args)?
    };
    d.sum_into(&w.tile_q, &mut w.total_q)?;
    let total = d.download(&w.total_q)?[0];
    let [a, b, c] = &mut w.tile_sums;
    let sums = [d.ptr_mut(a)?, d.ptr_mut(b)?, d.ptr_mut(c)?];
    // SAFETY: as above; each sum array holds tiles + 1 elements (the last stays 0).
    unsafe {
        let args = (src, n, shift, scale, total, sums[0], sums[1], sums[2]);
        d.launch::<F::TileCounts>(tile_grid(TILE_SUM_BYTES), args)?
    };
    for (sum, scan) in w.tile_sums.iter().zip(&mut w.tile_scans) {
        d.exclusive_scan_into(sum, scan)?;
    }
    let scans = [
        d.ptr(&w.tile_scans[0])?,
        d.ptr(&w.tile_scans[1])?,
        d.ptr(&w.tile_scans[2])?,
    ];
    let entries = d.ptr_mut(&mut w.entries)?.cast::<Entry>();
    let partition = (
        src,
        n,
        shift,
        scale,
        total,
        scans[0],
        scans[1],
        scans[2],
        tiles,
        entries,
        d.ptr_mut(&mut w.prefix)?,
        d.ptr_mut(&mut w.n_light)?,
    );
    // SAFETY: n > 0 weights, n entries (16-byte aligned: device buffers are 256-byte aligned)
    // and n + 1 prefix sums; the scans of these weights' tile sums; one block per tile with the
    // partition's shared memory.
    unsafe { d.launch::<F::Partition>(tile_grid(partition_bytes()), partition)? };
    let n_light = d.download(&w.n_light)?[0] as u64;

    let Construction::Psa { split, pack } = method else {
        unreachable!("devices build by PSA only (checked by the caller)")
    };
    let rows_per_section = match pack {
        PackMethod::Baseline => ALIAS_ROWS_PER_SECTION,
        PackMethod::SharedMemory => SHARED_PACK_ROWS,
        PackMethod::Chunked => CHUNKED_PACK_ROWS,
    };
    let sections = n.div_ceil(rows_per_section);
    let prefix = d.ptr(&w.prefix)?;
    let splits = d.ptr_mut(&mut w.splits)?.cast::<Split>();
    let split_args = (prefix, n, n_light, total, sections, rows_per_section, splits);
    let blocks = blocks_for(sections + 1);
    // SAFETY: n + 1 prefix sums, sections + 1 splits (the buffer holds those of the smallest
    // sections), sections × rows per section >= n; the p-ary search's block reduction has a
    // u64 of shared memory per warp.
    unsafe {
        match split {
            SplitMethod::PartialPary => {
                let shape = LaunchShape::linear(blocks, ALIAS_BLOCK_THREADS, ALIAS_BLOCK_THREADS / 32 * 8);
                d.launch::<alias_split_pary>(shape, split_args)?
            }
            SplitMethod::Binary => {
                let shape = LaunchShape::linear(blocks, ALIAS_BLOCK_THREADS, 0);
                d.launch::<alias_split_binary>(shape, split_args)?
            }
        }
    };
    let table = d.ptr_mut(table)?.cast::<Row<F>>();
    let pack_args = (
        entries.cast_const(),
        prefix,
        n,
        n_light,
        total,
        splits.cast_const(),
        sections,
        table,
    );
    // SAFETY: the partitioned entries, their prefix sums and the splits just computed for
    // these n items; the table holds n rows, each written by one section; the shared pack gets
    // its sections' size, its block size and its shared memory.
    unsafe {
        match pack {
            PackMethod::Baseline => {
                let shape = LaunchShape::linear(blocks_for(sections), ALIAS_BLOCK_THREADS, 0);
                d.launch::<F::Pack>(shape, pack_args)
            }
            PackMethod::Chunked => {
                let threads = CHUNKED_PACK_THREADS;
                let shape =
                    LaunchShape::linear(sections.div_ceil(threads as u64), threads, chunked_pack_bytes());
                d.launch::<F::PackChunked>(shape, pack_args)
            }
            PackMethod::SharedMemory => {
                let threads = SHARED_PACK_THREADS;
                let shape =
                    LaunchShape::linear(sections.div_ceil(threads as u64), threads, shared_pack_bytes());
                d.launch::<F::PackShared>(shape, pack_args)
            }
        }
    }
}
