//! Online training, one node at a time: the node's best cell, then every cell within the
//! Gaussian's window moved toward it, `w += rate · g(Δrow) · g(Δcol) · (x − w)`. Each step needs
//! the whole map's answer before the next can start, so an epoch is one cooperative launch
//! whose blocks exchange their candidates once a step ([`super::posts`]): step `t` first
//! finishes step `t − 1` (every block combines the blocks' candidates for that node as they
//! arrive, then updates the cells it owns) and then searches its cells for node `t` and posts
//! one candidate a block. Each block owns the same contiguous run of cells throughout, so a
//! thread's update and its next distances touch only its own cells, and no block waits for
//! another but for its candidate: no grid barrier.
//!
//! Where they fit, a block keeps its cells in shared memory for the whole epoch (a plane a
//! dimension, so a warp's reads fall in distinct banks) and the nodes of the steps at hand
//! too, the next one loaded while the current step runs: a step is then bound by the exchange
//! of the blocks' candidates, not by a chain of a global load a dimension (the update's store
//! to a cell keeps the next dimension's load behind it, and the search's loop over the
//! dimensions waits on each load in turn: 11.9 µs a step on the H200 with the cells in global
//! memory, against 4.9 µs staged, both with a grid barrier a step).
//!
//! The result is the sequential algorithm's to the bit: distances are summed in dimension order
//! as in [`super::bmu`], ties go to the lowest cell (a thread walks its cells upward with a
//! strict `<`, then [`Posted::Pick`] keeps the lower index of equal distances), and the update is
//! [`pull`] with `c = (rate · g[|Δrow|]) · g[|Δcol|]` from the host's table.

use super::posts::{MAX_WORDS, Posted, Posts};
use crate::block::reduce::reduce_holding;
use crate::launch::{LaunchShape, grid_extent};
pub use crate::policy::som::ONLINE_THREADS;
use crate::simt::math::FastMath;
use crate::simt::shared::SharedSlice;
use crate::simt::{block_dim_x, block_x, grid_dim_x, sync_threads, thread_x, warps_per_block};

/// `w` moved toward `x` by `rate` (in [0, 1]): `(w − rate·w) + rate·x`, two FMAs, finite for
/// all finite `w` and `x` (`w + rate·(x − w)` overflows where `x − w` does). The host's
/// reference calls it too.
#[inline(always)]
pub fn pull(w: f32, x: f32, rate: f32) -> f32 {
    rate.fma(x, (-rate).fma(w, w))
}

own_kernel! {
    #![cooperative]
    /// Parameters of one epoch of online training (see [`epoch`]).
    pub struct Epoch {
        /// `cells · dim` f32 of a map `cols` wide.
        #[len(u128::from(cells) * u128::from(dim))]
        pub weights: *mut f32,
        pub cells: u32,
        pub dim: u32,
        pub cols: u32,
        pub radius: u32,
        /// `rate · g` then `g`, `radius + 1` each.
        #[len(2 * (u128::from(radius) + 1))]
        pub table: *const f32,
        /// `count` nodes of `dim` f32.
        #[len(u128::from(count) * u128::from(dim))]
        pub nodes: *const f32,
        pub count: u32,
        /// The order the epoch visits the nodes in: `count` indices below `count`.
        #[len(count)]
        pub order: *const u32,
        /// The blocks' candidates, [`posts_len`] words, zero when the epoch starts
        /// ([`super::posts`]).
        #[len(posts_len(shape.grid[0]))]
        #[zeroed(8 * posts_len(shape.grid[0]))]
        pub posts: *mut u64,
        /// Nonzero: cells and nodes staged in shared memory ([`epoch_shared_bytes`]).
        pub staged: u32,
    }
    check |p, shape| cols > 0
        && dim > 0
        && shape.is_linear(ONLINE_THREADS, 0)
        && shape.shared_bytes as u64 >= epoch_shared_bytes(cells, dim, shape.grid[0], staged != 0);
    /// Distances summed in f32.
    fn epoch::<f32> => som_online_f32;
    /// Distances summed in f64.
    fn epoch::<f64> => som_online_f64;
}

/// The launch of an epoch of online training on a map of `cells` cells, `dim` values a cell: a
/// thread a cell, its cells and nodes staged in shared memory where `staged`. The host caps the
/// grid to the blocks the device holds at once (the launch is cooperative), and stages where
/// the grid it gets still holds every cell.
pub const fn plan_epoch(cells: u32, dim: u32, staged: bool) -> LaunchShape {
    let blocks = cells.div_ceil(ONLINE_THREADS);
    let shared = epoch_shared_bytes(cells, dim, blocks, staged);
    LaunchShape::linear(blocks as u64, ONLINE_THREADS, grid_extent(shared))
}

