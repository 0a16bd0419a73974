//! [`LaneTile`], what a digit pass's scatter hands to its writes: a lane's ranked keys and values
//! of the tile. On its own so that the scatter (`scatter`, which builds it and holds the direct
//! write) and the warp- and block-level writes (`scatter_warp`, `scatter_block`, which it calls)
//! all import it from here rather than from each other.

use crate::block::rank::Ranked;

/// A lane's keys and values of the tile after the ranking, `ITEMS` windows of them: what each
/// write takes.
pub(super) struct LaneTile<K, V, const ITEMS: usize> {
    /// The lane's values (defaults past the end, and without values).
    pub value: [V; ITEMS],
    /// The lane's keys (defaults past the end), each with its digit and rank among the warp's
    /// keys of that digit.
    pub ranked: Ranked<K, ITEMS>,
    /// The lane's windows that hold a key: key `k` is one when `k < windows`.
    pub windows: u32,
}
