//! The weight types alias tables take: f32 and f64, each tied to its kernels (the table in
//! `warpkit_kernels::alias::kernels`) and to how closely its tables match the weights.

use crate::runtime::element::Scalar;
use warpkit_kernels::alias::Weight;
use warpkit_kernels::alias::kernels::AliasKernels;

/// f32 or f64 weights, tied to their kernels.
pub trait AliasWeight: Weight + Scalar + AliasKernels {
    /// How close each item's mass must be to `N·w_i / W`, relative to the largest mass.
    const MASS_TOLERANCE: f64;
}

impl AliasWeight for f32 {
    const MASS_TOLERANCE: f64 = 1e-5;
}

impl AliasWeight for f64 {
    const MASS_TOLERANCE: f64 = 1e-9;
}
