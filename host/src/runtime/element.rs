//! The element types of the scans and reductions (sum, minimum, maximum), tied to their
//! kernels.

use bytemuck::Pod;
use warpkit_kernels::device::{reduce, scan};
pub use warpkit_kernels::num::Element;

/// u32, u64, i32, i64, f32 or f64: the types the device-wide scan and reduction are built for.
/// Integers wrap on overflow; floats follow IEEE addition (the device's summation order differs
/// from a sequential loop, so float results differ from it by rounding).
pub trait Scalar: Element + Pod + Unpin + std::fmt::Debug + sealed::Kernels {}

/// Sealed: the kernels of each scalar type, out of the public API (their argument tuples are
/// raw pointers).
mod sealed {
    use warpkit_kernels::kernel::Kernel;

    pub trait Kernels: Sized {
        type Scan: Kernel<Params = (*const Self, *mut Self, u64, *mut u8, u64)>;
        type InclusiveScan: Kernel<Params = (*const Self, *mut Self, u64, *mut u8, u64)>;
        type Reduce: Kernel<Params = (*const Self, u64, *mut Self)>;
        type Min: Kernel<Params = (*const Self, u64, *mut Self)>;
        type Max: Kernel<Params = (*const Self, u64, *mut Self)>;
    }
}

macro_rules! scalar {
    ($($t:ty: $scan:ident, $inclusive:ident, $reduce:ident, $min:ident, $max:ident);*) => {$(
        impl sealed::Kernels for $t {
            type Scan = scan::$scan;
            type InclusiveScan = scan::$inclusive;
            type Reduce = reduce::$reduce;
            type Min = reduce::$min;
            type Max = reduce::$max;
        }
        impl Scalar for $t {}
    )*};
}
scalar!(
    u32: scan_exclusive_u32, scan_inclusive_u32, reduce_sum_u32, reduce_min_u32, reduce_max_u32;
    u64: scan_exclusive_u64, scan_inclusive_u64, reduce_sum_u64, reduce_min_u64, reduce_max_u64;
    f32: scan_exclusive_f32, scan_inclusive_f32, reduce_sum_f32, reduce_min_f32, reduce_max_f32;
    f64: scan_exclusive_f64, scan_inclusive_f64, reduce_sum_f64, reduce_min_f64, reduce_max_f64;
    i32: scan_exclusive_i32, scan_inclusive_i32, reduce_sum_i32, reduce_min_i32, reduce_max_i32;
    i64: scan_exclusive_i64, scan_inclusive_i64, reduce_sum_i64, reduce_min_i64, reduce_max_i64
);
