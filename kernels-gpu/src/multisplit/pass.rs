//! One digit pass of the multisplit: which digit of the bucket id it splits by ([`Pass`]), and
//! the bucket function a launch names by its parameters ([`BucketParams`]: the built-in ones,
//! each compiled once, or one's own). A shift, a mask and a min a key on top of the bucket function.

use super::bucket::{BucketFn, Key};
use crate::block::DigitFn;

/// Digit values of one pass at most.
pub const RADIX: u32 = 256;
// A thread per digit in the histogram's table write and the scatter's starts.
const _: () = assert!(RADIX <= crate::policy::multisplit::THREADS);

crate::kernel_group! {
    /// A built-in bucket function as the kernels take it: a `BUCKETS_*` kind, its splitters,
    /// and `ab = a | b << 32`, its numbers ([`BucketParams::with`] makes the function of them).
    pub struct BuiltIn<K: Key> {
        pub kind: u32,
        /// The `a` sorted splitters of [`BUCKETS_SPLITTERS`]; null for the other kinds.
        #[len(if kind == BUCKETS_SPLITTERS { ab as u32 as u64 } else { 0 })]
        pub splitters: *const K,
        pub ab: u64,
    }
}

/// `kind` of [`BuiltIn`]: splitters (`a` of them).
pub const BUCKETS_SPLITTERS: u32 = 0;
/// `kind`: the bit field of `a` bits from bit `b`.
pub const BUCKETS_BIT_FIELD: u32 = 1;
/// `kind`: modulo `a`.
pub const BUCKETS_MODULO: u32 = 2;
/// `kind`: the multiplicative hash into `2^a` buckets.
pub const BUCKETS_HASH: u32 = 3;
/// `kind`s of compaction (`Keep`): keys below, or at or above, `a | b << 32`; keys with bit
/// `a` set, or clear.
pub const BUCKETS_KEEP_BELOW: u32 = 4;
/// See [`BUCKETS_KEEP_BELOW`].
pub const BUCKETS_KEEP_AT_LEAST: u32 = 5;
/// See [`BUCKETS_KEEP_BELOW`].
pub const BUCKETS_KEEP_BIT_SET: u32 = 6;
/// See [`BUCKETS_KEEP_BELOW`].
pub const BUCKETS_KEEP_BIT_CLEAR: u32 = 7;

/// What a kernel body does once it knows its bucket function: [`BucketParams::with`] calls
/// [`WithBuckets::run`] with it. (A generic closure, which Rust does not have.)
pub trait WithBuckets<K: Key> {
    type Output;
    /// Runs the body with `f`.
    ///
    /// # Safety
    /// The body's own contract.
    unsafe fn run<F: BucketFn<K>>(self, f: F) -> Self::Output;
}

/// The launch parameters that name a multisplit's bucket function: [`BuiltIn`], which names
/// one of this crate's by its kind, or a bucket function of one's own, which is its own
/// parameters (`multisplit_kernels!` implements this for it).
///
/// # Safety
/// [`BucketParams::with`] calls `body.run` once, with a function that reads no memory beyond
/// the reaches of the group's `#[len]` fields.
pub unsafe trait BucketParams<K: Key>: crate::kernel::Group {
    /// Runs `body` with the bucket function these parameters name.
    ///
    /// # Safety
    /// The body's contract; for [`BuiltIn`] splitters, that the pointer holds `a` sorted keys
    /// in the launch's memory.
    unsafe fn with<W: WithBuckets<K>>(self, body: W) -> W::Output;
}

// SAFETY: each arm calls `body.run` once; only the splitters are read, `a` of them, the
// group's `#[len]` for that kind.
unsafe impl<K: Key> BucketParams<K> for BuiltIn<K> {
    /// Compiles the body once per built-in function, so that a kernel chooses once per launch
    /// instead of once per key (the per-key choice cost the histogram a jump table and a sixth
    /// of its instructions).
    #[inline(always)]
    unsafe fn with<W: WithBuckets<K>>(self, body: W) -> W::Output {
        use super::bucket::{BitField, Keep, Modulo, MultiplicativeHash, Splitters};
        let BuiltIn { kind, splitters, ab } = self;
        let a = ab as u32;
        // SAFETY: the caller's contract, forwarded.
        unsafe {
            match kind {
                BUCKETS_SPLITTERS => body.run(Splitters::new(splitters, a)),
                BUCKETS_BIT_FIELD => body.run(BitField {
                    shift: (ab >> 32) as u32,
                    bits: a,
                }),
                BUCKETS_MODULO => body.run(Modulo { m: a }),
                BUCKETS_HASH => body.run(MultiplicativeHash { bits: a }),
                // Each predicate its own arm, so that its body knows which one it tests (one
                // arm for all four chose per key; with these arms and the keys-only scatter,
                // direct compaction of 2^28 keys went from 1.66 to 1.41 ms on the H100).
                BUCKETS_KEEP_BELOW => body.run(Keep::Below(ab)),
                BUCKETS_KEEP_AT_LEAST => body.run(Keep::AtLeast(ab)),
                BUCKETS_KEEP_BIT_SET => body.run(Keep::BitSet(a)),
                _ => body.run(Keep::BitClear(a)),
            }
        }
    }
}

/// One pass: the digit of bucket `b` is `(b >> shift) % 256`, below `radix`. The host picks
/// `radix = m` for a single pass, or 256 (`shift` 0) then `ceil(m / 256)` (`shift` 8) for two,
/// so the digit is below `radix` for every bucket below `m`.
#[derive(Clone, Copy)]
pub struct Pass<F> {
    pub buckets: F,
    pub shift: u32,
    pub radix: u32,
}

/// The `digit` launch parameter of the pass whose digit is `radix` values of the bucket id from
/// bit `shift`: what [`Pass::new`] reads.
pub const fn digit_param(shift: u32, radix: u32) -> u32 {
    shift | radix << 16
}

/// The radix of the pass that the launch parameter `digit` names ([`digit_param`]).
pub const fn radix_of(digit: u32) -> u32 {
    digit >> 16
}

impl<F> Pass<F> {
    /// The pass of `buckets` that `digit = shift | radix << 16` names.
    #[inline(always)]
    pub fn new(buckets: F, digit: u32) -> Self {
        Pass {
            buckets,
            shift: digit & 0xffff,
            radix: digit >> 16,
        }
    }
}

impl<F> Pass<F> {
    /// The digit of bucket `bucket`; clamped below `radix`, so that even a bucket function
    /// that breaks its contract cannot index shared memory or write out of bounds.
    #[inline(always)]
    pub(super) fn digit_of(&self, bucket: u32) -> u32 {
        ((bucket >> self.shift) & (RADIX - 1)).min(self.radix - 1)
    }

    /// The key's digit.
    #[inline(always)]
    pub(super) fn digit<K: Key>(&self, key: K) -> u32
    where
        F: BucketFn<K>,
    {
        self.digit_of(self.buckets.bucket(key))
    }
}

impl<K: Key, F: BucketFn<K>> DigitFn<K> for Pass<F> {
    #[inline(always)]
    fn digit(&self, key: K) -> u32 {
        Pass::digit(self, key)
    }
}
