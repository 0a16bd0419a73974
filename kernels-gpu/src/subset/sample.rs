//! The sampling kernels: a team of `LANES` lanes per subset, `WORDS` words of it per lane.
//! One lane per subset is the seed's threadwise variant (its words in registers, decisions
//! diverging between lanes); 32 lanes per subset its warpwise one (a row, or folded rows, per
//! lane, decisions shared through the team sum); teams of 2 to 16 lanes put several small
//! subsets in one warp. Teams walk the subsets grid-stride and write each as its bit vector or
//! as its sorted element positions.

use super::draw::{Draw, Lanes};
use crate::simt::warp::shfl_up;
use crate::simt::{global_x, grid_threads_x, lane_id};

/// A launch's parameters: bit-vector output (`words` per subset) or null, position output (`k`
/// per subset) or null, subsets, base mask, its words, its elements `n`, `k`, the seed.
pub type SampleArgs = (*mut u32, *mut u16, u64, *const u32, u32, u32, u32, u64);

/// Draws subsets `0 .. count` with teams of `LANES` lanes (`global_x / LANES` is the team)
/// and writes them where the non-null output points.
///
/// # Safety
/// `mask` holds `words <= LANES * WORDS` words with `n` elements in all, `k <= n`; exactly one
/// of `bits` (`count * words` words) and `indices` (`count * k` positions) is non-null; the
/// block size is a multiple of 32.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn sample_all<const LANES: u32, const WORDS: usize>(
    bits: *mut u32,
    indices: *mut u16,
    count: u64,
    mask: *const u32,
    words: u32,
    n: u32,
    k: u32,
    seed: u64,
) {
    let key = [seed as u32, (seed >> 32) as u32];
    let lane = lane_id() % LANES;
    let team = Lanes::<LANES> {
        mask: (u32::MAX >> (32 - LANES)) << (lane_id() - lane),
    };
    let first_word = lane * WORDS as u32;
    let mut base = [0u32; WORDS];
    for (q, m) in base.iter_mut().enumerate() {
        let j = first_word + q as u32;
        if j < words {
            // SAFETY: `j < words`, the mask's length.
            *m = unsafe { *mask.add(j as usize) };
        }
    }
    let teams = grid_threads_x() / LANES as u64;
    let mut s = global_x() / LANES as u64;
    // One Philox block of rounds per pass; a team whose subset settles writes it and starts
    // its next at once, so the lanes of a warp stay busy however many rounds each subset takes.
    let mut d = Draw::new(base, n, k);
    while s < count {
        if !d.settled() {
            d.step(&team, key, s, first_word);
        }
        if d.settled() {
            let subset = d.finish();
            // SAFETY: subset `s < count` owns words `s * words ..` and positions `s * k ..`.
            unsafe { write(&subset, s, first_word, bits, indices, words, k, &team, lane) };
            s += teams;
            d = Draw::new(base, n, k);
        }
    }
}

/// Writes this thread's words of subset `s`: into `bits` if non-null, else as positions into
/// `indices`.
///
/// # Safety
/// As for [`sample_all`], with `s < count`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn write<const LANES: u32, const WORDS: usize>(
    subset: &[u32; WORDS],
    s: u64,
    first_word: u32,
    bits: *mut u32,
    indices: *mut u16,
    words: u32,
    k: u32,
    team: &Lanes<LANES>,
    lane: u32,
) {
    // SAFETY: subset `s < count` owns words `s * words ..` and positions `s * k ..`.
    unsafe {
        if !bits.is_null() {
            let out = bits.add((s * words as u64) as usize);
            for (q, &w) in subset.iter().enumerate() {
                let j = first_word + q as u32;
                if j < words {
                    *out.add(j as usize) = w;
                }
            }
        } else {
            let own = subset.iter().map(|w| w.count_ones()).sum::<u32>();
            let below = team_exclusive_sum::<LANES>(team.mask, lane, own);
            let mut at = (s * k as u64 + below as u64) as usize;
            for (q, &w) in subset.iter().enumerate() {
                let mut w = w;
                while w != 0 {
                    *indices.add(at) = (32 * (first_word + q as u32) + w.trailing_zeros()) as u16;
                    at += 1;
                    w &= w - 1;
                }
            }
        }
    }
}

/// The sum of `x` over the team's lanes below `lane` (a scan by shuffles within the team).
#[inline(always)]
fn team_exclusive_sum<const LANES: u32>(mask: u32, lane: u32, x: u32) -> u32 {
    let mut inclusive = x;
    let mut d = 1;
    while d < LANES {
        // SAFETY: every lane of the team calls this with the team's mask after the same rounds.
        let below = unsafe { shfl_up(mask, inclusive, d) };
        if lane >= d {
            inclusive += below;
        }
        d *= 2;
    }
    inclusive - x
}

macro_rules! sample_kernels {
    ($($name:ident: $lanes:literal lanes, $words:literal words;)*) => {$(
        $crate::kernel! {
            /// Draws subsets `0 .. count` of the base set `mask`, one team of
            #[doc = concat!(stringify!($lanes), " lane(s) holding ", stringify!($words), " word(s) each per subset,")]
            /// into `bits` (bit vectors of `words` words) or `indices` (sorted positions, `k`
            /// per subset), whichever is non-null.
            ///
            /// # Safety
            /// As [`SampleArgs`] says, with `words <= lanes * words per lane`, `k <= n`, `n`
            /// the mask's elements, exactly one output non-null, blocks of whole warps.
            #[allow(clippy::too_many_arguments)]
            pub unsafe fn $name(
                bits: *mut u32,
                indices: *mut u16,
                count: u64,
                mask: *const u32,
                words: u32,
                n: u32,
                k: u32,
                seed: u64,
            ) {
                // SAFETY: forwarded to the launch contract above.
                unsafe { sample_all::<$lanes, $words>(bits, indices, count, mask, words, n, k, seed) }
            }
        }
    )*};
}

sample_kernels! {
    subset_lanes1_words1: 1 lanes, 1 words;
    subset_lanes1_words2: 1 lanes, 2 words;
    subset_lanes1_words4: 1 lanes, 4 words;
    subset_lanes1_words8: 1 lanes, 8 words;
    subset_lanes1_words16: 1 lanes, 16 words;
    subset_lanes1_words32: 1 lanes, 32 words;
    subset_lanes2_words1: 2 lanes, 1 words;
    subset_lanes4_words1: 4 lanes, 1 words;
    subset_lanes8_words1: 8 lanes, 1 words;
    subset_lanes16_words1: 16 lanes, 1 words;
    subset_lanes32_words1: 32 lanes, 1 words;
    subset_lanes32_words2: 32 lanes, 2 words;
    subset_lanes32_words4: 32 lanes, 4 words;
}
