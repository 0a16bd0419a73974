//! The sampling kernels: a team of `LANES` lanes per subset, `WORDS` words of it per lane.
//! One lane per subset is the paper's threadwise variant (its words in registers, decisions
//! diverging between lanes); 32 lanes per subset its warpwise one (a row, or folded rows, per
//! lane, decisions shared through the team sum); teams of 2 to 16 lanes put several small
//! subsets in one warp. The teams of a warp take the warp's subsets in turn as they finish
//! (`Order`) and write each as its bit vector or as its sorted element positions. The kernels
//! of the second algorithm ([`sample_mend`], [`super::mend`]) run a warp a subset.

use super::MAX_WORDS;
use super::draw::{Draw, Lanes};
use super::mend::{Density, Slot, aim, position_shift};
use crate::launch::LaunchShape;
use crate::op::Sum;
pub use crate::policy::subset::{SUBSET_BLOCK_THREADS, SUBSET_RESIDENT_WAVES};
use crate::simt::shared::SharedSlice;
use crate::simt::sync::{sync_threads, sync_warp};
use crate::simt::warp::{FULL_MASK, any, ballot, match_any_u32, reduce_add};
use crate::simt::{block_dim_x, global_x, grid_threads_x, lane_id, lanemask_lt, thread_x, warp_id};
use crate::warp::LogicalWarp;

own_kernel! {
    /// Parameters of the sampling kernels: subsets `0 .. count` of the base set `mask`, into
    /// whichever output is non-null.
    pub struct Sample {
        /// Bit vectors, `words` words a subset, or null.
        #[len(if bits.is_null() { 0 } else { count * words as u64 })]
        pub bits: *mut u32,
        /// Sorted element positions, `k` a subset, or null (when `bits` is not).
        #[len(if bits.is_null() { count * k as u64 } else { 0 })]
        pub indices: *mut u16,
        /// Subsets to draw.
        pub count: u64,
        /// The base set, `words` words.
        #[len(words as u64)]
        pub mask: *const u32,
        pub words: u32,
        /// Elements of the base set. Any mask keeps the stores in bounds (a team whose
        /// positions would pass `k` writes none of them); only a mask of `n` elements draws
        /// uniform subsets, and one of fewer may never settle.
        pub n: u32,
        /// Elements of each subset, `k <= n`.
        pub k: u32,
        pub seed: u64,
    }
    check |p, shape| k <= n && shape.is_linear(SUBSET_BLOCK_THREADS, 0);
    /// One lane a subset (threadwise), 1 word.
    fn sample_all::<1, 1> => subset_lanes1_words1;
    /// One lane a subset (threadwise), 2 words.
    fn sample_all::<1, 2> => subset_lanes1_words2;
    /// One lane a subset (threadwise), 4 words.
    fn sample_all::<1, 4> => subset_lanes1_words4;
    /// One lane a subset (threadwise), 8 words.
    fn sample_all::<1, 8> => subset_lanes1_words8;
    /// One lane a subset (threadwise), 16 words.
    fn sample_all::<1, 16> => subset_lanes1_words16;
    /// One lane a subset (threadwise), 32 words.
    fn sample_all::<1, 32> => subset_lanes1_words32;
    /// Teams of 2 lanes, a word each.
    fn sample_all::<2, 1> => subset_lanes2_words1;
    /// Teams of 4 lanes, a word each.
    fn sample_all::<4, 1> => subset_lanes4_words1;
    /// Teams of 8 lanes, a word each.
    fn sample_all::<8, 1> => subset_lanes8_words1;
    /// Teams of 16 lanes, a word each.
    fn sample_all::<16, 1> => subset_lanes16_words1;
    /// A warp a subset (warpwise), a word a lane.
    fn sample_all::<32, 1> => subset_lanes32_words1;
    /// A warp a subset (warpwise), 2 words a lane.
    fn sample_all::<32, 2> => subset_lanes32_words2;
    /// A warp a subset (warpwise), 4 words a lane.
    fn sample_all::<32, 4> => subset_lanes32_words4;
    /// Coins then mend, a warp a subset, a word a lane.
    fn sample_mend::<1> => subset_mend_words1;
    /// Coins then mend, a warp a subset, 2 words a lane.
    fn sample_mend::<2> => subset_mend_words2;
    /// Coins then mend, a warp a subset, 4 words a lane.
    fn sample_mend::<4> => subset_mend_words4;
}

