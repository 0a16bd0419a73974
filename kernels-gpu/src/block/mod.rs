//! Block-level primitives: all threads of one block cooperate through warp collectives and a
//! little shared memory (one slot per warp). Blocks must be whole warps (size a multiple of 32),
//! and every thread of the block must call each primitive, since they contain barriers.

pub mod operator_check;
pub mod reduce;
pub mod scan;

pub use reduce::reduce;
pub use scan::exclusive_scan;
