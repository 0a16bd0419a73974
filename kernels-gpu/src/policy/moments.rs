//! Tuning of the moments: the column kernel's block size, the waves of blocks its slices of rows
//! make and the fewest rows a warp takes in a slice, and the column combine's block size and
//! grid. None of these changes a result beyond rounding: the column kernel combines warps and
//! slices in order. The whole-vector kernels fold as the reduction does, so they take its block
//! size and loads in flight ([`super::grid`]).

/// Threads of a block of the column kernel: its warps take every `COLUMN_THREADS / 32`-th row.
pub const COLUMN_THREADS: u32 = 256;
/// Waves of resident blocks the column kernel's grid makes where the columns alone make fewer
/// (by slicing the rows).
pub const COLUMN_WAVES: u64 = 2;
/// Rows each warp of the column kernel takes in a slice at least, when the rows are sliced.
pub const COLUMN_SLICE_ROWS_PER_WARP: u64 = 4;
/// Threads of a block of the column combine (a column a thread, grid-stride).
pub const COLUMN_COMBINE_THREADS: u32 = 256;
/// Blocks of the column combine a multiprocessor at most.
pub const COLUMN_COMBINE_BLOCKS_PER_SM: u64 = 8;