/// Words of candidates an epoch on `blocks` blocks posts to ([`super::posts::Posts`]).
pub const fn posts_len(blocks: u32) -> u64 {
    2 * MAX_WORDS as u64 * blocks as u64
}

/// Bytes of a warp's candidate (distance, index) in shared memory: two sets of them, one for
/// the search and one for the gathering of the blocks' candidates.
const WARP_SLOT: u32 = 16;

/// Dynamic shared memory an epoch's block needs on a grid of `blocks`: two candidates a warp,
/// and where `staged` three nodes and the block's cells.
pub const fn epoch_shared_bytes(cells: u32, dim: u32, blocks: u32, staged: bool) -> u64 {
    let slots = 2 * (ONLINE_THREADS / 32 * WARP_SLOT) as u64;
    if !staged || blocks == 0 {
        return slots;
    }
    let share = cells.div_ceil(blocks) as u64;
    slots + 4 * dim as u64 * (NODE_SLOTS as u64 + share)
}

/// Nodes staged at once: the one the step finishes, the one it searches for, the next.
const NODE_SLOTS: u32 = 3;

/// This block's cells: a contiguous run, the same throughout a launch.
#[inline(always)]
fn owned(cells: u32) -> (u32, u32) {
    let share = cells.div_ceil(grid_dim_x());
    let first = (block_x() * share).min(cells);
    (first, (first + share).min(cells))
}

/// Where a block keeps its cells during an epoch, by the cell's place in the block's run and
/// the dimension.
trait Cells: Copy {
    /// # Safety
    /// `local` is one of the block's cells, `k < dim`.
    unsafe fn get(&self, local: u32, k: u32) -> f32;
    /// # Safety
    /// As [`Cells::get`], and only the cell's owner writes it.
    unsafe fn set(&self, local: u32, k: u32, v: f32);
}

/// The cells in shared memory, a plane of `share` values a dimension.
#[derive(Clone, Copy)]
struct Staged {
    planes: SharedSlice<f32>,
    share: u32,
}

impl Cells for Staged {
    #[inline(always)]
    unsafe fn get(&self, local: u32, k: u32) -> f32 {
        // SAFETY: `local < share`, `k < dim`: inside the planes.
        unsafe { self.planes.get_unchecked(k * self.share + local) }
    }
    #[inline(always)]
    unsafe fn set(&self, local: u32, k: u32, v: f32) {
        // SAFETY: as above.
        unsafe { self.planes.set_unchecked(k * self.share + local, v) }
    }
}

/// The cells where they lie in `weights`, from the block's first.
#[derive(Clone, Copy)]
struct InPlace {
    first: *mut f32,
    dim: usize,
}

impl Cells for InPlace {
    #[inline(always)]
    unsafe fn get(&self, local: u32, k: u32) -> f32 {
        // SAFETY: one of the block's cells in `weights`.
        unsafe { *self.first.add(local as usize * self.dim + k as usize) }
    }
    #[inline(always)]
    unsafe fn set(&self, local: u32, k: u32, v: f32) {
        // SAFETY: as above.
        unsafe { *self.first.add(local as usize * self.dim + k as usize) = v }
    }
}

/// Where a block reads the epoch's nodes from.
trait Nodes: Copy {
    /// Value `k` of node `t`.
    ///
    /// # Safety
    /// `t < count`, `k < dim`, during steps `t` and `t + 1`.
    unsafe fn value(&self, t: u32, k: u32) -> f32;
    /// This thread's share of node `t`, fetched at the start of step `t − 1` for
    /// [`Nodes::keep`] at its end, so that the loads overlap the step.
    ///
    /// # Safety
    /// The whole block calls it with the same `t`.
    unsafe fn fetch(&self, _t: u32) -> f32 {
        0.0
    }
    /// Keeps what [`Nodes::fetch`] returned for node `t`, before the block barrier of the
    /// gathering that ends step `t − 1`.
    ///
    /// # Safety
    /// As [`Nodes::fetch`].
    unsafe fn keep(&self, _t: u32, _fetched: f32) {}
}

/// The nodes where they lie in `nodes`, found through the order.
#[derive(Clone, Copy)]
struct Listed<'a>(&'a Epoch);

