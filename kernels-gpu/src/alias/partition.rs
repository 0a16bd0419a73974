//! Partition: weights to quantized integers, then a stable partition into light items (in index
//! order) followed by heavy items (in index order), each entry holding its weight beside its
//! index, and the array of partitioned quantized weights that the prefix sums scan.
//!
//! Passes over the data: quantize (read the weights, write q), classify (read q, write a flag),
//! the scan of the flags, scatter (read q, flag and position, write entry and weight).

use super::sweep::{Entry, Shape, Weight};
use super::{ALIAS_BLOCK_THREADS, quantize};
use crate::simt::{global_x, grid_threads_x};

/// Grid-stride loop over `0..n`.
#[inline(always)]
fn each(n: u64, mut f: impl FnMut(u64)) {
    let mut i = global_x();
    while i < n {
        f(i);
        i += grid_threads_x();
    }
}

macro_rules! quantize_kernels {
    ($($name:ident: $f:ty),*) => {$(
        $crate::kernel! {
            /// `q[i] = quantize(weights[i], shift, scale)`.
            ///
            /// # Safety
            /// `weights` and `q` hold `n` elements.
            pub unsafe fn $name(weights: *const $f, n: u64, shift: i32, scale: f64, q: *mut u64) {
                // SAFETY: `i < n`.
                each(n, |i| unsafe { *q.add(i as usize) = quantize(Weight::to_f64(*weights.add(i as usize)), shift, scale) });
            }
        }
    )*};
}
quantize_kernels!(alias_quantize_f32: f32, alias_quantize_f64: f64);

crate::kernel! {
    /// `light[i] = 1` where item `i` is light (`N·q <= total`), else 0.
    ///
    /// # Safety
    /// `q` and `light` hold `n` elements.
    pub unsafe fn alias_classify(q: *const u64, n: u64, total: u64, light: *mut u32) {
        let shape = Shape { n, n_light: 0, total };
        // SAFETY: `i < n`.
        each(n, |i| unsafe { *light.add(i as usize) = shape.is_light(*q.add(i as usize)) as u32 });
    }

    /// Writes item `i` to its place in the partitioned order: `position[i]` (the exclusive scan
    /// of the light flags) for a light item, `n_light + i − position[i]` for a heavy one, as an
    /// entry and as a weight in `partitioned`, whose extra last element becomes 0. Thread 0
    /// also writes the light count to `n_light_out`.
    ///
    /// # Safety
    /// `q`, `light`, `position` and `entries` hold `n > 0` elements, `partitioned` `n + 1`.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn alias_scatter(
        q: *const u64,
        light: *const u32,
        position: *const u32,
        n: u64,
        entries: *mut Entry,
        partitioned: *mut u64,
        n_light_out: *mut u32,
    ) {
        // SAFETY: every index is below `n` (or `n` itself for the extra weight).
        unsafe {
            let last = n as usize - 1;
            let n_light = *position.add(last) + *light.add(last);
            if global_x() == 0 {
                *n_light_out = n_light;
                *partitioned.add(n as usize) = 0;
            }
            each(n, |i| {
                let p = *position.add(i as usize) as u64;
                let at = if *light.add(i as usize) != 0 { p } else { n_light as u64 + i - p };
                let w = *q.add(i as usize);
                *entries.add(at as usize) = Entry { q: w, item: i as u32 };
                *partitioned.add(at as usize) = w;
            });
        }
    }
}

/// Blocks for a grid-stride pass over `n` items (at least one).
pub const fn blocks_for(n: u64) -> u64 {
    let b = n.div_ceil(ALIAS_BLOCK_THREADS as u64);
    if b == 0 { 1 } else { b }
}

macro_rules! check_kernels {
    ($($name:ident: $f:ty),*) => {$(
        $crate::kernel! {
            /// Lowers `first_bad` to the index of every weight that is negative, NaN or
            /// infinite (the caller starts it at `u64::MAX`).
            ///
            /// # Safety
            /// `weights` holds `n` elements; `first_bad` is one u64.
            pub unsafe fn $name(weights: *const $f, n: u64, first_bad: *mut u64) {
                // SAFETY: `i < n`; `first_bad` is only touched atomically.
                each(n, |i| unsafe {
                    let w = *weights.add(i as usize);
                    if !(w >= 0.0 && w.is_finite()) {
                        crate::simt::atomic::min_u64(first_bad, i);
                    }
                });
            }
        }
    )*};
}
check_kernels!(alias_check_weights_f32: f32, alias_check_weights_f64: f64);
