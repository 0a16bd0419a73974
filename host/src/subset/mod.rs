//! Random K-subsets of an N-element base set (after Borsos, "Generating small random grids
//! with a given number of occupied sites"): uniform, independent, each a bit vector over the
//! base set's mask (or its sorted positions), millions per call. Random positions for board
//! games and lattice models, masks for dropout-like sampling, samples without replacement.
//!
//! ```
//! use warpkit::Backend;
//! use warpkit::subset::Subsets;
//!
//! let board = Subsets::grid(15, 15, 141)?;            // 141 stones on a 15×15 board
//! let boards = board.bits(&Backend::cpu(), 7, 1000)?;  // seed 7, 1000 boards of 8 words
//! assert_eq!((boards.len(), boards.row_len()), (1000, board.words()));
//! assert!(boards.iter().all(|b| b.iter().map(|w| w.count_ones()).sum::<u32>() == 141));
//! # Ok::<(), warpkit::Error>(())
//! ```
//!
//! Two uniform algorithms ([`Algorithm`]) run on Philox words keyed by the seed and counted by
//! the subset's index, so a seed gives the same subsets on a GPU, the emulator and the CPU
//! (rayon), whatever the method: subset `s` is the same in every call that draws it. That
//! paper's bit-parallel halving ([`warpkit_kernels::subset::draw`]) runs threadwise, a team of
//! lanes per subset, or warpwise ([`Method`]); coins then mend
//! ([`warpkit_kernels::subset::mend`]), faster on wide base sets, a warp a subset. The base set
//! chooses the algorithm ([`Algorithm::auto`]) and halving's method ([`Method::auto`]) unless the
//! caller forces them.

mod cpu;
mod drawn;
mod launch;

pub use drawn::{Drawn, Rows};

use crate::error::{Error, Result, check_len, check_same_len};
use crate::runtime::backend::Backend;
use crate::runtime::device::{Device, DeviceBuffer};
pub use warpkit_kernels::subset::MAX_WORDS;
use warpkit_kernels::subset::mend;

/// The most elements a base set holds: 4096.
pub const MAX_ELEMENTS: u32 = 32 * MAX_WORDS;

/// The most subsets one call draws: 2^32 - 1.
pub const MAX_COUNT: u64 = u32::MAX as u64;

/// How a device spreads a subset over its lanes. The methods that run an [`Algorithm`] all give
/// the same subsets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// One thread per subset, all its words in registers (the paper's threadwise variant):
    /// no communication, but lanes of a warp that need different numbers of rounds wait for
    /// the slowest. Base sets of up to 32 words.
    Threadwise,
    /// One lane per word, as many subsets per warp as fit (2 to 32 lanes each): the team sums
    /// its counts by shuffles. Base sets of up to 32 words.
    LanePerWord,
    /// A whole warp per subset, 1, 2 or 4 words per lane (the paper's warpwise variant; folded
    /// rows past 32 words). Any base set.
    Warpwise,
}

/// How subsets are drawn. Both algorithms are exactly uniform, and each gives its own subsets
/// for a seed. They read the same Philox words for a seed, so the two algorithms' subsets of one
/// seed are not independent of each other: combine them under different seeds. Which one
/// [`Algorithm::auto`] takes may change as it is tuned; force one where a seed must give the same
/// subsets across warpkit versions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    /// That paper's: a random half of the candidates per round, joining the subset if it fits
    /// and replacing the candidates otherwise, about log2 N rounds of a random word per word.
    /// Every [`Method`] runs it.
    Halving,
    /// Coins of a density near min(k, N - k)/N (a multiple of 1/16: none to four random words
    /// per word; for k > N/2 the draw takes the N - k elements left out), then single elements
    /// added or removed at uniform positions until the count is right
    /// ([`warpkit_kernels::subset::mend`]). A warp a subset: [`Method::Warpwise`], or
    /// [`Method::LanePerWord`] at 17 to 32 words.
    Mend,
}

impl Algorithm {
    /// The algorithm for `k`-subsets of a base set of `words` words and `n` elements: mend
    /// where it measured faster (H200, 2026-12-03, `results/subset.md`) and halving otherwise.
    /// That is: the base set is dense enough that most positions a mending draw names are
    /// elements (at least half of `32 * words.next_power_of_two()`), and either wider than 32
    /// words with `min(k, n - k)` at least `n / 8` (measured at 1/2 and 1/8; sparser coins
    /// overshoot more often and their removals rarely hit), or 32 words with the coins at
    /// density 1/2 (at 1/8 halving stays ahead there).
    pub fn auto(words: usize, n: u32, k: u32) -> Algorithm {
        let dense = 2 * n as usize >= 32 * words.next_power_of_two();
        let (aim, _) = mend::aim(n, k);
        let eighth = 8 * aim as u64 >= n as u64;
        let halves = mend::Density::new(aim, n).words() == 1;
        if dense && ((words > 32 && eighth) || (words == 32 && halves)) {
            Algorithm::Mend
        } else {
            Algorithm::Halving
        }
    }
}

