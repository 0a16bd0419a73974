//! Multisplit (after Ashkiani, Davidson, Meyer and Owens, "GPU Multisplit", 2016): keys, and
//! optionally values, reordered stably by bucket (bucket 0's keys first, each bucket in input
//! order), with each bucket's offset and count. What sorting by bucket gives, for less work: a
//! multisplit reads the keys twice and writes them once.
//!
//! ```
//! use warpkit::Backend;
//! use warpkit::multisplit::{Buckets, Multisplit};
//!
//! let keys = [25u32, 3, 17, 42, 8, 30];
//! let split = Multisplit::new(Buckets::Splitters(&[10, 30]))?;     // [0,10), [10,30), [30,..)
//! let out = split.keys(&Backend::cpu(), &keys)?;
//! assert_eq!(out.keys, [3, 8, 25, 17, 42, 30]);
//! assert_eq!((out.offsets, out.counts), (vec![0, 2, 4], vec![2, 2, 2]));
//! # Ok::<(), warpkit::Error>(())
//! ```
//!
//! Devices run that paper's direct, warp-level and block-level methods
//! ([`warpkit_kernels::multisplit::digit_pass`], one or two 8-bit digit passes), chosen by
//! [`Method::auto`] from H100 measurements unless the caller forces one; [`compact`] is the
//! two-bucket case. The CPU backend is a stable counting sort with rayon, also the reference
//! in tests. A bucket function that puts a key in a bucket `>= m` ends in
//! [`Error::BucketOutOfRange`], found by a device-side flag after the launch.

mod cpu;
mod function;
pub(crate) mod launch;

use crate::error::{Error, Result, check_len, check_same_len};
use crate::runtime::backend::Backend;
use crate::runtime::device::{Device, DeviceBuffer};
use crate::runtime::progress::{Report, Tracker, WorkDone};
use bytemuck::Pod;
use std::marker::PhantomData;
use warpkit_kernels::multisplit::digit_pass::BuiltIn;
use warpkit_kernels::multisplit::kernels::SplitKernels;

pub use function::{OwnBuckets, SplitFunction};
pub use warpkit_kernels::multisplit::bucket::Keep;
use warpkit_kernels::multisplit::bucket::{BucketFn, Key};

/// Keys a multisplit takes: u32 and u64.
pub trait MultisplitKey: Key + Pod {
    /// The built-in bucket functions as the kernels take them, tied to their kernels (the
    /// table in [`warpkit_kernels::multisplit::kernels`]).
    #[doc(hidden)]
    type BuiltIn: SplitKernels<Self> + From<BuiltIn<Self>>;
}

impl MultisplitKey for u32 {
    type BuiltIn = BuiltIn<u32>;
}

impl MultisplitKey for u64 {
    type BuiltIn = BuiltIn<u64>;
}

/// How a device writes a split (the paper's methods; the CPU backend has its own).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Every key straight to its final place: scattered stores (the paper's baseline).
    Direct,
    /// Each warp's keys grouped by bucket digit in shared memory first, then written as one
    /// run per digit and warp: coalesced stores when there are few buckets.
    WarpLevel,
    /// Each tile grouped by bucket digit in shared memory first, then written as contiguous
    /// runs: coalesced stores.
    BlockLevel,
}

impl Method {
    /// Every method, for callers that compare them.
    pub const ALL: [Method; 3] = [Method::Direct, Method::WarpLevel, Method::BlockLevel];

    /// The method a device runs unless told otherwise, from the H100 figures in the
    /// repository's [results/multisplit.md](https://github.com/warpkit-rs/warpkit/blob/main/results/multisplit.md) (2^28 uniform u32
    /// keys):
    /// keys alone in up to 2 buckets go straight to their places (the direct method's two runs
    /// per window coalesce well enough and skip the staging: 223.4 G keys/s against 210.8
    /// block-level, compaction 222.1 against 212.5); otherwise the block-level method's longer
    /// runs win (keys m = 32: 189.9 against 177.9 warp-level and 78.5 direct; pairs m = 2:
    /// 136.9 against 132.7 warp-level and 125.5 direct; m = 256: 115.1 against 68.8
    /// warp-level).
    pub fn auto(m: u32, with_values: bool) -> Method {
        if m <= 2 && !with_values {
            Method::Direct
        } else {
            Method::BlockLevel
        }
    }
}

