//! A barrier of the whole grid, for persistent kernels whose phases each need every block's
//! results of the phase before (one launch of many steps instead of a launch a step).
//!
//! Every block must be resident at once, or the first blocks wait forever for blocks that
//! cannot start: a kernel that calls [`sync`] is declared `#![cooperative]` in
//! [`kernel!`](crate::kernel!), and the host then launches it cooperatively (the driver, or
//! the emulator, refuses a grid larger than the device holds at once).
//!
//! The counter is one `u32` in global memory that the blocks meet in, its low 31 bits zero
//! between barriers. Each barrier adds exactly `2^31` to it: block 0 adds `2^31 − (blocks − 1)`
//! and every other block 1, so the low bits stay below `2^31` and the top bit keeps its value
//! until the last block arrives, which flips it and brings the low bits back to zero. A block
//! waits for the flip from the value its own addition returned, so the counter needs no reset
//! between barriers or launches: zero, or `2^31`, when the grid starts.

use crate::simt::atomic::{add_release_u32, load_acquire_u32};
use crate::simt::{block_idx, grid_dim, sync_threads, thread_rank};

/// The counter's top bit, which flips once a barrier.
const FLIP: u32 = 1 << 31;

/// Waits until every thread of every block of the grid has reached this call, and makes every
/// write before it, by any thread of the grid, visible to every read after it.
///
/// # Safety
/// Every thread of every block calls it the same number of times, with the same `counter`: a
/// valid, aligned `u32` in global memory, 0 or `2^31` at the start of the launch, that nothing
/// else touches during it; every block of the grid is resident at once (a cooperative launch);
/// the grid has fewer than 2^31 blocks.
#[inline(always)]
pub unsafe fn sync(counter: *mut u32) {
    // SAFETY: the caller's contract: every thread of the block reaches both barriers.
    unsafe {
        sync_threads();
        if thread_rank() == 0 {
            let (grid, block) = (grid_dim(), block_idx());
            let blocks = grid.x * grid.y * grid.z;
            let first = block.x == 0 && block.y == 0 && block.z == 0;
            let add = if first { FLIP - (blocks - 1) } else { 1 };
            // Release: the block's writes, ordered before this thread's by the barrier above,
            // are visible to every block that sees the flip (by an acquire load) before it goes on.
            let before = add_release_u32(counter, add);
            while (load_acquire_u32(counter) ^ before) & FLIP == 0 {}
        }
        sync_threads();
    }
}
