//! The SIMT layer: one thread's view of the GPU, in place of `cuda_std`.
//!
//! Thin, `#[inline(always)]` wrappers over PTX special registers, LLVM NVVM intrinsics and
//! inline PTX. Everything above this module (warp, block, device, algorithms) calls only these.
//! Functions whose misuse is undefined behaviour on the GPU (a warp collective whose mask names
//! a lane that does not arrive, a barrier not reached by every thread) are `unsafe` and say so.

pub mod atomic;
pub mod index;
pub mod math;
pub mod memory;
pub mod shared;
pub mod sync;
pub mod warp;

pub use index::*;
pub use sync::*;
