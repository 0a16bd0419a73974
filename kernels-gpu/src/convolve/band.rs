//! The band kernel: outputs `out[j] = Σ_k a[lo + j − k] · b[k]` for `j < len`, a window of the
//! full convolution of `a` and `b` (all of it for a forward product, `n` or `m` outputs of it
//! for a gradient), for a list of [`Job`]s in one launch: up to two inline ([`Band`], checked by
//! the host's binder) or any number listed in device memory ([`BandList`], tested by the
//! kernel; see [`job`](super::job)).
//!
//! A block owns a tile of [`TILE`] consecutive outputs of one job and a slice of the `k` range
//! that reaches them (`gridDim.y` slices, so a long inner sum spreads over more blocks than
//! there are tiles). It stages `b[k0 .. k0 + CHUNK]` and the matching stretch of `a`, zeros
//! outside both vectors, in shared memory; each thread then runs eight consecutive outputs over
//! the chunk, eight steps at a time: the eight elements of `a` that enter its window and the
//! eight `b[k]` come in as two 128-bit loads each (`b`'s a broadcast), for 64 FMAs. The zeros
//! replace the article's two triangles, so the inner loop has no branch. With one slice a block
//! writes its outputs; with several it writes a partial sum per slice and
//! [`sum_slices`] adds them in slice order, so results do not depend on
//! timing (no atomics).
//!
//! A staged zero times an infinite or NaN element would be NaN where the sum has no such term,
//! so the zeros must only meet finite values: the steps past the chunk's end (its last `kc % 8`)
//! and any chunk whose `b` holds a non-finite value while `a`'s stretch runs past an end of `a`
//! go through a loop that tests every term instead. Both loops add the terms in the same order,
//! so finite inputs give the same bits either way.

use super::job::{InlineJobs, Job, Listed, MOST_ELEMENTS, element, find_listed, inside, vector};
use super::{Real, Stored};
use crate::launch::{LaunchShape, Limits, grid_extent};
pub use crate::policy::convolve::{BAND_CHUNK as CHUNK, BAND_THREADS as THREADS};
use crate::policy::convolve::{
    BAND_RESIDENT_PER_SM, LANES_STAGE, LANES_WARPS, LANES_WARPS_PER_SM, SUM_BLOCKS_PER_SM, SUM_THREADS,
    WARP_SUMS_WARPS,
};
use crate::simt::shared::{Quad, SharedSlice};
use crate::simt::warp::{FULL_MASK, all, any, shfl_idx};
use crate::simt::{
    block_dim_x, block_idx, block_x, global_x, grid_threads_x, lane_id, sync_threads, sync_warp, thread_x,
    warp_id,
};

/// Consecutive outputs per thread.
const PER_THREAD: u32 = 8;
/// Outputs per block.
pub const TILE: u32 = THREADS * PER_THREAD;
const _: () = assert!(CHUNK.is_multiple_of(THREADS) && TILE.is_multiple_of(THREADS));

const _: () = assert!(
    THREADS <= crate::launch_bounds::BAND_LISTED_F32.max_threads
        && THREADS <= crate::launch_bounds::BAND_LISTED_F64.max_threads
);

const _: () = assert!(32 * LANES_WARPS <= crate::launch_bounds::LANES.max_threads);

/// Warps per block.
const WARPS: u32 = THREADS / 32;

/// Dynamic shared memory of a block for elements of `bytes` bytes: `a`'s stretch (`TILE +
/// CHUNK`), `b`'s chunk and a word per warp.
pub const fn shared_bytes(bytes: u32) -> u32 {
    (TILE + 2 * CHUNK) * bytes + 4 * WARPS
}

/// Eight steps of eight outputs: `acc[t] += a[i0 + t − s] · b[s]` for `s < 8`, where `below`
/// holds `a[i0 − 8 ..= i0 − 1]` and `window` `a[i0 ..= i0 + 7]`. All indices are constants
/// after unrolling, so the window never leaves registers.
#[inline(always)]
fn eight_steps<F: Real>(acc: &mut [F; 8], below: &[F; 8], window: &[F; 8], b: &[F; 8]) {
    for (s, &bs) in b.iter().enumerate() {
        for (t, sum) in acc.iter_mut().enumerate() {
            let i = 8 + t - s;
            let a = if i < 8 { below[i] } else { window[i - 8] };
            *sum = a.fma(bs, *sum);
        }
    }
}

own_kernel! {
    /// Parameters of the band kernel and of its slice sums over up to [`INLINE_JOBS`]
    /// (`count`) jobs in the parameters, holding addresses of `S` elements summed in `F`. The
    /// family's contract is checked by its own `Checked` implementation
    /// (in the host build's `convolve::band_check`), which reads the jobs.
    ///
    /// [`INLINE_JOBS`]: super::job::INLINE_JOBS
    pub struct Band<S: Stored<F>, F: Real> {
        /// The jobs' words.
        pub inline: InlineJobs<S>,
        /// Jobs, 1 or 2.
        pub count: u32,
        /// Tiles of all jobs together: the band launch's grid in x.
        pub tiles: u64,
        /// Outputs of all jobs together.
        pub outputs: u64,
        /// Slices of the inner sum: the band launch's grid in y.
        pub slices: u32,
        /// With more than one slice, `slices * outputs` partial sums (else unused).
        pub partial: *mut F,
    }
    /// The band kernel, elements kept and summed in f32; kept in f32 and summed in f64; kept
    /// and summed in f64.
    fn band => convolve_band_f32<f32, f32>, convolve_band_f32_wide<f32, f64>, convolve_band_f64<f64, f64>;
    check |p, shape| *shape == p.plan();
    /// The slice sums of the band kernels above, in the same order.
    fn sum_slices => convolve_sum_slices_f32<f32, f32>, convolve_sum_slices_f32_wide<f32, f64>,
        convolve_sum_slices_f64<f64, f64>;
    check |p, shape| p.slices > 1 && shape.is_1d();
    /// The lane kernel over the same jobs (one slice), in the same order.
    fn lanes => convolve_lanes_f32<f32, f32>, convolve_lanes_f32_wide<f32, f64>,
        convolve_lanes_f64<f64, f64>;
    check |p, shape| p.slices == 1 && p.lanes_fit(shape);
    /// The warp kernel over the same jobs (one slice), in the same order.
    fn warp_sums => convolve_warp_sums_f32<f32, f32>, convolve_warp_sums_f32_wide<f32, f64>,
        convolve_warp_sums_f64<f64, f64>;
    check |p, shape| p.slices == 1 && *shape == p.warp_sums_plan();
}

