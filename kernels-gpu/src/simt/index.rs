//! Thread, block, grid, lane and warp indices.

use super::hw;
pub use super::types::Dim3;

/// Lanes in a warp on every NVIDIA GPU warpkit supports.
pub const WARP_SIZE: u32 = 32;

/// `threadIdx`.
#[inline(always)]
pub fn thread_idx() -> Dim3 {
    hw::thread_idx()
}

/// `blockIdx`.
#[inline(always)]
pub fn block_idx() -> Dim3 {
    hw::block_idx()
}

/// `blockDim`.
#[inline(always)]
pub fn block_dim() -> Dim3 {
    hw::block_dim()
}

/// `gridDim`.
#[inline(always)]
pub fn grid_dim() -> Dim3 {
    hw::grid_dim()
}

/// `threadIdx.x`, the common 1D case.
#[inline(always)]
pub fn thread_x() -> u32 {
    hw::thread_idx().x
}

/// `blockIdx.x`.
#[inline(always)]
pub fn block_x() -> u32 {
    hw::block_idx().x
}

/// `blockDim.x`.
#[inline(always)]
pub fn block_dim_x() -> u32 {
    hw::block_dim().x
}

/// `gridDim.x`.
#[inline(always)]
pub fn grid_dim_x() -> u32 {
    hw::grid_dim().x
}

/// Linear index of this thread in its block (x fastest), for 1D, 2D and 3D blocks.
#[inline(always)]
pub fn thread_rank() -> u32 {
    let (t, d) = (thread_idx(), block_dim());
    (t.z * d.y + t.y) * d.x + t.x
}

/// This thread's lane in its warp (`%laneid`).
#[inline(always)]
pub fn lane_id() -> u32 {
    hw::lane_id()
}

/// This thread's warp in its block, counting warps in linear thread order.
#[inline(always)]
pub fn warp_id() -> u32 {
    thread_rank() / WARP_SIZE
}

/// Warps in this block, the last possibly partial.
#[inline(always)]
pub fn warps_per_block() -> u32 {
    (block_dim().volume() as u32).div_ceil(WARP_SIZE)
}

/// The x index over the whole grid, `blockIdx.x * blockDim.x + threadIdx.x`, in 64 bits.
#[inline(always)]
pub fn global_x() -> u64 {
    block_x() as u64 * block_dim_x() as u64 + thread_x() as u64
}

/// Threads in the grid along x: the stride of a grid-stride loop.
#[inline(always)]
pub fn grid_threads_x() -> u64 {
    grid_dim_x() as u64 * block_dim_x() as u64
}

/// Mask of the lanes below this one (`%lanemask_lt`).
#[inline(always)]
pub fn lanemask_lt() -> u32 {
    hw::lanemask_lt()
}
