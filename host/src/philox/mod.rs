//! warpkit's random stream on the host ([`Philox`], a `rand_core` generator), on a device
//! ([`Device::philox_fill`], `launch.rs`) and with rayon ([`Cpu::philox_fill`], `cpu.rs`), all
//! three behind [`Backend::philox_words`]: each evaluates `warpkit_kernels::rng::philox` on the
//! same counters, so the same key and starting counter give the same words on every backend.
//! Public as `warpkit::rng`.
//!
//! [`Device::philox_fill`]: crate::Device::philox_fill
//! [`Cpu::philox_fill`]: crate::cpu::Cpu::philox_fill

mod cpu;
mod launch;

use crate::error::Result;
use crate::runtime::backend::Backend;
use rand_core::block::{BlockRng, BlockRngCore};
use rand_core::{RngCore, SeedableRng};
pub use warpkit_kernels::rng::philox::{counter_add, philox4x32_10};

/// Philox4x32-10 as a `rand_core` generator: words come in counter order, four per counter.
/// Through rand's [`Rng`](rand::Rng) (re-exported as `warpkit::rand`) it gives ordinary random
/// numbers too.
///
/// ```
/// use warpkit::rand::Rng;
/// use warpkit::rand_core::{RngCore, SeedableRng};
/// let mut a = warpkit::Philox::seed_from_u64(7);
/// let mut b = warpkit::Philox::new([7, 0], [0; 4]);
/// assert_eq!(a.next_u32(), b.next_u32());
/// let x: f64 = a.random(); // uniform in [0, 1)
/// let die = a.random_range(1..=6);
/// let keys: Vec<u32> = (0..1000).map(|_| a.random()).collect();
/// # assert!((0.0..1.0).contains(&x) && (1..=6).contains(&die) && keys.len() == 1000);
/// ```
#[derive(Clone, Debug)]
pub struct Philox(BlockRng<PhiloxBlocks>);

/// The Philox block function over successive counters, one block of four words a call:
/// `rand_core`'s [`BlockRng`] hands the words out (and pairs them for `next_u64`, low word
/// first, as the device's samplers read them).
#[derive(Clone, Debug, PartialEq, Eq)]
struct PhiloxBlocks {
    key: [u32; 2],
    /// The counter of the next block to compute.
    counter: [u32; 4],
}

/// Two generators are equal when they will give the same words: the same key, counter and
/// position in the buffered block (whose words follow from the counter before it).
impl PartialEq for Philox {
    fn eq(&self, other: &Philox) -> bool {
        self.0.core == other.0.core && self.0.index() == other.0.index()
    }
}

impl Eq for Philox {}

impl BlockRngCore for PhiloxBlocks {
    type Item = u32;
    type Results = [u32; 4];

    fn generate(&mut self, results: &mut [u32; 4]) {
        *results = philox4x32_10(self.counter, self.key);
        self.counter = counter_add(self.counter, 1);
    }
}

impl Philox {
    /// The stream of `key` starting at `counter`.
    pub fn new(key: [u32; 2], counter: [u32; 4]) -> Philox {
        Philox(BlockRng::new(PhiloxBlocks { key, counter }))
    }

    /// The key.
    pub fn key(&self) -> [u32; 2] {
        self.0.core.key
    }

    /// Skips `blocks` counter blocks (4 × `blocks` words) ahead, dropping any buffered words.
    pub fn skip_blocks(&mut self, blocks: u64) {
        self.0.core.counter = counter_add(self.0.core.counter, blocks);
        self.0.reset();
    }

    /// The counter of the next unused block: with [`Philox::key`], where another backend can
    /// continue the stream after the words buffered here.
    pub fn next_counter(&self) -> [u32; 4] {
        self.0.core.counter
    }
}

impl RngCore for Philox {
    fn next_u32(&mut self) -> u32 {
        self.0.next_u32()
    }

    /// Two consecutive words, the first in the low half.
    fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Consecutive words in little-endian byte order; a partial last word is consumed whole.
    fn fill_bytes(&mut self, dest: &mut [u8]) {
        self.0.fill_bytes(dest)
    }
}

impl SeedableRng for Philox {
    /// The 64-bit key, little-endian.
    type Seed = [u8; 8];

    fn from_seed(seed: [u8; 8]) -> Philox {
        let word = |i: usize| u32::from_le_bytes(seed[i..i + 4].try_into().expect("4 bytes"));
        Philox::new([word(0), word(4)], [0; 4])
    }

    /// Uses the number itself as the key (low word first), counter zero.
    fn seed_from_u64(state: u64) -> Philox {
        Philox::new([state as u32, (state >> 32) as u32], [0; 4])
    }
}

impl Backend {
    /// `n` words of the Philox stream of `key` from `counter`; equal on every backend and to
    /// [`crate::Philox::new(key, counter)`](crate::Philox::new).
    pub fn philox_words(&self, key: [u32; 2], counter: [u32; 4], n: usize) -> Result<Vec<u32>> {
        match self {
            Backend::Device(d) => {
                let mut out = d.workspace(n)?;
                d.philox_fill(&mut out, key, counter)?;
                d.download(&out)
            }
            Backend::Cpu(c) => {
                let mut out = vec![0; n];
                c.philox_fill(&mut out, key, counter);
                Ok(out)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_follow_counter_order_across_calls() {
        let key = [0xdead_beef, 42];
        let mut rng = Philox::new(key, [u32::MAX, 0, 0, 0]);
        let words: Vec<u32> = (0..8).map(|_| rng.next_u32()).collect();
        assert_eq!(&words[..4], &philox4x32_10([u32::MAX, 0, 0, 0], key));
        assert_eq!(&words[4..], &philox4x32_10([0, 1, 0, 0], key));
        assert_eq!(rng.next_counter(), [1, 1, 0, 0]);
    }

    #[test]
    fn u64_and_bytes_are_made_of_consecutive_words() {
        let mut a = Philox::seed_from_u64(99);
        let mut b = a.clone();
        let (w0, w1) = (a.next_u32(), a.next_u32());
        assert_eq!(b.next_u64(), w0 as u64 | (w1 as u64) << 32);
        let mut bytes = [0u8; 6];
        let mut c = Philox::from_seed(99u64.to_le_bytes());
        c.fill_bytes(&mut bytes);
        assert_eq!(&bytes[..4], &w0.to_le_bytes());
        assert_eq!(&bytes[4..], &w1.to_le_bytes()[..2]);
        assert_eq!(c.next_u32(), a.next_u32(), "a partial word is consumed whole");
    }

    #[test]
    fn a_u64_across_blocks_takes_the_last_word_and_the_next_blocks_first() {
        let mut a = Philox::seed_from_u64(3);
        let words: Vec<u32> = (0..5).map(|_| a.next_u32()).collect();
        let mut b = Philox::seed_from_u64(3);
        for _ in 0..3 {
            b.next_u32();
        }
        assert_eq!(b.next_u64(), words[3] as u64 | (words[4] as u64) << 32);
    }

    #[test]
    fn generators_are_equal_when_their_streams_are() {
        let mut a = Philox::seed_from_u64(8);
        let mut b = a.clone();
        assert_eq!(a, b);
        a.next_u32();
        assert_ne!(a, b);
        b.next_u32();
        assert_eq!(a, b);
    }

    #[test]
    fn skipping_matches_drawing() {
        let mut a = Philox::seed_from_u64(5);
        let mut b = a.clone();
        for _ in 0..12 {
            a.next_u32();
        }
        b.skip_blocks(3);
        assert_eq!(a.next_u32(), b.next_u32());
    }
}
