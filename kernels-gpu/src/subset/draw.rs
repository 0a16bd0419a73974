//! The sampling procedure every variant runs, written once for one thread's share of a subset.
//!
//! State: the subset so far (`taken` elements), the candidates (`left` elements of the base set
//! still free to join). A round draws a random word per candidate word; the candidates under
//! its one-bits (about half) are the selection. If the selection still fits (`taken + selected
//! <= k`) it joins the subset and leaves the candidates; otherwise the candidates shrink to it.
//! Either way about half the candidates go, so a subset takes about log2 N rounds (the seed's
//! algorithm). It stops once the subset is full, or once every candidate left is needed
//! (`taken + left == k`: those join without another round).
//!
//! Why it is uniform: every rule looks only at counts, so nothing tells one candidate from
//! another, and given its size a selection is a uniform subset of the candidates; by symmetry
//! every k-subset of the base set comes out equally often.
//!
//! A subset's words may be spread over a team of lanes (`F` words per lane); the team sums the
//! selection's count with shuffles, so every lane takes the same branch. The random words are
//! fixed by the subset's index and the word's position alone (see [`random_block`]), never by
//! which lane or thread holds the word, so every variant, the emulator and the CPU backend give
//! the same subsets for the same seed.

use crate::rng::philox::philox4x32_10;
use crate::simt::warp::shfl_xor;

/// Rounds drawn from one Philox block per word: word `j` of subset `s` takes its random words
/// for rounds `4g .. 4g + 3` from the block at counter `[s_lo, s_hi, j, g]`.
pub const ROUNDS_PER_BLOCK: usize = 4;

/// The random words of word `j`, rounds `4g .. 4g + 3`, of subset `s` under `key`.
#[inline(always)]
pub fn random_block(key: [u32; 2], s: u64, j: u32, g: u32) -> [u32; 4] {
    philox4x32_10([s as u32, (s >> 32) as u32, j, g], key)
}

/// The lanes that hold one subset together, and how they add up a count.
pub trait Team {
    /// The sum of `x` over the team, on every lane of it.
    fn sum(&self, x: u32) -> u32;
}

/// One thread holds the whole subset: sums are its own.
#[derive(Clone, Copy, Debug)]
pub struct Alone;

impl Team for Alone {
    #[inline(always)]
    fn sum(&self, x: u32) -> u32 {
        x
    }
}

/// `LANES` aligned consecutive lanes of a warp (a power of two, at most 32), named by `mask`.
#[derive(Clone, Copy, Debug)]
pub struct Lanes<const LANES: u32> {
    /// The team's lanes: shuffles name only them, so teams of one warp finish independently.
    pub mask: u32,
}

impl<const LANES: u32> Team for Lanes<LANES> {
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    fn sum(&self, mut x: u32) -> u32 {
        let mut d = LANES / 2;
        while d > 0 {
            // SAFETY: every lane of the team runs the same rounds (the decisions hang on team
            // sums alone) and so reaches this shuffle with the team's mask; xor offsets below
            // `LANES` stay inside the aligned team.
            x += unsafe { shfl_xor(self.mask, x, d) };
            d /= 2;
        }
        x
    }
}

/// One thread's `F` words of a K-subset of the base set `mask` (`F` of its words, from word
/// `first_word`), `mask` holding `n` elements in all (over the whole team), `k <= n`. Subset
/// `s` of the stream `key`.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn draw<const F: usize, T: Team>(
    team: &T,
    key: [u32; 2],
    s: u64,
    first_word: u32,
    mask: [u32; F],
    n: u32,
    k: u32,
) -> [u32; F] {
    let mut subset = [0u32; F];
    let mut cand = mask;
    let (mut taken, mut left) = (0u32, n);
    let mut g = 0u32;
    while taken < k && taken + left > k {
        // Words without candidates need no random bits: what they would select is empty.
        let mut random = [[0u32; F]; ROUNDS_PER_BLOCK];
        for q in 0..F {
            if cand[q] != 0 {
                let block = random_block(key, s, first_word + q as u32, g);
                for r in 0..ROUNDS_PER_BLOCK {
                    random[r][q] = block[r];
                }
            }
        }
        for words in &random {
            if taken == k || taken + left == k {
                break;
            }
            let mut sel = [0u32; F];
            let mut count = 0;
            for q in 0..F {
                sel[q] = words[q] & cand[q];
                count += sel[q].count_ones();
            }
            let count = team.sum(count);
            if taken + count <= k {
                for q in 0..F {
                    subset[q] |= sel[q];
                    cand[q] &= !sel[q];
                }
                taken += count;
                left -= count;
            } else {
                cand = sel;
                left = count;
            }
        }
        g += 1;
    }
    if taken < k {
        // `taken + left == k`: every candidate left is needed.
        for q in 0..F {
            subset[q] |= cand[q];
        }
    }
    subset
}
