//! Device-wide reduction (sum, minimum or maximum) in two launches of one kernel: a grid of persistent blocks each reduces
//! a grid-stride share of the input into one partial, then a single block reduces the partials.
//! Each thread keeps `REDUCE_UNROLL` independent 128-bit loads in flight. Bytes moved: the input
//! once, plus 2 × `size_of::<T>()` per block. For a fixed grid the summation order is fixed, so
//! float results repeat bit for bit.

use crate::block;
use crate::launch::LaunchShape;
use crate::num::Element;
use crate::op::{Max, Min, Operator, Sum, Words};
use crate::policy::{REDUCE_BLOCK_THREADS, REDUCE_UNROLL, vector_len};
use crate::simt::memory::{is_aligned16, load128};
use crate::simt::shared::SharedSlice;
use crate::simt::{WARP_SIZE, block_x, global_x, grid_threads_x, thread_x};

/// Blocks of a reduction whose float result must be the same bits on every device and in the
/// emulator (the alias tables' total weight): a grid fixed in advance fixes the order.
pub const REDUCE_FIXED_GRID: u64 = 1024;

const UNROLL: usize = REDUCE_UNROLL as usize;

/// Block `b`'s grid-stride share of the reduction to `partials[b]`: each element `input[i]`
/// enters as `item(i, input[i])` and the items are combined by `op`. `item` sees every element
/// once, so a pass that must also look at each element (such as a check) costs no second read,
/// and it lifts elements into the accumulator (a value and its index for an argmin). Each
/// thread combines its items in its own grid-stride order, so `op` must be commutative in
/// effect; a fixed grid still gives the same bits every run.
///
/// # Safety
/// As for [`fold_partials`].
///
/// With `ONE_BY_ONE`, each thread loads one vector at a time instead of `REDUCE_UNROLL`: the
/// same items in the same states in the same order, so the same bits, in fewer registers, for
/// an `item` that costs more than the memory latency batched loads hide (a weight transform
/// with `exp`: the batched loop interleaved eight of them in 108 registers, a quarter of the
/// warps an SM holds).
#[inline(always)]
pub unsafe fn reduce_partials<
    T: Element,
    A: Words,
    O: Operator<A>,
    const V: usize,
    const ONE_BY_ONE: bool,
>(
    input: *const T,
    n: u64,
    partials: *mut A,
    op: O,
    mut item: impl FnMut(u64, T) -> A,
) {
    let fold = |acc, i, x| op.combine(acc, item(i, x));
    // SAFETY: forwarded.
    unsafe {
        fold_partials::<T, A, A, O, V, UNROLL, ONE_BY_ONE>(input, n, partials, op, op.identity(), fold, |a| a)
    }
}

/// Block `b`'s grid-stride share of `input` to `partials[b]`, by a per-thread state: each
/// thread folds its elements into `STATES` states of its own (from `start`, by
/// `fold(state, i, input[i])`, in its grid-stride order; the `u`-th of the `REDUCE_UNROLL`
/// loads in flight goes to state `u % STATES`), turns each state into a value by `finish`, and
/// the block combines the values by `op`. A state can be cheaper to update than a value (the
/// moments keep shifted sums, with no division an element, and combine by Chan only between
/// threads); several states break a sum's chain of dependent additions, one keeps a large
/// state's registers few. `ONE_BY_ONE` loads one vector at a time (see [`reduce_partials`]),
/// into the same states in the same order.
///
/// # Safety
/// `input` holds `n` elements, `partials` one per block; blocks of `REDUCE_BLOCK_THREADS`;
/// dynamic shared memory holds one `A` per warp.
#[inline(always)]
pub unsafe fn fold_partials<
    T: Element,
    S: Copy,
    A: Words,
    O: Operator<A>,
    const V: usize,
    const STATES: usize,
    const ONE_BY_ONE: bool,
>(
    input: *const T,
    n: u64,
    partials: *mut A,
    op: O,
    start: S,
    mut fold: impl FnMut(S, u64, T) -> S,
    finish: impl Fn(S) -> A,
) {
    let (tid, stride) = (global_x(), grid_threads_x());
    let mut acc = [start; STATES];
    let mut scalar_from = 0;
    // SAFETY: every index is checked against `n` (or `n / V` vectors) before it is read; the
    // whole block reaches the block reduction.
    unsafe {
        if is_aligned16(input) && ONE_BY_ONE {
            let vectors = n / V as u64;
            // Vector `u` of a group of UNROLL goes to state `u % STATES` while whole groups
            // fit, and the rest to state 0, as in the batched loop below.
            let (mut i, mut u) = (tid, 0);
            let mut whole = i + (UNROLL as u64 - 1) * stride < vectors;
            while i < vectors {
                let s = if whole { u % STATES } else { 0 };
                let l: [T; V] = load128(input.add((i * V as u64) as usize));
                for (k, &x) in l.iter().enumerate() {
                    acc[s] = fold(acc[s], i * V as u64 + k as u64, x);
                }
                i += stride;
                u += 1;
                if u == UNROLL {
                    u = 0;
                    whole = whole && i + (UNROLL as u64 - 1) * stride < vectors;
                }
            }
            scalar_from = vectors * V as u64;
        } else if is_aligned16(input) {
            let vectors = n / V as u64;
            let mut i = tid;
            while i + (UNROLL as u64 - 1) * stride < vectors {
                let mut loaded = [[T::ZERO; V]; UNROLL];
                for (u, l) in loaded.iter_mut().enumerate() {
                    *l = load128(input.add(((i + u as u64 * stride) * V as u64) as usize));
                }
                for (u, l) in loaded.iter().enumerate() {
                    let at = (i + u as u64 * stride) * V as u64;
                    for (k, &x) in l.iter().enumerate() {
                        acc[u % STATES] = fold(acc[u % STATES], at + k as u64, x);
                    }
                }
                i += UNROLL as u64 * stride;
            }
            while i < vectors {
                let l: [T; V] = load128(input.add((i * V as u64) as usize));
                for (k, &x) in l.iter().enumerate() {
                    acc[0] = fold(acc[0], i * V as u64 + k as u64, x);
                }
                i += stride;
            }
            scalar_from = vectors * V as u64;
        }
        let mut i = scalar_from + tid;
        while i < n {
            acc[0] = fold(acc[0], i, *input.add(i as usize));
            i += stride;
        }
        let mine = acc.iter().fold(op.identity(), |s, &x| op.combine(s, finish(x)));
        let scratch = SharedSlice::<A>::carve(0, REDUCE_BLOCK_THREADS / WARP_SIZE);
        let total = block::reduce(mine, op, scratch);
        if thread_x() == 0 {
            *partials.add(block_x() as usize) = total;
        }
    }
}

