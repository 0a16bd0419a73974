//! Multisplit on a device (GPU or emulator) by the paper's direct, warp-level or block-level
//! method (`warpkit_kernels::multisplit::digit_pass`): one pass per 8-bit digit of the bucket id
//! (one for m ≤ 256, two above), each a histogram launch, a device scan and a scatter launch.
//! A single pass's scatter also stores the buckets' offsets; after two passes one more launch
//! finds them in the split keys. Keys and values cross as their bits (u32 or u64 words).

use super::{Method, MultisplitKey, Split};
use crate::error::{Error, Result};
use crate::runtime::device::{Device, DeviceBuffer, Scratch};
use bytemuck::Pod;
use warpkit_kernels::kernel::Kernel;
use warpkit_kernels::multisplit::digit_pass::{
    BLOCK_LEVEL, Bounds, COUNTED, COUNTED_RADIX, DIRECT, Histogram, RADIX, Scatter, TableParts, WARP_LEVEL,
    digit_param, tiles,
};

/// A multisplit as the device passes take it: the built-in bucket function as kernel
/// parameters (`kind`, splitters, `a | b << 32`), the number of buckets and the method (`None`:
/// [`Method::auto`]'s pick).
pub(crate) struct Params<'a, K> {
    pub kind: u32,
    pub splitters: &'a [K],
    pub ab: u64,
    pub m: u32,
    pub method: Option<Method>,
}

/// A value's bits as a kernel moves them, u32 or u64, with the scatter kernels that move them.
pub(crate) trait Word: Pod {
    type Direct<K: MultisplitKey>: Kernel<Params = Scatter<K, Self>>;
    type Warp<K: MultisplitKey>: Kernel<Params = Scatter<K, Self>>;
    type Block<K: MultisplitKey>: Kernel<Params = Scatter<K, Self>>;
    type Counted<K: MultisplitKey>: Kernel<Params = Scatter<K, Self>>;
}

impl Word for u32 {
    type Direct<K: MultisplitKey> = K::Direct32;
    type Warp<K: MultisplitKey> = K::Warp32;
    type Block<K: MultisplitKey> = K::Block32;
    type Counted<K: MultisplitKey> = K::Counted32;
}

impl Word for u64 {
    type Direct<K: MultisplitKey> = K::Direct64;
    type Warp<K: MultisplitKey> = K::Warp64;
    type Block<K: MultisplitKey> = K::Block64;
    type Counted<K: MultisplitKey> = K::Counted64;
}

/// `keys` (and `values`) split on `d`.
pub(crate) fn split<K: MultisplitKey, V: Pod>(
    d: &Device,
    params: &Params<K>,
    keys: &[K],
    values: Option<&[V]>,
) -> Result<Split<K, V>> {
    let d_keys = d.upload(keys)?;
    let mut out_keys = d.workspace(keys.len())?;
    let (offsets, counts, values) = match values {
        Some(v) => {
            let d_values = d.upload(v)?;
            let mut out_values = d.workspace(v.len())?;
            let io = Io {
                keys: &d_keys,
                values: Some((&d_values, &mut out_values)),
                out_keys: &mut out_keys,
            };
            let (offsets, counts) = split_on_device(d, params, io)?;
            (offsets, counts, d.download(&out_values)?)
        }
        None => {
            let io = Io::<K, V> {
                keys: &d_keys,
                values: None,
                out_keys: &mut out_keys,
            };
            let (offsets, counts) = split_on_device(d, params, io)?;
            (offsets, counts, Vec::new())
        }
    };
    Ok(Split {
        keys: d.download(&out_keys)?,
        values,
        offsets,
        counts,
    })
}

/// Keys (and values) in device memory, and where their split goes (buffers of their lengths).
pub(super) struct Io<'b, K, V> {
    pub keys: &'b DeviceBuffer<K>,
    pub values: Option<(&'b DeviceBuffer<V>, &'b mut DeviceBuffer<V>)>,
    pub out_keys: &'b mut DeviceBuffer<K>,
}

/// Splits in device memory; returns the buckets' offsets and counts. Values move as words of
/// their size, 4 or 8 bytes (`Err(UnsupportedMethod)` for others, before any launch).
pub(super) fn split_on_device<K: MultisplitKey, V: Pod>(
    d: &Device,
    params: &Params<K>,
    io: Io<K, V>,
) -> Result<(Vec<u32>, Vec<u32>)> {
    match (io.values.is_some(), size_of::<V>()) {
        (false, _) | (true, 4) => split_words::<K, u32, V>(d, params, io),
        (true, 8) => split_words::<K, u64, V>(d, params, io),
        (true, size) => Err(Error::UnsupportedMethod {
            method: format!("multisplit of {size}-byte values"),
            backend: d.describe(),
        }),
    }
}

/// Where a call's small arrays lie in the device's call scratch ([`Scratch::Call`], kept
/// between calls, so that a call allocates nothing): the report the host reads back, then the
/// table of the largest pass ([`TableParts`]), 256-byte aligned (the scan reads and writes
/// 16-byte vectors).
struct CallScratch {
    report_words: usize,
    table_words: usize,
}