own_kernel! {
    /// Parameters of the band kernel and of its slice sums over `count` [`Listed`] jobs in
    /// device memory, elements kept as `S` and summed in `F`. The jobs name their vectors by
    /// offsets in three input fields and two output fields (a field a launch does not use is
    /// null and empty), and the kernels test each job against them.
    pub struct BandList<S: Stored<F>, F: Real> {
        /// The jobs.
        #[len(count)]
        pub list: *const Listed,
        /// Jobs, at least 1.
        pub count: u32,
        /// Outputs of all jobs together.
        pub outputs: u64,
        #[len(in0_len)]
        pub in0: *const S,
        pub in0_len: u64,
        #[len(in1_len)]
        pub in1: *const S,
        pub in1_len: u64,
        #[len(in2_len)]
        pub in2: *const S,
        pub in2_len: u64,
        #[len(out0_len)]
        pub out0: *mut S,
        pub out0_len: u64,
        #[len(out1_len)]
        pub out1: *mut S,
        pub out1_len: u64,
        /// Slices of the inner sum: the band launch's grid in y.
        pub slices: u32,
        /// With more than one slice, `slices * outputs` partial sums (else unused).
        #[len(if slices > 1 { u128::from(slices) * u128::from(outputs) } else { 0 })]
        pub partial: *mut F,
    }
    check |p, shape| count >= 1 && slices >= 1;
    /// The band kernels over listed jobs, in the order of [`Band`]'s.
    fn band_listed => convolve_band_listed_f32<f32, f32>, convolve_band_listed_f32_wide<f32, f64>,
        convolve_band_listed_f64<f64, f64>;
    check |p, shape| *shape == p.plan(u64::from(shape.grid[0]));
    /// Their slice sums.
    fn sum_slices_listed => convolve_sum_slices_listed_f32<f32, f32>,
        convolve_sum_slices_listed_f32_wide<f32, f64>, convolve_sum_slices_listed_f64<f64, f64>;
    check |p, shape| p.slices > 1 && shape.is_1d();
}

/// Slices of the inner sum for jobs of `tiles` tiles in all whose longest `b` has `longest`
/// elements: one where the tiles make two waves of about [`BAND_RESIDENT_PER_SM`] blocks a
/// multiprocessor, else enough for that, a slice of at least one chunk each.
pub const fn slices_for(tiles: u64, longest: u64, limits: &Limits) -> u32 {
    let waves = 2 * BAND_RESIDENT_PER_SM * limits.multiprocessors as u64;
    if tiles >= waves || tiles == 0 {
        return 1;
    }
    let slices = waves.div_ceil(tiles);
    let chunks = longest.div_ceil(CHUNK as u64);
    let slices = if chunks < slices { chunks } else { slices };
    if slices < 1 {
        1
    } else if slices > 65535 {
        65535
    } else {
        slices as u32
    }
}

/// The band launch over `tiles` tiles and `slices` slices of elements summed in `F`: a block
/// of [`THREADS`] per tile (in x) and slice (in y), with [`shared_bytes`] for `F`.
pub const fn band_shape<F>(tiles: u64, slices: u32) -> LaunchShape {
    LaunchShape {
        grid: [grid_extent(tiles), slices, 1],
        block: [THREADS, 1, 1],
        shared_bytes: shared_bytes(size_of::<F>() as u32),
    }
}

/// The slice sums' grid-stride loop over `outputs` outputs: a thread an output, at most
/// [`SUM_BLOCKS_PER_SM`] blocks a multiprocessor.
pub const fn sums_shape(outputs: u64, limits: &Limits) -> LaunchShape {
    let blocks = outputs.div_ceil(SUM_THREADS as u64);
    let most = limits.multiprocessors as u64 * SUM_BLOCKS_PER_SM;
    LaunchShape::linear(if blocks < most { blocks } else { most }, SUM_THREADS, 0)
}

impl<S: Stored<F>, F: Real> Band<S, F> {
    /// The band launch over these jobs: [`band_shape`].
    pub const fn plan(&self) -> LaunchShape {
        band_shape::<F>(self.tiles, self.slices)
    }

