//! Rank arithmetic: which part of a length each rank holds ([`Partition`]), where each rank's
//! part begins in the whole ([`rank_offsets`], for exclusive scans and gathers in rank order),
//! and how many of a sample count each shard of a sharded alias table draws
//! ([`split_samples`]).

use crate::error::{Error, Result};
use crate::rng::{counter_add, philox4x32_10};
use rand_core::RngCore;
use std::ops::Range;
use warpkit_kernels::alias::sectioned::binomial;
use warpkit_kernels::rng::philox::Stream;

/// `Err(OutOfRange)` for a world of no ranks.
pub(crate) fn check_world(world: u32) -> Result<()> {
    if world == 0 {
        return Err(Error::OutOfRange {
            what: "world size",
            value: 0,
            min: 1,
            max: u32::MAX as u64,
        });
    }
    Ok(())
}

/// A length cut over `world` ranks in rank order: each rank holds `len / world` elements, and
/// the first `len mod world` ranks one more (so parts differ by at most one element).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Partition {
    len: u64,
    world: u32,
}

impl Partition {
    /// `len` elements over `world` ranks; a world of no ranks is an error.
    pub fn new(len: u64, world: u32) -> Result<Partition> {
        check_world(world)?;
        Ok(Partition { len, world })
    }

    /// The elements in all.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether there are no elements to hold.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The ranks.
    pub fn world(&self) -> u32 {
        self.world
    }

    /// Where the part of `rank` (below the world size) starts: `rank` parts of the shorter
    /// length, plus one for each longer part before it.
    fn start(&self, rank: u32) -> u64 {
        let (each, longer) = (self.len / self.world as u64, self.len % self.world as u64);
        rank as u64 * each + (rank as u64).min(longer)
    }

    /// The elements `rank` holds (empty for ranks past the world size).
    pub fn range(&self, rank: u32) -> Range<u64> {
        let rank = rank.min(self.world);
        let end = if rank == self.world {
            self.len
        } else {
            self.start(rank + 1)
        };
        self.start(rank)..end
    }

    /// The rank holding element `index` (below [`Partition::len`]).
    pub fn owner(&self, index: u64) -> u32 {
        let (each, longer) = (self.len / self.world as u64, self.len % self.world as u64);
        let long_span = longer * (each + 1);
        if index < long_span {
            (index / (each + 1)) as u32
        } else {
            (longer + (index - long_span) / each.max(1)) as u32
        }
    }
}

/// Where each rank's part begins when the ranks' parts of `totals[r]` elements are laid end to
/// end in rank order, and the whole's length: the exclusive scan of the totals. A whole past
/// `u64::MAX` elements is an error.
pub fn rank_offsets(totals: &[u64]) -> Result<(Vec<u64>, u64)> {
    let mut offsets = Vec::with_capacity(totals.len());
    let mut at = 0u64;
    for &t in totals {
        offsets.push(at);
        at = at.checked_add(t).ok_or(Error::TooLong {
            what: "the ranks' parts together",
            len: u64::MAX,
            max: u64::MAX,
        })?;
    }
    Ok((offsets, at))
}

/// The split tree's numbers use the stream's key with this mask xored in.
const SPLIT_KEY: u32 = 0x5d1f_0b73;

