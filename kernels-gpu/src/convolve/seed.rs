//! The article's five forward kernels, written again on the SIMT layer so that the host can run
//! and time each as the seed describes it. All take `m >= n` (the host swaps the vectors) and
//! the article's strides, and write `r[i · incr]` for `i < m + n − 1`.
//!
//! - v0: a thread per output, testing every `j` against the band;
//! - v1: `m` threads, thread `i` computing `r[i]` and the wrapped `r[i + m]`, the same work each;
//! - v2: as v1 with `q` staged in shared memory a block's width at a time;
//! - v3: as v2 with `p` staged as well (a window of twice the block's width, indices taken
//!   modulo `m`);
//! - v4: v3's loop spread over a warp per output pair, summed by a shuffle butterfly.
//!
//! Where the seed reads outside `p` for threads or steps whose terms it then drops (threads
//! past `m` in v2, staged indices below `−m` in v3), these read nothing or wrap in range
//! instead, so every kernel is safe on any sizes; and v3 and v4 stop their last round at `n`
//! instead of multiplying the staged zeros past it, which would turn an infinite `p[i]` into a
//! NaN in outputs that have no term of it.

use super::Real;
use crate::launch::{LaunchShape, grid_extent};
use crate::op::Sum;
pub use crate::policy::convolve::{SEED_THREADS, WARPS_V4};
use crate::simt::shared::SharedSlice;
use crate::simt::{block_dim_x, block_idx, global_x, lane_id, sync_threads, thread_idx, thread_x};
use crate::warp;

own_kernel! {
    /// The article's parameters, shared by its five kernels: `r = p ⊛ q` for `p` of `m`
    /// elements and `q` of `n`, each vector at its (positive) stride in elements.
    pub struct Seed<F: Real> {
        /// Elements of `p`, at least `n`.
        pub m: u32,
        /// Elements of `q`, at least 1.
        pub n: u32,
        #[len(strided_reach(u64::from(m), incp))]
        pub p: *const F,
        pub incp: i64,
        #[len(strided_reach(u64::from(n), incq))]
        pub q: *const F,
        pub incq: i64,
        /// The `m + n − 1` outputs.
        #[len(strided_reach(u64::from(m) + u64::from(n) - 1, incr))]
        pub r: *mut F,
        pub incr: i64,
    }
    check |s, shape| n >= 1 && m >= n && m <= i32::MAX as u32 && incp >= 1 && incq >= 1 && incr >= 1;
    /// The article's v0 (see the [module](self)).
    fn v0 => convolve_v0_f32<f32>, convolve_v0_f64<f64>;
    check |s, shape| *shape == s.plan(Version::V0);
    /// The article's v1 (see the [module](self)).
    fn v1 => convolve_v1_f32<f32>, convolve_v1_f64<f64>;
    check |s, shape| *shape == s.plan(Version::V1);
    /// The article's v2 (see the [module](self)).
    fn v2 => convolve_v2_f32<f32>, convolve_v2_f64<f64>;
    check |s, shape| *shape == s.plan(Version::V2);
    /// The article's v3 (see the [module](self)).
    fn v3 => convolve_v3_f32<f32>, convolve_v3_f64<f64>;
    check |s, shape| *shape == s.plan(Version::V3);
    /// The article's v4 (see the [module](self)).
    fn v4 => convolve_v4_f32<f32>, convolve_v4_f64<f64>;
    check |s, shape| *shape == s.plan(Version::V4);
}

/// Elements from the first of `len` elements `stride` apart to just past the last: what a
/// vector of the article's kernels reaches from its pointer.
#[cfg(not(target_arch = "nvptx64"))]
pub const fn strided_reach(len: u64, stride: i64) -> u128 {
    if len == 0 {
        0
    } else {
        (len as u128 - 1) * stride.unsigned_abs() as u128 + 1
    }
}

/// The article's five kernels, for [`Seed::plan`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Version {
    V0,
    V1,
    V2,
    V3,
    V4,
}

