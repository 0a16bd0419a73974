//! Tuning of the multisplit's digit passes: the block and tile shape of the histogram and the
//! scatter, the tiles one histogram block counts, and how far ahead the scatter prefetches.
//! None of these changes a split (every pass is stable whatever the tiles); the host sizes its
//! grids and the pass's table by them. The counted ranking's limits (`COUNTED_RADIX`, its 3-bit
//! ranks) are checked against this shape where they are defined.

/// Threads per block.
pub const THREADS: u32 = 256;
/// Keys per warp: windows of 32, one key a lane each.
pub const WARP_KEYS: u32 = 256;
/// Keys per block.
pub const TILE: u64 = (THREADS / 32 * WARP_KEYS) as u64;
/// Windows of 32 keys per warp: each lane's keys of a tile.
pub const WINDOWS: usize = (WARP_KEYS / 32) as usize;
/// Warps per block.
pub const WARPS: u32 = THREADS / 32;

/// Windows a lane holds in the block-level write, whose block takes [`BLOCK_SPAN`] tiles of the
/// pass's table at once: more keys a block spread the block's fixed work (clearing its rows,
/// the warp starts, the digit scan) over more keys and give each digit longer runs to write.
/// On the H200 at 256 digits the scatter of tiles of 2048 keys issued about 120 instructions a
/// window of 32 keys, 15 of them shared-memory ones, and waited mostly on shared memory; two
/// tiles a block took it to 87 and split 2^28 keys into 256 buckets 10 % faster, pairs 42 %
/// (results/multisplit.md, 2026-12-02).
pub const BLOCK_WINDOWS: usize = 2 * WINDOWS;
/// Tiles of the table one block-level scatter block takes.
pub const BLOCK_SPAN: u64 = (BLOCK_WINDOWS / WINDOWS) as u64;
const _: () = assert!(BLOCK_WINDOWS.is_multiple_of(WINDOWS) && HISTOGRAM_TILES.is_multiple_of(BLOCK_SPAN));

/// Tiles counted by one block of the histogram: its table entries of a digit are
/// consecutive, so that each digit's are written as one 32-byte sector (two when the number of
/// tiles is not a multiple of 8, that is when n is not a multiple of 16384). One tile a block
/// wrote a word a sector: at 256 digits the H100's L2 was 92 % busy with them and the
/// histogram of 2^28 keys took 750 us against 383 at 32 digits.
pub const HISTOGRAM_TILES: u64 = 8;

/// Tiles from a scatter block's own to the one whose keys it prefetches into L2: about half a
/// wave of resident blocks on the H100 (4 an SM, 132 SMs), so that the keys are there, and
/// still there, when that tile's block starts. Measured against 528 and 1056, and with the
/// values prefetched too (slower), in results/multisplit.md, seventh session.
pub const PREFETCH_AHEAD: u64 = 264;
