//! Local binary pattern histograms of 1D signals (after the Alea.CUDA article series on GPU image and signal kernels).
//!
//! For a neighbourhood `n` (1..=8) the pattern at position `i` of a signal `x` (`n <= i <
//! len − n`) has `2n` bits: bit `j < n` is set when `x[i − n + j] >= x[i]`, bit `n + j` when
//! `x[i + 1 + j] >= x[i]` (the `n` before, then the `n` after; a NaN compares false, so it sets
//! no bit and clears every bit of its own pattern). A signal's histogram counts its patterns
//! over `2^(2n)` bins.
//!
//! The article's kernel added each pattern to the global histogram with one atomic, serialized on
//! the frequent bins. Here a block counts tiles of positions ([`Plan::tile`]) into a histogram
//! of its own in shared memory ([`Plan`] says how it is laid out for each `n`) and adds that to
//! the global one once, skipping empty bins; each tile's window (the tile plus `2n` neighbours)
//! is read from global memory once into shared memory, where the `2n + 1` reads of each pattern
//! hit consecutive words across a warp. A persistent grid gives each block a run of
//! consecutive tiles, so a batch of signals costs a flush only where a block's run crosses
//! from one signal into the next.

pub mod histogram;

use crate::policy::lbp::{
    LBP_BLOCK_COPY_ITEMS, LBP_BLOCK_COPY_THREADS, LBP_PACKED_ITEMS, LBP_PACKED_THREADS,
    LBP_WARP_COPIES_ITEMS, LBP_WARP_COPIES_THREADS,
};

/// The largest neighbourhood: 16 bits of pattern, 65536 bins.
pub const MAX_NEIGHBOURHOOD: u32 = 8;

/// Bins of the histogram of neighbourhood `n`: `2^(2n)`.
pub const fn bins(n: u32) -> u32 {
    1 << (2 * n)
}

/// The most patterns a block counts into packed 16-bit bins before it flushes them.
const PACKED_ROUND: u32 = u16::MAX as u32;

/// How a block of the histogram kernel is laid out for one neighbourhood: shared by the kernel
/// and the host, which sizes the launch and the tiles of each signal from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Threads of a block.
    pub threads: u32,
    /// Patterns a thread computes a tile.
    pub items: u32,
    /// Copies of the histogram a block keeps: one a warp where they are small, so that only a
    /// warp's own lanes contend for a bin; one a block otherwise.
    pub rows: u32,
    /// Two 16-bit counts a 32-bit word (65536 bins fit 128 KB); a block then flushes at least
    /// every [`Plan::round_tiles`] tiles, before a count could overflow.
    pub packed: bool,
}

impl Plan {
    /// The plan for neighbourhood `n` (1..=8), from the policy (`policy::lbp`): a copy a warp
    /// up to 1024 bins, one a block of u32 for 4096 and 16384 bins, packed for 65536.
    pub const fn of(n: u32) -> Plan {
        match n {
            0..=5 => Plan {
                threads: LBP_WARP_COPIES_THREADS,
                items: LBP_WARP_COPIES_ITEMS,
                rows: LBP_WARP_COPIES_THREADS / 32,
                packed: false,
            },
            6 | 7 => Plan {
                threads: LBP_BLOCK_COPY_THREADS,
                items: LBP_BLOCK_COPY_ITEMS,
                rows: 1,
                packed: false,
            },
            _ => Plan {
                threads: LBP_PACKED_THREADS,
                items: LBP_PACKED_ITEMS,
                rows: 1,
                packed: true,
            },
        }
    }

    /// Positions (patterns) a tile.
    pub const fn tile(&self) -> u32 {
        self.threads * self.items
    }

    /// Tiles of a signal of `len` elements (none below `2n + 1`).
    pub const fn tiles(&self, n: u32, len: u64) -> u64 {
        len.saturating_sub(2 * n as u64).div_ceil(self.tile() as u64)
    }

    /// 32-bit words of one copy of the histogram.
    pub const fn row_words(&self, n: u32) -> u32 {
        if self.packed { bins(n) / 2 } else { bins(n) }
    }

    /// Tiles a block may count between two flushes.
    pub const fn round_tiles(&self) -> u32 {
        if self.packed {
            PACKED_ROUND / self.tile()
        } else {
            u32::MAX
        }
    }

    /// Dynamic shared memory of a block: the histogram copies, then the window of 4-byte
    /// elements.
    pub const fn shared_bytes(&self, n: u32) -> u32 {
        4 * (self.rows * self.row_words(n) + self.tile() + 2 * n)
    }
}

/// The element types of signals: i32, u32 and f32.
pub trait Input: Copy + PartialOrd {}

impl Input for i32 {}
impl Input for u32 {}
impl Input for f32 {}

crate::kernel_table! {
    /// The histogram kernel of each input type, for host code generic over it.
    pub trait LbpKernels: Input {
        Histogram: histogram::Histogram<Self>;
    }
    i32 { Histogram = histogram::lbp_histogram_i32 }
    u32 { Histogram = histogram::lbp_histogram_u32 }
    f32 { Histogram = histogram::lbp_histogram_f32 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_fit_a_block_and_their_rounds_cannot_overflow() {
        for n in 1..=MAX_NEIGHBOURHOOD {
            let p = Plan::of(n);
            assert!(p.shared_bytes(n) <= 227 * 1024, "n = {n}");
            assert!(p.rows * 32 <= p.threads, "n = {n}");
            if p.packed {
                assert!(p.round_tiles() >= 1 && p.round_tiles() * p.tile() <= PACKED_ROUND);
            }
        }
        assert_eq!(Plan::of(4).tiles(4, 9), 1);
        assert_eq!(Plan::of(4).tiles(4, 8 + 2048 + 1), 2);
    }
}
