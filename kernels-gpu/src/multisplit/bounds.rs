//! The bounds launch after a multisplit's second pass: where each bucket begins and ends in the
//! split keys, found where a key's bucket differs from its neighbour's. A grid-stride loop; each
//! key read three times (mostly from cache), two words written a bucket.

use super::bucket::{BucketFn, Key};
use super::pass::{BucketParams, BuiltIn, WithBuckets};
use crate::launch::LaunchShape;
use crate::policy::multisplit::{BOUNDS_MAX_BLOCKS, THREADS};
use crate::simt::{global_x, grid_threads_x};

own_kernel! {
    #![open(multisplit_bounds_entry)]
    /// Parameters of [`bounds`]: the split keys, the bucket function they were split by (as in
    /// [`super::histogram::Histogram`]) and where each bucket's bounds go.
    pub struct Bounds<K: Key, B: BucketParams<K>> {
        /// The `n` keys, in bucket order (keys out of order make threads race on a bucket's
        /// bounds, each storing an index: wrong bounds, never a store out of bounds).
        #[len(n)]
        pub keys: *const K,
        pub n: u64,
        #[group]
        pub buckets: B,
        /// The buckets, and where each begins and ends (`m` words each).
        pub m: u32,
        #[len(m)]
        pub begin: *mut u32,
        #[len(m)]
        pub end: *mut u32,
    }
    check |p, shape| shape.is_1d();
    /// The bounds of split u32 and u64 keys.
    fn bounds => multisplit_bounds_u32<u32, BuiltIn<u32>>, multisplit_bounds_u64<u64, BuiltIn<u64>>;
}

impl<K: Key, B: BucketParams<K>> Bounds<K, B> {
    /// A grid-stride loop: a block of [`THREADS`] per `THREADS` keys, at most
    /// [`BOUNDS_MAX_BLOCKS`].
    pub const fn plan(&self) -> LaunchShape {
        let blocks = self.n.div_ceil(THREADS as u64);
        let blocks = if blocks < BOUNDS_MAX_BLOCKS {
            blocks
        } else {
            BOUNDS_MAX_BLOCKS
        };
        LaunchShape::linear(blocks, THREADS, 0)
    }
}

/// [`bounds_by`] of the split keys under the bucket function the parameters name.
///
/// # Safety
/// As for [`bounds_by`]; the bucket parameters as [`BucketParams::with`] says.
#[inline(always)]
pub unsafe fn bounds<K: Key, B: BucketParams<K>>(p: Bounds<K, B>) {
    // SAFETY: forwarded to the launch contract above.
    unsafe { p.buckets.with(p) }
}

/// [`bounds`]' body once its bucket function is known.
impl<K: Key, B: BucketParams<K>> WithBuckets<K> for Bounds<K, B> {
    type Output = ();

    #[inline(always)]
    unsafe fn run<F: BucketFn<K>>(self, f: F) {
        let Bounds {
            keys,
            n,
            m,
            begin,
            end,
            ..
        } = self;
        // SAFETY: [`bounds`]' contract, forwarded.
        unsafe { bounds_by(keys, n, f, m, (begin, end)) }
    }
}

/// For keys split by bucket, where each bucket begins (`begin[b]`) and ends (`end[b]`); buckets
/// with no keys keep what the caller stored (0 and 0). Keys in a bucket `>= m` (a broken bucket
/// function, which the histogram reports) are passed over.
///
/// # Safety
/// `keys` holds `n` keys in bucket order; `begin` and `end` hold `m` words.
#[inline(always)]
pub unsafe fn bounds_by<K: Key, F: BucketFn<K>>(
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