impl Nodes for Listed<'_> {
    #[inline(always)]
    unsafe fn value(&self, t: u32, k: u32) -> f32 {
        // SAFETY: the caller's contract.
        unsafe { *node_at(self.0, t).add(k as usize) }
    }
}

/// The nodes of the steps at hand in shared memory, [`NODE_SLOTS`] of them by turns.
#[derive(Clone, Copy)]
struct Slots<'a> {
    epoch: &'a Epoch,
    slots: SharedSlice<f32>,
}

impl Nodes for Slots<'_> {
    #[inline(always)]
    unsafe fn value(&self, t: u32, k: u32) -> f32 {
        // SAFETY: slot `t % NODE_SLOTS` holds node `t` from the block barrier before step `t`
        // until node `t + NODE_SLOTS` is kept there, after the search of step `t + 2`, whose
        // barrier follows the update that finishes step `t` (the slot's last read).
        unsafe { self.slots.get_unchecked((t % NODE_SLOTS) * self.epoch.dim + k) }
    }
    #[inline(always)]
    unsafe fn fetch(&self, t: u32) -> f32 {
        let p = self.epoch;
        // SAFETY: the caller's contract; a node of the order.
        unsafe {
            match t < p.count && thread_x() < p.dim {
                true => *node_at(p, t).add(thread_x() as usize),
                false => 0.0,
            }
        }
    }
    #[inline(always)]
    unsafe fn keep(&self, t: u32, fetched: f32) {
        let p = self.epoch;
        if t >= p.count {
            return;
        }
        let slot = (t % NODE_SLOTS) * p.dim;
        // SAFETY: values `k < dim` of the slot; dimensions past the block's threads are loaded
        // here.
        unsafe {
            if thread_x() < p.dim {
                self.slots.set_unchecked(slot + thread_x(), fetched);
            }
            let mut k = thread_x() + block_dim_x();
            while k < p.dim {
                self.slots.set_unchecked(slot + k, *node_at(p, t).add(k as usize));
                k += block_dim_x();
            }
        }
    }
}

/// One epoch of online training: for each node of `order` in turn, its best cell (distances
/// summed in `A`) and the update of the cells within `radius` rows and columns of it, `table`
/// holding `rate · g` then `g`, `radius + 1` each. An index in `order` past the nodes stands
/// for the last node.
///
/// # Safety
/// `weights` holds `cells · dim` f32 (`dim > 0`) of a map `cols` wide, `nodes` `count · dim`,
/// `order` `count`, `table` `2 · (radius + 1)`, `posts` [`posts_len`] words of zero; blocks of
/// `ONLINE_THREADS` with [`epoch_shared_bytes`], launched cooperatively.
#[inline(always)]
pub unsafe fn epoch<A: Posted>(p: Epoch) {
    let (first, end) = owned(p.cells);
    let dim = p.dim as usize;
    // SAFETY: the caller's contract; the whole block takes the same branch.
    unsafe {
        if p.staged == 0 {
            let cells = InPlace {
                first: p.weights.add(first as usize * dim),
                dim,
            };
            steps::<A, _, _>(&p, (first, end), cells, Listed(&p));
            return;
        }
        let share = p.cells.div_ceil(grid_dim_x());
        let reduce_bytes = 2 * (ONLINE_THREADS / 32) * WARP_SLOT;
        let slots = SharedSlice::<f32>::carve(reduce_bytes, NODE_SLOTS * p.dim);
        let planes = SharedSlice::<f32>::carve(reduce_bytes + 4 * NODE_SLOTS * p.dim, share * p.dim);
        let cells = Staged { planes, share };
        // Whole rows of the run in, coalesced, each value to its plane.
        let values = (end - first) * p.dim;
        let mut i = thread_x();
        while i < values {
            cells.set(
                i / p.dim,
                i % p.dim,
                *p.weights.add(first as usize * dim + i as usize),
            );
            i += block_dim_x();
        }
        let nodes = Slots { epoch: &p, slots };
        nodes.keep(0, nodes.fetch(0));
        sync_threads();
        steps::<A, _, _>(&p, (first, end), cells, nodes);
        sync_threads();
        let mut i = thread_x();
        while i < values {
            *p.weights.add(first as usize * dim + i as usize) = cells.get(i / p.dim, i % p.dim);
            i += block_dim_x();
        }
    }
}

