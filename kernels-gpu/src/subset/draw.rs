//! The sampling procedure every variant runs, written once for one thread's share of a subset.
//!
//! State: the subset so far, the candidates (elements of the base set still free to join), and
//! two counts: elements the subset still needs and candidates beyond those. A round draws a
//! random word per candidate word; the candidates under its one-bits (about half) are the
//! selection. If the selection still fits (no more elements than needed) it joins the subset
//! and leaves the candidates; otherwise the candidates shrink to it. Either way about half the
//! candidates go, so a subset takes about log2 N rounds (the paper's algorithm). It stops once
//! the subset is full, or once every candidate left is needed (no spare candidates: those join
//! without another round).
//!
//! Why it is uniform: every rule looks only at counts, so nothing tells one candidate from
//! another, and given its size a selection is a uniform subset of the candidates; by symmetry
//! every k-subset of the base set comes out equally often.
//!
//! A subset's words may be spread over a team of lanes (`F` words per lane); the team sums the
//! selection's count in one `redux.sync`, so every lane takes the same branch. A draw advances
//! one Philox block (four rounds) at a time ([`Draw::step`]), so a kernel can start a
//! lane's next subset as soon as its last one settles instead of waiting for the slowest lane
//! of the warp. The random words are
//! fixed by the subset's index and the word's position alone (see [`random_block`]), never by
//! which lane or thread holds the word, so every variant, the emulator and the CPU backend give
//! the same subsets for the same seed.

use crate::rng::philox::philox4x32_10;
use crate::simt::warp::reduce_add;

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
    /// The team's lanes: collectives name only them, so the teams of a warp run apart.
    pub mask: u32,
}

impl<const LANES: u32> Team for Lanes<LANES> {
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    fn sum(&self, x: u32) -> u32 {
        if LANES == 1 {
            return x;
        }
        // SAFETY: every lane of the team runs the same rounds (the decisions hang on team sums
        // alone) and so reaches this reduction with the team's mask.
        unsafe { reduce_add(self.mask, x) }
    }
}

/// One thread's `F` words of a subset being drawn.
#[derive(Clone, Copy, Debug)]
pub struct Draw<const F: usize> {
    subset: [u32; F],
    cand: [u32; F],
    /// Elements the subset still needs, and candidates beyond those (candidates left minus
    /// `need`), over the whole team: never negative, and the subset is settled once either is
    /// zero. Counting these rather than elements taken and left makes both settle tests one
    /// compare with zero and spares an add in each round.
    need: u32,
    spare: u32,
    /// The Philox block the next step draws from.
    block: u32,
}

impl<const F: usize> Draw<F> {
    /// An empty `k`-subset of the base set `mask` (this thread's `F` words of it), which holds
    /// `n >= k` elements over the whole team.
    #[inline(always)]
    pub fn new(mask: [u32; F], n: u32, k: u32) -> Draw<F> {
        Draw {
            subset: [0; F],
            cand: mask,
            need: k,
            spare: n - k,
            block: 0,
        }
    }

    /// Whether the draw needs no more rounds: the subset is full, or every candidate left is
    /// needed. The same on every lane of the team.
    #[inline(always)]
    pub fn settled(&self) -> bool {
        self.need == 0 || self.spare == 0
    }

    /// [`ROUNDS_PER_BLOCK`] rounds towards the subset from the next Philox block of each word
    /// (`first_word ..` here) of subset `s`.
    ///
    /// The rounds do not stop when the draw settles part way: a round after that leaves the
    /// result as it is (see `Draw::round`), and the checks it would take cost more than the
    /// rounds they skip (H100, 2026-11-25: threadwise lanes run the whole block anyway while
    /// any lane of the warp has not settled).
    ///
    /// The loops index their arrays: written with zipped iterators LLVM left the arrays in local
    /// memory (stack frames of 80 to 1168 bytes, half the speed on the H100).
    #[inline(always)]
    #[allow(clippy::needless_range_loop)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn step<T: Team>(&mut self, team: &T, key: [u32; 2], s: u64, first_word: u32) {
        // Words without candidates need no random bits: what they would select is empty. A
        // single word has candidates until the draw settles, so it skips the test.
        let mut random = [[0u32; F]; ROUNDS_PER_BLOCK];
        for q in 0..F {
            if F == 1 || self.cand[q] != 0 {
                let block = random_block(key, s, first_word + q as u32, self.block);
                for r in 0..ROUNDS_PER_BLOCK {
                    random[r][q] = block[r];
                }
            }
        }
        for words in &random {
            self.round(team, words);
        }
        self.block += 1;
    }

    /// One round with the random words `words`.
    ///
    /// Once settled, a round changes nothing [`Draw::finish`] returns: with nothing needed, a
    /// selection joins only if it is empty, and otherwise shrinks the candidates, which no
    /// longer count; with no spare candidates every selection fits and joins, moving elements
    /// from the candidates (all of which join at the end) to the subset.
    #[inline(always)]
    #[allow(clippy::needless_range_loop)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    fn round<T: Team>(&mut self, team: &T, words: &[u32; F]) {
        let mut sel = [0u32; F];
        let mut count = 0;
        for q in 0..F {
            sel[q] = words[q] & self.cand[q];
            count += sel[q].count_ones();
        }
        let count = team.sum(count);
        if count <= self.need {
            // The selection joins: `spare` stays, as many candidates leave as join.
            for q in 0..F {
                self.subset[q] |= sel[q];
                self.cand[q] ^= sel[q];
            }
            self.need -= count;
        } else {
            self.cand = sel;
            self.spare = count - self.need;
        }
    }

    /// The settled subset: what it took, and any candidates left (all of them needed).
    #[inline(always)]
    #[allow(clippy::needless_range_loop)]
    pub fn finish(self) -> [u32; F] {
        let mut subset = self.subset;
        if self.need > 0 {
            for q in 0..F {
                subset[q] |= self.cand[q];
            }
        }
        subset
    }
}

/// One thread's `F` words of subset `s` of the stream `key`: a uniform `k`-subset of the base
/// set `mask` (`F` of its words, from word `first_word`), which holds `n >= k` elements over the
/// whole team.
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
    let mut d = Draw::new(mask, n, k);
    while !d.settled() {
        d.step(team, key, s, first_word);
    }
    d.finish()
}