impl<F: Real> Seed<F> {
    /// The article's launch of `version`: v0 a thread per output; v1 to v3 a thread per
    /// element of `p`, with `q` (v2) or `q` and two blocks' width of `p` (v3) staged in shared
    /// memory; v4 a warp per element of `p` (and its output pair), as blocks of [`WARPS_V4`] warps (in y) along the
    /// grid's y, with v3's staging.
    pub const fn plan(&self, version: Version) -> LaunchShape {
        let (m, size) = (self.m as u64, size_of::<F>() as u32);
        let per_element = m.div_ceil(SEED_THREADS as u64);
        match version {
            Version::V0 => {
                let outputs = (m + self.n as u64).saturating_sub(1);
                LaunchShape::linear(outputs.div_ceil(SEED_THREADS as u64), SEED_THREADS, 0)
            }
            Version::V1 => LaunchShape::linear(per_element, SEED_THREADS, 0),
            Version::V2 => LaunchShape::linear(per_element, SEED_THREADS, SEED_THREADS * size),
            Version::V3 => LaunchShape::linear(per_element, SEED_THREADS, 3 * SEED_THREADS * size),
            Version::V4 => {
                let rows = m.div_ceil(WARPS_V4 as u64);
                LaunchShape {
                    grid: [1, grid_extent(rows), 1],
                    block: [32, WARPS_V4, 1],
                    shared_bytes: 3 * 32 * WARPS_V4 * size,
                }
            }
        }
    }
}

#[inline(always)]
unsafe fn get<F: Copy>(v: *const F, inc: i64, i: i64) -> F {
    // SAFETY: the caller keeps `i` inside the vector.
    unsafe { *v.offset((i * inc) as isize) }
}

#[inline(always)]
unsafe fn put<F: Copy>(v: *mut F, inc: i64, i: i64, x: F) {
    // SAFETY: the caller keeps `i` inside the vector.
    unsafe { *v.offset((i * inc) as isize) = x }
}

/// Writes the pair of outputs thread or warp `i` owns: `r[i]`, and `r[i + m]` if it exists.
#[inline(always)]
unsafe fn put_pair<F: Copy>(m: i64, n: i64, r: *mut F, incr: i64, i: i64, first: F, second: F) {
    if i < m {
        // SAFETY: `i < m` and `i + m < m + n − 1`.
        unsafe {
            put(r, incr, i, first);
            if i < n - 1 {
                put(r, incr, i + m, second);
            }
        }
    }
}

/// v0's body.
///
/// # Safety
/// `m >= n >= 1`; `p`, `q` and `r` hold `m`, `n` and `m + n − 1` elements at their strides,
/// `r` sharing none with `p` or `q`; the launch is [`Seed::plan`] of this version.
#[inline(always)]
pub unsafe fn v0<F: Real>(s: Seed<F>) {
    let Seed {
        m,
        n,
        p,
        incp,
        q,
        incq,
        r,
        incr,
    } = s;
    let (m, n) = (m as i64, n as i64);
    let i = global_x() as i64;
    if i < m + n - 1 {
        let mut sum = F::ZERO;
        for j in 0..n {
            if 0 <= i - j && i - j < m {
                // SAFETY: both indices in range.
                sum = unsafe { get(p, incp, i - j).fma(get(q, incq, j), sum) };
            }
        }
        // SAFETY: `i < m + n − 1`.
        unsafe { put(r, incr, i, sum) };
    }
}

/// v1's body.
///
/// # Safety
/// `m >= n >= 1`; `p`, `q` and `r` hold `m`, `n` and `m + n − 1` elements at their strides,
/// `r` sharing none with `p` or `q`; the launch is [`Seed::plan`] of this version.
#[inline(always)]
pub unsafe fn v1<F: Real>(s: Seed<F>) {
    let Seed {
        m,
        n,
        p,
        incp,
        q,
        incq,
        r,
        incr,
    } = s;
    let (m, n) = (m as i64, n as i64);
    let i = global_x() as i64;
    if i < m {
        let (mut first, mut second) = (F::ZERO, F::ZERO);
        for j in 0..n {
            // SAFETY: `0 <= i − j < m` or `0 <= m + i − j < m` (as `j < n <= m`).
            unsafe {
                let qj = get(q, incq, j);
                if i >= j {
                    first = get(p, incp, i - j).fma(qj, first);
                } else {
                    second = get(p, incp, m + i - j).fma(qj, second);
                }
            }
        }
        // SAFETY: the outputs of `i`.
        unsafe { put_pair(m, n, r, incr, i, first, second) };
    }
}

