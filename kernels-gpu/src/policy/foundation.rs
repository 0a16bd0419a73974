//! Tuning of the foundation area: the device-wide scan's tile shape and order, the reduction's
//! and the copy's block sizes and loads in flight, and the Philox fill's block size. Also the
//! scan's scratch layout and the reduction's fixed grid, which the host sizes buffers and grids
//! by (those two fix results and layouts rather than speed).

/// Tile shape and tile order of the device-wide scan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScanPolicy {
    /// Threads per block (a multiple of 32).
    pub block_threads: u32,
    /// 128-bit vectors each thread loads and stores per tile.
    pub vectors_per_thread: u32,
    /// Tiles numbered by an atomic ticket (`true`: correct under any block scheduling) or by
    /// block index (`false`: relies on blocks starting in index order, as CUB does).
    pub ticket: bool,
}

impl ScanPolicy {
    /// Elements in one tile for elements of `element_bytes` bytes.
    pub const fn tile_items(&self, element_bytes: usize) -> u32 {
        self.block_threads * self.vectors_per_thread * vector_len(element_bytes)
    }

    /// Dynamic shared memory of one block: a u64 slot per warp, the tile prefix, the ticket.
    pub const fn shared_bytes(&self) -> u32 {
        (self.block_threads / 32 + 2) * 8
    }
}

/// The policy of the scan kernels `scan_exclusive_{u32,u64,f32,f64}`.
pub const SCAN_POLICY: ScanPolicy = ScanPolicy {
    block_threads: 256,
    vectors_per_thread: 8,
    ticket: true,
};

/// Elements of type `T` in one 128-bit vector.
pub const fn vector_len(element_bytes: usize) -> u32 {
    (16 / element_bytes) as u32
}

/// Layout of the scan's scratch buffer (tile status for the decoupled look-back), in bytes.
///
/// `[tile counter: u32, pad] [flags: u32 × tiles] [pad to 8] [aggregates: u64 × tiles]
/// [inclusive prefixes: u64 × tiles]`. Only the counter and the flags must be zero before a
/// launch: [`ScanScratch::zeroed_bytes`] of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScanScratch {
    pub tiles: u64,
}

impl ScanScratch {
    pub const fn flags_offset(&self) -> u64 {
        8
    }
    pub const fn aggregates_offset(&self) -> u64 {
        (self.flags_offset() + 4 * self.tiles).next_multiple_of(8)
    }
    pub const fn inclusive_offset(&self) -> u64 {
        self.aggregates_offset() + 8 * self.tiles
    }
    /// Bytes from the start that must be zero when the kernel starts.
    pub const fn zeroed_bytes(&self) -> u64 {
        self.flags_offset() + 4 * self.tiles
    }
    pub const fn total_bytes(&self) -> u64 {
        self.inclusive_offset() + 8 * self.tiles
    }
}

/// Threads per block of the device-wide reduction.
pub const REDUCE_BLOCK_THREADS: u32 = 256;
/// Independent 128-bit loads each reduction thread keeps in flight per step.
pub const REDUCE_UNROLL: u32 = 4;
/// Blocks of a reduction whose float result must be the same bits on every device and in the
/// emulator (the alias tables' total weight): a grid fixed in advance fixes the order.
pub const REDUCE_FIXED_GRID: u64 = 1024;

/// Threads per block of the 128-bit copy.
pub const COPY_BLOCK_THREADS: u32 = 256;
/// Independent 128-bit loads each copy thread keeps in flight per step.
pub const COPY_UNROLL: u32 = 4;

/// Threads per block of the Philox stream fill (each thread writes one 4-word block).
pub const PHILOX_BLOCK_THREADS: u32 = 256;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scratch_regions_do_not_overlap_and_are_aligned() {
        for tiles in [1u64, 2, 3, 65536, 65537] {
            let s = ScanScratch { tiles };
            assert!(s.aggregates_offset() >= s.zeroed_bytes());
            assert_eq!(s.aggregates_offset() % 8, 0);
            assert_eq!(s.total_bytes(), s.aggregates_offset() + 16 * tiles);
        }
        let p = ScanPolicy {
            block_threads: 128,
            vectors_per_thread: 8,
            ticket: true,
        };
        assert_eq!(p.tile_items(4), 4096);
        assert_eq!(p.tile_items(8), 2048);
        assert_eq!(p.shared_bytes(), 48);
    }
}
