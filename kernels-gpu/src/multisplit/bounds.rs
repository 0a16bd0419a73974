//! The bounds launch after a multisplit's second pass: where each bucket begins in the split
//! keys, found by a binary search per bucket over the keys, which are in bucket order. A thread
//! a bucket, about log2(n) dependent reads each: 4097 searches over 2^28 keys read some 115 K
//! keys where a pass over the keys (this launch before) read all of them, 1 GB, and took about
//! a sixth of a split into 4096 buckets on the H200.

use super::bucket::{BucketFn, Key};
use super::pass::{BucketParams, BuiltIn, WithBuckets};
use crate::launch::LaunchShape;
use crate::policy::multisplit::THREADS;
use crate::simt::global_x;

own_kernel! {
    #![open(multisplit_bounds_entry)]
    /// Parameters of [`bounds`]: the split keys, the bucket function they were split by (as in
    /// [`super::histogram::Histogram`]) and where each bucket's first index goes.
    pub struct Bounds<K: Key, B: BucketParams<K>> {
        /// The `n` keys, in bucket order (keys out of order give wrong bounds, never a read
        /// or a store out of bounds).
        #[len(n)]
        pub keys: *const K,
        pub n: u64,
        #[group]
        pub buckets: B,
        /// The buckets, and where each begins: `m + 1` words, the last `n`, so that bucket
        /// `b` holds the keys from `starts[b]` to `starts[b + 1]`.
        pub m: u32,
        #[len(m as u64 + 1)]
        pub starts: *mut u32,
    }
    check |p, shape| n <= u32::MAX as u64 && *shape == p.plan();
    /// The bounds of split u32 and u64 keys.
    fn bounds => multisplit_bounds_u32<u32, BuiltIn<u32>>, multisplit_bounds_u64<u64, BuiltIn<u64>>;
}

impl<K: Key, B: BucketParams<K>> Bounds<K, B> {
    /// A thread a bucket and one for the end: `m + 1` threads in blocks of [`THREADS`].
    pub const fn plan(&self) -> LaunchShape {
        LaunchShape::linear((self.m as u64 + 1).div_ceil(THREADS as u64), THREADS, 0)
    }
}

/// [`bounds_by`] of the split keys under the bucket function the parameters name.
///
/// # Safety
/// As for [`bounds_by`] with the launch of [`Bounds::plan`]; the bucket parameters as
/// [`BucketParams::with`] says.
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
            keys, n, m, starts, ..
        } = self;
        // SAFETY: [`bounds`]' contract, forwarded.
        unsafe { bounds_by(keys, n, f, m, starts) }
    }
}

/// For keys split by bucket, where each bucket begins: `starts[b]` for `b <= m` is the first
/// index whose key's bucket is `b` or more (`n` when there is none), by one binary search a
/// thread.
///
/// # Safety
/// `keys` holds `n` keys, `n <= u32::MAX`; `starts` holds `m + 1` words; at least `m + 1`
/// threads in all.
#[inline(always)]
pub unsafe fn bounds_by<K: Key, F: BucketFn<K>>(
    keys: *const K,
    n: u64,
    buckets: F,
    m: u32,
    starts: *mut u32,
) {
    let b = global_x();
    if b > m as u64 {
        return;
    }
    let (mut low, mut high) = (0, n);
    // SAFETY: reads at `mid < high <= n`; the store at `b <= m`.
    unsafe {
        while low < high {
            let mid = low + (high - low) / 2;
            if (buckets.bucket(*keys.add(mid as usize)) as u64) < b {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        *starts.add(b as usize) = low as u32;
    }
}
