//! Tuning of the alias tables: section sizes and block sizes of the packs, and how many
//! shared-memory sampler blocks share a multiprocessor. None of these changes a table or a
//! sample: every pack builds the same rows from exact splits. The alias kernels' block size and
//! the partition tile stay in `alias` (`ALIAS_BLOCK_THREADS`, `partition::PARTITION_TILE`):
//! PSA+ packs greedily within each partition tile, so the tile fixes its table.

/// Rows each section of the alias tables' baseline pack sweeps (one thread a section).
pub const ALIAS_ROWS_PER_SECTION: u64 = 256;

/// Blocks of the shared-memory alias sampler resident per multiprocessor at most (the launch
/// reserves shared memory to hold it there). Each block writes its own run of the output, and
/// more runs at once wrote slower: 10^9 samples stored from 10^6 rows on the H100 took 266 G/s
/// with 8 blocks per multiprocessor, 297 with 5, 319 with 4, 352 with 3 and 317 with 2 (10^7
/// rows: 294 / 294 / 316 / 348 / 309), while folding them (no stores) lost 7 %.
pub const SHARED_SAMPLER_BLOCKS_PER_SM: u32 = 3;

/// Tiles of the tiled sampler a round of its three launches takes at most (2^26 samples): the
/// round's scratch is 18 bytes a position plus the run starts (about 145 MiB at most).
pub const TILED_ROUND_TILES: u64 = 4096;

/// Threads of one shared-memory pack block.
pub const SHARED_PACK_THREADS: u32 = 256;
/// Rows each thread of the shared-memory pack sweeps.
pub const SHARED_PACK_THREAD_ROWS: u64 = 8;
/// Rows of one shared-memory pack block: the sections the split kernel splits at.
pub const SHARED_PACK_ROWS: u64 = SHARED_PACK_THREADS as u64 * SHARED_PACK_THREAD_ROWS;

/// Sections of one block of the chunked pack (one thread each).
pub const CHUNKED_PACK_THREADS: u32 = 64;
/// Rows of each section of the chunked pack: sections much larger than shared memory, so far
/// fewer splits.
pub const CHUNKED_PACK_ROWS: u64 = 1024;
/// Light (and heavy) items each thread has at hand in shared memory at a time.
pub const CHUNK_ITEMS: u64 = 16;