/// Exclusive prefix sums of bucket counts: the buckets' offsets.
fn exclusive_prefix(counts: &[u32]) -> Vec<u32> {
    counts
        .iter()
        .scan(0u32, |run, &c| {
            *run += c;
            Some(*run - c)
        })
        .collect()
}

/// The most buckets a multisplit takes.
pub const MAX_BUCKETS: u32 = 1 << 16;

/// How keys map to buckets.
#[derive(Clone, Copy, Debug)]
pub enum Buckets<'a, K> {
    /// Bucket = the number of splitters ≤ key (sorted splitters; `m = splitters + 1`).
    Splitters(&'a [K]),
    /// Bucket = `bits` bits of the key from bit `shift`, a radix digit (`m = 2^bits`).
    BitField {
        /// The digit's lowest bit.
        shift: u32,
        /// Its width (`m = 2^bits` buckets, at most [`MAX_BUCKETS`]).
        bits: u32,
    },
    /// Bucket = key mod `m`.
    Modulo(u32),
    /// Bucket = the top `bits` bits of a multiplicative (Fibonacci) hash of the key (`m =
    /// 2^bits`): keys spread evenly over the buckets whatever bits they vary in
    /// ([`warpkit_kernels::multisplit::bucket::MultiplicativeHash`]).
    Hash {
        /// The hash's bits kept (`m = 2^bits` buckets, at most [`MAX_BUCKETS`]).
        bits: u32,
    },
    /// Compaction: bucket 0 holds the keys `Keep` keeps, bucket 1 the rest (`m = 2`).
    Keep(Keep),
}

/// A multisplit's output: keys (and values, empty for a keys-only split) grouped by bucket, and
/// each bucket's offset (the exclusive scan of the counts) and count.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Split<K, V = ()> {
    /// The keys, bucket after bucket, each bucket's in input order.
    pub keys: Vec<K>,
    /// Their values, moved with them (empty for a split of keys alone).
    pub values: Vec<V>,
    /// Where each bucket starts in `keys`.
    pub offsets: Vec<u32>,
    /// How many keys each bucket holds.
    pub counts: Vec<u32>,
}

/// Where each bucket's keys lie after a split in device memory: offsets (the exclusive scan of
/// the counts) and counts.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Bounds {
    /// Where each bucket starts in the output.
    pub offsets: Vec<u32>,
    /// How many keys each bucket holds.
    pub counts: Vec<u32>,
}

/// `6 keys in 3 buckets of [2, 2, 2]` (and values where a split has them): the sizes, not
/// the keys; the counts of the first 16 buckets, then how many more.
impl<K, V> std::fmt::Display for Split<K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let with = if self.values.is_empty() { "" } else { " and values" };
        write!(f, "{} keys{with} in ", self.keys.len())?;
        bucket_counts(f, &self.counts)
    }
}

/// `3 buckets of [2, 2, 2]`, as for [`Split`].
impl std::fmt::Display for Bounds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        bucket_counts(f, &self.counts)
    }
}

/// `m buckets of [c0, c1, …]`, at most 16 counts.
fn bucket_counts(f: &mut std::fmt::Formatter<'_>, counts: &[u32]) -> std::fmt::Result {
    const SHOWN: usize = 16;
    let shown: Vec<String> = counts.iter().take(SHOWN).map(u32::to_string).collect();
    write!(f, "{} buckets of [{}", counts.len(), shown.join(", "))?;
    match counts.len().checked_sub(SHOWN) {
        Some(more) if more > 0 => write!(f, ", … {more} more]"),
        _ => write!(f, "]"),
    }
}

/// Compaction: the keys `keep` keeps, in input order, then the others, in input order
/// (`counts[0]` of them are kept). A multisplit into two buckets.
pub fn compact<K: MultisplitKey>(backend: &Backend, keys: &[K], keep: Keep) -> Result<Split<K>> {
    Multisplit::new(Buckets::Keep(keep))?.keys(backend, keys)
}

