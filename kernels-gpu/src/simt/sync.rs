//! Barriers and memory fences.

use super::hw;

/// `__syncthreads()`: waits until every thread of the block arrives, and makes shared and
/// global writes before it visible to the block after it.
///
/// # Safety
/// Every thread of the block must reach this same barrier; if some exit or branch around it,
/// the block hangs or misbehaves on the GPU (the emulator reports it, naming the call site).
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub unsafe fn sync_threads() {
    // SAFETY: forwarded to the caller's contract above.
    unsafe { hw::sync_threads() }
}

/// [`sync_threads`] as `barrier.sync 0` rather than `bar.sync 0` (which is
/// `barrier.sync.aligned 0`): the barrier for code whose warps may arrive diverged, as after a
/// branch that only some lanes take. ptxas may take an aligned barrier's warps to be converged
/// and drop the reconvergence before it: on the H200 the tiled sampler's ranking
/// (`alias::tiled::tile_ranks`) hung at `bar.sync` after `rank`'s last conditional store and
/// `bar.warp.sync`, one lane held at a warp barrier while the rest of its warp waited at the
/// block barrier.
///
/// # Safety
/// As for [`sync_threads`].
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub unsafe fn sync_threads_unaligned() {
    // SAFETY: forwarded to the caller's contract above.
    unsafe { hw::sync_threads_unaligned() }
}

/// `__syncthreads_or(pred)`: [`sync_threads`], returning whether `pred` held in any thread of
/// the block. One barrier serves both the wait and a block-wide vote (no shared word, no
/// second barrier).
///
/// # Safety
/// As for [`sync_threads`].
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub unsafe fn sync_threads_or(pred: bool) -> bool {
    // SAFETY: forwarded to the caller's contract above.
    unsafe { hw::sync_threads_or(pred) }
}

/// `__syncwarp(mask)`: a barrier and memory fence among the lanes in `mask`.
///
/// # Safety
/// Every lane named in `mask` must execute a `sync_warp` with the same mask, and the calling
/// lane must be in `mask`.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub unsafe fn sync_warp(mask: u32) {
    // SAFETY: forwarded to the caller's contract above.
    unsafe { hw::sync_warp(mask) }
}

/// `__threadfence()`: orders this thread's memory accesses as seen by the whole GPU.
#[inline(always)]
pub fn fence_device() {
    hw::fence_device()
}

/// `__threadfence_block()`: orders this thread's memory accesses as seen by its block.
#[inline(always)]
pub fn fence_block() {
    hw::fence_block()
}

/// `__nanosleep(ns)`: suspends this thread for about `ns` nanoseconds (at most ~1 ms), so a
/// spin-wait leaves the memory system to the threads doing work. In the emulator it lets the
/// other threads run.
#[inline(always)]
pub fn nanosleep(ns: u32) {
    hw::nanosleep(ns)
}

/// Ends the kernel: on the GPU the host sees a launch failure on its next call; the emulator
/// reports the thread and the call site.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn trap() -> ! {
    hw::trap()
}
