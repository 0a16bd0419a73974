//! Thread, block, grid, lane and warp indices, from the PTX special registers.

use core::arch::nvptx;

/// Lanes in a warp on every NVIDIA GPU warpkit supports.
pub const WARP_SIZE: u32 = 32;

/// A 3D extent or position, as the launch gave it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dim3 {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

macro_rules! dim3_reader {
    ($(#[$doc:meta])* $name:ident: $x:ident, $y:ident, $z:ident) => {
        $(#[$doc])*
        #[inline(always)]
        pub fn $name() -> Dim3 {
            // SAFETY: reading a special register has no preconditions.
            unsafe {
                Dim3 { x: nvptx::$x() as u32, y: nvptx::$y() as u32, z: nvptx::$z() as u32 }
            }
        }
    };
}

dim3_reader!(
    /// `threadIdx`.
    thread_idx: _thread_idx_x, _thread_idx_y, _thread_idx_z
);
dim3_reader!(
    /// `blockIdx`.
    block_idx: _block_idx_x, _block_idx_y, _block_idx_z
);
dim3_reader!(
    /// `blockDim`.
    block_dim: _block_dim_x, _block_dim_y, _block_dim_z
);
dim3_reader!(
    /// `gridDim`.
    grid_dim: _grid_dim_x, _grid_dim_y, _grid_dim_z
);

/// `threadIdx.x`, the common 1D case.
#[inline(always)]
pub fn thread_x() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { nvptx::_thread_idx_x() as u32 }
}

/// `blockIdx.x`.
#[inline(always)]
pub fn block_x() -> u32 {
    // SAFETY: as above.
    unsafe { nvptx::_block_idx_x() as u32 }
}

/// `blockDim.x`.
#[inline(always)]
pub fn block_dim_x() -> u32 {
    // SAFETY: as above.
    unsafe { nvptx::_block_dim_x() as u32 }
}

/// `gridDim.x`.
#[inline(always)]
pub fn grid_dim_x() -> u32 {
    // SAFETY: as above.
    unsafe { nvptx::_grid_dim_x() as u32 }
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
    let lane: u32;
    // SAFETY: reads a special register; no memory is touched.
    unsafe { core::arch::asm!("mov.u32 {l}, %laneid;", l = out(reg32) lane, options(pure, nomem, nostack)) };
    lane
}

/// This thread's warp in its block, counting warps in linear thread order.
#[inline(always)]
pub fn warp_id() -> u32 {
    thread_rank() / WARP_SIZE
}

/// Warps in this block, the last possibly partial.
#[inline(always)]
pub fn warps_per_block() -> u32 {
    let d = block_dim();
    (d.x * d.y * d.z).div_ceil(WARP_SIZE)
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
    let m: u32;
    // SAFETY: reads a special register.
    unsafe {
        core::arch::asm!("mov.u32 {m}, %lanemask_lt;", m = out(reg32) m, options(pure, nomem, nostack))
    };
    m
}
