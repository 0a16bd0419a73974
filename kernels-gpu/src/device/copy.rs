//! Device-to-device copy with 128-bit accesses: the bandwidth yardstick the other kernels are
//! measured against (each byte read once and written once). Falls back to bytes where either
//! pointer is not 16-byte aligned.

use crate::policy::COPY_UNROLL;
use crate::simt::memory::{is_aligned16, load128, store128};
use crate::simt::{global_x, grid_threads_x};

const UNROLL: usize = COPY_UNROLL as usize;

crate::kernel! {
/// Copies `bytes` bytes from `src` to `dst` with a grid-stride loop.
///
/// # Safety
/// `src` and `dst` are valid for `bytes` bytes and do not overlap.
pub unsafe fn copy_vec128(src: *const u8, dst: *mut u8, bytes: u64) {
    let (tid, stride) = (global_x(), grid_threads_x());
    let mut tail_from = 0;
    // SAFETY: every offset is checked against `bytes` (or `bytes / 16` vectors).
    unsafe {
        if is_aligned16(src) && is_aligned16(dst as *const u8) {
            let (s, d) = (src.cast::<u32>(), dst.cast::<u32>());
            let vectors = bytes / 16;
            let mut i = tid;
            while i + (UNROLL as u64 - 1) * stride < vectors {
                let mut v = [[0u32; 4]; UNROLL];
                for (u, x) in v.iter_mut().enumerate() {
                    *x = load128(s.add(((i + u as u64 * stride) * 4) as usize));
                }
                for (u, x) in v.iter().enumerate() {
                    store128(d.add(((i + u as u64 * stride) * 4) as usize), *x);
                }
                i += UNROLL as u64 * stride;
            }
            while i < vectors {
                store128::<u32, 4>(d.add((i * 4) as usize), load128(s.add((i * 4) as usize)));
                i += stride;
            }
            tail_from = vectors * 16;
        }
        let mut i = tail_from + tid;
        while i < bytes {
            *dst.add(i as usize) = *src.add(i as usize);
            i += stride;
        }
    }
}
}
