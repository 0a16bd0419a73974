//! Fills device memory with warpkit's Philox stream: thread `b` computes counter block `b`
//! (four words) and writes it with one 128-bit store where it can. 4 bytes written per word;
//! ten rounds of two 32-bit multiplies per four words, so the kernel is bound by stores.

use super::philox::{counter_add, philox4x32_10};
use crate::simt::memory::{is_aligned16, store128};
use crate::simt::{global_x, grid_threads_x};

crate::kernel! {
/// Writes words `0 .. n` of the stream with key `(k0, k1)` from counter `(c0, c1, c2, c3)`.
///
/// # Safety
/// `out` is valid for `n` u32 writes.
#[allow(clippy::too_many_arguments)]
pub unsafe fn philox_fill_u32(
    out: *mut u32,
    n: u64,
    k0: u32,
    k1: u32,
    c0: u32,
    c1: u32,
    c2: u32,
    c3: u32,
) {
    let blocks = n.div_ceil(4);
    let aligned = is_aligned16(out as *const u32);
    let mut b = global_x();
    while b < blocks {
        let words = philox4x32_10(counter_add([c0, c1, c2, c3], b), [k0, k1]);
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
}