impl CallScratch {
    const ALIGN: usize = 256;

    fn table_offset(&self) -> usize {
        (4 * self.report_words).next_multiple_of(Self::ALIGN)
    }

    fn total_bytes(&self) -> usize {
        self.table_offset() + 4 * self.table_words
    }
}

/// [`split_on_device`] with values of `W`'s size moved as `W`s. Two passes (above 256 buckets)
/// go through scratch buffers; the inputs are left as they were.
fn split_words<K: MultisplitKey, W: Word, V: Pod>(
    d: &Device,
    params: &Params<K>,
    io: Io<K, V>,
) -> Result<(Vec<u32>, Vec<u32>)> {
    let (m, method) = (params.m, params.method);
    debug_assert!(io.values.is_none() || size_of::<V>() == size_of::<W>());
    let n = io.keys.len() as u64;
    let tiles = tiles(n);
    let src = (
        d.ptr(io.keys)?,
        // Device buffers start 256-byte aligned (in the emulator too, and `Device::adopt`
        // refuses others), so values of `W`'s size are `W`-aligned words.
        io.values
            .as_ref()
            .map_or(Ok(std::ptr::null()), |v| d.ptr(v.0))?
            .cast::<W>(),
    );
    let (mut out_values, values_len) = match io.values {
        Some((v, out)) => (Some(out), v.len()),
        None => (None, 0),
    };
    let dst = (
        d.ptr_mut(io.out_keys)?,
        out_values
            .as_mut()
            .map_or(Ok(std::ptr::null_mut()), |v| d.ptr_mut(v))?
            .cast::<W>(),
    );
    if n == 0 {
        return Ok((vec![0; m as usize], vec![0; m as usize]));
    }
    // No splitters, no upload: the kernels get a null pointer (a search over none reads
    // nothing, and the other bucket functions read no splitters).
    let splitters = match params.splitters {
        [] => None,
        s => Some(d.upload(s)?),
    };
    let split_ptr = splitters.as_ref().map_or(Ok(std::ptr::null()), |s| d.ptr(s))?;
    let (kind, ab) = (params.kind, params.ab);
    let passes: &[(u32, u32)] = if m <= RADIX {
        &[(0, m)]
    } else {
        &[(0, RADIX), (8, m.div_ceil(RADIX))]
    };
    let single = passes.len() == 1;
    let method = method.unwrap_or(Method::auto(m, values_len > 0));
    // The first of two passes writes to scratch, which the second reads.
    let mut scratch_keys = (!single).then(|| d.workspace::<K>(n as usize)).transpose()?;
    let mut scratch_values = (!single && values_len > 0)
        .then(|| d.workspace::<W>(values_len))
        .transpose()?;
    let scratch = (
        scratch_keys
            .as_mut()
            .map_or(Ok(std::ptr::null_mut()), |s| d.ptr_mut(s))?,
        scratch_values
            .as_mut()
            .map_or(Ok(std::ptr::null_mut()), |s| d.ptr_mut(s))?,
    );
    // What the host reads back: the largest bucket the first histogram saw at or past m,
    // tagged with the call (no word of this call's tag when none: a bucket function that
    // keeps its contract), then a single pass's bucket offsets (its digits are the buckets, so
    // its scatter stores them). No memset: the tag tells this call's mark from older ones.
    let layout = CallScratch {
        report_words: 2 + if single { m as usize } else { 0 },
        table_words: passes
            .iter()
            .map(|&(_, radix)| TableParts::new(radix, tiles).words as usize)
            .max()
            .unwrap_or(0),
    };
    let mut call = d.scratch_of(Scratch::Call, layout.total_bytes())?;
    let call = call.as_mut().expect("scratch allocated");
    let tag = d.next_call_tag();
    if tag == 0 {
        d.zero_prefix(call, 8)?;
    }
    let base = d.ptr_mut(call)?;
    let largest_ptr = base.cast::<u64>();
    // Device addresses within the scratch buffer of `layout.total_bytes()`: offset without
    // dereferencing.
    let table = base.wrapping_add(layout.table_offset()).cast::<u32>();
    let offsets_ptr = if single {
        base.wrapping_add(8).cast::<u32>()
    } else {
        std::ptr::null_mut()
    };
    for (p, &(shift, radix)) in passes.iter().enumerate() {
        let (from, to) = match (single, p) {
            (true, _) => (src, dst),
            (_, 0) => (src, scratch),
            _ => ((scratch.0.cast_const(), scratch.1.cast_const()), dst),
        };
        let digit = digit_param(shift, radix);
        let parts = TableParts::new(radix, tiles);
        let histogram = Histogram {
            keys: from.0,
            n,
            kind,
            splitters: split_ptr,
            ab,
            digit,
            tiles,
            table,
            m,
            largest: if p == 0 { largest_ptr } else { std::ptr::null_mut() },
            tag,
        };
        // SAFETY: n keys; the table's parts for this radix and these tiles (the layout's largest
        // pass, inside the scratch buffer); the tagged largest bucket (first pass only); the
        // plan's blocks and shared memory; splitters as the bucket parameters say (checked on
        // the host).
        unsafe {
            d.launch_unchecked::<K::Histogram>(histogram.plan(), histogram)?;
            let at = |words: u64| table.wrapping_add(words as usize);
            let status = at(parts.status).cast::<u8>();
            let groups = parts.group_sums as usize;
            d.exclusive_scan_u32_cleared(at(parts.sums), at(parts.starts), groups, status)?;
        }
        let scatter = Scatter {
            keys: from.0,
            values: from.1,
            n,
            kind,
            splitters: split_ptr,
            ab,
            digit,
            tiles,
            table: table.cast_const(),
            out_keys: to.0,
            out_values: to.1,
            offsets: offsets_ptr,
        };
        let write = match method {
            Method::Direct => DIRECT,
            Method::WarpLevel => WARP_LEVEL,
            // Up to 32 digits, the block-level kernels that rank by counters.
            Method::BlockLevel if radix <= COUNTED_RADIX => COUNTED,
            Method::BlockLevel => BLOCK_LEVEL,
        };
        // SAFETY: as above, with n keys (and, for pairs, values) to read and to write, the
        // scan of this pass's table, and m offsets for a single pass (null otherwise); the
        // plan of this method's kernel; keys-only kernels get null value pointers and touch no
        // value.
        unsafe {
            if values_len == 0 {
                let keys = scatter.keys_only();
                launch_scatter::<K::DirectKeys, K::WarpKeys, K::BlockKeys, K::CountedKeys, K, u32>(
                    d, write, keys,
                )?
            } else {
                launch_scatter::<W::Direct<K>, W::Warp<K>, W::Block<K>, W::Counted<K>, K, W>(
                    d, write, scatter,
                )?
            }
        }
    }
    let report = d.download_words(call, layout.report_words)?;
    let (largest, offsets) = report.split_at(2);
    let largest = u64::from(largest[0]) | u64::from(largest[1]) << 32;
    if largest >> 32 == u64::from(tag) && largest as u32 >= m {
        return Err(Error::BucketOutOfRange {
            bucket: largest as u32,
            m,
        });
    }
    if !single {
        return bounds_of_buckets(d, params, dst.0.cast_const(), n, split_ptr);
    }
    let offsets = offsets.to_vec();
    let counts = offsets
        .iter()
        .zip(offsets.iter().skip(1).chain(&[n as u32]))
        .map(|(begin, end)| end - begin)
        .collect();
    Ok((offsets, counts))
}