    /// The lane launch over these jobs on a device of `limits`: [`lanes_shape`] with enough
    /// warps a block for about [`LANES_WARPS_PER_SM`] a multiprocessor, at most
    /// [`LANES_WARPS`].
    pub const fn lanes_plan(&self, limits: &Limits) -> LaunchShape {
        let tiles = self.outputs.div_ceil(32);
        let want =
            (LANES_WARPS_PER_SM * limits.multiprocessors as u64).div_ceil(if tiles == 0 { 1 } else { tiles });
        let warps = if want > LANES_WARPS as u64 {
            LANES_WARPS
        } else if want < 1 {
            1
        } else {
            want as u32
        };
        lanes_shape::<S, F>(self.outputs, warps)
    }

    /// The warp launch over these jobs: an output a warp, [`WARP_SUMS_WARPS`] a block.
    pub const fn warp_sums_plan(&self) -> LaunchShape {
        LaunchShape::linear(
            self.outputs.div_ceil(WARP_SUMS_WARPS as u64),
            32 * WARP_SUMS_WARPS,
            0,
        )
    }

    /// Whether `shape` is a lane launch over these jobs ([`lanes_shape`] of 1 to
    /// [`LANES_WARPS`] warps).
    pub const fn lanes_fit(&self, shape: &LaunchShape) -> bool {
        let warps = shape.block[0] / 32;
        if warps < 1 || warps > LANES_WARPS {
            return false;
        }
        let want = lanes_shape::<S, F>(self.outputs, warps);
        want.grid[0] == shape.grid[0]
            && want.block[0] == shape.block[0]
            && want.shared_bytes == shape.shared_bytes
            && shape.is_1d()
    }
}

/// The lane launch over `outputs` outputs of elements kept as `S` and summed in `F`: a block of
/// `warps` warps for each 32 consecutive outputs, with a partial sum a thread and a warp's
/// [`lane_stage_len`] elements of each vector in shared memory.
pub const fn lanes_shape<S, F>(outputs: u64, warps: u32) -> LaunchShape {
    let per_warp = 32 * size_of::<F>() as u32 + 2 * lane_stage_len() * size_of::<S>() as u32;
    LaunchShape::linear(outputs.div_ceil(32), 32 * warps, warps * per_warp)
}

/// Elements of each vector a warp of the lane kernel stages at a time: [`LANES_STAGE`] steps
/// of the inner sum, and 31 more for the warp's outputs, whose stretches start up to 31 apart.
pub const fn lane_stage_len() -> u32 {
    LANES_STAGE + 32
}

/// Rounds of a warp's loads that fill a stage, an element a lane each.
const STAGE_ROUNDS: usize = (lane_stage_len() / 32) as usize;
const _: () = assert!(LANES_STAGE.is_multiple_of(32));

impl<S: Stored<F>, F: Real> BandList<S, F> {
    /// The band launch over these jobs' `tiles` tiles: [`band_shape`].
    pub const fn plan(&self, tiles: u64) -> LaunchShape {
        band_shape::<F>(tiles, self.slices)
    }

    /// Input field `k` and its length (null and 0 past the third).
    #[inline(always)]
    fn input(&self, k: u64) -> (*const S, u64) {
        match k {
            0 => (self.in0, self.in0_len),
            1 => (self.in1, self.in1_len),
            2 => (self.in2, self.in2_len),
            _ => (core::ptr::null(), 0),
        }
    }

    /// Output field `k` and its length (null and 0 past the second).
    #[inline(always)]
    fn output(&self, k: u64) -> (*mut S, u64) {
        match k {
            0 => (self.out0, self.out0_len),
            1 => (self.out1, self.out1_len),
            _ => (core::ptr::null_mut(), 0),
        }
    }
}

/// The band kernel's body over inline jobs, for this block's tile and slice.
///
/// # Safety
/// The family's contract, which its `Checked` implementation tests on the host: 1 or 2 jobs,
/// tiles and outputs in increasing order without gaps, the launch [`band_shape`] for all their
/// tiles; lengths and windows at most 2^40; every product's vectors inside live memory,
/// outputs writable; with more than one slice, `partial` holding `slices * outputs` elements.
/// Every output is then written once.
#[inline(always)]
pub unsafe fn band<S: Stored<F>, F: Real>(p: Band<S, F>) {
    let tile = block_x() as u64;
    let job = p.inline.find(p.count, tile, |j| j.first_tile);
    let job = job.product_of(tile - job.first_tile, Job::tiles);
    let first = (tile - job.first_tile) * TILE as u64; // the tile's first output in the window
    let vectors = (vector(job.a), vector(job.b), vector(job.out));
    // SAFETY: the family's contract.
    unsafe {
        run_tile::<S, F>(
            &job,
            vectors,
            first,
            (block_idx().y, p.slices),
            (p.partial, p.outputs),
        )
    }
}

