//! GPU primitives for Rust, with the device code written in Rust too: weighted sampling,
//! multisplits, random subsets, convolutions of distributions, moments, local binary pattern
//! histograms, self-organizing maps, and the scans and reductions under them.
//!
//! Every call takes a [`Backend`]: a CUDA GPU when there is one, otherwise the CPU (rayon),
//! with the same results (to each method's rounding; see [Methods](#methods) for what a
//! backend's default method changes), so the same program runs on a laptop and on an H100.
//! [`Device`]s keep data in their memory between calls, and [`Device::emulator`] runs the
//! GPU's very kernels on the CPU, reporting misuse instead of hanging: what `cargo test` on a
//! machine without a GPU uses to test kernels.
//!
//! ```
//! use warpkit::Backend;
//!
//! let backend = Backend::auto(); // the GPU if there is one, else the CPU
//! println!("on {backend}");
//! let prefix = backend.exclusive_scan(&[3u32, 1, 4, 1, 5])?;
//! assert_eq!(prefix, [0, 3, 4, 8, 9]);
//! assert_eq!(backend.sum(&[0.5f64, 0.25, 0.25])?, 1.0);
//! # Ok::<(), warpkit::Error>(())
//! ```
//!
//! # The primitives
//!
//! | module | what | |
//! |---|---|---|
//! | [`scan`], [`Backend::sum`] | prefix sums, sum, min, max of integers and floats | up to 2^32 − 1 elements |
//! | [`rng`] | Philox4x32-10, on the host ([`Philox`], a `rand_core` generator) and devices | the same stream everywhere |
//! | [`alias`] | alias tables of f32/f64 weights (PSA, PSA+) and four samplers | exact integer construction |
//! | [`multisplit`] | stable grouping of keys (and values) into buckets | up to 65536 buckets |
//! | [`subset`] | random K-subsets of a set of up to 4096 elements | bit vectors or sorted positions |
//! | [`convolve`] | sums of discrete random variables: convolutions, gradients, batches, powers | tails kept to their relative accuracy |
//! | [`moments`] | count, mean, variance, min, max in one read | accurate far from zero |
//! | [`lbp`] | 1D local binary pattern histograms | one signal or a batch |
//! | [`som`] | self-organizing maps: best-matching units, batch and online training | the same map on every backend |
//!
//! One example per area (each `?` returns a [`warpkit::Error`](Error): a program's `main` can
//! return `Result<(), warpkit::Error>`, or `Box<dyn std::error::Error>` alongside other errors):
//!
//! ```
//! use warpkit::alias::{AliasTable, SampleOptions};
//! use warpkit::convolve::Convolution;
//! use warpkit::multisplit::{Buckets, Multisplit};
//! use warpkit::rand_core::SeedableRng;
//! use warpkit::som::{Schedule, Som};
//! use warpkit::subset::Subsets;
//! use warpkit::{Backend, Philox, lbp, moments};
//!
//! let backend = Backend::auto();
//! // 1000 draws of items weighted 1, 2 and 5.
//! let table = AliasTable::new(&backend, &[1.0f64, 2.0, 5.0])?;
//! let draws = table.sample(&mut Philox::seed_from_u64(7), 1000, SampleOptions::default())?;
//! // Keys grouped by bucket, stably: [0, 10), [10, 20), [20, ..).
//! let split = Multisplit::new(Buckets::Splitters(&[10u32, 20]))?.keys(&backend, &[25, 3, 17])?;
//! assert_eq!(split.keys, [3, 17, 25]);
//! // 1000 poker hands: 5 of 52 positions each.
//! let hands = Subsets::range(52, 5)?.positions(&backend, 7, 1000)?;
//! // The distribution of the sum of two dice.
//! let two = Convolution::new().full(&backend, &[1.0f64 / 6.0; 6], &[1.0 / 6.0; 6])?;
//! // Mean and variance of the draws, in one pass.
//! let as_f64: Vec<f64> = draws.iter().map(|&d| d as f64).collect();
//! let summary = moments::summary(&backend, &as_f64)?;
//! // Local binary patterns of neighbourhood 2 (16 bins).
//! let counts = lbp::histogram(&backend, &[3i32, 1, 4, 1, 5, 9, 2, 6, 5, 3], 2)?;
//! // A 4 × 4 map of 300 points in 2D.
//! let points: Vec<f32> = (0..600).map(|i| (i * 37 % 100) as f32 / 100.0).collect();
//! let mut map = Som::random(4, 4, 2, &points, 7)?;
//! map.train_batch(&backend, &points, &Schedule::for_map(4, 4, 10))?;
//! println!("{summary}; {} hands; P(7) = {:.3}; {counts:?}; {map}", hands.len(), two[5]);
//! # Ok::<(), warpkit::Error>(())
//! ```
//!
//! # Where the GPU is needed
//!
//! Nowhere: without one (or without the `cuda` feature) every call runs on the CPU backend.
//! A GPU of compute capability 8.0 or newer (A100, H100, RTX 30 and later) with its CUDA
//! driver is used when [`Backend::auto`] or [`Device::gpu`] finds one; the driver is loaded
//! at run time, so building needs no CUDA toolkit. Calls on a [`Device`]'s buffers run on that
//! device, the [`Emulator`] included.
//!
//! # Methods
//!
//! Several primitives can be told which of their kernels to run (`with_method`,
//! `SampleOptions::method`). A method is a choice among a device's kernels, never a change of
//! result, so a backend that does not offer the method named runs its own: the CPU backend's
//! one algorithm, or a device's default for a CPU-only method (Vose's alias construction).
//! Every method gives the same split and subsets, alias tables of the same probabilities,
//! samples from the same distribution, and convolutions to each method's rounding; [`alias::AliasTable::construction`]
//! says which built a table. A method that cannot take the input at all (a subset method too
//! narrow for the mask) is an error on every backend. Where methods build different but
//! equivalent results (PSA and PSA+ alias tables: the same probabilities, other rows), one seed
//! draws the same samples only from the same table: name the method on every backend.
//!
//! # Errors
//!
//! Bad input (empty, NaN, infinite, negative, too long, mismatched lengths, out-of-range
//! parameters) is an [`Error`] before anything runs, never a panic or a fault; so is running
//! out of device memory ([`Error::OutOfMemory`]).
//!
//! # Results and progress
//!
//! Results print with `{}` ([`moments::Summary`], [`multisplit::Split`], [`alias::AliasTable`],
//! [`som::Som`], ...), and with the `serde` feature save and load. Calls that can take seconds
//! on the CPU backend report as they go: [`som::Som::train_with`] after each epoch,
//! [`alias::AliasTable::build_with`] and [`multisplit::Multisplit::with_progress`] each
//! hundredth of their work ([`WorkDone`]).
//!
//! # Features
//!
//! - `cuda-12080` (default): the GPU backend, on the CUDA 12.8 driver API; `cuda` alone with
//!   cudarc's feature of another version in your manifest (`warpkit::cudarc` is re-exported).
//! - `serde`: `Serialize` and `Deserialize` for [`som::Som`], [`som::Schedule`],
//!   [`moments::Summary`], [`multisplit::Split`] and [`alias::SavedTable`].
//! - `glam`: SOM nodes and cells as `glam::Vec2`, `Vec3` and `Vec4`, without copies
//!   (`som::flat`, `Som::cells`).
//! - `build-kernels`: the kernels built from source (contributors).
//!
//! Debug builds of a dependent: warpkit's CPU work (the CPU backend, the emulator) is about 11
//! times slower unoptimized; `[profile.dev.package."*"] opt-level = 3` in your manifest keeps
//! it fast.
//!
//! # How it is built
//!
//! The kernels live in the `warpkit-kernels` crate, `#![no_std]` Rust compiled to PTX and to
//! machine code for sm_80 and sm_90, embedded here; the same crate compiled for the host is
//! the emulator's. This crate owns everything a caller touches: [`Backend`], [`Device`]s with
//! typed buffers and checked launches, one [`Error`] type, and the primitives.
#![warn(missing_debug_implementations, missing_docs)]

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

