//! Construction and sampling on a device (GPU or emulator): the PSA pipeline of
//! `warpkit_kernels::alias`, with every buffer kept in a workspace so that rebuilding from new
//! weights allocates nothing.
//!
//! Launches per build: sum (fixed grid, so the total is the same bits on every device),
//! quantize, sum of the quantized weights, classify, scan of the flags, scatter, scan of the
//! partitioned weights, split, pack; three scalars come back to the host on the way (total,
//! quantized total, light count). Weights already in device memory are checked there first
//! (one more launch and scalar); host weights were checked on the host.

use super::{
    AliasWeight, Construction, Order, PackMethod, Sampling, SectionedArgs, SplitMethod, Stream, check_count,
    quantize_scale,
};
use crate::device::{Device, DeviceBuffer, LaunchShape};
use crate::error::{Error, Result};
use warpkit_kernels::alias::pack::{
    CHUNKED_PACK_ROWS, CHUNKED_PACK_THREADS, SHARED_PACK_ROWS, SHARED_PACK_THREADS, chunked_pack_bytes,
    shared_pack_bytes,
};
use warpkit_kernels::alias::partition::{alias_classify, alias_scatter, blocks_for};
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
    q: DeviceBuffer<u64>,
    light: DeviceBuffer<u32>,
    position: DeviceBuffer<u32>,
    entries: DeviceBuffer<u64>,
    partitioned: DeviceBuffer<u64>,
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
        let work = Workspace {
            q: device.zeros(n)?,
            light: device.zeros(n)?,
            position: device.zeros(n)?,
            entries: device.zeros(words::<Entry>(n))?,
            partitioned: device.zeros(n + 1)?,
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

    /// Fills `out` with samples of `stream` by `method`, in `order`.
    pub fn sample_into(
        &self,
        stream: Stream,
        out: &mut DeviceBuffer<u32>,
        method: Sampling,
        order: Order,
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
            let shuffle = (order == Order::Shuffled) as u32;
            Ok((
                shape,
                (table, n, dst, s, key, lo, hi, section_rows, sections, shuffle),
            ))
        };
        // SAFETY (every launch): the table holds n valid rows; `out` holds s elements; one
        // block per section, with the shared memory the shared-memory sampler carves.
        unsafe {
            match method {
                Sampling::Baseline => {
                    let resident = d.resident_blocks::<F::Sample>(ALIAS_BLOCK_THREADS, 0)?;
                    let shape = LaunchShape::linear(blocks_for(s).min(resident), ALIAS_BLOCK_THREADS, 0);
                    d.launch::<F::Sample>(shape, (table, n, dst, s, key, lo, hi))
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
    crate::error::check_same_len("alias weights", w.q.len(), weights.len())?;
    let grid = element_grid::<alias_classify>(d, n)?;
    let src = d.ptr(weights)?;
    d.sum_over_grid(weights, &mut w.total, REDUCE_FIXED_GRID)?;
    let (shift, scale) = quantize_scale::<F>(n as usize, d.download(&w.total)?[0].to_f64())?;
    let q = d.ptr_mut(&mut w.q)?;
    // SAFETY: `weights` and `q` hold n elements.
    unsafe { d.launch::<F::Quantize>(grid, (src, n, shift, scale, q))? };
    d.sum_into(&w.q, &mut w.total_q)?;
    let total = d.download(&w.total_q)?[0];
    let light = d.ptr_mut(&mut w.light)?;
    // SAFETY: `q` and `light` hold n elements.
    unsafe { d.launch::<alias_classify>(grid, (q, n, total, light))? };
    d.exclusive_scan_into(&w.light, &mut w.position)?;
    let entries = d.ptr_mut(&mut w.entries)?.cast::<Entry>();
    let partitioned = d.ptr_mut(&mut w.partitioned)?;
    let scatter = (
        q.cast_const(),
        light.cast_const(),
        d.ptr(&w.position)?,
        n,
        entries,
        partitioned,
        d.ptr_mut(&mut w.n_light)?,
    );
    // SAFETY: n > 0 items in every array, n + 1 partitioned weights, 16-byte aligned
    // entries (device buffers are 256-byte aligned).
    unsafe { d.launch::<alias_scatter>(grid, scatter)? };
    let n_light = d.download(&w.n_light)?[0] as u64;
    d.exclusive_scan_into(&w.partitioned, &mut w.prefix)?;

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