/// The band kernel's body over listed jobs, for this block's tile and slice.
///
/// # Safety
/// The family's checks (`count >= 1` jobs in `list`; each field holding its length; with more
/// than one slice, `partial` holding `slices * outputs` elements) and the entry's (the launch
/// is [`band_shape`]). The jobs' contents are not trusted: a block whose product would reach
/// past a field, or whose tile lies past its product's outputs, returns before its first
/// barrier. For jobs as the host builds them (tiles and outputs in increasing order, a block
/// for each tile) every output is written once.
#[inline(always)]
pub unsafe fn band_listed<S: Stored<F>, F: Real>(p: BandList<S, F>) {
    let (tile, slices) = (block_x() as u64, p.slices);
    // SAFETY: the family's checks.
    let listed = unsafe { find_listed(p.list, p.count, tile, |j| j.first_tile) };
    let job = listed
        .job
        .product_of(tile.wrapping_sub(listed.job.first_tile), Job::tiles);
    let first = tile.wrapping_sub(job.first_tile).wrapping_mul(TILE as u64); // the tile's first output in the window
    let (a_field, b_field, out_field) = listed.field_of();
    let ((a_base, a_cap), (b_base, b_cap), (out_base, out_cap)) =
        (p.input(a_field), p.input(b_field), p.output(out_field));
    // The one test of the job's contents, uniform over the block (so every thread returns or
    // none, before any barrier): the tile inside the product, lengths that keep the index
    // arithmetic from wrapping, both vectors inside their fields and the outputs inside
    // theirs (or inside the partial sums). Past it, the tile's own bounds keep every access in
    // range: `b` below `b_len`, `a` tested against `a_len`, outputs below `len`.
    let bounded = job.len <= MOST_ELEMENTS
        && job.lo <= MOST_ELEMENTS
        && job.a_len <= MOST_ELEMENTS
        && job.b_len <= MOST_ELEMENTS;
    let stored = if slices == 1 {
        inside(job.out, job.out_stride, job.len, out_cap)
    } else {
        job.first_out
            .checked_add(job.len)
            .is_some_and(|end| end <= p.outputs)
    };
    if !(first < job.len
        && bounded
        && stored
        && inside(job.a, job.a_stride, job.a_len, a_cap)
        && inside(job.b, job.b_stride, job.b_len, b_cap))
    {
        return;
    }
    let vectors = (
        a_base.cast_mut().wrapping_add(job.a as usize),
        b_base.cast_mut().wrapping_add(job.b as usize),
        out_base.wrapping_add(job.out as usize),
    );
    // SAFETY: tested above.
    unsafe {
        run_tile::<S, F>(
            &job,
            vectors,
            first,
            (block_idx().y, slices),
            (p.partial, p.outputs),
        )
    }
}

/// One block's work: the tile of product `job`, whose vectors start at `a`, `b` and `out`,
/// from its output `first`, over slice `slice` of `slices` of the inner sum; written out, or
/// with several slices to the tile's slots of `partial` (`outputs` a slice).
///
/// # Safety
/// `first < job.len`, lengths and `lo` at most 2^40, the job's vectors readable and its
/// outputs writable; with several slices, `first_out + len <= outputs` and `partial` holding
/// `slices * outputs` elements; every thread of the block calls it alike.
#[inline(always)]
unsafe fn run_tile<S: Stored<F>, F: Real>(
    job: &Job,
    (a, b, out): (*mut S, *mut S, *mut S),
    first: u64,
    (slice, slices): (u32, u32),
    (partial, outputs): (*mut F, u64),
) {
    let o0 = job.lo + first; // ... in the full convolution
    let outs = (job.len - first).min(TILE as u64);
    // The k that meet a nonzero product for some output of the tile, cut into slices of whole
    // eight-step blocks.
    let k_lo = (o0 + 1).saturating_sub(job.a_len);
    let k_hi = job.b_len.min(o0 + outs);
    let per = k_hi
        .saturating_sub(k_lo)
        .div_ceil(slices as u64)
        .next_multiple_of(8);
    let start = (k_lo + slice as u64 * per).min(k_hi);
    let end = (start + per).min(k_hi);

    let size = size_of::<F>() as u32;
    // SAFETY: the launch gives `shared_bytes`; the scalar and vector views of each region are
    // used between different barriers (staging, then the steps).
    let (a_s, b_s, a_v, b_v) = unsafe {
        (
            SharedSlice::<F>::carve(0, TILE + CHUNK),
            SharedSlice::<F>::carve((TILE + CHUNK) * size, CHUNK),
            SharedSlice::<Quad<F::Lanes>>::carve(0, (TILE + CHUNK) * size / 16),
            SharedSlice::<Quad<F::Lanes>>::carve((TILE + CHUNK) * size, CHUNK * size / 16),
        )
    };
    // SAFETY: the last `4 * WARPS` bytes of `shared_bytes`, 4-byte aligned.
    let warp_flags = unsafe { SharedSlice::<u32>::carve((TILE + 2 * CHUNK) * size, WARPS) };
    let t = thread_x();
    let mut acc = [F::ZERO; 8];
    let mut k0 = start;
    while k0 < end {
        let kc = (end - k0).min(CHUNK as u64) as u32;
        // SAFETY: every thread of the block runs the same chunks.
        unsafe { sync_threads() };
        // Every load first, then every store: a loop that stores each value as it arrives
        // waits out a memory latency per element (ncu, m = n = 2048: 11 000 cycles a block).
        let base = o0 as i64 - k0 as i64 - CHUNK as i64; // local element `i` is a[base + i]
        let mut b_own = [F::ZERO; (CHUNK / THREADS) as usize];
        for (u, v) in b_own.iter_mut().enumerate() {
            let i = t + u as u32 * THREADS;
            if i < kc {
                // SAFETY: `k0 + i < end <= b_len`.
                *v = unsafe { *element(b, job.b_stride, k0 + i as u64) }.widen();
            }
        }
        let mut a_own = [F::ZERO; ((TILE + CHUNK) / THREADS) as usize];
        for (u, v) in a_own.iter_mut().enumerate() {
            let idx = base + (t + u as u32 * THREADS) as i64;
            if idx >= 0 && (idx as u64) < job.a_len {
                // SAFETY: `idx < a_len`.
                *v = unsafe { *element(a, job.a_stride, idx as u64) }.widen();
            }
        }
        let mut non_finite = false;
        for (u, &v) in b_own.iter().enumerate() {
            non_finite |= v.to_bits64() & F::EXPONENT == F::EXPONENT;
            // SAFETY: `t + u * THREADS < CHUNK`.
            unsafe { b_s.set_unchecked(t + u as u32 * THREADS, v) };
        }
        for (u, &v) in a_own.iter().enumerate() {
            // SAFETY: `t + u * THREADS < TILE + CHUNK`.
            unsafe { a_s.set_unchecked(t + u as u32 * THREADS, v) };
        }
        // SAFETY: every lane of the warp votes; the warp's own word.
        let warp_non_finite = unsafe { any(FULL_MASK, non_finite) };
        if lane_id() == 0 {
            warp_flags.set(warp_id(), warp_non_finite as u32);
        }
        let padded = base < 0 || base + (TILE + CHUNK) as i64 > job.a_len as i64;
        // SAFETY: as above.
        unsafe { sync_threads() };
        // This thread's outputs j = 8t + u need a[o0 + 8t + u − k] = local CHUNK + 8t + u − kk.
        let mine = CHUNK + PER_THREAD * t;
        let exact = padded && (0..WARPS).any(|w| warp_flags.get(w) != 0);
        // The steps where some output of this warp meets `a` (`k > o − a_len` and `k <= o`),
        // from a multiple of 8: the rest are zeros, skipped by whole warps, so `b` stays a
        // broadcast (a tile's warps past a short job's end skip the chunk).
        let warp_first = o0 as i64 + (32 * PER_THREAD * warp_id()) as i64 - k0 as i64;
        let from = (warp_first + 1 - job.a_len as i64).clamp(0, kc as i64) as u32 / 8 * 8;
        let to = (warp_first + (32 * PER_THREAD) as i64).clamp(0, kc as i64) as u32;
        let fast = if exact {
            from
        } else {
            (kc / 8 * 8).min(to.next_multiple_of(8))
        };
        // SAFETY: `mine − from <= mine`, `mine + 8 <= TILE + CHUNK`; `mine − kk − 8 >= 0` as
        // `kk < kc <= CHUNK`; every index is a multiple of 8.
        let mut window = unsafe { F::eight(&a_v, mine - from) };
        let mut kk = from;
        while kk < fast {
            // SAFETY: as above; `kk + 8 <= CHUNK`.
            let (below, b) = unsafe { (F::eight(&a_v, mine - kk - 8), F::eight(&b_v, kk)) };
            eight_steps(&mut acc, &below, &window, &b);
            window = below;
            kk += 8;
        }
        while kk < kc.min(to) {
            let bk = b_s.get(kk);
            for (u, sum) in acc.iter_mut().enumerate() {
                let local = mine + u as u32 - kk;
                let idx = base + local as i64;
                if idx >= 0 && (idx as u64) < job.a_len {
                    *sum = a_s.get(local).fma(bk, *sum);
                }
            }
            kk += 1;
        }
        k0 += kc as u64;
    }

    for (u, &sum) in acc.iter().enumerate() {
        let j = (PER_THREAD * t) as u64 + u as u64;
        if j < outs {
            let o = first + j;
            // SAFETY: `o < job.len`: one of the job's outputs, or its slot of the partial sums
            // (`first_out + len <= outputs`; `slice < slices`): the caller's contract.
            unsafe {
                if slices == 1 {
                    *element(out, job.out_stride, o) = S::narrow(sum);
                } else {
                    *partial.add((slice as u64 * outputs + job.first_out + o) as usize) = sum;
                }
            }
        }
    }
}

