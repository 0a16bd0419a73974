//! Primitives across GPUs (issue 45), behind the `dist` feature. This first part is the rank
//! arithmetic every distributed primitive plans with ([`plan`]): pure functions of their
//! inputs (and a seed), so that every rank computes the same plan without exchanging it. The
//! communicator over NCCL and the primitives on it are not built yet.

pub mod plan;

pub use plan::{Partition, rank_offsets, split_samples};
