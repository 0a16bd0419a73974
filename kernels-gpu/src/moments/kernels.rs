//! The moments kernels as host code generic over the input type launches them: the table that
//! ties f32 and f64 inputs to their instances.

use super::columns::{self, Columns};
use super::{Partials, moments_partials_f32, moments_partials_f64};
use crate::num::Element;

crate::kernel_table! {
    /// The moments kernels of one input type (f32 or f64).
    pub trait MomentsKernels: Element {
        Partials: Partials<Self>;
        Columns: Columns<Self>;
    }
    f32 {
        Partials = moments_partials_f32,
        Columns = columns::moments_columns_f32,
    }
    f64 {
        Partials = moments_partials_f64,
        Columns = columns::moments_columns_f64,
    }
}
