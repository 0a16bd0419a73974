//! The bounds launch after a multisplit's second pass: where each bucket begins and ends in the
//! split keys, found where a key's bucket differs from its neighbour's. A grid-stride loop; each
//! key read three times (mostly from cache), two words written a bucket.

use super::bucket::{BucketFn, Key};
use crate::simt::{global_x, grid_threads_x};

/// For keys split by bucket, where each bucket begins (`begin[b]`) and ends (`end[b]`); buckets
/// with no keys keep what the caller stored (0 and 0). Keys in a bucket `>= m` (a broken bucket
/// function, which the histogram reports) are passed over.
///
/// # Safety
/// `keys` holds `n` keys in bucket order; `begin` and `end` hold `m` words.
#[inline(always)]
pub unsafe fn bounds<K: Key, F: BucketFn<K>>(
    keys: *const K,
    n: u64,
    buckets: F,
    m: u32,
    (begin, end): (*mut u32, *mut u32),
) {
    let mut i = global_x();
    // SAFETY: reads below `n`; writes below `m`; each bucket's begin and end are written by one
    // thread each (the keys of a bucket are contiguous).
    unsafe {
        while i < n {
            let b = buckets.bucket(*keys.add(i as usize));
            if b >= m {
                i += grid_threads_x();
                continue;
            }
            if i == 0 || buckets.bucket(*keys.add(i as usize - 1)) != b {
                *begin.add(b as usize) = i as u32;
            }
            if i + 1 == n || buckets.bucket(*keys.add(i as usize + 1)) != b {
                *end.add(b as usize) = (i + 1) as u32;
            }
            i += grid_threads_x();
        }
    }
}