/// A multisplit by one bucket function, checked once and run on any number of inputs: a
/// built-in one ([`Multisplit::new`]) or one of one's own ([`Multisplit::by`]).
#[derive(Clone, Copy, Debug)]
pub struct Multisplit<'a, K, F = Buckets<'a, K>> {
    buckets: F,
    m: u32,
    method: Option<Method>,
    report: Option<Report<'a>>,
    key: PhantomData<fn() -> K>,
}

impl<'a, K: MultisplitKey> Multisplit<'a, K> {
    /// A multisplit by `buckets`, or why it cannot be: no buckets (`Modulo(0)`), more than
    /// [`MAX_BUCKETS`], splitters out of order, a bit field outside the key.
    pub fn new(buckets: Buckets<'a, K>) -> Result<Multisplit<'a, K>> {
        let m = match buckets {
            Buckets::Splitters(s) => {
                if let Some(index) = s.windows(2).position(|w| w[0] > w[1]) {
                    return Err(Error::UnsortedSplitters { index: index + 1 });
                }
                s.len() as u64 + 1
            }
            Buckets::BitField { shift, bits } => {
                if shift as u64 + bits as u64 > K::BITS as u64 {
                    return Err(Error::BitFieldOutsideKey {
                        shift,
                        bits,
                        key_bits: K::BITS,
                    });
                }
                1u64 << bits.min(63)
            }
            Buckets::Modulo(m) => m as u64,
            Buckets::Hash { bits } => 1u64 << bits.min(63),
            Buckets::Keep(Keep::BitSet(bit) | Keep::BitClear(bit)) if bit >= K::BITS => {
                return Err(Error::BitFieldOutsideKey {
                    shift: bit,
                    bits: 1,
                    key_bits: K::BITS,
                });
            }
            Buckets::Keep(_) => 2,
        };
        if m == 0 {
            return Err(Error::NoBuckets);
        }
        if m > MAX_BUCKETS as u64 {
            return Err(Error::TooManyBuckets { m, max: MAX_BUCKETS });
        }
        Ok(Multisplit {
            buckets,
            m: m as u32,
            method: None,
            report: None,
            key: PhantomData,
        })
    }
}

impl<'a, K: MultisplitKey, F: BucketFn<K> + SplitKernels<K>> Multisplit<'a, K, OwnBuckets<F>> {
    /// A multisplit into `m` buckets by `function`, a bucket function of one's own whose kernels
    /// a device crate declared with [`warpkit_kernels::multisplit_kernels!`] (its module loaded
    /// on a GPU with [`Device::load`]), or why it cannot be: no buckets, more than
    /// [`MAX_BUCKETS`]. A key that `function` puts in a bucket at or past `m` ends the call in
    /// [`Error::BucketOutOfRange`].
    ///
    /// ```ignore
    /// // In the device crate: `Morton` a `BucketFn<u32>` declared with `kernel_group!`, and
    /// // warpkit_kernels::multisplit_kernels! { pub morton_u32: Morton for u32; }
    /// device.load(&KERNELS)?;
    /// let split = Multisplit::by(Morton { bits: 10 }, 1024)?.keys(&backend, &points)?;
    /// ```
    pub fn by(function: F, m: u32) -> Result<Multisplit<'a, K, OwnBuckets<F>>> {
        if m == 0 {
            return Err(Error::NoBuckets);
        }
        if m > MAX_BUCKETS {
            return Err(Error::TooManyBuckets {
                m: m as u64,
                max: MAX_BUCKETS,
            });
        }
        Ok(Multisplit {
            buckets: OwnBuckets(function),
            m,
            method: None,
            report: None,
            key: PhantomData,
        })
    }
}