/// One output of a launch's inline jobs, as the lane and warp kernels sum it.
struct Output {
    /// Its product, as a job of its own.
    job: Job,
    /// Its place in the product's window, and in the full convolution (`lo + j`).
    j: u64,
    o: u64,
    /// Its terms: `k_lo <= k < k_hi`, those inside both vectors.
    k_lo: u64,
    k_hi: u64,
}

impl<S: Stored<F>, F: Real> Band<S, F> {
    /// Output `f` of the jobs (`f < outputs`).
    #[inline(always)]
    fn output(&self, f: u64) -> Output {
        let job = self.inline.find(self.count, f, |j| j.first_out);
        let job = job.product_of(f - job.first_out, |j| j.len);
        let j = f - job.first_out;
        let o = job.lo + j;
        Output {
            job,
            j,
            o,
            k_lo: (o + 1).saturating_sub(job.a_len),
            k_hi: job.b_len.min(o + 1),
        }
    }
}

/// The lane kernel's body over inline jobs: for products too short for the band kernel's tiles
/// to fill the device in one launch. Output `32·b + lane` of all jobs belongs to lane `lane`
/// of block `b`; warp `w` of the block's `W` sums the `w`-th of `W` equal stretches of that
/// output's terms, in increasing `k`; warp 0 then adds the stretches in order and writes the
/// output. Every term is tested against both vectors' bounds, so no zero meets an infinity and
/// one launch does it all.
///
/// Where the warp's 32 outputs are consecutive outputs of one product (all but the warps that
/// straddle two), their stretches start at most 31 apart in `k` and in `o − k`, so the warp
/// stages [`LANES_STAGE`] steps of all 32 at a time, [`lane_stage_len`] elements of each vector
/// in one round of loads, and sums from shared memory: the loads' latency is met once a stage
/// instead of once a step. A straddling warp reads both vectors where they lie. Both ways add
/// the same terms in the same order, so they give the same bits.
///
/// # Safety
/// As for [`band`], on a [`lanes_shape`] launch (one slice; `partial` unused).
#[inline(always)]
pub unsafe fn lanes<S: Stored<F>, F: Real>(p: Band<S, F>) {
    let warps = block_dim_x() / 32;
    let first = block_x() as u64 * 32;
    // SAFETY: the launch gives `32 * warps` elements of `F` and then a warp's two stages after
    // another (`lanes_shape`).
    let (sums, stage_a, stage_b) = unsafe {
        let len = lane_stage_len();
        let sums_bytes = 32 * warps * size_of::<F>() as u32;
        let at = sums_bytes + warp_id() * 2 * len * size_of::<S>() as u32;
        (
            SharedSlice::<F>::carve(0, 32 * warps),
            SharedSlice::<S>::carve(at, len),
            SharedSlice::<S>::carve(at + len * size_of::<S>() as u32, len),
        )
    };
    let mut sum = F::ZERO;
    let mut place = None;
    // The block's first output decides for all its threads, so the warp votes below are whole.
    if first < p.outputs {
        // A lane past the last output sums the last one's terms again and writes nothing.
        let f = (first + lane_id() as u64).min(p.outputs - 1);
        let Output {
            job,
            j,
            o,
            k_lo,
            k_hi,
        } = p.output(f);
        let per = job.a_len.min(job.b_len).div_ceil(warps as u64);
        let start = (k_lo + warp_id() as u64 * per).min(k_hi);
        let stretch = Stretch {
            a: vector::<S>(job.a),
            a_stride: job.a_stride,
            b: vector::<S>(job.b),
            b_stride: job.b_stride,
            o,
            start,
            terms: (start + per).min(k_hi) - start,
        };
        // SAFETY: every lane is here (the block's first output is), and `f − j` (the first
        // output of `f`'s product) tells products apart.
        let one_product = unsafe { all(FULL_MASK, shfl_idx(FULL_MASK, f - j, 0) == f - j) };
        sum = if one_product {
            // SAFETY: the warp's lanes hold consecutive outputs of one product (the last
            // repeated), each stretch inside both vectors; the stages are this warp's.
            unsafe { stretch.staged((job.a_len, job.b_len), (stage_a, stage_b)) }
        } else {
            // SAFETY: each stretch lies inside both vectors.
            unsafe { stretch.global() }
        };
        place = (f == first + lane_id() as u64).then(|| element(vector::<S>(job.out), job.out_stride, j));
    }
    sums.set(thread_x(), sum);
    // SAFETY: every thread of the block reaches it.
    unsafe { sync_threads() };
    if let (0, Some(at)) = (warp_id(), place) {
        let mut total = F::ZERO;
        for w in 0..warps {
            total = total.add(sums.get(32 * w + lane_id()));
        }
        // SAFETY: one of the job's outputs (the family's contract).
        unsafe { *at = S::narrow(total) };
    }
}

