//! The CUDA layer: every call into the driver (through `cudarc`) is in this module; the
//! primitives above it go through [`crate::Device`].

mod context;
mod driver;
mod launch;
mod readback;
mod timing;

pub use context::Gpu;
pub use timing::GpuTimer;
