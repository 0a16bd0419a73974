//! warpkit: GPU primitives whose device code is written in Rust.
//!
//! The kernels live in the `warpkit-kernels` crate, compiled to PTX at build time and embedded
//! here, and compiled for the host as well, where its SIMT emulator runs them. This crate owns
//! everything a caller touches: the choice of [`Backend`] (a CUDA GPU when one is present,
//! otherwise the CPU; the emulator when asked for), [`Device`]s with typed buffers and checked
//! launches, one [`Error`] type, and the primitives themselves.
//!
//! ```no_run
//! use warpkit::Backend;
//!
//! let backend = Backend::auto(); // the GPU if there is one, else the CPU
//! let prefix = backend.exclusive_scan(&[3u32, 1, 4, 1, 5])?;
//! assert_eq!(prefix, [0, 3, 4, 8, 9]);
//! assert_eq!(backend.sum(&[0.5f64, 0.25, 0.25])?, 1.0);
//! # Ok::<(), warpkit::Error>(())
//! ```
//!
//! Layers, from the bottom: [`gpu`] (driver discovery, context, launches, timing) and
//! [`emulator`] (the same kernels on the CPU), joined by [`Device`]; [`cpu`] (the rayon backend,
//! also the reference in tests); the primitives, each written once over [`Device`] and once for
//! the CPU, behind [`Backend`].

pub mod alias;
pub mod backend;
pub mod checks;
pub mod cpu;
pub mod device;
pub mod element;
pub mod emulator;
pub mod error;
pub mod gpu;
pub mod multisplit;
pub mod rng;

mod copy;
mod reduce;
pub mod scan;

/// The kernels' module images built from `kernels-gpu`, by area (see `host/build/main.rs`).
mod kernels {
    use crate::gpu::{Area, AreaImages, Format, Image};
    const AREA_COUNT: usize = Area::ALL.len();
    include!(concat!(env!("OUT_DIR"), "/kernels.rs"));
}

pub use backend::Backend;
pub use device::{Device, DeviceBuffer, DeviceLimits, LaunchShape};
pub use element::Scalar;
pub use emulator::Emulator;
pub use error::{Error, Result};
pub use gpu::{Gpu, GpuTimer};
pub use rng::Philox;
pub use warpkit_kernels::emu::{Fault, Misuse, Options as EmulatorOptions};

/// The largest number of elements the scans and reductions accept: 2^32 - 1.
pub const MAX_LEN: u64 = u32::MAX as u64;