/// The warp kernel's body over inline jobs: for short products whose outputs have many terms
/// each (the lane kernel gives a warp 32 outputs, whose stretches it must stage to read
/// quickly). Output `f` belongs to warp `f mod W` of block `f / W` ([`WARP_SUMS_WARPS`] = `W`);
/// lane `l` sums the terms `k ≡ k_lo + l (mod 32)` of it in increasing `k`, reading both vectors
/// where they lie (the warp's 32 loads of a step are consecutive elements of each vector, for
/// unit strides), and the lanes' sums are added by a butterfly of shuffles, which gives every
/// lane the same bits. Only the terms inside both vectors are read, so no zero meets an
/// infinity.
///
/// # Safety
/// As for [`band`], on a [`Band::warp_sums_plan`] launch (one slice; `partial` unused).
#[inline(always)]
pub unsafe fn warp_sums<S: Stored<F>, F: Real>(p: Band<S, F>) {
    let f = block_x() as u64 * WARP_SUMS_WARPS as u64 + warp_id() as u64;
    // The whole warp leaves or stays, so the shuffles below are whole.
    if f >= p.outputs {
        return;
    }
    let Output {
        job,
        j,
        o,
        k_lo,
        k_hi,
    } = p.output(f);
    let start = (k_lo + lane_id() as u64).min(k_hi);
    // The lane's terms are `k = start + 32 i`: `a` steps down 32 elements from `a[o − start]`,
    // `b` up from `b[start]`.
    let terms = Walk {
        a: element(vector::<S>(job.a), job.a_stride, o.wrapping_sub(start)),
        a_step: (job.a_stride as isize).wrapping_mul(-32),
        b: element(vector::<S>(job.b), job.b_stride, start),
        b_step: (job.b_stride as isize).wrapping_mul(32),
    };
    // SAFETY: each of the lane's terms lies inside both vectors (`k_lo <= k < k_hi`).
    let sum = unsafe { add_terms(F::ZERO, (k_hi - start).div_ceil(32), terms) };
    // SAFETY: the whole warp is here (above).
    let total = unsafe { crate::warp::reduce(sum, crate::op::Sum) };
    if lane_id() == 0 {
        // SAFETY: one of the job's outputs (the family's contract).
        unsafe { *element(vector::<S>(job.out), job.out_stride, j) = S::narrow(total) };
    }
}

/// One lane's stretch of an output's inner sum: `Σ a[o − k] · b[k]` over `terms` steps from
/// `k = start`, each term inside both vectors.
struct Stretch<S> {
    a: *mut S,
    a_stride: i64,
    b: *mut S,
    b_stride: i64,
    o: u64,
    start: u64,
    terms: u64,
}

