//! The CPU multisplit: a stable counting sort with rayon. Chunks of the input count their
//! buckets in parallel, one pass cuts the output into each chunk's slots of each bucket (bucket
//! major, chunks in order: that is what keeps it stable), and the chunks scatter into their own
//! slots in parallel.

use super::{BucketFn, Key, Split};
use crate::error::{Error, Result};
use crate::runtime::progress::Tracker;
use bytemuck::Pod;
use rayon::prelude::*;

/// Keys per rayon task at least; more for large inputs, so that the chunks' histograms (m
/// words each) stay a few per thread.
const CHUNK: usize = 1 << 16;

/// The splitters' bucket function over a slice: the same upper bound as the kernels'
/// `Splitters`, which hold a device address instead.
#[derive(Clone, Copy)]
pub(super) struct SplitterSlice<'a, K>(pub &'a [K]);

impl<K: Key> BucketFn<K> for SplitterSlice<'_, K> {
    fn bucket(&self, key: K) -> u32 {
        self.0.partition_point(|s| *s <= key) as u32
    }
}

/// Units of work in a split of `n` keys, as [`split`] counts them: a key through each of three
/// passes (its bucket, the histograms, the scatter).
pub(super) fn work(n: usize) -> u64 {
    3 * n as u64
}

/// `keys` (and `values`) grouped by `f`'s buckets in `0..m`, stably, with offsets and counts;
/// `Err(BucketOutOfRange)` if `f` puts a key in a bucket `>= m`. Its [`work`] is counted by
/// `tracker`.
pub(super) fn split<K: Key, V: Pod + Send + Sync, F: BucketFn<K>>(
    f: F,
    m: u32,
    keys: &[K],
    values: Option<&[V]>,
    tracker: &Tracker,
) -> Result<Split<K, V>> {
    let buckets: Vec<u32> = keys.par_iter().map(|&k| f.bucket(k)).collect();
    tracker.add(keys.len() as u64);
    if let Some(&bucket) = buckets.par_iter().find_first(|&&b| b >= m) {
        return Err(Error::BucketOutOfRange { bucket, m });
    }
    let m = m as usize;
    let chunk = CHUNK.max(keys.len().div_ceil(4 * rayon::current_num_threads()));
    let histograms: Vec<Vec<u32>> = buckets
        .par_chunks(chunk)
        .map(|ids| {
            let mut h = vec![0u32; m];
            ids.iter().for_each(|&b| h[b as usize] += 1);
            tracker.add(ids.len() as u64);
            h
        })
        .collect();
    let mut counts = vec![0u32; m];
    histograms
        .iter()
        .for_each(|h| counts.iter_mut().zip(h).for_each(|(c, x)| *c += x));
    let offsets = super::exclusive_prefix(&counts);
    // Zeroed outputs cost no pass: the allocator hands out zero pages, touched first by the
    // scatter, as uninitialized memory would be.
    let mut out_keys = vec![K::default(); keys.len()];
    let mut out_values = vec![V::zeroed(); values.map_or(0, <[V]>::len)];
    let key_slots = slots(&mut out_keys, &histograms, m);
    let value_slots: Vec<Option<Vec<&mut [V]>>> = match values {
        Some(_) => slots(&mut out_values, &histograms, m)
            .into_iter()
            .map(Some)
            .collect(),
        None => histograms.iter().map(|_| None).collect(),
    };
    buckets
        .par_chunks(chunk)
        .zip(key_slots.into_par_iter().zip(value_slots))
        .enumerate()
        .for_each(|(c, (ids, (mut keys_to, mut values_to)))| {
            let mut at = vec![0usize; m];
            for (j, &b) in ids.iter().enumerate() {
                let (i, b) = (c * chunk + j, b as usize);
                keys_to[b][at[b]] = keys[i];
                if let (Some(to), Some(v)) = (values_to.as_mut(), values) {
                    to[b][at[b]] = v[i];
                }
                at[b] += 1;
            }
            tracker.add(ids.len() as u64);
        });
    Ok(Split {
        keys: out_keys,
        values: out_values,
        offsets,
        counts,
    })
}

/// `out` cut into the slots of each chunk and bucket, `slots[c][b]` for chunk `c`'s keys of
/// bucket `b` (`histograms[c][b]` of them): bucket after bucket and, within one, chunk after
/// chunk, the stable order.
fn slots<'a, T>(mut out: &'a mut [T], histograms: &[Vec<u32>], m: usize) -> Vec<Vec<&'a mut [T]>> {
    let mut slots: Vec<Vec<&mut [T]>> = histograms.iter().map(|_| Vec::with_capacity(m)).collect();
    for b in 0..m {
        for (slots, h) in slots.iter_mut().zip(histograms) {
            let (here, rest) = std::mem::take(&mut out).split_at_mut(h[b] as usize);
            slots.push(here);
            out = rest;
        }
    }
    slots
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bucket function that breaks its promise.
    #[derive(Clone, Copy)]
    struct TooBig;

    impl BucketFn<u32> for TooBig {
        fn bucket(&self, key: u32) -> u32 {
            key
        }
    }

    #[test]
    fn buckets_past_m_are_an_error_not_a_write() {
        let got = split::<u32, u32, _>(TooBig, 4, &[1, 2, 9, 3], None, &Tracker::silent());
        assert!(matches!(got, Err(Error::BucketOutOfRange { bucket: 9, m: 4 })));
    }
}
