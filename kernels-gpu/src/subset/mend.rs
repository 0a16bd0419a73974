//! The second sampling algorithm, coins then mend, for wide base sets: spend about one random
//! bit per element instead of about one per element and round.
//!
//! 1. Coins: every element of the base set joins with probability `p`, a dyadic fraction near
//!    `k / n` ([`Density`]); one to four random words give a word of such coins.
//! 2. Mend: while the count is off, each round draws [`DRAWS_PER_ROUND`] positions uniformly
//!    over `0 .. 32 * words.next_power_of_two()` and takes them in order: a position in the base
//!    set and on the wrong side (outside the subset while it needs elements, inside while it has
//!    too many) flips, until the count is right.
//!
//! Why it is uniform: the coins are independent and equally likely for every element, the
//! positions are uniform over the base set once the misses are dropped, and every decision
//! hangs on counts and on whether the drawn position is in the mask and in the subset, never on
//! which element it is. Permuting the base set therefore leaves the distribution of the result
//! unchanged, and a distribution over k-subsets that every permutation fixes is uniform. For
//! `k > n / 2` the draw takes the `n - k` elements left out, so the coins' density is at most
//! 1/2: near 1/2 a draw lands on the wrong side about half the time either way; at low
//! densities additions nearly always land and removals rarely do.
//!
//! The cost: a 32×32 half-subset takes one coin word a row and one or two rounds of 32
//! draws, so about one Philox block a lane of a warp, where the halving algorithm
//! ([`super::draw`]) spends about three (`results/subset.md`).
//!
//! The random words are fixed by the subset's index alone: 32 slots, slot `i` the stream of
//! words of the Philox blocks `[s_lo, s_hi, i, g]` for `g = 0, 1, ..`. Word `j` of the subset
//! takes its coins from slot `j / rows` (words `bits * (j % rows) ..` of it, `rows` the
//! words a slot covers), and draw `i` of mending round `r` is word `bits * rows + r` of slot
//! `i`. A warp runs a slot a lane; [`draw`] runs them one after another on a CPU and gives the
//! same subset.

use crate::rng::philox::philox4x32_10;

/// Positions a round of mending draws: one a lane of a warp.
pub const DRAWS_PER_ROUND: usize = 32;

/// Words of the subset whose coins come from one slot: a lane's share of a warp, `1` up to
/// 32 words, then the power of two that holds `words / 32`.
#[inline(always)]
pub const fn rows(words: u32) -> u32 {
    let fit = words.next_power_of_two();
    if fit <= 32 { 1 } else { fit / 32 }
}

/// Right shift that turns a random word into a position below `32 * words.next_power_of_two()`.
#[inline(always)]
pub const fn position_shift(words: u32) -> u32 {
    27 - words.next_power_of_two().trailing_zeros()
}

/// The elements the coins aim at: `k`, or `n - k` when that is fewer (then the draw's result
/// is the base set less what it drew). Returns the aim and whether to take the complement.
#[inline(always)]
pub const fn aim(n: u32, k: u32) -> (u32, bool) {
    if 2 * k as u64 > n as u64 {
        (n - k, true)
    } else {
        (k, false)
    }
}

/// The coins' probability `t / 2^bits`: the multiple of 1/16 nearest to `aim / n` (at most
/// 1/2), in lowest terms. Finer steps would cost a random word a coin word each and save less
/// mending than they cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Density {
    t: u32,
    bits: u32,
}

impl Density {
    /// The density for `aim` of `n` elements (`aim <= n / 2`, `n > 0`).
    #[inline(always)]
    pub const fn new(aim: u32, n: u32) -> Density {
        let t = ((16 * aim as u64 + n as u64 / 2) / n as u64) as u32;
        if t == 0 {
            return Density { t, bits: 0 };
        }
        let halvings = t.trailing_zeros();
        Density {
            t: t >> halvings,
            bits: 4 - halvings,
        }
    }

    /// Random words one word of coins takes.
    #[inline(always)]
    pub const fn words(self) -> u32 {
        self.bits
    }

    /// A word of coins from [`Density::words`] random words (`word` called that often): bit `b`
    /// is set where bit `b` of the words, read as the binary digits of a fraction (first word
    /// first), falls below `p`.
    #[inline(always)]
    pub fn coins(self, mut word: impl FnMut() -> u32) -> u32 {
        let (mut below, mut equal) = (0u32, u32::MAX);
        for i in 0..self.bits {
            let u = word();
            if self.t >> (self.bits - 1 - i) & 1 == 1 {
                below |= equal & !u;
                equal &= u;
            } else {
                equal &= !u;
            }
        }
        below
    }
}

