//! The weight types alias tables take: f32 and f64, each tied to its kernels (the table in
//! `warpkit_kernels::alias::kernels`) and to how closely its tables match the weights.

use crate::runtime::cpu::SharedWrites;
use crate::runtime::element::Scalar;
use rows::SharedRows;
use warpkit_kernels::alias::kernels::AliasKernels;
use warpkit_kernels::alias::{Row, Weight};

/// f32 or f64 weights, tied to their kernels.
pub trait AliasWeight: Weight + Scalar + AliasKernels + SharedRows {
    /// How close each item's mass must be to `N·w_i / W`, relative to the largest mass.
    const MASS_TOLERANCE: f64;
}

impl AliasWeight for f32 {
    const MASS_TOLERANCE: f64 = 1e-5;
}

impl AliasWeight for f64 {
    const MASS_TOLERANCE: f64 = 1e-9;
}

// Sealed: the trait cannot be named outside the crate, nor can its return type be used there.
#[allow(private_interfaces)]
mod rows {
    use super::*;

    /// Rows the CPU build's tasks write at once (rows are plain data for f32 and f64 only, so
    /// this is per type).
    pub trait SharedRows: Weight {
        fn shared_rows(rows: &mut [Row<Self>]) -> SharedWrites<'_, Row<Self>>;
    }

    impl SharedRows for f32 {
        fn shared_rows(rows: &mut [Row<f32>]) -> SharedWrites<'_, Row<f32>> {
            SharedWrites::new(rows)
        }
    }

    impl SharedRows for f64 {
        fn shared_rows(rows: &mut [Row<f64>]) -> SharedWrites<'_, Row<f64>> {
            SharedWrites::new(rows)
        }
    }
}