own_kernel! {
    #![open(grid_reduce_entry)]
    /// Parameters of the reduction: `n` elements of `input`, a partial a block to `partials`.
    /// The second pass is the same kernel over the first pass's partials, with one block.
    pub struct Reduce<T: Element> {
        #[len(n)]
        pub input: *const T,
        pub n: u64,
        /// One partial per block.
        #[len(shape.grid[0])]
        pub partials: *mut T,
    }
    check |p, shape| shape.is_linear(REDUCE_BLOCK_THREADS, Reduce::<T>::SHARED_BYTES);
    /// The sum of u32 (wrapping).
    fn reduce::<u32, Sum, 4> => reduce_sum_u32<u32>;
    /// The sum of u64 (wrapping).
    fn reduce::<u64, Sum, 2> => reduce_sum_u64<u64>;
    /// The sum of f32.
    fn reduce::<f32, Sum, 4> => reduce_sum_f32<f32>;
    /// The sum of f64.
    fn reduce::<f64, Sum, 2> => reduce_sum_f64<f64>;
    /// The sum of i32 (wrapping).
    fn reduce::<i32, Sum, 4> => reduce_sum_i32<i32>;
    /// The sum of i64 (wrapping).
    fn reduce::<i64, Sum, 2> => reduce_sum_i64<i64>;
    /// The least u32.
    fn reduce::<u32, Min, 4> => reduce_min_u32<u32>;
    /// The least u64.
    fn reduce::<u64, Min, 2> => reduce_min_u64<u64>;
    /// The least f32 (NaN if any is NaN).
    fn reduce::<f32, Min, 4> => reduce_min_f32<f32>;
    /// The least f64 (NaN if any is NaN).
    fn reduce::<f64, Min, 2> => reduce_min_f64<f64>;
    /// The least i32.
    fn reduce::<i32, Min, 4> => reduce_min_i32<i32>;
    /// The least i64.
    fn reduce::<i64, Min, 2> => reduce_min_i64<i64>;
    /// The greatest u32.
    fn reduce::<u32, Max, 4> => reduce_max_u32<u32>;
    /// The greatest u64.
    fn reduce::<u64, Max, 2> => reduce_max_u64<u64>;
    /// The greatest f32 (NaN if any is NaN).
    fn reduce::<f32, Max, 4> => reduce_max_f32<f32>;
    /// The greatest f64 (NaN if any is NaN).
    fn reduce::<f64, Max, 2> => reduce_max_f64<f64>;
    /// The greatest i32.
    fn reduce::<i32, Max, 4> => reduce_max_i32<i32>;
    /// The greatest i64.
    fn reduce::<i64, Max, 2> => reduce_max_i64<i64>;
}

/// Writes block `b`'s grid-stride share of the reduction by `O` to `partials[b]`, loading
/// `V`-element vectors.
///
/// # Safety
/// As for [`fold_partials`], with the launch [`Reduce::plan`] (or a grid cut from it, or
/// [`Reduce::plan_single`] for the second pass).
#[inline(always)]
pub unsafe fn reduce<T: Element, O: Operator<T> + Default, const V: usize>(p: Reduce<T>) {
    // SAFETY: forwarded to the launch contract above.
    unsafe { reduce_partials::<T, T, O, V, false>(p.input, p.n, p.partials, O::default(), |_, x| x) }
}

impl<T: Element> Reduce<T> {
    /// Dynamic shared memory of a block: one `T` a warp.
    pub const SHARED_BYTES: u32 = REDUCE_BLOCK_THREADS / WARP_SIZE * size_of::<T>() as u32;

    /// A block of [`REDUCE_BLOCK_THREADS`] per share of `REDUCE_UNROLL` 128-bit loads a thread
    /// (at least one block): the grid of a grid-stride pass, which the caller cuts to the
    /// blocks the device holds at once (or to [`REDUCE_FIXED_GRID`]).
    pub const fn plan(&self) -> LaunchShape {
        let per_block = (REDUCE_BLOCK_THREADS * REDUCE_UNROLL * vector_len(size_of::<T>())) as u64;
        let blocks = self.n.div_ceil(per_block);
        LaunchShape::linear(
            if blocks == 0 { 1 } else { blocks },
            REDUCE_BLOCK_THREADS,
            Self::SHARED_BYTES,
        )
    }

    /// One block: the second pass, over the first pass's partials.
    pub const fn plan_single(&self) -> LaunchShape {
        LaunchShape::linear(1, REDUCE_BLOCK_THREADS, Self::SHARED_BYTES)
    }
}
