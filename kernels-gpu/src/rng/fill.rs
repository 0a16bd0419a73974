//! Fills device memory with warpkit's Philox stream: thread `b` computes counter block `b`
//! (four words) and writes it with one 128-bit store where it can. 4 bytes written per word;
//! ten rounds of two 32-bit multiplies per four words, so the kernel is bound by stores.

use super::philox::{Stream, counter_add, philox4x32_10};
use crate::launch::LaunchShape;
use crate::policy::PHILOX_BLOCK_THREADS;
use crate::simt::memory::{is_aligned16, store128};
use crate::simt::{global_x, grid_threads_x};

own_kernel! {
    /// Parameters of the fill: words `0 .. n` of `stream` into `out`.
    pub struct PhiloxFill {
        #[len(n)]
        pub out: *mut u32,
        pub n: u64,
        pub stream: Stream,
    }
    check |p, shape| shape.is_1d();
    /// The Philox fill.
    fn fill => philox_fill_u32;
}

impl PhiloxFill {
    /// A thread per counter block (four words), blocks of [`PHILOX_BLOCK_THREADS`]: the grid of
    /// a grid-stride loop, which the caller cuts to a few times the blocks the device holds at
    /// once.
    pub const fn plan(&self) -> LaunchShape {
        let blocks = self.n.div_ceil(4).div_ceil(PHILOX_BLOCK_THREADS as u64);
        LaunchShape::linear(blocks, PHILOX_BLOCK_THREADS, 0)
    }
}

/// Writes words `0 .. n` of `stream` to `out`.
///
/// # Safety
/// `out` is valid for `n` u32 writes; any grid of whole blocks.
#[inline(always)]
pub unsafe fn fill(p: PhiloxFill) {
    let PhiloxFill { out, n, stream } = p;
    let blocks = n.div_ceil(4);
    let aligned = is_aligned16(out as *const u32);
    let mut b = global_x();
    while b < blocks {
        let words = philox4x32_10(counter_add(stream.counter, b), stream.key);
        let first = 4 * b;
        // SAFETY: writes only indices below `n`.
        unsafe {
            if aligned && first + 4 <= n {
                store128(out.add(first as usize), words);
            } else {
                for (j, &w) in words.iter().enumerate() {
                    if first + (j as u64) < n {
                        *out.add(first as usize + j) = w;
                    }
                }
            }
        }
        b += grid_threads_x();
    }
}
