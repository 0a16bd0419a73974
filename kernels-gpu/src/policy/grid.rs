//! Tuning of the grid area: the device-wide scan's tile shape, tile order and look-back
//! pacing, the reduction's and the copy's block sizes and loads in flight, and the Philox
//! fill's block size. (The scan's scratch layout and the reduction's fixed grid fix layouts and
//! results, not speed: they live with their algorithms in [`crate::grid`].)

/// Tile shape, tile order and look-back pacing of the device-wide scan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScanPolicy {
    /// Threads per block (a multiple of 32).
    pub block_threads: u32,
    /// 128-bit vectors each thread loads and stores per tile.
    pub vectors_per_thread: u32,
    /// Tiles numbered by an atomic ticket (`true`: correct under any block scheduling) or by
    /// block index (`false`: relies on blocks starting in index order, as CUB does).
    pub ticket: bool,
    /// Nanoseconds a block's look-back sleeps after publishing its tile's aggregate, before
    /// its first read of its predecessors' status (0: reads at once). Predecessors publish
    /// meanwhile, so the first read usually finds an inclusive prefix one tile back; hundreds
    /// of warps polling the same status lines otherwise slow the very stores they wait for.
    pub first_look_ns: u32,
    /// Nanoseconds between reads of predecessors not yet published (0: from 32 ns doubling
    /// to 512 ns).
    pub poll_ns: u32,
}

impl ScanPolicy {
    /// The policy of blocks of `block_threads`, `vectors_per_thread` vectors a thread, tiles
    /// numbered by ticket or not.
    pub const fn of(block_threads: u32, vectors_per_thread: u32, ticket: bool) -> ScanPolicy {
        ScanPolicy {
            block_threads,
            vectors_per_thread,
            ticket,
            first_look_ns: 0,
            poll_ns: 0,
        }
    }

    /// This policy with its look-back paced: `first_look_ns` before the first read, `poll_ns`
    /// between reads.
    pub const fn paced(self, first_look_ns: u32, poll_ns: u32) -> ScanPolicy {
        ScanPolicy {
            first_look_ns,
            poll_ns,
            ..self
        }
    }

    /// Elements in one tile for elements of `element_bytes` bytes.
    pub const fn tile_items(&self, element_bytes: usize) -> u32 {
        self.block_threads * self.vectors_per_thread * vector_len(element_bytes)
    }

    /// Dynamic shared memory of one block: a u64 slot per warp, the tile prefix, the ticket.
    pub const fn shared_bytes(&self) -> u32 {
        (self.block_threads / 32 + 2) * 8
    }

    /// Tiles of a scan of `n` elements of `element_bytes` bytes.
    pub const fn tiles(&self, element_bytes: usize, n: u64) -> u64 {
        n.div_ceil(self.tile_items(element_bytes) as u64)
    }
}

/// The policy of the scan kernels `scan_exclusive_*` and `scan_inclusive_*`: 2 µs before a
/// look-back's first read and 0.5 µs between reads were the fastest pacing of 2^28 u32 on the
/// H200 among first reads after 0-4 µs and 0.25-1 µs between, and blocks of 512 threads
/// (half the tiles to look back over) beat 256 there: 651 µs against 669 (`results/grid.md`).
pub const SCAN_POLICY: ScanPolicy = ScanPolicy::of(512, 8, true).paced(2000, 500);

/// Elements of type `T` in one 128-bit vector.
pub const fn vector_len(element_bytes: usize) -> u32 {
    (16 / element_bytes) as u32
}

/// Threads per block of the device-wide reduction.
pub const REDUCE_BLOCK_THREADS: u32 = 256;
/// Independent 128-bit loads each reduction thread keeps in flight per step.
pub const REDUCE_UNROLL: u32 = 4;

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
    fn tiles_and_shared_memory_follow_the_shape() {
        let p = ScanPolicy::of(128, 8, true);
        assert_eq!(p.tile_items(4), 4096);
        assert_eq!(p.tile_items(8), 2048);
        assert_eq!(p.shared_bytes(), 48);
    }
}
