//! Multisplit on a device (GPU or emulator) by the paper's direct, warp-level or block-level
//! method (`warpkit_kernels::multisplit::digit_pass`): one pass per 8-bit digit of the bucket id
//! (one for m ≤ 256, two above), each a histogram launch, a device scan and a scatter launch.
//! A single pass's scatter also stores the buckets' offsets; after two passes one more launch
//! finds them in the split keys. Keys and values cross as their bits (u32 or u64 words).

use super::function::sealed::SplitBy;
use super::{Method, MultisplitKey, Split, SplitFunction};
use crate::error::{Error, Result};
use crate::runtime::bindings::Bindings;
use crate::runtime::device::{Device, DeviceBuffer, Scratch};
use bytemuck::Pod;
use warpkit_kernels::kernel::Kernel;
use warpkit_kernels::multisplit::digit_pass::{
    BLOCK_LEVEL, Bounds, COUNTED, COUNTED_RADIX, DIRECT, Histogram, PassTable, RADIX, Scatter, TableParts,
    WARP_LEVEL, digit_param, tiles,
};
use warpkit_kernels::multisplit::kernels::SplitKernels;

/// A multisplit as the device passes take it: the bucket function, the number of buckets and
/// the method (`None`: [`Method::auto`]'s pick).
pub(crate) struct Params<F> {
    pub function: F,
    pub m: u32,
    pub method: Option<Method>,
}

impl<F> Params<F> {
    /// The bucket function as the kernels take it, with its uploaded splitters (if any) bound
    /// in `b`.
    fn bind<'b, K: MultisplitKey>(
        &self,
        b: &mut Bindings<'b>,
        splitters: Option<&'b DeviceBuffer<K>>,
    ) -> Result<F::Kernels>
    where
        F: SplitFunction<K>,
    {
        Ok(self.function.kernel_params(b.read_or_null(splitters)?))
    }
}

/// A value's bits as a kernel moves them, u32 or u64, with the scatter kernels that move them.
pub(crate) trait Word: Pod {
    type Direct<K: MultisplitKey, B: SplitKernels<K>>: Kernel<Params = Scatter<K, Self, B>>;
    type Warp<K: MultisplitKey, B: SplitKernels<K>>: Kernel<Params = Scatter<K, Self, B>>;
    type Block<K: MultisplitKey, B: SplitKernels<K>>: Kernel<Params = Scatter<K, Self, B>>;
    type Counted<K: MultisplitKey, B: SplitKernels<K>>: Kernel<Params = Scatter<K, Self, B>>;
}

impl Word for u32 {
    type Direct<K: MultisplitKey, B: SplitKernels<K>> = B::Direct32;
    type Warp<K: MultisplitKey, B: SplitKernels<K>> = B::Warp32;
    type Block<K: MultisplitKey, B: SplitKernels<K>> = B::Block32;
    type Counted<K: MultisplitKey, B: SplitKernels<K>> = B::Counted32;
}

impl Word for u64 {
    type Direct<K: MultisplitKey, B: SplitKernels<K>> = B::Direct64;
    type Warp<K: MultisplitKey, B: SplitKernels<K>> = B::Warp64;
    type Block<K: MultisplitKey, B: SplitKernels<K>> = B::Block64;
    type Counted<K: MultisplitKey, B: SplitKernels<K>> = B::Counted64;
}