impl<'a, K: MultisplitKey, F: SplitFunction<K>> Multisplit<'a, K, F> {
    /// The same split, by `method` on a device; the CPU backend, which has none of the paper's
    /// methods, runs its own stable counting sort (the split is the same). Without it, devices
    /// pick by [`Method::auto`].
    pub fn with_method(self, method: Method) -> Multisplit<'a, K, F> {
        Multisplit {
            method: Some(method),
            ..self
        }
    }

    /// The same split, reporting how much of each call's work is done to `progress` as it goes
    /// (a hundredth at a time; see [`WorkDone`]): on the CPU backend, where 10^9 keys take
    /// seconds. On a device, which takes milliseconds, each call reports once, when done.
    ///
    /// ```
    /// use warpkit::multisplit::{Buckets, Multisplit};
    /// use warpkit::{Backend, WorkDone};
    ///
    /// let keys: Vec<u32> = (0..1_000_000).rev().collect();
    /// let report = |w: &WorkDone| eprintln!("multisplit: {w}");
    /// let split = Multisplit::new(Buckets::Modulo(16))?
    ///     .with_progress(&report)
    ///     .keys(&Backend::cpu(), &keys)?;
    /// assert_eq!(split.counts, vec![62_500; 16]);
    /// # Ok::<(), warpkit::Error>(())
    /// ```
    pub fn with_progress(self, progress: &'a (dyn Fn(&WorkDone) + Sync)) -> Multisplit<'a, K, F> {
        Multisplit {
            report: Some(Report(progress)),
            ..self
        }
    }

    /// The number of buckets, `m`.
    pub fn buckets(&self) -> u32 {
        self.m
    }

    /// `keys` grouped by bucket, stably.
    pub fn keys(&self, backend: &Backend, keys: &[K]) -> Result<Split<K>> {
        self.run::<u32>(backend, keys, None).map(|s| Split {
            keys: s.keys,
            values: Vec::new(),
            offsets: s.offsets,
            counts: s.counts,
        })
    }

    /// `keys` and `values` (one per key) grouped by the keys' buckets, stably.
    ///
    /// Values are any 4- or 8-byte `bytemuck::Pod` type (numbers, or a `#[repr(C)]` struct
    /// of them deriving `Pod`), which kernels move as words; other sizes are
    /// `Err(UnsupportedMethod)`.
    pub fn pairs<V: Pod + Send + Sync>(
        &self,
        backend: &Backend,
        keys: &[K],
        values: &[V],
    ) -> Result<Split<K, V>> {
        check_same_len("multisplit values", keys.len(), values.len())?;
        let size = size_of::<V>();
        if size != 4 && size != 8 {
            return Err(Error::UnsupportedMethod {
                method: format!("multisplit of {size}-byte values"),
                backend: backend.describe(),
            });
        }
        self.run(backend, keys, Some(values))
    }

    /// Splits keys already in `device`'s memory into `out` (of their length); returns the
    /// buckets' offsets and counts.
    pub fn keys_into(
        &self,
        device: &Device,
        keys: &DeviceBuffer<K>,
        out: &mut DeviceBuffer<K>,
    ) -> Result<Bounds> {
        check_len("multisplit keys", keys.len(), crate::MAX_LEN)?;
        check_same_len("multisplit output keys", keys.len(), out.len())?;
        let io = launch::Io::<K, u32> {
            keys,
            values: None,
            out_keys: out,
        };
        let (offsets, counts) = launch::split_on_device(device, &self.params(), io)?;
        self.tracker(keys.len()).finish();
        Ok(Bounds { offsets, counts })
    }

    /// Splits keys and values already in `device`'s memory into `out_keys` and `out_values`;
    /// returns the buckets' offsets and counts. Values are any 4- or 8-byte `Pod` type, as for
    /// [`Multisplit::pairs`].
    pub fn pairs_into<V: Pod>(
        &self,
        device: &Device,
        keys: &DeviceBuffer<K>,
        values: &DeviceBuffer<V>,
        out_keys: &mut DeviceBuffer<K>,
        out_values: &mut DeviceBuffer<V>,
    ) -> Result<Bounds> {
        check_len("multisplit keys", keys.len(), crate::MAX_LEN)?;
        check_same_len("multisplit values", keys.len(), values.len())?;
        check_same_len("multisplit output keys", keys.len(), out_keys.len())?;
        check_same_len("multisplit output values", keys.len(), out_values.len())?;
        let io = launch::Io {
            keys,
            values: Some((values, out_values)),
            out_keys,
        };
        let (offsets, counts) = launch::split_on_device(device, &self.params(), io)?;
        self.tracker(keys.len()).finish();
        Ok(Bounds { offsets, counts })
    }

    /// The progress of one call over `n` keys.
    fn tracker(&self, n: usize) -> Tracker<'a> {
        Tracker::new(self.report, cpu::work(n))
    }

    fn run<V: Pod + Send + Sync>(
        &self,
        backend: &Backend,
        keys: &[K],
        values: Option<&[V]>,
    ) -> Result<Split<K, V>> {
        check_len("multisplit keys", keys.len(), crate::MAX_LEN)?;
        let (tracker, m) = (self.tracker(keys.len()), self.m);
        let split = match backend {
            Backend::Cpu(_) => self.buckets.split_on_cpu(m, keys, values, &tracker),
            Backend::Device(d) => launch::split(d, &self.params(), keys, values),
        }?;
        tracker.finish();
        Ok(split)
    }

    /// The split as the device passes take it.
    fn params(&self) -> launch::Params<F> {
        launch::Params {
            function: self.buckets,
            m: self.m,
            method: self.method,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Method;

    /// The multisplit module's PTX of each target, as the build cut it (read from the build's
    /// output folder: embedding 18 MB of text in the test binary would dwarf the crate).
    fn multisplit_ptx() -> Option<[String; 2]> {
        let read = |sm| std::fs::read_to_string(format!("{}/ptx/multisplit_{sm}.ptx", env!("OUT_DIR")));
        Some([read("sm_80").ok()?, read("sm_90").ok()?])
    }

    /// Each multisplit kernel compiles its body once per built-in bucket function (8), with 2
    /// barriers in a histogram or a direct or warp-level scatter and 5 in a block-level one
    /// (either ranking), one of a scatter's a `bar.red` (its tile's vote, `sync_threads_or`).
    /// More means LLVM copied an aligned barrier into both arms of a branch that can split a
    /// warp, which hung the H100 once (results/multisplit.md, fourth session).
    #[test]
    fn multisplit_barriers_are_not_copied_into_branches() {
        let Some(ptx) = multisplit_ptx() else {
            eprintln!("\nSKIPPED: the build's PTX is not on this machine (a copied test binary)");
            return;
        };
        for ptx in ptx {
            let mut kernels = 0;
            for entry in ptx.split(".visible .entry ").skip(1) {
                let name = entry.split('(').next().unwrap_or_default();
                let per_body = match name {
                    n if n.starts_with("multisplit_histogram_") => 2,
                    n if n.starts_with("multisplit_scatter_block_") => 5,
                    n if n.starts_with("multisplit_scatter_counted_") => 5,
                    n if n.starts_with("multisplit_scatter_") => 2,
                    _ => continue,
                };
                let body = &entry[..entry.find("\n}\n").unwrap_or(entry.len())];
                let barriers = body.matches("bar.sync").count() + body.matches("bar.red").count();
                assert_eq!(barriers, 8 * per_body, "{name}");
                kernels += 1;
            }
            assert_eq!(kernels, 26, "histogram and scatter kernels found");
        }
    }

    #[test]
    fn auto_method_follows_the_measured_winners() {
        // (m, values, the fastest on the H100; results/multisplit.md, seventh session, 7eb75db)
        let measured = [
            (2, false, Method::Direct),
            (2, true, Method::BlockLevel),
            (32, false, Method::BlockLevel),
            (32, true, Method::BlockLevel),
            (256, false, Method::BlockLevel),
            (256, true, Method::BlockLevel),
            (4096, false, Method::BlockLevel),
            (65536, true, Method::BlockLevel),
        ];
        for (m, values, best) in measured {
            assert_eq!(Method::auto(m, values), best, "m = {m}, values: {values}");
        }
    }
}
