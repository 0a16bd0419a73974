//! [`LaneTile`], what a digit pass's scatter hands to its writes: a lane's ranked keys and values
//! of the tile. On its own so that the scatter (`scatter`, which builds it and holds the direct
//! write) and the warp- and block-level writes (`scatter_warp`, `scatter_block`, which it calls)
//! all import it from here rather than from each other.

use crate::block::rank::Ranked;
use crate::policy::multisplit::WINDOWS;

/// A lane's keys and values of the tile after the ranking: what each write takes.
pub(super) struct LaneTile<K, V> {
    /// The lane's values (defaults past the end, and without values).
    pub value: [V; WINDOWS],
    /// The lane's keys (defaults past the end), each with its digit and rank among the warp's
    /// keys of that digit.
    pub ranked: Ranked<K, WINDOWS>,
    /// The lane's windows that hold a key: key `k` is one when `k < windows`.
    pub windows: u32,
}
