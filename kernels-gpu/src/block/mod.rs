//! Block-level primitives: all threads of one block cooperate through warp collectives and a
//! little shared memory (one slot per warp). Blocks must be whole warps (size a multiple of 32),
//! and every thread of the block must call each primitive, since they contain barriers.

pub mod exchange;
pub mod histogram;
pub mod load;
pub mod operator_check;
pub mod rank;
pub mod reduce;
pub mod scan;

pub use reduce::reduce;
pub use scan::exclusive_scan;

/// A key's digit (or bin), for the primitives that group keys by one ([`rank::rank`],
/// [`exchange::Staged::write_out`]). A trait rather than a closure: its `#[inline(always)]`
/// method is inlined with the primitive's body, where a closure was inlined later and changed
/// the kernels' code.
pub trait DigitFn<K> {
    /// The digit of `key`, below the radix the caller names.
    fn digit(&self, key: K) -> u32;
}

/// A lane's items of a tile, loaded when the primitive that takes it asks ([`rank::rank`],
/// [`histogram::count_row`]), so that the loads stay where that primitive's code has them, and
/// how many of them hold one (the first [`valid`](Self::valid)).
pub trait LaneLoad<T, const ITEMS: usize>: Copy {
    /// The lane's items (defaults past the valid ones).
    ///
    /// # Safety
    /// As the implementer's contract says.
    unsafe fn load(self) -> [T; ITEMS];

    /// How many of the lane's items hold one: item `k` does when `k < valid()`.
    fn valid(self) -> u32;
}