impl<S: Copy> Stretch<S> {
    /// The stretch's sum, reading both vectors where they lie.
    ///
    /// # Safety
    /// Every term's elements lie inside their vectors.
    #[inline(always)]
    unsafe fn global<F: Real>(&self) -> F
    where
        S: Stored<F>,
    {
        let terms = Walk {
            a: element(self.a, self.a_stride, self.o.wrapping_sub(self.start)),
            a_step: -self.a_stride as isize,
            b: element(self.b, self.b_stride, self.start),
            b_step: self.b_stride as isize,
        };
        // SAFETY: the stretch's steps are inside both vectors (the caller's contract).
        unsafe { add_terms(F::ZERO, self.terms, terms) }
    }

    /// The stretch's sum, the warp staging its lanes' elements in `stages` ([`LANES_STAGE`]
    /// steps at a time) and each lane reading its own from there.
    ///
    /// # Safety
    /// Called by the whole warp, whose lanes hold consecutive outputs `o` of one product of
    /// vectors of `lens` (a lane past the product's last output repeating the last), each
    /// stretch inside both vectors; `stages` hold [`lane_stage_len`] elements each and no other
    /// warp uses them.
    #[inline(always)]
    unsafe fn staged<F: Real>(
        &self,
        (a_len, b_len): (u64, u64),
        stages: (SharedSlice<S>, SharedSlice<S>),
    ) -> F
    where
        S: Stored<F>,
    {
        let (stage_a, stage_b) = stages;
        let diagonal = self.o.wrapping_sub(self.start) as i64; // `o − k` at the first step
        // SAFETY: every lane of the warp is here (the caller's contract).
        let (start0, diagonal0) = unsafe { shfl_idx(FULL_MASK, (self.start, diagonal), 0) };
        // Both grow by 0 or 1 from a lane to the next, so lie 0 to 31 past lane 0's.
        let (ahead_b, ahead_a) = ((self.start - start0) as u32, (diagonal - diagonal0) as u32);
        let mut sum = F::ZERO;
        let mut done = 0;
        // SAFETY: the whole warp votes (the caller's contract).
        while unsafe { any(FULL_MASK, done < self.terms) } {
            // Stage `b[start0 + done + i]` and `a[diagonal0 − done + 31 − i]` at `i`: step `t`
            // of this stage then finds a lane's `b[k]` at `ahead_b + t` and its `a[o − k]` at
            // `31 − ahead_a + t`. Indices past a vector's ends are clamped into it (no term reads
            // those slots), so every load is of an element and all of them are issued before
            // the first store: one wait a stage. An empty vector has no terms to stage.
            let (b0, a_top) = (start0 + done, diagonal0 - done as i64 + 31);
            if let (Some(a_last), Some(b_last)) = (a_len.checked_sub(1), b_len.checked_sub(1)) {
                let slot = |r: usize| lane_id() + 32 * r as u32;
                // SAFETY: both indices are clamped inside their vectors.
                let pairs: [(S, S); STAGE_ROUNDS] = core::array::from_fn(|r| unsafe {
                    let x = (a_top - slot(r) as i64).clamp(0, a_last as i64) as u64;
                    let k = (b0 + slot(r) as u64).min(b_last);
                    (
                        *element(self.a, self.a_stride, x),
                        *element(self.b, self.b_stride, k),
                    )
                });
                for (r, (a, b)) in pairs.into_iter().enumerate() {
                    // SAFETY: `slot(r) < 32 * STAGE_ROUNDS = len`; the slots are this warp's
                    // (the caller's contract).
                    unsafe {
                        stage_a.set_unchecked(slot(r), a);
                        stage_b.set_unchecked(slot(r), b);
                    }
                }
            }
            // SAFETY: the whole warp is here.
            unsafe { sync_warp(FULL_MASK) };
            let steps = self.terms.saturating_sub(done).min(LANES_STAGE as u64);
            // SAFETY: both offsets are at most 31, inside the stages; the runs' first `steps`
            // slots hold the stage's terms (staged above: they lie inside both vectors), as
            // `steps <= LANES_STAGE`.
            sum = unsafe {
                let runs = Runs(
                    stage_a.tail_unchecked(31 - ahead_a),
                    stage_b.tail_unchecked(ahead_b),
                );
                add_terms(sum, steps, runs)
            };
            done += LANES_STAGE as u64;
            // SAFETY: the whole warp is here; the next stage overwrites what this one read.
            unsafe { sync_warp(FULL_MASK) };
        }
        sum
    }
}

/// A cursor over a stretch's terms, at its next step: where [`add_terms`] reads them.
trait Terms<S> {
    /// The elements of the term `u` steps past the cursor.
    ///
    /// # Safety
    /// That term is one of the stretch's.
    unsafe fn peek(&self, u: u32) -> (S, S);

    /// Moves the cursor `n` steps on.
    ///
    /// # Safety
    /// At most to the stretch's end.
    unsafe fn advance(&mut self, n: u32);
}

/// Terms read from both vectors where they lie: `a` stepping down, `b` up.
struct Walk<S> {
    a: *mut S,
    a_step: isize,
    b: *mut S,
    b_step: isize,
}

impl<S: Copy> Terms<S> for Walk<S> {
    #[inline(always)]
    unsafe fn peek(&self, u: u32) -> (S, S) {
        let u = u as isize;
        // SAFETY: the term's elements (the caller's contract).
        unsafe {
            (
                *self.a.wrapping_offset(u * self.a_step),
                *self.b.wrapping_offset(u * self.b_step),
            )
        }
    }

