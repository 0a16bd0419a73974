//! Bucket functions: what maps a key to one of `m` buckets. The same code runs in kernels and on
//! the host (the CPU backend), so every engine puts a key in the same bucket.
//!
//! A new bucket function is a type implementing [`BucketFn`] for the key types it takes; it must
//! be `Copy` (it travels to the device as kernel parameters) and return a bucket below the `m`
//! it is used with. One that does not is reported, never obeyed: the CPU backend checks every
//! key, and the devices' histogram raises a flag (the largest bucket at or past `m`) that the
//! host turns into `Error::BucketOutOfRange` after the launch, while the kernels keep such keys
//! inside the output. [`MultiplicativeHash`] is the worked example of adding one.

/// Keys a multisplit reorders: u32 and u64.
pub trait Key: Copy + Ord + Default + Send + Sync + 'static {
    /// Bits in the key.
    const BITS: u32;
    /// The key widened to 64 bits.
    fn to_u64(self) -> u64;
    /// The key's bits from bit `shift` (below [`Key::BITS`]; taken modulo it otherwise) under
    /// `mask`, shifted in the key's own width: two instructions a u32 key. Widening to 64 bits
    /// and checking the shift cost a bit-field split 4 % (direct keys, m = 2, on the H100:
    /// 1.61 against 1.55 ms for 2^28 keys).
    #[inline(always)]
    fn field(self, shift: u32, mask: u32) -> u32 {
        self.to_u64().wrapping_shr(shift) as u32 & mask
    }
}

impl Key for u32 {
    const BITS: u32 = 32;
    #[inline(always)]
    fn to_u64(self) -> u64 {
        self as u64
    }
    #[inline(always)]
    fn field(self, shift: u32, mask: u32) -> u32 {
        self.wrapping_shr(shift) & mask
    }
}

impl Key for u64 {
    const BITS: u32 = 64;
    #[inline(always)]
    fn to_u64(self) -> u64 {
        self
    }
}

/// Maps a key to its bucket.
pub trait BucketFn<K: Key>: Copy + Send + Sync {
    /// The key's bucket; a multisplit over `m` buckets needs it below `m`.
    fn bucket(&self, key: K) -> u32;
}

/// Bucket = the number of splitters ≤ key: with sorted splitters `s_0 ≤ s_1 ≤ ...`, bucket 0
/// holds the keys below `s_0` and bucket `j` those in `[s_{j-1}, s_j)`; `m = splitters + 1`.
#[derive(Clone, Copy, Debug)]
pub struct Splitters<K> {
    splitters: *const K,
    len: u32,
}

// SAFETY: the pointer is only read, and `Splitters::new`'s contract keeps it valid and
// unchanged while the value is used, from any thread.
unsafe impl<K: Sync> Send for Splitters<K> {}
unsafe impl<K: Sync> Sync for Splitters<K> {}

impl<K> Splitters<K> {
    /// The bucket function of `len` sorted splitters at `splitters`.
    ///
    /// # Safety
    /// `splitters` holds `len` sorted keys, in the memory of the engine that uses the value,
    /// unchanged while it is used.
    #[inline(always)]
    pub unsafe fn new(splitters: *const K, len: u32) -> Splitters<K> {
        Splitters { splitters, len }
    }
}

impl<K: Key> BucketFn<K> for Splitters<K> {
    /// Upper bound by binary search: `log2(m)` reads.
    #[inline(always)]
    fn bucket(&self, key: K) -> u32 {
        let (mut lo, mut hi) = (0u32, self.len);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            // SAFETY: `mid < len` (the constructor's contract covers the reads).
            if unsafe { *self.splitters.add(mid as usize) } <= key {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }
}

/// Bucket = `bits` bits of the key from bit `shift` (a radix digit); `m = 2^bits`. The field
/// must lie within the key (`shift + bits <= Key::BITS`, as the host checks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BitField {
    pub shift: u32,
    pub bits: u32,
}

impl<K: Key> BucketFn<K> for BitField {
    #[inline(always)]
    fn bucket(&self, key: K) -> u32 {
        let mask = u32::MAX.checked_shr(32 - self.bits.min(32)).unwrap_or(0);
        key.field(self.shift, mask)
    }
}

/// Bucket = key mod `m`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Modulo {
    pub m: u32,
}

impl<K: Key> BucketFn<K> for Modulo {
    #[inline(always)]
    fn bucket(&self, key: K) -> u32 {
        (key.to_u64() % self.m as u64) as u32
    }
}

