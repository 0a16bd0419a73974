//! The device-wide scans and reductions as host code generic over the element type launches
//! them: the table that ties each element type to its instances, and the table of an operator
//! of one's own ([`OperatorKernels`], declared by `operator_kernels!`).

use super::reduce::{self, Reduce};
use super::scan::{self, Scan};
use crate::num::Element;
use crate::op::Operator;

crate::kernel_table! {
    /// The device-wide reduction and scans by an operator of one's own (`Self`, which the
    /// kernels make by `Default`) over `T`.
    pub trait OperatorKernels<T: Element>: Operator<T> {
        /// The reduction (both passes).
        Reduce: Reduce<T>;
        /// Exclusive scan.
        ExclusiveScan: Scan<T>;
        /// Inclusive scan.
        InclusiveScan: Scan<T>;
    }
}

crate::kernel_table! {
    /// The scan and reduction kernels of one element type (u32, u64, f32, f64, i32 or i64).
    pub trait ScalarKernels: Element {
        /// Exclusive prefix sums.
        Scan: Scan<Self>;
        /// Inclusive prefix sums.
        InclusiveScan: Scan<Self>;
        /// Sum (both passes).
        Reduce: Reduce<Self>;
        /// Least element.
        Min: Reduce<Self>;
        /// Greatest element.
        Max: Reduce<Self>;
    }
    u32 {
        Scan = scan::scan_exclusive_u32,
        InclusiveScan = scan::scan_inclusive_u32,
        Reduce = reduce::reduce_sum_u32,
        Min = reduce::reduce_min_u32,
        Max = reduce::reduce_max_u32,
    }
    u64 {
        Scan = scan::scan_exclusive_u64,
        InclusiveScan = scan::scan_inclusive_u64,
        Reduce = reduce::reduce_sum_u64,
        Min = reduce::reduce_min_u64,
        Max = reduce::reduce_max_u64,
    }
    f32 {
        Scan = scan::scan_exclusive_f32,
        InclusiveScan = scan::scan_inclusive_f32,
        Reduce = reduce::reduce_sum_f32,
        Min = reduce::reduce_min_f32,
        Max = reduce::reduce_max_f32,
    }
    f64 {
        Scan = scan::scan_exclusive_f64,
        InclusiveScan = scan::scan_inclusive_f64,
        Reduce = reduce::reduce_sum_f64,
        Min = reduce::reduce_min_f64,
        Max = reduce::reduce_max_f64,
    }
    i32 {
        Scan = scan::scan_exclusive_i32,
        InclusiveScan = scan::scan_inclusive_i32,
        Reduce = reduce::reduce_sum_i32,
        Min = reduce::reduce_min_i32,
        Max = reduce::reduce_max_i32,
    }
    i64 {
        Scan = scan::scan_exclusive_i64,
        InclusiveScan = scan::scan_inclusive_i64,
        Reduce = reduce::reduce_sum_i64,
        Min = reduce::reduce_min_i64,
        Max = reduce::reduce_max_i64,
    }
}