/// Lanes per subset and words per lane of a sampling kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shape {
    pub lanes: u32,
    pub words: u32,
}

impl Method {
    /// Every method, for callers that compare them.
    pub const ALL: [Method; 3] = [Method::Threadwise, Method::LanePerWord, Method::Warpwise];

    /// The method a device runs [`Algorithm::Halving`] by for base sets of `words` words unless
    /// told otherwise ([`Algorithm::Mend`] runs [`Method::Warpwise`]).
    pub fn auto(words: usize) -> Method {
        match words {
            0..=8 => Method::Threadwise,
            9..=32 => Method::LanePerWord,
            _ => Method::Warpwise,
        }
    }

    /// The kernel shape for `words` words (at most [`MAX_WORDS`]), or `None` where the method
    /// does not take that many.
    pub(crate) fn shape(self, words: usize) -> Option<Shape> {
        let fit = (words.max(1) as u32).next_power_of_two();
        match self {
            Method::Threadwise if fit <= 32 => Some(Shape { lanes: 1, words: fit }),
            Method::LanePerWord if fit <= 32 => Some(Shape { lanes: fit, words: 1 }),
            Method::Warpwise => Some(Shape {
                lanes: 32,
                words: fit.div_ceil(32),
            }),
            _ => None,
        }
    }
}

/// Uniform random K-subsets of one base set, checked once and drawn any number of times.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Subsets {
    mask: Vec<u32>,
    n: u32,
    k: u32,
    method: Option<Method>,
    algorithm: Option<Algorithm>,
}

impl Subsets {
    /// K-subsets of the elements of `mask` (element `i` is bit `i % 32` of word `i / 32`), or
    /// why there are none: an empty mask, one wider than [`MAX_WORDS`] words, `k` above its
    /// element count.
    pub fn new(mask: &[u32], k: u32) -> Result<Subsets> {
        check_len("subset base mask (words)", mask.len(), MAX_WORDS as u64)?;
        let n = mask.iter().map(|w| w.count_ones()).sum::<u32>();
        if n == 0 {
            return Err(Error::EmptyBaseSet);
        }
        if k > n {
            return Err(Error::SubsetTooLarge { k, n });
        }
        Ok(Subsets {
            mask: mask.to_vec(),
            n,
            k,
            method: None,
            algorithm: None,
        })
    }

    /// K-subsets of `0 .. n`: sampling without replacement.
    pub fn range(n: u32, k: u32) -> Result<Subsets> {
        check_len("subset base set", n as usize, MAX_ELEMENTS as u64)?;
        let mask: Vec<u32> = (0..n.div_ceil(32))
            .map(|w| match n - 32 * w {
                32.. => u32::MAX,
                bits => (1 << bits) - 1,
            })
            .collect();
        Subsets::new(&mask, k)
    }

    /// K occupied cells of a `rows × cols` grid, row-major: cell `(r, c)` is element
    /// `r * cols + c`, so a 32×32 grid has one word per row and a 15×15 board fills 225 bits of
    /// 8 words.
    pub fn grid(rows: u32, cols: u32, k: u32) -> Result<Subsets> {
        Subsets::range(rows.saturating_mul(cols), k)
    }

    /// The same subsets, drawn by `method` on a device (the CPU backend draws the same subsets
    /// by its own loop whatever the method: the crate's rule for methods), or `UnfitMethod` if
    /// the method does not take this base set and `UnfitAlgorithm` if it does not run the
    /// algorithm ([`Subsets::algorithm`]), on any backend.
    pub fn with_method(self, method: Method) -> Result<Subsets> {
        Subsets {
            method: Some(method),
            ..self
        }
        .fits()
    }

    /// Subsets drawn by `algorithm` (other subsets than the other algorithm's for a seed), or
    /// `UnfitAlgorithm` if a method forced before does not run it. Forcing [`Algorithm::Mend`]
    /// makes [`Method::Warpwise`] the device's method unless one was forced.
    pub fn with_algorithm(self, algorithm: Algorithm) -> Result<Subsets> {
        Subsets {
            algorithm: Some(algorithm),
            ..self
        }
        .fits()
    }

    /// These subsets if their method takes the base set and runs their algorithm.
    fn fits(self) -> Result<Subsets> {
        let (method, algorithm) = (self.method(), self.algorithm());
        let shape = method.shape(self.mask.len()).ok_or_else(|| Error::UnfitMethod {
            method: format!("{method:?}"),
            words: self.mask.len(),
        })?;
        if algorithm == Algorithm::Mend && shape.lanes != 32 {
            return Err(Error::UnfitAlgorithm {
                method: format!("{method:?}"),
                algorithm: format!("{algorithm:?}"),
            });
        }
        Ok(self)
    }

    /// The base set's mask.
    pub fn mask(&self) -> &[u32] {
        &self.mask
    }

    /// Words per subset: the mask's length.
    pub fn words(&self) -> usize {
        self.mask.len()
    }

    /// The base set's elements, `n`.
    pub fn elements(&self) -> u32 {
        self.n
    }