#[cfg(feature = "dist")]
pub mod dist;

#[cfg(feature = "checks")]
#[doc(hidden)]
pub mod checks;

#[cfg(feature = "cuda")]
pub use runtime::gpu;
pub use runtime::{backend, cpu, device, element, emulator};

// The Philox area (`philox/`) under the path its items have always had.
/// warpkit's random stream on the host ([`Philox`], a `rand_core` generator) and on a device
/// ([`Device::philox_fill`]): both evaluate [`warpkit_kernels::rng::philox`] on the same counters,
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
pub use runtime::bindings::Bindings;
pub use runtime::module::{ImageFormat, Module, ModuleImage};
pub use runtime::pinned::PinnedBuffer;
pub use runtime::progress::WorkDone;
pub use warpkit_kernels::emu::{Fault, Misuse, Options as EmulatorOptions};

/// The `cudarc` warpkit's GPU backend is built on (feature `cuda`): its `CudaSlice`s and
/// streams are what warpkit's GPU buffers and work run on, and pass in and out of it
/// ([`Device::adopt`], [`DeviceBuffer::into_cuda_slice`], [`Device::gpu_on_stream`]).
#[cfg(feature = "cuda")]
pub use cudarc;

/// The `glam` whose vectors the SOM calls take (feature `glam`; [`som::Vector`]).
#[cfg(feature = "glam")]
pub use glam;

/// The `bytemuck` whose `Pod` bounds the element types of device buffers and the values that
/// travel with multisplit keys.
pub use bytemuck;

/// The `rand` (0.9) whose [`Distribution`](rand::distr::Distribution) an
/// [`alias::AliasSampler`] implements, so that callers draw from it without a `rand` of their
/// own, or of another version.
pub use rand;

/// The `rand_core` whose `RngCore` the samplers take and [`Philox`] implements, so that callers
/// seed and pass generators without naming a version of their own.
pub use rand_core;

/// The largest number of elements the scans and reductions accept: 2^32 - 1.
pub const MAX_LEN: u64 = u32::MAX as u64;

// Every Rust block of the README is a program that the doc tests compile and run.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeExamples;
