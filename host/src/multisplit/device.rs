//! Multisplit on a device (GPU or emulator) by the seed's direct method
//! (`warpkit_kernels::multisplit::direct`): one pass per 8-bit digit of the bucket id (one for
//! m ≤ 256, two above), each a histogram launch, a device scan and a scatter launch; then one
//! launch for each bucket's bounds. Keys and values cross as their bits (u32 or u64 words).

use super::{MultisplitKey, Plain, Split};
use crate::device::{Device, DeviceBuffer, LaunchShape};
use crate::error::{Error, Result};
use cudarc::driver::{DeviceRepr, ValidAsZeroBits};
use warpkit_kernels::kernel::Kernel;
use warpkit_kernels::multisplit::direct::{HISTOGRAM_BYTES, RADIX, SCATTER_BYTES, THREADS, TILE};

/// A built-in bucket function as kernel parameters: `kind`, splitters, `a | b << 32`.
pub(super) struct BucketParams<'a, K> {
    pub kind: u32,
    pub splitters: &'a [K],
    pub ab: u64,
}

/// Parameters of the histogram kernels: keys, n, kind, splitters, ab, digit, tiles, table.
pub type HistogramArgs<K> = (*const K, u64, u32, *const K, u64, u32, u64, *mut u32);
/// Parameters of the bounds kernels: keys, n, kind, splitters, ab, begin, end.
pub type BoundsArgs<K> = (*const K, u64, u32, *const K, u64, *mut u32, *mut u32);
/// Parameters of the scatter kernels: keys, values, n, kind, splitters, ab, digit, tiles,
/// starts, output keys, output values.
pub type ScatterArgs<K, W> = (
    *const K,
    *const W,
    u64,
    u32,
    *const K,
    u64,
    u32,
    u64,
    *const u32,
    *mut K,
    *mut W,
);

/// A value's bits as a kernel moves them: u32 or u64.
pub trait Word: DeviceRepr + ValidAsZeroBits + Copy + Default + Send + Sync + 'static {
    #[doc(hidden)]
    type Scatter<K: MultisplitKey>: Kernel<Args = ScatterArgs<K, Self>>;
}

impl Word for u32 {
    type Scatter<K: MultisplitKey> = K::Scatter32;
}

impl Word for u64 {
    type Scatter<K: MultisplitKey> = K::Scatter64;
}

/// `keys` (and `values`) split on `d`; `values` of 4 or 8 bytes.
pub(super) fn split<K: MultisplitKey, V: Plain>(
    d: &Device,
    buckets: &BucketParams<K>,
    m: u32,
    keys: &[K],
    values: Option<&[V]>,
) -> Result<Split<K, V>> {
    match (values, size_of::<V>()) {
        (None, _) => run::<K, u32, V>(d, buckets, m, keys, None),
        (Some(v), 4) => run::<K, u32, V>(d, buckets, m, keys, Some(v)),
        (Some(v), 8) => run::<K, u64, V>(d, buckets, m, keys, Some(v)),
        (Some(_), size) => Err(Error::UnsupportedMethod {
            method: format!("multisplit of {size}-byte values"),
            backend: d.describe(),
        }),
    }
}

fn run<K: MultisplitKey, W: Word, V: Plain>(
    d: &Device,
    buckets: &BucketParams<K>,
    m: u32,
    keys: &[K],
    values: Option<&[V]>,
) -> Result<Split<K, V>> {
    let n = keys.len() as u64;
    // SAFETY (both conversions): `Plain` values have the size of `W` (checked by the caller)
    // and every bit pattern is valid both ways; `transmute_copy` reads them unaligned.
    let words: Option<Vec<W>> = values.map(|v| {
        v.iter()
            .map(|x| unsafe { std::mem::transmute_copy::<V, W>(x) })
            .collect()
    });
    let mut k = [d.upload(keys)?, d.zeros(keys.len())?];
    let mut v: [DeviceBuffer<W>; 2] = match &words {
        Some(w) => [d.upload(w)?, d.zeros(w.len())?],
        None => [d.zeros(0)?, d.zeros(0)?],
    };
    let splitters = d.upload(buckets.splitters)?;
    let (kind, ab, split_ptr) = (buckets.kind, buckets.ab, d.ptr(&splitters)?);
    let tiles = n.div_ceil(TILE);
    let passes: &[(u32, u32)] = match (n, m) {
        (0, _) => &[],
        (_, ..=RADIX) => &[(0, m)],
        _ => &[(0, RADIX), (8, m.div_ceil(RADIX))],
    };
    for &(shift, radix) in passes {
        let digit = shift | radix << 16;
        let mut table = d.zeros::<u32>((radix as u64 * tiles) as usize)?;
        let mut starts = d.zeros::<u32>(table.len())?;
        let keys_in = d.ptr(&k[0])?;
        // SAFETY: n keys; radix·tiles table entries; one block per tile with the histogram's
        // shared memory; splitters as the bucket parameters say (checked on the host).
        unsafe {
            let args = (
                keys_in,
                n,
                kind,
                split_ptr,
                ab,
                digit,
                tiles,
                d.ptr_mut(&mut table)?,
            );
            d.launch::<K::Histogram>(LaunchShape::linear(tiles, THREADS, HISTOGRAM_BYTES), args)?;
        }
        d.exclusive_scan_into(&table, &mut starts)?;
        let values_in = if words.is_some() {
            d.ptr(&v[0])?
        } else {
            std::ptr::null()
        };
        let [k_in, k_out] = &mut k;
        let [_, v_out] = &mut v;
        let values_out = if words.is_some() {
            d.ptr_mut(v_out)?
        } else {
            std::ptr::null_mut()
        };
        let args = (
            d.ptr(k_in)?,
            values_in,
            n,
            kind,
            split_ptr,
            ab,
            digit,
            tiles,
            d.ptr(&starts)?,
            d.ptr_mut(k_out)?,
            values_out,
        );
        // SAFETY: as above, with n output keys and values (or none: null values), and the scan
        // of this pass's table; the scatter's shared memory.
        unsafe { d.launch::<W::Scatter<K>>(LaunchShape::linear(tiles, THREADS, SCATTER_BYTES), args)? };
        k.swap(0, 1);
        v.swap(0, 1);
    }
    let (mut begin, mut end) = (d.zeros::<u32>(m as usize)?, d.zeros::<u32>(m as usize)?);
    if n > 0 {
        let blocks = n.div_ceil(THREADS as u64).min(1 << 16);
        let args = (
            d.ptr(&k[0])?,
            n,
            kind,
            split_ptr,
            ab,
            d.ptr_mut(&mut begin)?,
            d.ptr_mut(&mut end)?,
        );
        // SAFETY: n split keys; one word per bucket in `begin` and `end`.
        unsafe { d.launch::<K::Bounds>(LaunchShape::linear(blocks, THREADS, 0), args)? };
    }
    let counts: Vec<u32> = d
        .download(&end)?
        .iter()
        .zip(d.download(&begin)?)
        .map(|(e, b)| e - b)
        .collect();
    let offsets = super::exclusive_prefix(&counts);
    let values = match words {
        // SAFETY: as above.
        Some(_) => d
            .download(&v[0])?
            .iter()
            .map(|w| unsafe { std::mem::transmute_copy::<W, V>(w) })
            .collect(),
        None => Vec::new(),
    };
    Ok(Split {
        keys: d.download(&k[0])?,
        values,
        offsets,
        counts,
    })
}
