//! What a multisplit splits by: the built-in bucket functions ([`Buckets`]) or one of one's own
//! ([`OwnBuckets`]), each as the CPU backend runs it and as the device kernels take it.

use super::{Buckets, Keep, MultisplitKey, Split, cpu};
use crate::error::Result;
use crate::runtime::progress::Tracker;
use bytemuck::Pod;
use warpkit_kernels::multisplit::bucket::{BitField, BucketFn, Modulo, MultiplicativeHash};
use warpkit_kernels::multisplit::digit_pass::{
    BUCKETS_BIT_FIELD, BUCKETS_HASH, BUCKETS_KEEP_AT_LEAST, BUCKETS_KEEP_BELOW, BUCKETS_KEEP_BIT_CLEAR,
    BUCKETS_KEEP_BIT_SET, BUCKETS_MODULO, BUCKETS_SPLITTERS, BuiltIn,
};
use warpkit_kernels::multisplit::kernels::SplitKernels;

/// A bucket function of one's own, as [`Multisplit::by`](super::Multisplit::by) holds it:
/// a [`BucketFn`] whose kernels a device crate declared with
/// [`warpkit_kernels::multisplit_kernels!`] ([`SplitKernels`]).
#[derive(Clone, Copy, Debug)]
pub struct OwnBuckets<F>(pub F);

/// What a [`Multisplit`](super::Multisplit) splits by: [`Buckets`] or [`OwnBuckets`] (sealed).
pub trait SplitFunction<K: MultisplitKey>: Copy + sealed::SplitBy<K> {}

impl<K: MultisplitKey, T: Copy + sealed::SplitBy<K>> SplitFunction<K> for T {}

pub(super) mod sealed {
    use super::*;

    /// How each engine runs a [`SplitFunction`](super::SplitFunction).
    pub trait SplitBy<K: MultisplitKey> {
        /// The kernels' parameters, tied to the kernels.
        type Kernels: SplitKernels<K>;
        /// The splitters the kernels read (uploaded for the call), if any.
        fn splitters(&self) -> &[K];
        /// The kernels' parameters, with the uploaded splitters' device address (null for
        /// none).
        fn kernel_params(&self, splitters: *const K) -> Self::Kernels;
        /// The split on the CPU backend into `m` buckets, its work counted by `tracker`.
        #[allow(private_interfaces)]
        fn split_on_cpu<V: Pod + Send + Sync>(
            &self,
            m: u32,
            keys: &[K],
            values: Option<&[V]>,
            tracker: &Tracker,
        ) -> Result<Split<K, V>>;
    }
}

impl<K: MultisplitKey> sealed::SplitBy<K> for Buckets<'_, K> {
    type Kernels = K::BuiltIn;

    fn splitters(&self) -> &[K] {
        match self {
            Buckets::Splitters(s) => s,
            _ => &[],
        }
    }

    /// The built-in function's kind and numbers (`ab = a | b << 32`, as
    /// [`BuiltIn`] says).
    fn kernel_params(&self, splitters: *const K) -> K::BuiltIn {
        let (kind, ab) = match *self {
            Buckets::Splitters(s) => (BUCKETS_SPLITTERS, s.len() as u64),
            Buckets::BitField { shift, bits } => (BUCKETS_BIT_FIELD, bits as u64 | (shift as u64) << 32),
            Buckets::Modulo(m) => (BUCKETS_MODULO, m as u64),
            Buckets::Hash { bits } => (BUCKETS_HASH, bits as u64),
            Buckets::Keep(Keep::Below(t)) => (BUCKETS_KEEP_BELOW, t),
            Buckets::Keep(Keep::AtLeast(t)) => (BUCKETS_KEEP_AT_LEAST, t),
            Buckets::Keep(Keep::BitSet(bit)) => (BUCKETS_KEEP_BIT_SET, bit as u64),
            Buckets::Keep(Keep::BitClear(bit)) => (BUCKETS_KEEP_BIT_CLEAR, bit as u64),
        };
        BuiltIn { kind, splitters, ab }.into()
    }

    #[allow(private_interfaces)]
    fn split_on_cpu<V: Pod + Send + Sync>(
        &self,
        m: u32,
        keys: &[K],
        values: Option<&[V]>,
        tracker: &Tracker,
    ) -> Result<Split<K, V>> {
        match *self {
            Buckets::Splitters(s) => cpu::split(cpu::SplitterSlice(s), m, keys, values, tracker),
            Buckets::BitField { shift, bits } => {
                cpu::split(BitField { shift, bits }, m, keys, values, tracker)
            }
            Buckets::Modulo(modulus) => cpu::split(Modulo { m: modulus }, m, keys, values, tracker),
            Buckets::Hash { bits } => cpu::split(MultiplicativeHash { bits }, m, keys, values, tracker),
            Buckets::Keep(keep) => cpu::split(keep, m, keys, values, tracker),
        }
    }
}

impl<K: MultisplitKey, F: BucketFn<K> + SplitKernels<K>> sealed::SplitBy<K> for OwnBuckets<F> {
    type Kernels = F;

    fn splitters(&self) -> &[K] {
        &[]
    }

    fn kernel_params(&self, _: *const K) -> F {
        self.0
    }

    #[allow(private_interfaces)]
    fn split_on_cpu<V: Pod + Send + Sync>(
        &self,
        m: u32,
        keys: &[K],
        values: Option<&[V]>,
        tracker: &Tracker,
    ) -> Result<Split<K, V>> {
        cpu::split(self.0, m, keys, values, tracker)
    }
}