/// v2's body.
///
/// # Safety
/// `m >= n >= 1`; `p`, `q` and `r` hold `m`, `n` and `m + n − 1` elements at their strides,
/// `r` sharing none with `p` or `q`; the launch is [`Seed::plan`] of this version.
#[inline(always)]
pub unsafe fn v2<F: Real>(s: Seed<F>) {
    let Seed {
        m,
        n,
        p,
        incp,
        q,
        incq,
        r,
        incr,
    } = s;
    let (m, n) = (m as i64, n as i64);
    let width = block_dim_x() as i64;
    // SAFETY: the launch gives `width` elements of shared memory.
    let qs = unsafe { SharedSlice::<F>::carve(0, width as u32) };
    let i = global_x() as i64;
    let t = thread_x();
    let (mut first, mut second) = (F::ZERO, F::ZERO);
    let mut base = 0;
    while base < n {
        // SAFETY: every thread runs the same rounds.
        unsafe { sync_threads() };
        let j = base + t as i64;
        // SAFETY: `j < n`.
        qs.set(
            t,
            if j < n {
                unsafe { get(q, incq, j) }
            } else {
                F::ZERO
            },
        );
        // SAFETY: as above.
        unsafe { sync_threads() };
        if i < m {
            for k in 0..width.min(n - base) {
                let j = base + k;
                // SAFETY: `k < width`.
                let qj = unsafe { qs.get_unchecked(k as u32) };
                // SAFETY: as in v1.
                unsafe {
                    if i >= j {
                        first = get(p, incp, i - j).fma(qj, first);
                    } else {
                        second = get(p, incp, m + i - j).fma(qj, second);
                    }
                }
            }
        }
        base += width;
    }
    // SAFETY: the outputs of `i`.
    unsafe { put_pair(m, n, r, incr, i, first, second) };
}

/// Stages `q[base_j ..]` (zeros past `n`) and `p[(base_i − width ..  base_i + width) mod m]`
/// into `qs` (`width`) and `ps` (`2 · width`, element `width + d` holding offset `d`), as v3 and
/// v4 do: thread `t` of `width` writes `q` element `t` and `p` offsets `t` and `t − width`.
#[inline(always)]
unsafe fn stage<F: Real>(
    (m, n): (i64, i64),
    (p, incp, q, incq): (*const F, i64, *const F, i64),
    (qs, ps): (&SharedSlice<F>, &SharedSlice<F>),
    (base_i, base_j): (i64, i64),
    width: i64,
    t: i64,
) {
    let j = base_j + t;
    // SAFETY: `j < n`; the `p` indices are reduced into `0 .. m`.
    unsafe {
        qs.set(t as u32, if j < n { get(q, incq, j) } else { F::ZERO });
        ps.set((width + t) as u32, get(p, incp, (base_i + t).rem_euclid(m)));
        ps.set(t as u32, get(p, incp, (base_i + t - width).rem_euclid(m)));
    }
}

