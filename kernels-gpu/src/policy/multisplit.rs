//! Tuning of the multisplit's digit passes: the block and tile shape of the histogram and the
//! scatter, the tiles one histogram block counts, how far ahead the scatter prefetches, and the
//! bounds launch's grid.
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

/// Blocks of the bounds launch at most (of [`THREADS`], a grid-stride loop over the split
/// keys).
pub const BOUNDS_MAX_BLOCKS: u64 = 1 << 16;
