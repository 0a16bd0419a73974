//! The CUDA layer: every call into the driver (through `cudarc`) is in this module; the
//! primitives above it use only [`Gpu`], [`DeviceBuffer`], checked launches and [`GpuTimer`].

mod buffer;
mod context;
mod driver;
mod launch;
mod timing;

pub use buffer::DeviceBuffer;
pub use context::{DeviceLimits, Gpu};
pub use launch::LaunchShape;
pub use timing::GpuTimer;
