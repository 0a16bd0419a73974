//! Device-wide algorithms: the whole grid cooperates on one array.

pub mod barrier;
pub mod copy;
#[cfg(not(target_arch = "nvptx64"))]
pub mod kernels;
pub mod math_check;
pub mod own;
pub mod reduce;
pub mod scan;
