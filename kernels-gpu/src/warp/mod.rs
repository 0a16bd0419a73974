//! Warp-level primitives: the 32 lanes of one warp cooperate through shuffles and votes.
//!
//! Each function must be called by all 32 lanes of the warp together (full mask); each module
//! also exports a small test kernel that applies the primitive to every warp of an array, which
//! the host's tests compare with a CPU reference.

pub mod histogram;
pub mod reduce;
pub mod scan;

pub use histogram::{WarpHistogram, histogram_ballot};
pub use reduce::reduce;
pub use scan::{exclusive_scan, inclusive_scan};
