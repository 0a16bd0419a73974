//! Tuning of the K-subset samplers: their block size and how far their grid-stride grid
//! reaches past the blocks a device holds at once. Neither changes a subset (each hangs on its
//! index and the seed alone); the team shapes (lanes and words a lane) are the method's, not
//! tuning, and stay with the kernels.

/// Threads of a block of every sampling kernel.
pub const SUBSET_BLOCK_THREADS: u32 = 256;

/// Times the blocks a device holds at once that a sampling launch runs at most: its warps walk
/// the subsets grid-stride, a tile at a time.
pub const SUBSET_RESIDENT_WAVES: u64 = 4;