// The mend kernel of a word a lane is bounded to blocks of this size (`launch_bounds`).
const _: () = assert!(SUBSET_BLOCK_THREADS <= crate::launch_bounds::SUBSET_MEND_WORDS1.max_threads);

impl Sample {
    /// The launch of the kernel of teams of `lanes` lanes: a team a subset at most, in blocks of
    /// [`SUBSET_BLOCK_THREADS`]. The loops are grid-stride: the host caps the grid at
    /// [`SUBSET_RESIDENT_WAVES`] times the blocks the device holds at once.
    pub const fn plan(&self, lanes: u32) -> LaunchShape {
        let per_block = (SUBSET_BLOCK_THREADS / lanes) as u64;
        LaunchShape::linear(self.count.div_ceil(per_block), SUBSET_BLOCK_THREADS, 0)
    }

    /// The launch of a coins-then-mend kernel of `words` words a lane: a warp a subset at
    /// most, with the shared memory [`sample_mend`] carves (the mask, and a subset a warp).
    pub const fn plan_mend(&self, words: u32) -> LaunchShape {
        let per_block = (SUBSET_BLOCK_THREADS / 32) as u64;
        let shared = 4 * (MAX_WORDS + SUBSET_BLOCK_THREADS * words);
        LaunchShape::linear(self.count.div_ceil(per_block), SUBSET_BLOCK_THREADS, shared)
    }
}

