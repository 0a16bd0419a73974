//! One digit pass of the multisplit: which digit of the bucket id it splits by ([`Pass`]), and
//! the built-in bucket functions a launch names by its parameters (`with_buckets!`, compiled
//! once per function). A shift, a mask and a min a key on top of the bucket function.

use super::bucket::{BucketFn, Key};
use crate::block::DigitFn;

/// Digit values of one pass at most.
pub const RADIX: u32 = 256;
// A thread per digit in the histogram's table write and the scatter's starts.
const _: () = assert!(RADIX <= crate::policy::multisplit::THREADS);

crate::kernel_group! {
    /// A built-in bucket function as the kernels take it: a `BUCKETS_*` kind, its splitters,
    /// and `ab = a | b << 32`, its numbers (`with_buckets!` makes the function of them).
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

/// Runs `body` with `f` bound to the built-in bucket function that a launch's [`BuiltIn`]
/// names (see the `BUCKETS_*` kinds). The body is
/// compiled once per function, so a kernel chooses once per launch instead of once per key
/// (the per-key choice cost the histogram a jump table and a sixth of its instructions).
/// Used inside an `unsafe` block whose caller vouches, for splitters, that the pointer holds
/// `a` sorted keys in the launch's memory.
macro_rules! with_buckets {
    ($buckets:expr, |$f:ident| $body:expr) => {{
        let $crate::multisplit::pass::BuiltIn { kind, splitters, ab } = $buckets;
        let a = ab as u32;
        match kind {
            $crate::multisplit::pass::BUCKETS_SPLITTERS => {
                let $f = $crate::multisplit::bucket::Splitters::new(splitters, a);
                $body
            }
            $crate::multisplit::pass::BUCKETS_BIT_FIELD => {
                let $f = $crate::multisplit::bucket::BitField {
                    shift: (ab >> 32) as u32,
                    bits: a,
                };
                $body
            }
            $crate::multisplit::pass::BUCKETS_MODULO => {
                let $f = $crate::multisplit::bucket::Modulo { m: a };
                $body
            }
            $crate::multisplit::pass::BUCKETS_HASH => {
                let $f = $crate::multisplit::bucket::MultiplicativeHash { bits: a };
                $body
            }
            // Each predicate its own arm, so that its body knows which one it tests (one arm
            // for all four chose per key; with these arms and the keys-only scatter, direct
            // compaction of 2^28 keys went from 1.66 to 1.41 ms on the H100).
            $crate::multisplit::pass::BUCKETS_KEEP_BELOW => {
                let $f = $crate::multisplit::bucket::Keep::Below(ab);
                $body
            }
            $crate::multisplit::pass::BUCKETS_KEEP_AT_LEAST => {
                let $f = $crate::multisplit::bucket::Keep::AtLeast(ab);
                $body
            }
            $crate::multisplit::pass::BUCKETS_KEEP_BIT_SET => {
                let $f = $crate::multisplit::bucket::Keep::BitSet(a);
                $body
            }
            _ => {
                let $f = $crate::multisplit::bucket::Keep::BitClear(a);
                $body
            }
        }
    }};
}
pub(super) use with_buckets;

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