    #[inline(always)]
    unsafe fn advance(&mut self, n: u32) {
        self.a = self.a.wrapping_offset(n as isize * self.a_step);
        self.b = self.b.wrapping_offset(n as isize * self.b_step);
    }
}

/// Terms from a warp's stages: a lane's `a` and `b` elements side by side from each run's start
/// (`a` staged in reverse).
struct Runs<S: Copy>(SharedSlice<S>, SharedSlice<S>);

impl<S: Copy> Terms<S> for Runs<S> {
    #[inline(always)]
    unsafe fn peek(&self, u: u32) -> (S, S) {
        // SAFETY: the term's slots are inside both runs (the caller's contract).
        unsafe { (self.0.get_unchecked(u), self.1.get_unchecked(u)) }
    }

    #[inline(always)]
    unsafe fn advance(&mut self, n: u32) {
        // SAFETY: at most to the stretch's end, inside both runs (the caller's contract).
        unsafe { *self = Runs(self.0.tail_unchecked(n), self.1.tail_unchecked(n)) }
    }
}

/// `sum` plus the products of the `n` terms from `terms`' cursor on, in order: each four terms'
/// loads before their multiply-adds, so their latencies overlap, and the cursor advanced four
/// at a time, so the loads' addresses are a base plus constants.
///
/// # Safety
/// The `n` terms are the stretch's.
#[inline(always)]
unsafe fn add_terms<S: Stored<F>, F: Real>(mut sum: F, n: u64, mut terms: impl Terms<S>) -> F {
    let mut left = n;
    while left >= 4 {
        // SAFETY: four of the `left` terms (the caller's contract).
        let pairs: [(S, S); 4] = core::array::from_fn(|u| unsafe { terms.peek(u as u32) });
        for (a, b) in pairs {
            sum = a.widen().fma(b.widen(), sum);
        }
        // SAFETY: as above.
        unsafe { terms.advance(4) };
        left -= 4;
    }
    while left > 0 {
        // SAFETY: as above.
        let (a, b) = unsafe { terms.peek(0) };
        sum = a.widen().fma(b.widen(), sum);
        // SAFETY: as above.
        unsafe { terms.advance(1) };
        left -= 1;
    }
    sum
}

/// Adds the slices' partial sums of every output in slice order and writes them out, over
/// inline jobs.
///
/// # Safety
/// As for [`band`], on any grid, after a band launch of `slices > 1` slices over the same jobs
/// that wrote the `slices * outputs` elements of `partial`.
#[inline(always)]
pub unsafe fn sum_slices<S: Stored<F>, F: Real>(p: Band<S, F>) {
    let place = |f: u64| {
        let job = p.inline.find(p.count, f, |j| j.first_out);
        let job = job.product_of(f - job.first_out, |j| j.len);
        Some(element(vector(job.out), job.out_stride, f - job.first_out))
    };
    // SAFETY: the family's contract: each output's place is one of its job's outputs.
    unsafe { sum_each::<S, F>(p.outputs, p.slices, p.partial, place) }
}

/// As [`sum_slices`], over listed jobs. An output whose job would put it outside its field is
/// not written.
///
/// # Safety
/// As for [`band_listed`], on any grid, after a band launch of `slices > 1` slices over the
/// same jobs that wrote the `slices * outputs` elements of `partial`.
#[inline(always)]
pub unsafe fn sum_slices_listed<S: Stored<F>, F: Real>(p: BandList<S, F>) {
    let place = |f: u64| {
        // SAFETY: the family's checks.
        let listed = unsafe { find_listed(p.list, p.count, f, |j| j.first_out) };
        let job = listed
            .job
            .product_of(f.wrapping_sub(listed.job.first_out), |j| j.len);
        let o = f.wrapping_sub(job.first_out);
        let (base, cap) = p.output(listed.field_of().2);
        let at = job
            .out
            .wrapping_add((o as i64).wrapping_mul(job.out_stride) as u64);
        (o < job.len && at < cap).then(|| base.wrapping_add(at as usize))
    };
    // SAFETY: the family's checks; each place is inside its field.
    unsafe { sum_each::<S, F>(p.outputs, p.slices, p.partial, place) }
}

/// The slice sums' grid-stride loop: output `f` of `outputs` is the sum of its `slices` partial
/// sums in slice order, stored at `place(f)` if that is not `None`.
///
/// # Safety
/// `partial` holds `slices * outputs` written elements, and every place given is writable.
#[inline(always)]
unsafe fn sum_each<S: Stored<F>, F: Real>(
    outputs: u64,
    slices: u32,
    partial: *mut F,
    place: impl Fn(u64) -> Option<*mut S>,
) {
    let mut f = global_x();
    while f < outputs {
        let at = place(f);
        let slices = slices as u64;
        // SAFETY: called only for `s < slices`, so `s * outputs + f < slices * outputs`.
        let partial = |s: u64| unsafe { *partial.add((s * outputs + f) as usize) };
        let mut sum = F::ZERO;
        let mut s = 0;
        if F::BATCHED_SLICES {
            while s + 8 <= slices {
                let batch: [F; 8] = core::array::from_fn(|u| partial(s + u as u64));
                for v in batch {
                    sum = sum.add(v);
                }
                s += 8;
            }
        }
        while s < slices {
            sum = sum.add(partial(s));
            s += 1;
        }
        if let Some(at) = at {
            // SAFETY: the caller's contract.
            unsafe { *at = S::narrow(sum) };
        }
        f += grid_threads_x();
    }
}
