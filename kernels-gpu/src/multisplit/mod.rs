//! Multisplit (seed 002, "GPU Multisplit"): a stable reordering of keys, and optionally values,
//! by bucket: bucket 0's keys first, then bucket 1's, each bucket in input order.
//!
//! [`bucket`] holds what maps a key to its bucket, shared by the device kernels and the host's
//! CPU backend so that both compute the same buckets; [`digit_pass`] holds the seed's direct,
//! warp-level and block-level methods.

pub mod bucket;
mod counted;
pub mod digit_pass;
#[cfg(not(target_arch = "nvptx64"))]
pub mod kernels;