/// Draws subsets `0 .. count` of the base set `mask` with teams of `LANES` lanes holding
/// `WORDS` words each, into `bits` (bit vectors of `words` words) or `indices` (sorted
/// positions, `k` per subset), whichever is non-null.
///
/// # Safety
/// `mask` holds `words` words, `k <= n`; `bits` holds `count * words` words or, when null,
/// `indices` `count * k` positions; the block size is a multiple of 32. The subsets are
/// uniform when `words <= LANES * WORDS` and the mask holds `n` elements.
#[inline(always)]
pub unsafe fn sample_all<const LANES: u32, const WORDS: usize>(p: Sample) {
    let Sample {
        count,
        mask,
        words,
        n,
        k,
        seed,
        ..
    } = p;
    let key = [seed as u32, (seed >> 32) as u32];
    let lane = LogicalWarp::<LANES, true>::lane();
    let team = Lanes::<LANES> {
        mask: LogicalWarp::<LANES, true>::mask(),
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
    let mut d = Draw::new(base, n, k);
    // One Philox block of rounds per pass; a team whose subset settles writes it and starts
    // its next at once, so the lanes of a warp stay busy however many rounds each subset takes.
    if LANES == 32 {
        // One team a warp: its subsets lie a grid stride apart, and there is nothing to vote
        // on (the order below cost warpwise kernels 2 to 3 %, H100 2026-11-25).
        let warps = grid_threads_x() / 32;
        let mut s = global_x() / 32;
        while s < count {
            if !d.settled() {
                d.step(&team, key, s, first_word);
            }
            if d.settled() {
                let subset = d.finish();
                // SAFETY: subset `s < count` owns words `s * words ..` and positions `s * k ..`.
                unsafe { write::<LANES, WORDS>(&p, &subset, s, first_word) };
                s += warps;
                d = Draw::new(base, n, k);
            }
        }
        return;
    }
    let (mut order, mut s) = Order::<LANES>::new();
    while order.any_left(s, count) {
        let live = s < count;
        if live && !d.settled() {
            d.step(&team, key, s, first_word);
        }
        let done = live && d.settled();
        if done {
            let subset = d.finish();
            // SAFETY: as above.
            unsafe { write::<LANES, WORDS>(&p, &subset, s, first_word) };
        }
        if let Some(next) = order.take(done, lane) {
            s = next;
            d = Draw::new(base, n, k);
        }
    }
}

/// Draws subsets `0 .. count` of the base set `mask` by coins then mend ([`super::mend`]), a
/// warp a subset, lane `l` holding words `l * WORDS ..` (`WORDS` is `mend::rows(words)`), into
/// `bits` or `indices` as [`sample_all`] does.
///
/// A subset whose coins miss the count is mended in shared memory: the base set's mask (for
/// the test whether a position is an element) and the warp's subset (read by every lane, its
/// bits flipped by `red.shared.xor`), each round's decisions shared by a match and a ballot.
///
/// # Safety
/// As for [`sample_all`], with `words <= MAX_WORDS`, `WORDS == mend::rows(words)` (else the
/// subsets are not the CPU backend's) and the launch's shared memory as [`Sample::plan_mend`]
/// gives it. `n` must be the mask's element count: with a wrong one the draw may never settle,
/// and a mask taken for full by its count would let bits outside it in (the stores stay in
/// bounds).
#[inline(always)]
pub unsafe fn sample_mend<const WORDS: usize>(p: Sample) {
    let (count, mask, words, n, k) = (p.count, p.mask, p.words, p.n, p.k);
    let key = [p.seed as u32, (p.seed >> 32) as u32];
    let lane = lane_id();
    let below = lanemask_lt();
    // SAFETY: the launch gives `4 * (MAX_WORDS + block threads * WORDS)` bytes (the contract);
    // the mask's and the warps' words do not overlap.
    let (shared_mask, subset) = unsafe {
        (
            SharedSlice::<u32>::carve(0, MAX_WORDS),
            SharedSlice::<u32>::carve(4 * (MAX_WORDS + warp_id() * 32 * WORDS as u32), 32 * WORDS as u32),
        )
    };
    let mut j = thread_x();
    while j < MAX_WORDS {
        // SAFETY: `j < words`, the mask's length, where it reads.
        shared_mask.set(
            j,
            if j < words {
                unsafe { *mask.add(j as usize) }
            } else {
                0
            },
        );
        j += block_dim_x();
    }
    // SAFETY: every thread of the block reaches this barrier once.
    unsafe { sync_threads() };
    let first_word = lane * WORDS as u32;
    let mut base = [0u32; WORDS];
    for (q, m) in base.iter_mut().enumerate() {
        *m = shared_mask.get(first_word + q as u32);
    }
    let (aim, flip) = aim(n, k);
    let density = Density::new(aim, n);
    let shift = position_shift(words);
    // A mask that holds every position a draw can name needs no test.
    let full = n == 32 * words.next_power_of_two();
    let warps = grid_threads_x() / 32;
    let mut s = global_x() / 32;
    while s < count {
        let mut slot = Slot::new(key, s, lane);
        let mut drawn = [0u32; WORDS];
        let mut own = 0;
        for q in 0..WORDS {
            drawn[q] = density.coins(|| slot.next()) & base[q];
            own += drawn[q].count_ones();
        }
        // SAFETY: the whole warp runs every subset's rounds together (decisions hang on warp
        // sums, ballots and the subset's index alone), so it meets every collective and barrier.
        unsafe {
            let mut have = reduce_add(FULL_MASK, own);
            if have != aim {
                for (q, &w) in drawn.iter().enumerate() {
                    subset.set(first_word + q as u32, w);
                }
                sync_warp(FULL_MASK);
                while have != aim {
                    let adding = have < aim;
                    let need = if adding { aim - have } else { have - aim };
                    let pos = slot.next() >> shift;
                    // `pos < 32 * words.next_power_of_two() <= 32 * 32 * WORDS`: both slices hold
                    // word `pos / 32` (the mask padded with zeros).
                    let (j, bit) = (pos / 32, 1u32 << (pos % 32));
                    let inside = full || shared_mask.get_unchecked(j) & bit != 0;
                    let held = subset.get_unchecked(j) & bit != 0;
                    // The first draw of a position decides for every later one in the round.
                    let first = match_any_u32(FULL_MASK, pos) & below == 0;
                    let taken = ballot(FULL_MASK, inside && held != adding && first);
                    // `&`, not `&&`: a short circuit branches here, and ptxas then copies the
                    // barrier below into both arms and guards every collective of the round
                    // against divergence (69 SASS instructions a round against 49).
                    let take = (taken >> lane & 1 == 1) & ((taken & below).count_ones() < need);
                    // Every lane has read the subset before any flips it.
                    sync_warp(FULL_MASK);
                    if take {
                        subset.xor_unchecked(j, bit);
                    }
                    let moved = taken.count_ones().min(need);
                    have = if adding { have + moved } else { have - moved };
                    sync_warp(FULL_MASK);
                }
                for (q, w) in drawn.iter_mut().enumerate() {
                    *w = subset.get(first_word + q as u32);
                }
                // The next subset writes these words only after every lane has read them.
                sync_warp(FULL_MASK);
            }
        }
        if flip {
            for (w, m) in drawn.iter_mut().zip(base) {
                *w = m & !*w;
            }
        }
        // SAFETY: subset `s < count` owns words `s * words ..` and positions `s * k ..`; the
        // whole warp writes it together.
        unsafe { write::<32, WORDS>(&p, &drawn, s, first_word) };
        s += warps;
    }
}

/// The order in which the teams of a warp take subsets: the warp draws tiles of as many
/// consecutive subsets as it has teams, tile `t` of warp `w` starting at `(t * warps + w) *
/// teams`, and its teams take the subsets of its tiles one after another as they finish. A
/// subset's content hangs on its index alone, so the order changes only which lane draws it;
/// it puts the subsets a warp writes in one pass side by side in memory (with a fixed subset
/// per lane, the lanes' 4-byte stores landed in as many sectors: 32-bit sets 79 G/s against
/// 101, H100 2026-11-25).
///
/// For warps of several teams (a warp of one team just strides over the grid). Every lane of
/// the warp must call [`Order::any_left`] and [`Order::take`] together: they vote.
struct Order<const LANES: u32> {
    /// Subsets between the starts of two tiles of one warp.
    stride: u64,
    /// The lanes of the warp below this team's first lane.
    below: u32,
    /// The start of the tile that holds the warp's next untaken subset, and its place there.
    tile: u64,
    place: u32,
}

impl<const LANES: u32> Order<LANES> {
    /// Teams in a warp: a tile's subsets.
    const TEAMS: u32 = 32 / LANES;

    /// The order, and this team's first subset.
    #[inline(always)]
    fn new() -> (Order<LANES>, u64) {
        let team_lane = lane_id() - lane_id() % LANES;
        let first = global_x() / 32 * Self::TEAMS as u64;
        let stride = grid_threads_x() / 32 * Self::TEAMS as u64;
        let order = Order {
            stride,
            below: (1u32 << team_lane) - 1,
            tile: first + stride,
            place: 0,
        };
        (order, first + (team_lane / LANES) as u64)
    }

    /// Whether some team of the warp still has a subset below `count` (`s` is this team's).
    #[inline(always)]
    fn any_left(&self, s: u64, count: u64) -> bool {
        // SAFETY: every lane of the warp calls this together (the type's contract).
        unsafe { any(FULL_MASK, s < count) }
    }

    /// The teams that are `done` take the warp's next subsets, in lane order: this team's
    /// next subset, if it is done. Computed on every lane, taken or not: as a branch it cost
    /// a tenth of the 32-bit throughput.
    #[inline(always)]
    fn take(&mut self, done: bool, lane: u32) -> Option<u64> {
        // SAFETY: every lane of the warp calls this together (the type's contract).
        let leaders = unsafe { ballot(FULL_MASK, done && lane == 0) };
        let before = (leaders & self.below).count_ones();
        // A warp takes at most a tile's worth of subsets at once, so they reach at most into
        // the tile after this one.
        let place = self.place + before;
        let next = if place < Self::TEAMS {
            self.tile + place as u64
        } else {
            self.tile + self.stride + (place - Self::TEAMS) as u64
        };
        self.place += leaders.count_ones();
        if self.place >= Self::TEAMS {
            self.place -= Self::TEAMS;
            self.tile += self.stride;
        }
        if done { Some(next) } else { None }
    }
}

/// Writes this thread's words of subset `s` of the launch `p`: into `bits` if non-null, else as
/// positions into `indices`.
///
/// # Safety
/// As for [`sample_all`], with `s < count`; every lane of the team (of `LANES`) calls this
/// together.
#[inline(always)]
unsafe fn write<const LANES: u32, const WORDS: usize>(
    p: &Sample,
    subset: &[u32; WORDS],
    s: u64,
    first_word: u32,
) {
    let &Sample {
        bits,
        indices,
        words,
        k,
        ..
    } = p;
    // SAFETY: subset `s < count` owns words `s * words ..` and positions `s * k ..`; the whole
    // team calls the scan (the contract above).
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
            // The team's words before this lane's hold its first positions: the inclusive sum
            // less the lane's own, which spares the exclusive scan's two extra shuffles. Every
            // lane of the team writes its subset together (the team settles as one), and so
            // reaches the scan (the contract above).
            let below = LogicalWarp::<LANES, true>::inclusive_scan(own, Sum) - own;
            // Always for the draw of a mask of `n` elements (exactly `k` in all); a lane whose
            // positions would pass the subset's `k` writes none.
            if below + own <= k {
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
}
