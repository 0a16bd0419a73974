//! Tuning of the checks area: the block size of the warp- and block-level test kernels.

/// Threads per block of the warp- and block-level test kernels.
pub const LEVEL_TEST_BLOCK_THREADS: u32 = 256;
