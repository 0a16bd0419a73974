//! The SIMT layer: one thread's view of the GPU, in place of `cuda_std`.
//!
//! Thin, `#[inline(always)]` wrappers over a small set of hardware functions: on nvptx64 the
//! PTX special registers, NVVM intrinsics and inline PTX of [`ptx`](self); on the host the
//! SIMT emulator's (`crate::emu::hw`), which give the same results for the same launch.
//! Everything above this module (warp, block, device, algorithms) calls only this layer.
//! Functions whose misuse is undefined behaviour on the GPU (a warp collective whose mask names
//! a lane that does not arrive, a barrier not reached by every thread) are `unsafe` and say so;
//! the emulator reports such misuse instead of hanging.

pub mod atomic;
pub mod check;
pub mod index;
pub mod math;
pub mod memory;
pub mod shared;
pub mod sync;
pub mod types;
pub mod warp;

#[cfg(target_arch = "nvptx64")]
mod ptx;
#[cfg(target_arch = "nvptx64")]
use ptx as hw;

#[cfg(not(target_arch = "nvptx64"))]
use crate::emu::hw;

pub use index::*;
pub use sync::*;
pub use types::{Dim3, ShflMode, VoteMode};
