//! Philox4x32-10 (Salmon, Moraes, Dror and Shaw, "Parallel random numbers: as easy as 1, 2, 3",
//! SC 2011): a 128-bit counter and a 64-bit key give four 32-bit words after ten rounds of
//! multiply-and-xor. Pure integer code, so the same source runs on the GPU and the CPU.
//!
//! warpkit's stream: block `b` is `philox4x32_10(base + b, key)` with the 128-bit counter added
//! little-endian (word 0 lowest); the stream is its words in order, block 0 first.

use crate::simt::math::mul_hi_lo;

const M0: u32 = 0xD251_1F53;
const M1: u32 = 0xCD9E_8D57;
const W0: u32 = 0x9E37_79B9;
const W1: u32 = 0xBB67_AE85;

#[inline(always)]
fn round(c: [u32; 4], k: [u32; 2]) -> [u32; 4] {
    let (hi0, lo0) = mul_hi_lo(M0, c[0]);
    let (hi1, lo1) = mul_hi_lo(M1, c[2]);
    [hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0]
}

/// The Philox4x32 bijection with 10 rounds: four words of output for one counter under `key`.
#[inline(always)]
pub fn philox4x32_10(counter: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let mut c = counter;
    let mut k = key;
    c = round(c, k);
    for _ in 1..10 {
        k = [k[0].wrapping_add(W0), k[1].wrapping_add(W1)];
        c = round(c, k);
    }
    c
}

/// `counter + delta` on the 128-bit little-endian counter (wrapping at 2^128).
#[inline(always)]
pub fn counter_add(counter: [u32; 4], delta: u64) -> [u32; 4] {
    let lo = (counter[0] as u64 | (counter[1] as u64) << 32) as u128
        | ((counter[2] as u64 | (counter[3] as u64) << 32) as u128) << 64;
    let sum = lo.wrapping_add(delta as u128);
    [
        sum as u32,
        (sum >> 32) as u32,
        (sum >> 64) as u32,
        (sum >> 96) as u32,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Known-answer vectors of Random123's `kat_vectors` for philox4x32_10.
    #[test]
    fn random123_known_answers() {
        assert_eq!(
            philox4x32_10([0; 4], [0; 2]),
            [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]
        );
        assert_eq!(
            philox4x32_10([u32::MAX; 4], [u32::MAX; 2]),
            [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd]
        );
        assert_eq!(
            philox4x32_10(
                [0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344],
                [0xa4093822, 0x299f31d0]
            ),
            [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1]
        );
    }

    #[test]
    fn counter_carries_across_words_and_wraps() {
        assert_eq!(counter_add([u32::MAX, 0, 0, 0], 1), [0, 1, 0, 0]);
        assert_eq!(counter_add([u32::MAX, u32::MAX, u32::MAX, 0], 1), [0, 0, 0, 1]);
        assert_eq!(counter_add([u32::MAX; 4], 2), [1, 0, 0, 0]);
        assert_eq!(counter_add([5, 0, 0, 0], u64::MAX), [4, 0, 1, 0]);
    }
}

/// One stream of Philox words: the key and the counter of its first block. A kernel that
/// draws many numbers takes one as a parameter and counts blocks from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Stream {
    pub key: [u32; 2],
    pub counter: [u32; 4],
}

#[cfg(not(target_arch = "nvptx64"))]
// SAFETY: a key and a counter, numbers only.
unsafe impl crate::kernel::Plain for Stream {}

impl Stream {
    /// The stream of a 64-bit key and a 128-bit counter, given as two words (low first).
    pub fn from_words(key: u64, counter: [u64; 2]) -> Stream {
        let [lo, hi] = counter;
        Stream {
            key: [key as u32, (key >> 32) as u32],
            counter: [lo as u32, (lo >> 32) as u32, hi as u32, (hi >> 32) as u32],
        }
    }
}
