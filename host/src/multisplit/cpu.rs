//! The CPU multisplit: a stable counting sort with rayon. Chunks of the input count their
//! buckets in parallel, one pass lays out where each chunk's keys of each bucket start (bucket
//! major, chunks in order: that is what keeps it stable), and the chunks scatter in parallel.

use super::{BucketFn, Key, Split};
use crate::error::{Error, Result};
use rayon::prelude::*;

/// Keys per rayon task at least; more for large inputs, so that the chunks' histograms (m
/// words each) stay a few per thread.
const CHUNK: usize = 1 << 16;

/// Where the scatter writes: disjoint positions of one output, from several threads.
struct Scatter<T>(*mut T);

// SAFETY: the threads write disjoint positions (see `split`), and the output outlives them.
unsafe impl<T: Send> Sync for Scatter<T> {}

impl<T> Scatter<T> {
    /// # Safety
    /// `i` is inside the output, and no other thread writes it.
    unsafe fn write(&self, i: usize, x: T) {
        // SAFETY: the caller's contract.
        unsafe { self.0.add(i).write(x) }
    }
}

/// `keys` (and `values`) grouped by `f`'s buckets in `0..m`, stably, with offsets and counts;
/// `Err(BucketOutOfRange)` if `f` puts a key in a bucket `>= m`.
pub(super) fn split<K: Key, V: Copy + Send + Sync, F: BucketFn<K>>(
    f: F,
    m: u32,
    keys: &[K],
    values: Option<&[V]>,
) -> Result<Split<K, V>> {
    let buckets: Vec<u32> = keys.par_iter().map(|&k| f.bucket(k)).collect();
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
            h
        })
        .collect();
    let mut counts = vec![0u32; m];
    histograms
        .iter()
        .for_each(|h| counts.iter_mut().zip(h).for_each(|(c, x)| *c += x));
    let offsets = super::exclusive_prefix(&counts);
    // starts[c][b]: where chunk c's first key of bucket b goes.
    let mut next = offsets.clone();
    let starts: Vec<Vec<u32>> = histograms
        .iter()
        .map(|h| {
            let here = next.clone();
            next.iter_mut().zip(h).for_each(|(s, x)| *s += x);
            here
        })
        .collect();
    let mut out_keys = Vec::with_capacity(keys.len());
    let mut out_values = Vec::with_capacity(values.map_or(0, <[V]>::len));
    let (to_keys, to_values) = (Scatter(out_keys.as_mut_ptr()), Scatter(out_values.as_mut_ptr()));
    buckets
        .par_chunks(chunk)
        .zip(starts)
        .enumerate()
        .for_each(|(c, (ids, mut at))| {
            for (j, &b) in ids.iter().enumerate() {
                let (i, to) = (c * chunk + j, at[b as usize] as usize);
                at[b as usize] += 1;
                // SAFETY: `to` runs over this chunk's own range of bucket b's slots, disjoint
                // from every other chunk's and bucket's, all below n; values has n elements
                // when present.
                unsafe {
                    to_keys.write(to, keys[i]);
                    if let Some(v) = values {
                        to_values.write(to, v[i]);
                    }
                }
            }
        });
    // SAFETY: every position below n was written once above (the slots of all chunks and
    // buckets partition 0..n).
    unsafe {
        out_keys.set_len(keys.len());
        out_values.set_len(values.map_or(0, <[V]>::len));
    }
    Ok(Split {
        keys: out_keys,
        values: out_values,
        offsets,
        counts,
    })
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
        let got = split::<u32, u32, _>(TooBig, 4, &[1, 2, 9, 3], None);
        assert!(matches!(got, Err(Error::BucketOutOfRange { bucket: 9, m: 4 })));
    }
}
