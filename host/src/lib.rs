//! warpkit: GPU primitives whose device code is written in Rust.
//!
//! The kernels live in the `warpkit-kernels` crate, compiled to PTX and machine code for sm_80
//! and sm_90 and embedded here (checked in, so no device toolchain is needed to build; the
//! `build-kernels` feature builds them from source), and compiled for the host as well, where
//! its SIMT emulator runs them. This crate owns
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
//! Layers, from the bottom: [`error`] (the one error type); the runtime (`src/runtime/`), which
//! imports no primitive: `gpu` (feature `cuda`: driver discovery, context, per-area modules,
//! launches, timing) and [`emulator`] (the same kernels on the CPU) over the launch shapes,
//! buffers and scratch they share, joined by [`Device`]; [`cpu`] (the rayon engine, also the
//! reference in tests); [`Backend`] (which of them runs a call on host data) and [`element`]. Above it, one
//! folder per primitive area, each the same shape: `mod.rs` its API (on [`Backend`] or a type
//! built from one), `launch.rs` its launches on a [`Device`], `cpu.rs` the same with rayon:
//! [`scan`], reduce, copy (device only), Philox ([`rng`]), [`alias`], [`multisplit`],
//! [`subset`]. A new
//! area is its folder and one `mod` line here. `checks` (feature `checks`, for the workspace's
//! tests and benches) launches the test kernels.
#![warn(missing_debug_implementations)]

pub mod error;
mod runtime;

pub mod alias;
pub mod convolve;
mod copy;
pub mod lbp;
pub mod moments;
pub mod multisplit;
mod philox;
mod reduce;
pub mod scan;
pub mod som;
pub mod subset;

#[cfg(feature = "checks")]
#[doc(hidden)]
pub mod checks;

#[cfg(feature = "cuda")]
pub use runtime::gpu;
pub use runtime::{backend, cpu, device, element, emulator};

// The Philox area (`philox/`) under the path its items have always had.
/// warpkit's random stream on the host ([`Philox`], a `rand_core` generator) and on a device
/// ([`Device::philox_fill`]): both evaluate `warpkit_kernels::rng::philox` on the same counters,
/// so the same key and starting counter give the same words on every backend.
pub mod rng {
    pub use crate::philox::{Philox, counter_add, philox4x32_10};
}

// Documented in their modules: defined in the private `runtime`, they would otherwise get a
// second page here.
#[doc(no_inline)]
pub use backend::Backend;
#[doc(no_inline)]
pub use device::{Device, DeviceBuffer, DeviceLimits, LaunchShape};
#[doc(no_inline)]
pub use element::Scalar;
#[doc(no_inline)]
pub use emulator::Emulator;
pub use error::{Error, Result};
#[doc(no_inline)]
#[cfg(feature = "cuda")]
pub use gpu::{Gpu, GpuTimer};
#[doc(no_inline)]
pub use rng::Philox;
pub use runtime::pinned::PinnedBuffer;
pub use warpkit_kernels::emu::{Fault, Misuse, Options as EmulatorOptions};

/// The `cudarc` warpkit's GPU backend is built on (feature `cuda`): its `CudaSlice`s and
/// streams are what warpkit's GPU buffers and work run on, and pass in and out of it
/// ([`Device::adopt`], [`DeviceBuffer::into_cuda_slice`], [`Device::gpu_on_stream`]).
#[cfg(feature = "cuda")]
pub use cudarc;

/// The `bytemuck` whose `Pod` bounds the element types of device buffers and the values that
/// travel with multisplit keys.
pub use bytemuck;

/// The `rand_core` whose `RngCore` the samplers take and [`Philox`] implements, so that callers
/// seed and pass generators without naming a version of their own.
pub use rand_core;

/// The largest number of elements the scans and reductions accept: 2^32 - 1.
pub const MAX_LEN: u64 = u32::MAX as u64;
