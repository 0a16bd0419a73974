//! Primitives across GPUs (issue 45), behind the `dist` feature. So far: the rank arithmetic
//! every distributed primitive plans with ([`plan`]: pure functions of their inputs and a seed,
//! so that every rank computes the same plan without exchanging it), the collectives the
//! primitives are written against ([`Group`]) with a group of threads in one process
//! ([`LocalGroup`], the CPU's stand-in for NCCL), and sum, minimum, maximum and moments over
//! the ranks ([`reduce`]), their exclusive scans ([`scan`]) and alias tables sharded over them
//! ([`ShardedTable`]), and multisplit across them ([`multisplit`]). The group over NCCL is not
//! built yet.

pub mod alias;
pub mod group;
pub mod multisplit;
pub mod plan;
pub mod reduce;
pub mod scan;

pub use alias::ShardedTable;
pub use group::{Group, LocalGroup, all_gather, all_gather_present};
pub use plan::{Partition, rank_offsets, split_samples};