/// `s` samples split over shards in proportion to their weights' totals: one multinomial
/// draw, as a binomial split tree over the shards (node 1 splits `s` between the first and
/// second half of the shards by their shares of the weight, node `v`'s halves are nodes `2v`
/// and `2v + 1`), each node's numbers from the stream `rng` gives. Every rank that passes an
/// identically seeded `rng` gets the same split, with no exchange. Binomials with a mean of
/// 100 or more are drawn by the normal approximation, as the sectioned samplers' section
/// shares are. Totals that are empty, negative, NaN, infinite, all zero or overflowing in sum
/// are errors.
pub fn split_samples(rng: &mut (impl RngCore + ?Sized), s: u64, totals: &[f64]) -> Result<Vec<u64>> {
    if totals.is_empty() {
        return Err(Error::NoWeights);
    }
    if let Some(index) = totals.iter().position(|t| !t.is_finite() || *t < 0.0) {
        return Err(Error::InvalidWeight { index });
    }
    // Prefix sums: a range's weight is a difference of two.
    let mut before = Vec::with_capacity(totals.len() + 1);
    before.push(0.0);
    for t in totals {
        before.push(before.last().unwrap() + t);
    }
    let whole = before[totals.len()];
    if !whole.is_finite() {
        return Err(Error::WeightOverflow);
    }
    if whole == 0.0 {
        return Err(Error::AllWeightsZero);
    }
    let key = rng.next_u64();
    let stream = Stream::from_words(key, [rng.next_u64(), rng.next_u64()]);
    let key = [stream.key[0] ^ SPLIT_KEY, stream.key[1]];
    let uniforms = |node: u64| {
        let w = philox4x32_10(counter_add(stream.counter, node), key);
        let unit =
            |hi: u32, lo: u32| ((((hi as u64) << 32 | lo as u64) >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
        [unit(w[0], w[1]), unit(w[2], w[3])]
    };
    let mut counts = vec![0; totals.len()];
    // (node, first shard, end shard, its count), depth first.
    let mut pending = vec![(1u64, 0usize, totals.len(), s)];
    while let Some((node, lo, hi, count)) = pending.pop() {
        if hi - lo == 1 {
            counts[lo] = count;
            continue;
        }
        let mid = lo + (hi - lo) / 2;
        let range = before[hi] - before[lo];
        let p = if range > 0.0 {
            ((before[mid] - before[lo]) / range).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let left = binomial(count, p, uniforms(node));
        pending.push((2 * node, lo, mid, left));
        pending.push((2 * node + 1, mid, hi, count - left));
    }
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Philox;
    use rand_core::SeedableRng;

    #[test]
    fn partitions_cover_the_length_in_rank_order() {
        for (len, world) in [
            (0, 1),
            (0, 3),
            (1, 4),
            (7, 2),
            (10, 3),
            (1 << 40, 7),
            (u64::MAX, 5),
        ] {
            let p = Partition::new(len, world).unwrap();
            let mut at = 0;
            for rank in 0..world {
                let r = p.range(rank);
                assert_eq!(r.start, at, "{len} over {world}: rank {rank} starts");
                assert!(r.end - r.start == len / world as u64 + (rank < (len % world as u64) as u32) as u64);
                for index in [r.start, r.end.wrapping_sub(1), r.start + (r.end - r.start) / 2] {
                    if r.contains(&index) {
                        assert_eq!(p.owner(index), rank, "{len} over {world}: element {index}");
                    }
                }
                at = r.end;
            }
            assert_eq!(at, len);
            assert!(p.range(world).is_empty());
        }
        assert!(matches!(Partition::new(5, 0), Err(Error::OutOfRange { .. })));
    }

    #[test]
    fn offsets_are_the_exclusive_scan_of_the_totals() {
        assert_eq!(rank_offsets(&[3, 0, 5, 1]).unwrap(), (vec![0, 3, 3, 8], 9));
        assert_eq!(rank_offsets(&[]).unwrap(), (vec![], 0));
        assert!(matches!(rank_offsets(&[u64::MAX, 1]), Err(Error::TooLong { .. })));
    }

    /// Counts sum to `s`, repeat for the same seed, and follow the totals: over 400 seeds each
    /// shard's mean count lies within 5 standard errors of `s·p` (about 2.5 samples at
    /// p = 1/2 for s = 10^4, so a split off by 1 % of s at any shard fails); empty shards
    /// draw nothing.
    #[test]
    fn splits_follow_the_totals() {
        let totals = [1.0, 2.0, 0.0, 3.0, 4.0, 10.0];
        let whole: f64 = totals.iter().sum();
        let (s, seeds) = (10_000u64, 400);
        let mut sums = [0u64; 6];
        for seed in 0..seeds {
            let counts = split_samples(&mut Philox::seed_from_u64(seed), s, &totals).unwrap();
            assert_eq!(counts.iter().sum::<u64>(), s);
            assert_eq!(counts[2], 0);
            assert_eq!(
                counts,
                split_samples(&mut Philox::seed_from_u64(seed), s, &totals).unwrap()
            );
            for (sum, c) in sums.iter_mut().zip(&counts) {
                *sum += c;
            }
        }
        for (i, (&sum, &t)) in sums.iter().zip(&totals).enumerate() {
            let p = t / whole;
            let mean = sum as f64 / seeds as f64;
            let error = (s as f64 * p * (1.0 - p) / seeds as f64).sqrt();
            assert!(
                (mean - s as f64 * p).abs() <= 5.0 * error.max(1e-9),
                "shard {i}: mean {mean}, expected {}",
                s as f64 * p
            );
        }
        assert_eq!(
            split_samples(&mut Philox::seed_from_u64(1), 0, &totals).unwrap(),
            vec![0; 6]
        );
        assert_eq!(
            split_samples(&mut Philox::seed_from_u64(1), 77, &[2.5]).unwrap(),
            vec![77]
        );
    }

    #[test]
    fn bad_totals_are_errors() {
        let mut rng = Philox::seed_from_u64(3);
        assert!(matches!(split_samples(&mut rng, 5, &[]), Err(Error::NoWeights)));
        for (bad, index) in [(f64::NAN, 1), (-1.0, 1), (f64::INFINITY, 1)] {
            assert!(matches!(
                split_samples(&mut rng, 5, &[1.0, bad]),
                Err(Error::InvalidWeight { index: i }) if i == index
            ));
        }
        assert!(matches!(
            split_samples(&mut rng, 5, &[0.0, 0.0]),
            Err(Error::AllWeightsZero)
        ));
        assert!(matches!(
            split_samples(&mut rng, 5, &[f64::MAX, f64::MAX]),
            Err(Error::WeightOverflow)
        ));
    }
}
