//! Multisplit (Ashkiani et al., "GPU Multisplit", 2016): a stable reordering of keys, and optionally values,
//! by bucket: bucket 0's keys first, then bucket 1's, each bucket in input order.
//!
//! [`bucket`] holds what maps a key to its bucket, shared by the device kernels and the host's
//! CPU backend so that both compute the same buckets; [`digit_pass`] gathers the kernels of the
//! paper's direct, warp-level and block-level methods, built from one module per part: the pass
//! and its bucket functions ([`pass`]), the pass's table ([`table`]), the [`histogram`] launch,
//! the [`scatter`] launch and its writes (`scatter_warp`, `scatter_block`, `scatter_counted`,
//! and `lane_tile`, the ranked tile the scatter hands its writes), and the [`bounds`] launch,
//! each launch's module declaring its kernel family (parameters, body, plan); `kernels` ties
//! them to the key types and bucket functions, [`own`] declares them for a bucket function of
//! one's own. The tile loads, counts, ranking and staged write-out they use live in
//! [`crate::block`].

pub mod bounds;
pub mod bucket;
pub mod digit_pass;
pub mod histogram;
#[cfg(not(target_arch = "nvptx64"))]
pub mod kernels;
mod lane_tile;
pub mod own;
pub mod pass;
pub mod scatter;
mod scatter_block;
mod scatter_counted;
mod scatter_warp;
pub mod table;

use crate::block::load::WarpStriped;
use crate::policy::multisplit::{THREADS, WINDOWS};

/// The digit passes' tile: warp-striped, [`WINDOWS`] keys a lane.
type Tile = WarpStriped<THREADS, WINDOWS>;
