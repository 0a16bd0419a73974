//! Warp-level primitives: the lanes of one warp cooperate through shuffles and votes.
//!
//! Reduce and scan work over a logical warp of 1 to 32 lanes ([`LogicalWarp`]), whose lanes
//! must call each primitive together; the plain functions ([`reduce()`], [`inclusive_scan`],
//! [`exclusive_scan`]) and the histogram are for all 32 lanes of the warp together (full
//! mask). Each module also exports a small test kernel that applies the primitive to every warp
//! (or logical warp) of an array, which the host's tests compare with a CPU reference.

pub mod histogram;
pub mod logical;
pub mod reduce;
pub mod scan;

pub use histogram::{WarpHistogram, histogram_ballot};
pub use logical::LogicalWarp;
pub use reduce::reduce;
pub use scan::{exclusive_scan, inclusive_scan};
