//! Launch shapes and the device limits that plans read: a kernel family's plan function turns
//! its parameters and a device's [`Limits`] into a [`LaunchShape`] (grid, block, dynamic shared
//! memory), reading its area's policy, so the host passes buffers and parameters and never
//! knows a tile size. The host checks every shape against the device before it launches.

/// What a device allows a launch, read when it is opened (a GPU) or fixed (the emulator, which
/// mirrors an H100 so that launches it accepts run on the GPU too).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub multiprocessors: u32,
    pub max_threads_per_block: u32,
    pub max_block_dim: [u32; 3],
    pub max_grid_dim: [u32; 3],
    /// Dynamic shared memory a block may use without opting in.
    pub shared_per_block: u32,
    /// Dynamic shared memory a block may use after opting in (set per kernel by the launcher).
    pub shared_per_block_optin: u32,
    /// Shared memory of one multiprocessor, shared by its resident blocks.
    pub shared_per_multiprocessor: u32,
    /// Shared memory the system keeps per resident block, on top of what the launch asks.
    pub shared_reserved_per_block: u32,
}

impl Limits {
    /// The H100's launch limits, with another processor count.
    pub const fn h100_like(multiprocessors: u32) -> Limits {
        Limits {
            multiprocessors,
            max_threads_per_block: 1024,
            max_block_dim: [1024, 1024, 64],
            max_grid_dim: [i32::MAX as u32, 65535, 65535],
            shared_per_block: 48 * 1024,
            shared_per_block_optin: 227 * 1024,
            shared_per_multiprocessor: 228 * 1024,
            shared_reserved_per_block: 1024,
        }
    }

    /// Dynamic shared memory that lets at most `blocks` blocks reside on a multiprocessor (the
    /// alias paper's trick of limiting residency by reserving shared memory), within what one
    /// block may ask for.
    pub const fn shared_for_blocks_per_multiprocessor(&self, blocks: u32) -> u32 {
        let per_block = self.shared_per_multiprocessor / if blocks == 0 { 1 } else { blocks };
        let bytes = per_block.saturating_sub(self.shared_reserved_per_block);
        if bytes < self.shared_per_block_optin {
            bytes
        } else {
            self.shared_per_block_optin
        }
    }
}

/// Whether `a · b` fits in 32 bits: the bound of kernels that index with `u32`.
pub const fn fits_u32(a: u64, b: u64) -> bool {
    (a as u128) * (b as u128) <= u32::MAX as u128
}

/// Grid, block and dynamic shared memory of one launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchShape {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared_bytes: u32,
}

/// A grid extent of `blocks` blocks: past `u32::MAX` it stays at `u32::MAX`, for the device
/// check to refuse (a launch never wraps to a smaller grid).
pub const fn grid_extent(blocks: u64) -> u32 {
    if blocks > u32::MAX as u64 {
        u32::MAX
    } else {
        blocks as u32
    }
}

impl LaunchShape {
    /// Whether grid and block are one-dimensional.
    pub const fn is_1d(&self) -> bool {
        self.grid[1] == 1 && self.grid[2] == 1 && self.block[1] == 1 && self.block[2] == 1
    }

    /// Whether this is a 1D grid of 1D blocks of `threads` threads with at least
    /// `shared_bytes` of dynamic shared memory: what a kernel written for one block size takes,
    /// on any number of blocks.
    pub const fn is_linear(&self, threads: u32, shared_bytes: u32) -> bool {
        self.is_1d() && self.block[0] == threads && self.shared_bytes >= shared_bytes
    }

    /// A 1D grid of `blocks` blocks of `threads` threads (a grid past `u32::MAX` blocks stays
    /// there, for the device check to refuse).
    pub const fn linear(blocks: u64, threads: u32, shared_bytes: u32) -> LaunchShape {
        LaunchShape {
            grid: [grid_extent(blocks), 1, 1],
            block: [threads, 1, 1],
            shared_bytes,
        }
    }
}
