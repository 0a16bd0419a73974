//! Tuning of the local binary pattern histograms: a block's threads and the patterns each
//! thread counts a tile, for each size of histogram. None of these changes a histogram (counts
//! are sums); how a block keeps its histogram (a copy a warp, one a block, packed 16-bit
//! counts) follows from the bins and stays with the kernel (`lbp::Plan`).

/// Threads of a block up to 1024 bins (neighbourhoods 1 to 5), which keeps a copy of the
/// histogram a warp: 32 KB for 8 warps.
pub const LBP_WARP_COPIES_THREADS: u32 = 256;
/// Patterns a thread counts a tile, up to 1024 bins.
pub const LBP_WARP_COPIES_ITEMS: u32 = 8;

/// Threads of a block for 4096 and 16384 bins (neighbourhoods 6 and 7), one copy of u32 a
/// block: 16 and 64 KB, four and two blocks a multiprocessor.
pub const LBP_BLOCK_COPY_THREADS: u32 = 512;
/// Patterns a thread counts a tile, for 4096 and 16384 bins.
pub const LBP_BLOCK_COPY_ITEMS: u32 = 8;

/// Threads of a block for 65536 bins (neighbourhood 8), one packed copy a block: 128 KB, one
/// block a multiprocessor.
pub const LBP_PACKED_THREADS: u32 = 1024;
/// Patterns a thread counts a tile, for 65536 bins.
pub const LBP_PACKED_ITEMS: u32 = 4;
