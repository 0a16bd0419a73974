//! Weighted random sampling with alias tables: build a table from weights once, then draw any
//! number of samples with replacement in constant time each. The GPU construction and
//! samplers follow Lehmann et al., "Weighted Random Sampling on GPUs" (2021): PSA, the
//! parallel split-and-pack construction of Hübschle-Schneider and Sanders, and PSA+, which
//! packs greedily within tiles first (both below).
//!
//! ```
//! use warpkit::rand::distr::Distribution;
//! use warpkit::rand_core::SeedableRng;
//! use warpkit::{Backend, alias::{AliasTable, SampleOptions}};
//!
//! let weights = [1.0f64, 2.0, 0.0, 5.0];
//! let table = AliasTable::new(&Backend::auto(), &weights)?;
//! let mut rng = warpkit::Philox::seed_from_u64(42);
//! // Many at once, on the table's backend; item 2 never appears:
//! let samples: Vec<u32> = table.sample(&mut rng, 1_000_000, SampleOptions::default())?;
//! // One at a time on the host, as a `rand` distribution:
//! let sampler = table.sampler()?;
//! let one: u32 = sampler.sample(&mut rng);
//! let few: Vec<u32> = sampler.sample_iter(&mut rng).take(10).collect();
//! # Ok::<(), warpkit::Error>(())
//! ```
//!
//! Construction follows PSA (partition into light and heavy items, prefix sums, splits, pack)
//! or PSA+ (the same after each tile of items has packed what it can on its own)
//! on exact integer weights (see [`warpkit_kernels::alias`]), so every backend and PSA method
//! builds the same table for the same quantized weights (every PSA+ method another; the CPU
//! backend's default is PSA+, a device's PSA), and the mass each item receives is within
//! about 1e-10 rows of `N·w_i / W`. Samples are a pure function of the table and of the key and
//! counter taken from the caller's generator: the same table, seed, method and order give the
//! same samples on every device. Every call that names no order returns samples in random order;
//! [`Order::AsDrawn`] leaves a sectioned sampler's output grouped by table section (see
//! [`Sampling`]).

mod check;
mod cpu;
mod kernels;
pub(crate) mod launch;
mod method;
mod saved;
mod table;

#[doc(inline)]
pub use crate::error::TableDefect;
pub use check::{check_table, item_masses};
pub use kernels::AliasWeight;
pub use method::{
    Construction, Layout, Order, PackMethod, SampleOptions, Sampling, SplitMethod, TILED_MAX_ROWS,
};
pub use saved::SavedTable;
pub use table::{AliasSampler, AliasTable, SampleOutput};
use table::{check_count, quantize_scale};
pub use warpkit_kernels::alias::{Entry, Row};
use warpkit_kernels::rng::philox::Stream;
