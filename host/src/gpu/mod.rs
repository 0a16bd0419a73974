//! The CUDA layer: every call into the driver (through `cudarc`) is in this module; the
//! primitives above it go through [`crate::Device`].

mod context;
mod driver;
mod launch;
mod module;
mod readback;
mod timing;

pub use context::Gpu;
pub use module::machine_code_embedded;
pub(crate) use module::{AreaImages, Format, Image};
pub use timing::GpuTimer;
pub use warpkit_kernels::area::Area;