/// One slot's stream of random words (see the module docs).
#[derive(Clone, Copy, Debug)]
pub struct Slot {
    key: [u32; 2],
    counter: [u32; 4],
    /// The current block's words not yet taken, next first.
    block: [u32; 4],
    left: u32,
}

impl Slot {
    /// Slot `i` of subset `s` under `key`, at its first word.
    #[inline(always)]
    pub fn new(key: [u32; 2], s: u64, i: u32) -> Slot {
        Slot {
            key,
            counter: [s as u32, (s >> 32) as u32, i, 0],
            block: [0; 4],
            left: 0,
        }
    }

    /// The next word.
    #[inline(always)]
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u32 {
        if self.left == 0 {
            self.block = philox4x32_10(self.counter, self.key);
            self.counter[3] += 1;
            self.left = 4;
        }
        let w = self.block[0];
        // Shifting the words along keeps every index constant, so the block stays in registers.
        self.block = [self.block[1], self.block[2], self.block[3], 0];
        self.left -= 1;
        w
    }
}

/// Subset `s` of the stream `key`: a uniform `k`-subset of the base set `mask` (of `n`
/// elements, `k <= n`), into `subset` (as many words as `mask`, at most 4096 elements), as a
/// warp of the device kernel draws it.
pub fn draw(key: [u32; 2], s: u64, mask: &[u32], n: u32, k: u32, subset: &mut [u32]) {
    let words = mask.len() as u32;
    let rows = rows(words);
    let (aim, flip) = aim(n, k);
    let density = Density::new(aim, n);
    let mut slots = [Slot::new(key, s, 0); DRAWS_PER_ROUND];
    let mut have = 0;
    for (i, slot) in slots.iter_mut().enumerate() {
        *slot = Slot::new(key, s, i as u32);
        for q in 0..rows {
            let coins = density.coins(|| slot.next());
            let j = (i as u32 * rows + q) as usize;
            if j < mask.len() {
                subset[j] = coins & mask[j];
                have += subset[j].count_ones();
            }
        }
    }
    let shift = position_shift(words);
    while have != aim {
        let adding = have < aim;
        for slot in &mut slots {
            let pos = slot.next() >> shift;
            let (j, bit) = ((pos / 32) as usize, 1u32 << (pos % 32));
            if have != aim && j < mask.len() && mask[j] & bit != 0 && (subset[j] & bit == 0) == adding {
                subset[j] ^= bit;
                have = if adding { have + 1 } else { have - 1 };
            }
        }
    }
    if flip {
        for (w, m) in subset.iter_mut().zip(mask) {
            *w = m & !*w;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn densities_are_nearest_sixteenths_in_lowest_terms() {
        assert_eq!(Density::new(512, 1024), Density { t: 1, bits: 1 });
        assert_eq!(Density::new(128, 1024), Density { t: 1, bits: 3 });
        assert_eq!(Density::new(84, 225), Density { t: 3, bits: 3 });
        assert_eq!(Density::new(7, 100), Density { t: 1, bits: 4 });
        assert_eq!(Density::new(1, 100), Density { t: 0, bits: 0 });
    }

    #[test]
    fn coins_fall_below_the_density_as_often_as_it_says() {
        // Every combination of four words' digits, once: bit b of word i is digit i of the
        // fraction b / 16 (for bits 0 .. 16), so exactly t * 16 / 2^bits of the 16 fall below.
        for aim in 0..=8 {
            let d = Density::new(aim, 16);
            let mut i = 0;
            let coins = d.coins(|| {
                i += 1;
                (0..16u32).fold(0, |w, b| w | (b >> (4 - i) & 1) << b)
            });
            let expected = d.t << (4 - d.bits);
            assert_eq!((coins & 0xffff).count_ones(), expected, "aim {aim}");
            assert_eq!(coins & 0xffff, (1u32 << expected) - 1, "aim {aim}");
        }
    }

    #[test]
    fn draws_hold_k_elements_of_the_mask() {
        let mask = [u32::MAX, 0x0f0f_0f0f, 0, 1];
        let n = mask.iter().map(|w| w.count_ones()).sum::<u32>();
        for k in [0, 1, 20, n / 2, n - 3, n] {
            for s in 0..20 {
                let mut subset = [0u32; 4];
                draw([3, 4], s, &mask, n, k, &mut subset);
                assert_eq!(subset.iter().map(|w| w.count_ones()).sum::<u32>(), k);
                assert!(subset.iter().zip(&mask).all(|(w, m)| w & !m == 0));
            }
        }
    }
}