/// `keys` (and `values`) split on `d`.
pub(crate) fn split<K: MultisplitKey, V: Pod, F: SplitFunction<K>>(
    d: &Device,
    params: &Params<F>,
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
pub(super) fn split_on_device<K: MultisplitKey, V: Pod, F: SplitFunction<K>>(
    d: &Device,
    params: &Params<F>,
    io: Io<K, V>,
) -> Result<(Vec<u32>, Vec<u32>)> {
    match (io.values.is_some(), size_of::<V>()) {
        (false, _) | (true, 4) => split_words::<K, u32, V, F>(d, params, io),
        (true, 8) => split_words::<K, u64, V, F>(d, params, io),
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
fn split_words<K: MultisplitKey, W: Word, V: Pod, F: SplitFunction<K>>(
    d: &Device,
    params: &Params<F>,
    io: Io<K, V>,
) -> Result<(Vec<u32>, Vec<u32>)> {
    let (m, method) = (params.m, params.method);
    debug_assert!(io.values.is_none() || size_of::<V>() == size_of::<W>());
    let Io {
        keys,
        mut values,
        out_keys,
    } = io;
    let n = keys.len() as u64;
    let tiles = tiles(n);
    if n == 0 {
        // Buffers of another device are refused even with nothing to split.
        d.check_owner(keys)?;
        d.check_owner(out_keys)?;
        return Ok((vec![0; m as usize], vec![0; m as usize]));
    }
    // No splitters, no upload: the kernels get a null pointer (a search over none reads
    // nothing, and the other bucket functions read no splitters).
    let splitters = match params.function.splitters() {
        [] => None,
        s => Some(d.upload(s)?),
    };
    let passes: &[(u32, u32)] = if m <= RADIX {
        &[(0, m)]
    } else {
        &[(0, RADIX), (8, m.div_ceil(RADIX))]
    };
    let single = passes.len() == 1;
    let pairs = values.is_some();
    let method = method.unwrap_or(Method::auto(m, pairs));
    // The first of two passes writes to scratch, which the second reads.
    let mut scratch_keys = (!single).then(|| d.workspace::<K>(n as usize)).transpose()?;
    let mut scratch_values = match &values {
        Some((v, _)) if !single => Some(d.workspace::<W>(v.len())?),
        _ => None,
    };
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
    for (p, &(shift, radix)) in passes.iter().enumerate() {
        let digit = digit_param(shift, radix);
        let parts = TableParts::new(radix, tiles);
        // The call scratch holds the table and the report: the largest bucket (first pass)
        // and a single pass's offsets. Device addresses within it: offset without
        // dereferencing.
        let in_call = |base: *mut u8| {
            let table = base.wrapping_add(layout.table_offset()).cast::<u32>();
            (table, base.cast::<u64>(), base.wrapping_add(8).cast::<u32>())
        };
        let mut b = d.bind();
        let (table, largest, _) = in_call(b.write(call)?);
        let pass_keys = match &scratch_keys {
            Some(s) if p > 0 => s,
            _ => keys,
        };
        let histogram = Histogram {
            keys: b.read(pass_keys)?,
            n,
            buckets: params.bind(&mut b, splitters.as_ref())?,
            pass: PassTable { digit, tiles, table },
            m,
            largest: if p == 0 { largest } else { std::ptr::null_mut() },
            tag,
        };
        b.launch::<<F::Kernels as SplitKernels<K>>::Histogram>(histogram.plan(), histogram)?;
        let word = |part: u64| layout.table_offset() + 4 * part as usize;
        let scanned = (word(parts.sums), word(parts.starts), word(parts.status));
        d.exclusive_scan_u32_within(call, scanned, parts.group_sums as usize)?;

        let mut b = d.bind();
        let (table, _, offsets) = in_call(b.write(call)?);
        // Pass 0 of two goes from the input to scratch, pass 1 from scratch to the output.
        let (keys_in, keys_out) = match (&mut scratch_keys, p) {
            (Some(s), 0) => (b.read(keys)?, b.write(s)?),
            (Some(s), _) => (b.read(&*s)?, b.write(&mut *out_keys)?),
            (None, _) => (b.read(keys)?, b.write(&mut *out_keys)?),
        };
        let (values_in, values_out) = match (&mut values, &mut scratch_values, p) {
            (None, ..) => (std::ptr::null(), std::ptr::null_mut()),
            (Some((v, _)), Some(s), 0) => (b.read(*v)?.cast::<W>(), b.write(s)?),
            (Some((_, out)), Some(s), _) => (b.read(&*s)?, b.write(&mut **out)?.cast::<W>()),
            (Some((v, out)), None, _) => (b.read(*v)?.cast::<W>(), b.write(&mut **out)?.cast::<W>()),
        };
        let scatter = Scatter {
            keys: keys_in,
            values: values_in,
            n,
            buckets: params.bind(&mut b, splitters.as_ref())?,
            pass: PassTable { digit, tiles, table },
            out_keys: keys_out,
            out_values: values_out,
            offsets: if single { offsets } else { std::ptr::null_mut() },
        };
        let write = write_of(method, radix);
        if !pairs {
            launch_keys_only(b, write, scatter.keys_only())?
        } else {
            type Of<K, F> = <F as SplitBy<K>>::Kernels;
            launch_scatter::<
                W::Direct<K, Of<K, F>>,
                W::Warp<K, Of<K, F>>,
                W::Block<K, Of<K, F>>,
                W::Counted<K, Of<K, F>>,
                K,
                W,
                Of<K, F>,
            >(b, write, scatter)?
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
        return bounds_of_buckets(d, params, out_keys, splitters.as_ref());
    }
    let offsets = offsets.to_vec();
    let counts = offsets
        .iter()
        .zip(offsets.iter().skip(1).chain(&[n as u32]))
        .map(|(begin, end)| end - begin)
        .collect();
    Ok((offsets, counts))
}

/// The scatter kernels' write method for `method` in a pass of `radix` digits.
fn write_of(method: Method, radix: u32) -> u32 {
    match method {
        Method::Direct => DIRECT,
        Method::WarpLevel => WARP_LEVEL,
        // Up to 32 digits, the block-level kernels that rank by counters.
        Method::BlockLevel if radix <= COUNTED_RADIX => COUNTED,
        Method::BlockLevel => BLOCK_LEVEL,
    }
}

/// One scatter of `keys` by their low `log2(radix)` bits (`radix` a power of two up to 256)
/// with method `method` to the first `keys.len()` slots of `out`, the pass's table filled by `table` (word index → contents)
/// instead of the histogram and the scan: how the kernels meet a table they did not make.
/// Whatever it holds, no store may land at or past `keys.len()` (so that the safe launch is
/// sound); the slots past that are the caller's guard.
#[cfg(feature = "checks")]
pub fn scatter_with_table(
    d: &Device,
    keys: &DeviceBuffer<u32>,
    (radix, method): (u32, Method),
    table: impl Fn(usize) -> u32,
    out: &mut DeviceBuffer<u32>,
) -> Result<()> {
    let n = keys.len() as u64;
    let tiles = tiles(n);
    let words: Vec<u32> = (0..TableParts::new(radix, tiles).words as usize)
        .map(table)
        .collect();
    let mut table = d.upload(&words)?;
    let mut b = d.bind();
    let scatter = Scatter {
        keys: b.read(keys)?,
        values: std::ptr::null(),
        n,
        buckets: SplitBy::<u32>::kernel_params(
            &super::Buckets::BitField {
                shift: 0,
                bits: radix.ilog2(),
            },
            std::ptr::null(),
        ),
        pass: PassTable {
            digit: digit_param(0, radix),
            tiles,
            table: b.write(&mut table)?,
        },
        out_keys: b.write(out)?,
        out_values: std::ptr::null_mut(),
        offsets: std::ptr::null_mut(),
    };
    launch_keys_only(b, write_of(method, radix), scatter)
}

/// [`launch_scatter`] of the keys-only kernels.
fn launch_keys_only<K: MultisplitKey, B: SplitKernels<K>>(
    b: Bindings,
    write: u32,
    params: Scatter<K, u32, B>,
) -> Result<()> {
    launch_scatter::<B::DirectKeys, B::WarpKeys, B::BlockKeys, B::CountedKeys, K, u32, B>(b, write, params)
}

/// Launches the scatter kernel of write method `write` of one family (`D`, `Wl`, `B`, `C`:
/// direct, warp-level, block-level, counted) with `params` and the buffers bound in `b`, by
/// its plan.
fn launch_scatter<D, Wl, Bl, C, K, V, B>(b: Bindings, write: u32, params: Scatter<K, V, B>) -> Result<()>
where
    K: MultisplitKey,
    V: Pod,
    B: SplitKernels<K>,
    D: Kernel<Params = Scatter<K, V, B>>,
    Wl: Kernel<Params = Scatter<K, V, B>>,
    Bl: Kernel<Params = Scatter<K, V, B>>,
    C: Kernel<Params = Scatter<K, V, B>>,
{
    let shape = params.plan(write);
    match write {
        DIRECT => b.launch::<D>(shape, params),
        WARP_LEVEL => b.launch::<Wl>(shape, params),
        BLOCK_LEVEL => b.launch::<Bl>(shape, params),
        _ => b.launch::<C>(shape, params),
    }
}

/// The offsets and counts of the split `keys` in `m` buckets, found in the keys themselves
/// (one launch of the bounds kernel: a binary search a bucket).
fn bounds_of_buckets<K: MultisplitKey, F: SplitFunction<K>>(
    d: &Device,
    params: &Params<F>,
    keys: &DeviceBuffer<K>,
    splitters: Option<&DeviceBuffer<K>>,
) -> Result<(Vec<u32>, Vec<u32>)> {
    let m = params.m;
    let mut starts = d.zeros::<u32>(m as usize + 1)?;
    let mut b = d.bind();
    let p = Bounds {
        keys: b.read(keys)?,
        n: keys.len() as u64,
        buckets: params.bind(&mut b, splitters)?,
        m,
        starts: b.write(&mut starts)?,
    };
    b.launch::<<F::Kernels as SplitKernels<K>>::Bounds>(p.plan(), p)?;
    let mut starts = d.download(&starts)?;
    // Keys in bucket order give starts in order; a difference that would be negative (keys
    // out of order, which only a faulty kernel leaves) counts nothing rather than panicking.
    let counts = starts.windows(2).map(|w| w[1].saturating_sub(w[0])).collect();
    starts.truncate(m as usize);
    Ok((starts, counts))
}
