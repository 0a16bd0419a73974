//! Tuning of the convolutions: the band kernel's block size, inner-sum chunk and how many blocks
//! it aims for, the slice sums' grid, and the article's block shapes. The band kernel's eight
//! outputs a thread and the slices' order of summation stay with it (`convolve::band`); nothing
//! here changes an output, except that the number of slices follows the device (each slice
//! rounds its partial sum on its own).

/// Threads per block of the band kernel.
pub const BAND_THREADS: u32 = 128;
/// Inner-sum steps the band kernel stages in shared memory at a time.
pub const BAND_CHUNK: u32 = 256;
/// Band blocks a multiprocessor holds at once, about: 10 for f32 (48 registers), 6 for f64.
/// Where the tiles alone make fewer blocks than two waves of this many, the inner sum is cut
/// into slices. (An occupancy query per call cost microseconds.)
pub const BAND_RESIDENT_PER_SM: u64 = 8;

/// Warps per block of the lane kernel (`convolve::band::lanes`) at most: the slices of the inner
/// sum each tile of 32 outputs is cut into.
pub const LANES_WARPS: u32 = 16;
/// Warps the lane kernel aims to give each multiprocessor: the tiles times the warps a block.
pub const LANES_WARPS_PER_SM: u64 = 16;
/// Warps per block of the warp kernel (`convolve::band::warp_sums`): an output each. In CUDA C++
/// on an H100 (`results/microbench/conv_small.cu`), 2048 f32: 4 warps 4.75 µs, 8 5.00, 16 5.62.
pub const WARP_SUMS_WARPS: u32 = 4;
/// The length of the shorter vector (on average over a short call's products, weighted by
/// their outputs) from which the warp kernel sums whole forward products of lengths within a
/// factor of two, a warp an output, instead of the lane kernel's lane an output (H100, 2048
/// f32: 4.83-4.84 µs against 5.93-6.10; at 256 the CUDA C++ shapes are level). Windows
/// (gradients) and lopsided products, whose outputs have nearly equal terms, keep the lane
/// kernel: as warps, the gradients of 2048 took 6.45-6.66 µs against 6.07-6.15.
pub const WARP_SUMS_FROM: u64 = 256;
/// Inner-sum steps a warp of the lane kernel stages in shared memory at a time (with 32 more
/// elements of each vector, for the warp's 32 outputs).
pub const LANES_STAGE: u32 = 128;

/// Whether the slice sums load eight slices' partial sums before adding any (in slice order
/// still), by the type summed. f32's one-at-a-time loop waited out each load's latency on its
/// own (ncu on an H200, m = n = 16384: 17 µs, batched 7.4); f64's ran as fast or faster
/// unbatched (65536: 7.4 µs, batched 10.7).
pub const BATCHED_SLICES_F32: bool = true;
/// As [`BATCHED_SLICES_F32`], for sums in f64.
pub const BATCHED_SLICES_F64: bool = false;

/// Threads per block of the slice sums.
pub const SUM_THREADS: u32 = 256;
/// Blocks of the slice sums per multiprocessor at most (a grid-stride loop covers the rest).
pub const SUM_BLOCKS_PER_SM: u64 = 8;

/// Threads per block of the article's v0 to v3, and `32 × WARPS_V4` of v4.
pub const SEED_THREADS: u32 = 256;
/// Warps per block of the article's v4 (block `32 × WARPS_V4`).
pub const WARPS_V4: u32 = 8;