/// Compaction's bucket function: bucket 0 for the keys a test keeps, 1 for the rest (`m = 2`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// Keys below the value.
    Below(u64),
    /// Keys at or above the value.
    AtLeast(u64),
    /// Keys with the bit set.
    BitSet(u32),
    /// Keys with the bit clear.
    BitClear(u32),
}

impl<K: Key> BucketFn<K> for Keep {
    #[inline(always)]
    fn bucket(&self, key: K) -> u32 {
        let k = key.to_u64();
        let kept = match *self {
            Keep::Below(t) => k < t,
            Keep::AtLeast(t) => k >= t,
            Keep::BitSet(bit) => (k >> (bit & 63)) & 1 == 1,
            Keep::BitClear(bit) => (k >> (bit & 63)) & 1 == 0,
        };
        u32::from(!kept)
    }
}

/// The worked example of a bucket function of one's own: Fibonacci hashing of the key into
/// `2^bits` buckets (the top `bits` bits of `key · 2^64/φ`), which spreads clustered keys
/// evenly, as a hash table's build wants. Adding another takes the same steps as this one did:
/// 1. a `Copy` type here and `BucketFn` for the keys it takes (device code: no allocation,
///    no panics; it runs in every lane);
/// 2. a `BUCKETS_*` kind in `digit_pass` and an arm of its `with_buckets!` macro that
///    rebuilds the function from the launch parameters (`a`, `b`, or a pointer): the kernels
///    are compiled ahead of time, so the choice travels as a launch parameter, and each arm
///    compiles the kernel bodies once more for the new function;
/// 3. a variant of the host's `warpkit::multisplit::Buckets` that says its `m` and maps to
///    those parameters in `Multisplit::params`, and an arm in the CPU backend's dispatch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MultiplicativeHash {
    pub bits: u32,
}

impl<K: Key> BucketFn<K> for MultiplicativeHash {
    #[inline(always)]
    fn bucket(&self, key: K) -> u32 {
        if self.bits == 0 {
            return 0;
        }
        (key.to_u64().wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - self.bits.min(64))) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitters_count_those_at_or_below_the_key() {
        let s = [10u32, 20, 20, 30];
        // SAFETY: `s` outlives the bucket function and is sorted.
        let f = unsafe { Splitters::new(s.as_ptr(), s.len() as u32) };
        let got: Vec<u32> = [0u32, 9, 10, 19, 20, 29, 30, u32::MAX]
            .map(|k| f.bucket(k))
            .into();
        assert_eq!(got, [0, 0, 1, 1, 3, 3, 4, 4]);
        // SAFETY: no splitters: nothing is read.
        let none = unsafe { Splitters::<u64>::new(core::ptr::null(), 0) };
        assert_eq!(none.bucket(u64::MAX), 0);
    }

    #[test]
    fn bit_fields_are_the_keys_bits_at_every_place() {
        let (k32, k64) = (0x9e37_79b9u32, 0x9e37_79b9_7f4a_7c15u64);
        for bits in 0..=16u32 {
            let mask = (1u64 << bits) - 1;
            for shift in 0..=32 - bits {
                let f = BitField { shift, bits };
                let want = (k32 as u64).checked_shr(shift).unwrap_or(0) & mask;
                assert_eq!(f.bucket(k32) as u64, want, "u32 shift {shift} bits {bits}");
            }
            for shift in 0..=64 - bits {
                let f = BitField { shift, bits };
                let want = k64.checked_shr(shift).unwrap_or(0) & mask;
                assert_eq!(f.bucket(k64) as u64, want, "u64 shift {shift} bits {bits}");
            }
        }
    }

    #[test]
    fn fields_moduli_and_hashes_stay_below_m() {
        let field = BitField { shift: 60, bits: 4 };
        assert_eq!(BucketFn::<u64>::bucket(&field, 0xabcd_0000_0000_0000), 0xa);
        assert_eq!(BucketFn::<u32>::bucket(&Modulo { m: 7 }, 100), 2);
        let hash = MultiplicativeHash { bits: 12 };
        assert!((0..100_000u32).all(|k| hash.bucket(k) < 1 << 12));
        let mut counts = [0u32; 16];
        (0..16_000u32).for_each(|k| counts[MultiplicativeHash { bits: 4 }.bucket(k) as usize] += 1);
        assert!(counts.iter().all(|&c| (900..1100).contains(&c)), "{counts:?}");
    }
}