/// Launches the scatter kernel of write method `write` of one family (`D`, `Wl`, `B`, `C`:
/// direct, warp-level, block-level, counted) with `params`, by its plan.
///
/// # Safety
/// As for the kernels' launch contract, with `params` made for this method.
unsafe fn launch_scatter<D, Wl, B, C, K, V>(d: &Device, write: u32, params: Scatter<K, V>) -> Result<()>
where
    K: MultisplitKey,
    V: Pod,
    D: Kernel<Params = Scatter<K, V>>,
    Wl: Kernel<Params = Scatter<K, V>>,
    B: Kernel<Params = Scatter<K, V>>,
    C: Kernel<Params = Scatter<K, V>>,
{
    let shape = params.plan(write);
    // SAFETY: the caller's contract; the plan of the kernel of this write method.
    unsafe {
        match write {
            DIRECT => d.launch_unchecked::<D>(shape, params),
            WARP_LEVEL => d.launch_unchecked::<Wl>(shape, params),
            BLOCK_LEVEL => d.launch_unchecked::<B>(shape, params),
            _ => d.launch_unchecked::<C>(shape, params),
        }
    }
}

/// The offsets and counts of `n` keys split into `m` buckets, found in the keys themselves
/// (one launch of the bounds kernel).
fn bounds_of_buckets<K: MultisplitKey>(
    d: &Device,
    params: &Params<K>,
    keys: *const K,
    n: u64,
    splitters: *const K,
) -> Result<(Vec<u32>, Vec<u32>)> {
    let m = params.m;
    // Each bucket's begin, then each bucket's end: one allocation and one read back.
    let mut bounds = d.zeros::<u32>(2 * m as usize)?;
    let begin = d.ptr_mut(&mut bounds)?;
    let p = Bounds {
        keys,
        n,
        kind: params.kind,
        splitters,
        ab: params.ab,
        m,
        begin,
        // A device address: offset without dereferencing (`bounds` holds 2m words).
        end: begin.wrapping_add(m as usize),
    };
    // SAFETY: n split keys on this device; one word per bucket at `begin` and at `end`.
    unsafe { d.launch_unchecked::<K::Bounds>(p.plan(), p)? };
    // Empty buckets keep begin = end = 0.
    let bounds = d.download(&bounds)?;
    let (begin, end) = bounds.split_at(m as usize);
    let counts: Vec<u32> = end.iter().zip(begin).map(|(e, b)| e - b).collect();
    Ok((super::exclusive_prefix(&counts), counts))
}