/// v3's body.
///
/// # Safety
/// `m >= n >= 1`; `p`, `q` and `r` hold `m`, `n` and `m + n − 1` elements at their strides,
/// `r` sharing none with `p` or `q`; the launch is [`Seed::plan`] of this version.
#[inline(always)]
pub unsafe fn v3<F: Real>(s: Seed<F>) {
    let Seed {
        m,
        n,
        p,
        incp,
        q,
        incq,
        r,
        incr,
    } = s;
    let (m, n) = (m as i64, n as i64);
    let width = block_dim_x() as i64;
    // SAFETY: the launch gives `3 · width` elements of shared memory.
    let (qs, ps) = unsafe {
        (
            SharedSlice::<F>::carve(0, width as u32),
            SharedSlice::<F>::carve(width as u32 * size_of::<F>() as u32, 2 * width as u32),
        )
    };
    let t = thread_x() as i64;
    let (mut first, mut second) = (F::ZERO, F::ZERO);
    let mut base_i = block_idx().x as i64 * width;
    let mut base_j = 0;
    while base_j < n {
        // SAFETY: every thread runs the same rounds.
        unsafe { sync_threads() };
        // SAFETY: `width` threads stage their elements.
        unsafe { stage((m, n), (p, incp, q, incq), (&qs, &ps), (base_i, base_j), width, t) };
        // SAFETY: as above.
        unsafe { sync_threads() };
        for k in 0..width.min(n - base_j) {
            // SAFETY: `0 < width + t − k < 2 · width` and `k < width`.
            let (a, b) = unsafe {
                (
                    ps.get_unchecked((width + t - k) as u32),
                    qs.get_unchecked(k as u32),
                )
            };
            if base_i + t - k >= 0 {
                first = a.fma(b, first);
            } else {
                second = a.fma(b, second);
            }
        }
        base_i -= width;
        base_j += width;
    }
    let i = block_idx().x as i64 * width + t;
    // SAFETY: the outputs of `i`.
    unsafe { put_pair(m, n, r, incr, i, first, second) };
}

/// v4's body: block `32 × WARPS_V4`, warp `y` owning output pair `blockIdx.y · WARPS_V4 + y`.
///
/// # Safety
/// `m >= n >= 1`; `p`, `q` and `r` hold `m`, `n` and `m + n − 1` elements at their strides,
/// `r` sharing none with `p` or `q`; the launch is [`Seed::plan`] of this version.
#[inline(always)]
pub unsafe fn v4<F: Real>(s: Seed<F>) {
    let Seed {
        m,
        n,
        p,
        incp,
        q,
        incq,
        r,
        incr,
    } = s;
    let (m, n) = (m as i64, n as i64);
    let warps = WARPS_V4 as i64;
    let width = 32 * warps;
    // SAFETY: the launch gives `3 · width` elements of shared memory.
    let (qs, ps) = unsafe {
        (
            SharedSlice::<F>::carve(0, width as u32),
            SharedSlice::<F>::carve(width as u32 * size_of::<F>() as u32, 2 * width as u32),
        )
    };
    let l = thread_idx().y as i64;
    let t = l * 32 + lane_id() as i64;
    let (mut first, mut second) = (F::ZERO, F::ZERO);
    let mut base_i = block_idx().y as i64 * warps;
    let mut base_j = 0;
    while base_j < n {
        // SAFETY: every thread runs the same rounds.
        unsafe { sync_threads() };
        // SAFETY: `width` threads stage their elements.
        unsafe { stage((m, n), (p, incp, q, incq), (&qs, &ps), (base_i, base_j), width, t) };
        // SAFETY: as above.
        unsafe { sync_threads() };
        let mut k = lane_id() as i64;
        while k < width.min(n - base_j) {
            // SAFETY: `0 < width + l − k < 2 · width` and `k < width`.
            let (a, b) = unsafe {
                (
                    ps.get_unchecked((width + l - k) as u32),
                    qs.get_unchecked(k as u32),
                )
            };
            if base_i + l - k >= 0 {
                first = a.fma(b, first);
            } else {
                second = a.fma(b, second);
            }
            k += 32;
        }
        base_i -= width;
        base_j += width;
    }
    // Both sums in one butterfly, each round's shuffles of the two issued together.
    // SAFETY: every lane of the warp arrives.
    (first, second) = unsafe { warp::reduce((first, second), (Sum, Sum)) };
    if lane_id() == 0 {
        // SAFETY: the outputs of `i`.
        unsafe { put_pair(m, n, r, incr, block_idx().y as i64 * warps + l, first, second) };
    }
}
