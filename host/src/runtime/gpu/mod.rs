//! The CUDA layer: every call into the driver (through `cudarc`) is in this module; the
//! primitives above it go through [`crate::Device`]. It builds on the runtime's launch shapes,
//! arguments, buffers and scratch, never on `Device`.

mod context;
mod driver;
mod fft;
mod launch;
mod module;
mod pinned;
mod pipeline;
mod readback;
mod staging;
mod timing;

pub use context::Gpu;
pub(crate) use fft::{Staged, fft_present};
pub use module::machine_code_embedded;
pub use timing::GpuTimer;
pub use warpkit_kernels::area::Area;
