//! Barriers and memory fences.

unsafe extern "C" {
    #[link_name = "llvm.nvvm.bar.warp.sync"]
    fn bar_warp_sync(mask: u32);
}

/// `__syncthreads()`: waits until every thread of the block arrives, and makes shared and
/// global writes before it visible to the block after it.
///
/// # Safety
/// Every thread of the block must reach this same barrier; if some exit or branch around it,
/// the block hangs or misbehaves.
#[inline(always)]
pub unsafe fn sync_threads() {
    // SAFETY: forwarded to the caller's contract above.
    unsafe { core::arch::nvptx::_syncthreads() }
}

/// `__syncwarp(mask)`: a barrier and memory fence among the lanes in `mask`.
///
/// # Safety
/// Every lane named in `mask` must execute a `sync_warp` with the same mask.
#[inline(always)]
pub unsafe fn sync_warp(mask: u32) {
    // SAFETY: forwarded to the caller's contract above.
    unsafe { bar_warp_sync(mask) }
}

/// `__threadfence()`: orders this thread's memory accesses as seen by the whole GPU.
#[inline(always)]
pub fn fence_device() {
    // SAFETY: a fence has no operands and no preconditions.
    unsafe { core::arch::asm!("fence.acq_rel.gpu;", options(nostack)) };
}

/// `__threadfence_block()`: orders this thread's memory accesses as seen by its block.
#[inline(always)]
pub fn fence_block() {
    // SAFETY: as above.
    unsafe { core::arch::asm!("fence.acq_rel.cta;", options(nostack)) };
}

/// `__nanosleep(ns)`: suspends this thread for about `ns` nanoseconds (at most ~1 ms), so a
/// spin-wait leaves the memory system to the threads doing work.
#[inline(always)]
pub fn nanosleep(ns: u32) {
    // SAFETY: a timed suspension with no memory effects.
    unsafe { core::arch::asm!("nanosleep.u32 {t};", t = in(reg32) ns, options(nomem, nostack)) };
}
