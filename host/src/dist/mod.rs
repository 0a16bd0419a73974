//! Primitives across GPUs (issue 45), behind the `dist` feature: the rank arithmetic every
//! distributed primitive plans with ([`plan`]: pure functions of their inputs and a seed, so
//! that every rank computes the same plan without exchanging it), the collectives the
//! primitives are written against ([`Group`]), over NCCL ([`NcclGroup`], feature `nccl`: one
//! process a GPU, started by [`launch()`], or several GPUs in one process) or over threads in one
//! process ([`LocalGroup`], the CPU's stand-in for NCCL, so that the algorithms are tested where
//! there is no GPU); and on them sum, minimum, maximum and moments over the ranks ([`reduce`]),
//! their exclusive scans ([`scan`]), alias tables sharded over them ([`ShardedTable`]) and
//! multisplit across them ([`multisplit`]).

pub mod alias;
pub mod group;
pub mod launch;
pub mod multisplit;
#[cfg(feature = "nccl")]
pub mod nccl;
pub mod plan;
pub mod reduce;
pub mod scan;

pub use alias::ShardedTable;
pub use group::{Group, LocalGroup, all_gather, all_gather_present, all_gather_varied};
pub use launch::{Ended, launch};
#[cfg(feature = "nccl")]
pub use nccl::{NcclGroup, UniqueId};
pub use plan::{Partition, rank_offsets, split_samples};
