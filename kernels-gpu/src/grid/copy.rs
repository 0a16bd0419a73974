//! Device-to-device copy with 128-bit accesses: the bandwidth yardstick the other kernels are
//! measured against (each byte read once and written once). Falls back to bytes where either
//! pointer is not 16-byte aligned.

use crate::launch::LaunchShape;
use crate::policy::{COPY_BLOCK_THREADS, COPY_UNROLL};
use crate::simt::memory::{is_aligned16, load128, store128};
use crate::simt::{global_x, grid_threads_x};

const UNROLL: usize = COPY_UNROLL as usize;

own_kernel! {
    /// Parameters of the copy: `bytes` bytes from `src` to `dst`.
    pub struct CopyBytes {
        #[len(bytes)]
        pub src: *const u8,
        #[len(bytes)]
        pub dst: *mut u8,
        pub bytes: u64,
    }
    check |p, shape| shape.is_1d();
    /// The 128-bit copy.
    fn copy_bytes => copy_vec128;
}

impl CopyBytes {
    /// A block of [`COPY_BLOCK_THREADS`] per share of `COPY_UNROLL` 128-bit loads a thread: the
    /// grid of a grid-stride loop, which the caller cuts to the blocks the device holds at once.
    pub const fn plan(&self) -> LaunchShape {
        let per_block = (COPY_BLOCK_THREADS * COPY_UNROLL * 16) as u64;
        LaunchShape::linear(self.bytes.div_ceil(per_block), COPY_BLOCK_THREADS, 0)
    }
}

/// Copies `bytes` bytes from `src` to `dst` with a grid-stride loop.
///
/// # Safety
/// `src` and `dst` are valid for `bytes` bytes and do not overlap; any grid of whole blocks.
#[inline(always)]
pub unsafe fn copy_bytes(p: CopyBytes) {
    let CopyBytes { src, dst, bytes } = p;
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
