//! The table of one digit pass: where its parts lie in the one buffer that the histogram fills,
//! the device scan turns into starts and the scatter reads. About `radix·tiles` words, plus
//! `2·radix·tiles / HISTOGRAM_TILES` for the group sums and their scan, and the scan's status.

use super::pass::{RADIX, radix_of};
use crate::grid::scan::ScanScratch;
use crate::policy::SCAN_POLICY;
use crate::policy::multisplit::{HISTOGRAM_TILES, TILE};
use crate::simt::thread_x;

crate::kernel_group! {
    /// A digit pass as its launches take it: which digit ([`digit_param`](super::pass::digit_param)), its tiles of keys
    /// and its table ([`TableParts`]: the histogram fills it, the scatter reads it scanned).
    pub struct PassTable {
        pub digit: u32,
        pub tiles: u64,
        #[len(TableParts::new(radix_of(digit), tiles).words)]
        pub table: *mut u32,
    }
}

impl PassTable {
    /// The pass's radix.
    pub const fn radix(&self) -> u32 {
        radix_of(self.digit)
    }

    /// Whether the kernels take this pass over `n` keys: a radix of 1 to [`RADIX`], the tiles
    /// of `n` keys.
    pub const fn fits(&self, n: u64) -> bool {
        let radix = self.radix();
        radix >= 1 && radix <= RADIX && self.tiles == tiles(n)
    }
}

/// Tiles of a pass over `n` keys (the `tiles` of its launches).
pub const fn tiles(n: u64) -> u64 {
    n.div_ceil(TILE)
}

/// Where the parts of a pass's table lie, in words from its start, for `tiles` tiles of keys
/// in groups of [`HISTOGRAM_TILES`] (a histogram block's): first each tile's keys of each
/// digit in the tiles of its group before it (`radix·tiles` words), then the parts below. Each
/// part is 256-byte aligned, as the scan's 16-byte vectors want. The scan runs over the group
/// sums, a table [`HISTOGRAM_TILES`] times smaller than one entry a tile: it took 13 of the
/// 412 µs that split 2^26 keys into 32 buckets on the H100 when it scanned a word a tile and
/// digit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableParts {
    /// Each group's start of each digit: the device scan of the sums (`radix·groups` words).
    pub starts: u64,
    /// Each group's count of each digit (`radix·groups` words).
    pub sums: u64,
    /// The group sums' count, `radix·groups`: the scan's length.
    pub group_sums: u64,
    /// The scan's tile status ([`ScanScratch`] of `status_tiles` tiles), its part that must
    /// start at zero zeroed when the scan is bound (a memset of a few hundred bytes).
    pub status: u64,
    pub status_tiles: u64,
    /// Words in all.
    pub words: u64,
}

impl TableParts {
    pub const fn new(radix: u32, tiles: u64) -> Self {
        let groups = radix as u64 * tiles.div_ceil(HISTOGRAM_TILES);
        let group_words = groups.next_multiple_of(64);
        let starts = (radix as u64 * tiles).next_multiple_of(64);
        let status_tiles = groups.div_ceil(SCAN_POLICY.tile_items(4) as u64);
        let status = starts + 2 * group_words;
        TableParts {
            starts,
            sums: starts + group_words,
            group_sums: groups,
            status,
            status_tiles,
            words: status + ScanScratch { tiles: status_tiles }.total_bytes().div_ceil(4),
        }
    }
}

/// Whether the tile's keys of digit `thread_x()`, `count` of them from `start`, would end past
/// `n`: never for the table the histogram and the scan made. The direct, warp-level and
/// block-level writes vote on it at the barrier after [`crate::block::rank::warp_starts`] and
/// skip the tile's stores where any digit would, so that no table's contents send a store out
/// of bounds; the counted write lowers such a start instead. (A compare at each store cost
/// 3-6 %, a clamp of each start before the warp starts 8 registers.)
#[inline(always)]
pub fn passes_n(radix: u32, start: u32, count: u32, n: u64) -> bool {
    thread_x() < radix && start as u64 + count as u64 > n
}
