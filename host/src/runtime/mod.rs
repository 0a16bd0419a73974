//! The runtime: everything the primitive areas are built on, and nothing of theirs (no module
//! here imports an area). From the bottom:
//!
//! - `shape` (launch shapes and device limits), `args` (kernel parameters on a GPU), `buffer`
//!   (typed device buffers over GPU memory or the emulator's `host_memory`), `scratch` (the
//!   scratch buffers a device keeps between calls) and `pinned` (host memory a GPU copies at
//!   the link's speed): the vocabulary both engines share;
//! - [`gpu`] (the CUDA driver, context, per-area modules, launches, timing; feature `cuda`) and
//!   [`emulator`] (the SIMT emulator as a device), each over that vocabulary and neither over
//!   the other;
//! - [`device`]: [`Device`](device::Device), one of the two, through which areas allocate and
//!   launch; `bindings`: the buffers of one launch, against which a checked kernel family's
//!   pointers are tested before it launches without `unsafe` in the area;
//! - [`cpu`]: the rayon engine, [`Cpu`](cpu::Cpu), and its chunking;
//! - [`backend`]: [`Backend`](backend::Backend), a device or the CPU, which the areas' APIs take;
//!   [`element`]: the scalar types of the scans and reductions.

#[cfg(feature = "cuda")]
pub(crate) mod args;
pub mod backend;
pub(crate) mod bindings;
mod buffer;
pub mod cpu;
pub mod device;
pub mod element;
pub mod emulator;
#[cfg(feature = "cuda")]
pub mod gpu;
mod host_memory;
pub(crate) mod ledger;
pub mod module;
pub(crate) mod pinned;
pub(crate) mod progress;
mod scratch;
mod shape;
