//! A keyed random permutation of `0..n` that any thread evaluates for any position on its own,
//! with no table and no communication: what lets a kernel that produces its outputs grouped
//! (the sectioned alias samplers) write them in random order instead.
//!
//! A four-round Feistel network permutes the `2h`-bit numbers, `4^h >= n`; positions it maps
//! past `n` are mapped again until they land inside (cycle walking), which keeps it a
//! bijection of `0..n`. Since `4^h < 4n`, an element takes fewer than four walks on average.

use super::philox::philox4x32_10;

/// The rounds' keys are Philox words of the caller's key under this counter, a stream apart
/// from any sampling stream (whose counters the caller draws at random).
const KEY_COUNTER: [u32; 4] = [0x5045_524d, 0x5554_4531, 0, 0xffff_ffff];

/// A permutation of `0..n` keyed by a Philox key.
#[derive(Clone, Copy, Debug)]
pub struct Permutation {
    n: u64,
    half_bits: u32,
    round_keys: [u32; 4],
}

impl Permutation {
    /// The permutation of `0..n` for `key` (`n >= 1`).
    #[inline(always)]
    pub fn new(n: u64, key: [u32; 2]) -> Permutation {
        let bits = 64 - n.saturating_sub(1).leading_zeros();
        Permutation {
            n,
            half_bits: bits.div_ceil(2).max(1),
            round_keys: philox4x32_10(KEY_COUNTER, key),
        }
    }

    /// Where position `i < n` goes.
    #[inline(always)]
    pub fn apply(&self, i: u64) -> u64 {
        let mut x = self.feistel(i);
        while x >= self.n {
            x = self.feistel(x);
        }
        x
    }

    /// One pass of the network over the `2h`-bit number `x`.
    #[inline(always)]
    fn feistel(&self, x: u64) -> u64 {
        let h = self.half_bits;
        let mask = (1u64 << h) - 1;
        let (mut left, mut right) = (x >> h, x & mask);
        for k in self.round_keys {
            (left, right) = (right, left ^ (mix(right as u32 ^ k) as u64 & mask));
        }
        left << h | right
    }
}

/// MurmurHash3's 32-bit finalizer: every input bit flips each output bit with probability
/// close to 1/2.
#[inline(always)]
fn mix(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x85eb_ca6b);
    x ^= x >> 13;
    x = x.wrapping_mul(0xc2b2_ae35);
    x ^ x >> 16
}

#[cfg(test)]
mod tests {
    use super::Permutation;

    /// Every position lands once inside `0..n`, for sizes around powers of four and two.
    #[test]
    fn is_a_bijection() {
        for n in [
            1u64,
            2,
            3,
            4,
            5,
            15,
            16,
            17,
            1000,
            4095,
            4096,
            4097,
            65_539,
            1 << 20,
        ] {
            let p = Permutation::new(n, [n as u32, 7]);
            let mut seen = vec![false; n as usize];
            for i in 0..n {
                let j = p.apply(i);
                assert!(j < n && !seen[j as usize], "n={n}: {i} -> {j}");
                seen[j as usize] = true;
            }
        }
    }

    /// Neighbours are scattered: of 2^20 consecutive pairs, the share that stay within 1024
    /// positions of each other is about 2·1024/n (0.2 %), not the identity's 100 %; and
    /// different keys give different permutations.
    #[test]
    fn scatters_neighbours() {
        let n = 1u64 << 20;
        let p = Permutation::new(n, [1, 2]);
        let close = (0..n - 1)
            .filter(|&i| p.apply(i).abs_diff(p.apply(i + 1)) < 1024)
            .count();
        assert!(close < 4 * 2048, "{close} close pairs");
        let q = Permutation::new(n, [1, 3]);
        let same = (0..n).filter(|&i| p.apply(i) == q.apply(i)).count();
        assert!(same < 16, "{same} fixed positions shared by two keys");
    }
}