/// Node `t` of the epoch's order.
///
/// # Safety
/// [`epoch`]'s contract, `t < count`.
#[inline(always)]
unsafe fn node_at(p: &Epoch, t: u32) -> *const f32 {
    // SAFETY: `order` holds `count` indices, each cut to a node of `nodes`.
    unsafe {
        let i = (*p.order.add(t as usize)).min(p.count - 1);
        p.nodes.add(i as usize * p.dim as usize)
    }
}

/// The epoch's steps over this block's `cells` (its run `first..end`) and `nodes`.
///
/// # Safety
/// [`epoch`]'s contract; the whole block calls it.
#[inline(always)]
unsafe fn steps<A: Posted, C: Cells, N: Nodes>(p: &Epoch, run: (u32, u32), cells: C, nodes: N) {
    let posts = Posts { words: p.posts };
    // SAFETY: the caller's contract; every block runs the same steps and posts each, and the
    // whole block reaches each reduction. A warp's candidate for the search, then for the
    // gathering: separate slots (both within the launch's shared bytes), so that a warp may
    // start the search while another still reads the gathered ones; each set is written only
    // after the block barrier of the other's use, which follows every read of it.
    unsafe {
        let mine = run.0 + thread_x();
        let home = (mine / p.cols, mine % p.cols);
        let searched = SharedSlice::<A::Key>::carve(0, warps_per_block());
        let gathered = SharedSlice::<A::Key>::carve(ONLINE_THREADS / 32 * WARP_SLOT, warps_per_block());
        for t in 0..=p.count {
            let next = nodes.fetch(t + 1);
            if t > 0 {
                let winner = A::cell(posts.gather::<A>(t - 1, gathered));
                update(p, run, cells, |k| nodes.value(t - 1, k), winner, home);
            }
            if t < p.count {
                let best = search::<A, C>(p, run, cells, |k| nodes.value(t, k), searched);
                if thread_x() == 0 {
                    posts.post::<A>(t, best);
                }
                nodes.keep(t + 1, next);
            }
        }
    }
}

/// Finishes the step of node `x` whose best cell is `winner`: the update of this block's
/// `cells` (its run `first..end`) within the window around it. `home` is the row and column of
/// this thread's first cell, `first + threadIdx.x` (the only one where the cells are staged).
///
/// # Safety
/// [`epoch`]'s contract; cells are read and written only by the thread that owns them.
#[inline(always)]
unsafe fn update<C: Cells>(
    p: &Epoch,
    (first, end): (u32, u32),
    cells: C,
    x: impl Fn(u32) -> f32,
    winner: u32,
    home: (u32, u32),
) {
    let (cols, radius) = (p.cols, p.radius);
    let (wr, wc) = (winner / cols, winner % cols);
    // SAFETY: the caller's contract; the table holds `2 · (radius + 1)` values.
    unsafe {
        let mut cell = first + thread_x();
        let (mut r, mut c) = home;
        while cell < end {
            let (dr, dc) = (r.abs_diff(wr), c.abs_diff(wc));
            if dr <= radius && dc <= radius {
                let rate = *p.table.add(dr as usize) * *p.table.add((radius + 1 + dc) as usize);
                for k in 0..p.dim {
                    cells.set(cell - first, k, pull(cells.get(cell - first, k), x(k), rate));
                }
            }
            cell += block_dim_x();
            if cell < end {
                (r, c) = (cell / cols, cell % cols);
            }
        }
    }
}

/// This block's best cell among `cells` (its run `first..end`) for node `x` (distances summed
/// in `A`), its key to every thread; `slots` holds a key a warp.
///
/// # Safety
/// [`epoch`]'s contract; the whole block calls it, and no thread uses `slots` from this call
/// until the block's next barrier after it.
#[inline(always)]
unsafe fn search<A: Posted, C: Cells>(
    p: &Epoch,
    (first, end): (u32, u32),
    cells: C,
    x: impl Fn(u32) -> f32,
    slots: SharedSlice<A::Key>,
) -> A::Key {
    // SAFETY: the caller's contract.
    unsafe {
        let mine_first = first + thread_x();
        let mut found = (A::INFINITY, if mine_first < end { mine_first } else { u32::MAX });
        let mut cell = mine_first;
        while cell < end {
            let mut sum = A::ZERO;
            for k in 0..p.dim {
                let t = A::from(x(k)) - A::from(cells.get(cell - first, k));
                sum = t.fma(t, sum);
            }
            if sum < found.0 {
                found = (sum, cell);
            }
            cell += block_dim_x();
        }
        reduce_holding(A::key(found), A::Pick::default(), slots)
    }
}
