//! The multisplit paper's warp histogram: each lane holds a bucket id below `m`; after
//! ceil(log2 m) ballots (one per bit of the bucket id) every lane knows, with `popc`, how many
//! lanes of the warp fall into the bucket numbered like the lane, and which lanes share its own
//! bucket. Cost: `bits` ballots and a few integer operations, no shared memory.

use crate::launch::LaunchShape;
use crate::policy::checks::per_element;
use crate::simt::memory::read_or;
use crate::simt::warp::{FULL_MASK, ballot};
use crate::simt::{WARP_SIZE, global_x, lane_id, lanemask_lt};

/// What one lane learns from [`histogram_ballot`].
#[derive(Clone, Copy, Debug)]
pub struct WarpHistogram {
    /// Lanes whose bucket equals this lane's index: lane `j` holds bucket `j`'s mask.
    pub bucket_of_lane: u32,
    /// Lanes in the same bucket as this lane (including itself, if valid).
    pub peers: u32,
}

impl WarpHistogram {
    /// How many valid lanes of the warp fall into bucket `lane_id()`.
    #[inline(always)]
    pub fn count(&self) -> u32 {
        self.bucket_of_lane.count_ones()
    }

    /// Valid lanes below this one in the same bucket: this element's offset in its bucket.
    #[inline(always)]
    pub fn rank(&self) -> u32 {
        (self.peers & lanemask_lt()).count_ones()
    }
}

/// Ballot/popc warp histogram over buckets `< 2^bits` (`bits = ceil(log2 m)`). Lanes with
/// `valid == false` take part in the ballots but are counted nowhere. Every lane learns its
/// peers; lane `j < min(m, 32)` also holds bucket `j`'s count (more buckets than lanes need
/// another home for their counts, as the multisplit's shared counters are).
///
/// # Safety
/// All 32 lanes of the warp must call this together with the same `bits`.
#[inline(always)]
pub unsafe fn histogram_ballot(bucket: u32, bits: u32, valid: bool) -> WarpHistogram {
    let lane = lane_id();
    // SAFETY: the whole warp is here (caller's contract).
    let valid_lanes = unsafe { ballot(FULL_MASK, valid) };
    let mut bucket_of_lane = valid_lanes;
    let mut peers = valid_lanes;
    for r in 0..bits {
        // SAFETY: as above; `bits` is the same in every lane, so all lanes run each ballot.
        let ones = unsafe { ballot(FULL_MASK, (bucket >> r) & 1 != 0) };
        bucket_of_lane &= if (lane >> r) & 1 != 0 { ones } else { !ones };
        peers &= if (bucket >> r) & 1 != 0 { ones } else { !ones };
    }
    WarpHistogram {
        bucket_of_lane,
        peers,
    }
}

own_kernel! {
    /// Parameters of the warp histogram's test kernel: `n` bucket ids below `2^bits` in
    /// `buckets`, one a thread; each warp's counts to `counts` (32 a warp) and each element's
    /// rank to `ranks`.
    pub struct HistogramBallot {
        #[len(n)]
        pub buckets: *const u32,
        pub n: u64,
        /// At most 5.
        pub bits: u32,
        #[len(n.div_ceil(WARP_SIZE as u64) * WARP_SIZE as u64)]
        pub counts: *mut u32,
        #[len(n)]
        pub ranks: *mut u32,
    }
    check |p, shape| bits <= 5 && *shape == p.plan();
    /// Each warp's ballot histogram.
    fn histogram_each_warp => warp_histogram_ballot;
}

impl HistogramBallot {
    pub const fn plan(&self) -> LaunchShape {
        per_element(self.n, 0)
    }
}

/// Test kernel body: for each warp `w`, `counts[32w + j]` = elements of bucket `j` among
/// `buckets[32w .. 32w + 32]` (for `j < 2^bits`), and `ranks[i]` = element `i`'s rank in its
/// bucket within its warp.
///
/// # Safety
/// `buckets` and `ranks` hold `n` elements, `counts` 32 × ceil(n / 32); buckets `< 2^bits`,
/// `bits <= 5`; the launch is [`HistogramBallot::plan`] (any whole warps).
#[inline(always)]
pub unsafe fn histogram_each_warp(p: HistogramBallot) {
    let HistogramBallot {
        buckets,
        n,
        bits,
        counts,
        ranks,
    } = p;
    let i = global_x();
    let valid = i < n;
    // SAFETY: reads and writes are bounded by `n` and by the warp count; whole warps call.
    unsafe {
        let bucket = read_or(buckets, i, n, 0);
        let h = histogram_ballot(bucket, bits, valid);
        let warp = i / WARP_SIZE as u64;
        if warp * (WARP_SIZE as u64) < n && lane_id() < (1 << bits) {
            *counts.add((warp * WARP_SIZE as u64 + lane_id() as u64) as usize) = h.count();
        }
        if valid {
            *ranks.add(i as usize) = h.rank();
        }
    }
}