    /// Elements per subset, `k`.
    pub fn k(&self) -> u32 {
        self.k
    }

    /// The method a device runs: the forced one, else [`Method::Warpwise`] for
    /// [`Algorithm::Mend`] and [`Method::auto`]'s otherwise.
    pub fn method(&self) -> Method {
        match (self.method, self.algorithm()) {
            (Some(m), _) => m,
            (None, Algorithm::Mend) => Method::Warpwise,
            (None, Algorithm::Halving) => Method::auto(self.mask.len()),
        }
    }

    /// The algorithm every backend runs: the forced one, or [`Algorithm::auto`]'s.
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
            .unwrap_or(Algorithm::auto(self.mask.len(), self.n, self.k))
    }

    /// Subsets `0 .. count` of the stream `seed`, as bit vectors of [`Subsets::words`] words.
    pub fn bits(&self, backend: &Backend, seed: u64, count: usize) -> Result<Drawn<u32>> {
        check_len("subset count", count, MAX_COUNT)?;
        let flat = match backend {
            Backend::Cpu(_) => cpu::bits(self, seed, count)?,
            Backend::Device(d) => {
                let mut out = d.workspace(count * self.words())?;
                self.bits_into(d, seed, count, &mut out)?;
                d.download(&out)?
            }
        };
        Ok(Drawn::new(flat, self.words(), count))
    }

    /// Subsets `0 .. count` of the stream `seed`, each as its `k` element positions in
    /// increasing order (bit positions in the mask, below 4096).
    pub fn positions(&self, backend: &Backend, seed: u64, count: usize) -> Result<Drawn<u16>> {
        check_len("subset count", count, MAX_COUNT)?;
        let flat = match backend {
            Backend::Cpu(_) => cpu::positions(self, seed, count)?,
            Backend::Device(d) => {
                let mut out = d.workspace(count * self.k as usize)?;
                self.positions_into(d, seed, count, &mut out)?;
                d.download(&out)?
            }
        };
        Ok(Drawn::new(flat, self.k as usize, count))
    }

    /// [`Subsets::bits`] into `device`'s memory: `out` holds `count * words` words.
    pub fn bits_into(
        &self,
        device: &Device,
        seed: u64,
        count: usize,
        out: &mut DeviceBuffer<u32>,
    ) -> Result<()> {
        check_len("subset count", count, MAX_COUNT)?;
        check_same_len("subset bits output", count * self.words(), out.len())?;
        launch::draw(device, self, seed, count, launch::Output::Bits(out))
    }

    /// [`Subsets::positions`] into `device`'s memory: `out` holds `count * k` positions.
    pub fn positions_into(
        &self,
        device: &Device,
        seed: u64,
        count: usize,
        out: &mut DeviceBuffer<u16>,
    ) -> Result<()> {
        check_len("subset count", count, MAX_COUNT)?;
        check_same_len("subset positions output", count * self.k as usize, out.len())?;
        launch::draw(device, self, seed, count, launch::Output::Positions(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_cover_every_width() {
        for words in 1..=MAX_WORDS as usize {
            let s = Method::auto(words).shape(words).expect("auto takes every width");
            assert!((s.lanes * s.words) as usize >= words, "{words}");
            assert!(Method::Warpwise.shape(words).is_some());
            assert_eq!(Method::Threadwise.shape(words).is_some(), words <= 32);
        }
    }

    #[test]
    fn mend_is_chosen_where_it_measured_faster() {
        let auto = |s: Subsets| s.algorithm();
        assert_eq!(auto(Subsets::grid(32, 32, 512).unwrap()), Algorithm::Mend);
        assert_eq!(auto(Subsets::grid(32, 32, 520).unwrap()), Algorithm::Mend);
        assert_eq!(auto(Subsets::grid(32, 32, 128).unwrap()), Algorithm::Halving);
        assert_eq!(auto(Subsets::grid(64, 64, 512).unwrap()), Algorithm::Mend);
        assert_eq!(auto(Subsets::grid(64, 64, 4000).unwrap()), Algorithm::Halving);
        assert_eq!(auto(Subsets::grid(64, 64, 3500).unwrap()), Algorithm::Mend);
        assert_eq!(auto(Subsets::grid(64, 64, 140).unwrap()), Algorithm::Halving);
        assert_eq!(auto(Subsets::grid(15, 15, 141).unwrap()), Algorithm::Halving);
        let sparse = Subsets::new(&[0xffff_0000; 40], 100).unwrap();
        assert_eq!(auto(sparse), Algorithm::Halving);
    }

    #[test]
    fn ranges_and_grids_set_their_low_bits() {
        let s = Subsets::range(33, 2).unwrap();
        assert_eq!(s.mask(), [u32::MAX, 1]);
        assert_eq!(Subsets::grid(15, 15, 141).unwrap().words(), 8);
        assert_eq!(Subsets::range(4096, 1).unwrap().words(), 128);
        assert!(matches!(Subsets::range(4097, 1), Err(Error::TooLong { .. })));
    }
}
