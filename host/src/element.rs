//! The element types of the scans and reductions, tied to their kernels.

use crate::kernels::names;
use cudarc::driver::{DeviceRepr, ValidAsZeroBits};
pub use warpkit_kernels::num::Element;

mod sealed {
    pub trait Sealed {}
}

/// u32, u64, f32 or f64: the types the device-wide scan and reduction are built for.
/// Integers wrap on overflow; floats follow IEEE addition (the GPU's summation order differs
/// from a sequential loop, so float results differ from it by rounding).
pub trait Scalar: Element + DeviceRepr + ValidAsZeroBits + Unpin + std::fmt::Debug + sealed::Sealed {
    #[doc(hidden)]
    const SCAN_KERNEL: &'static str;
    #[doc(hidden)]
    const REDUCE_KERNEL: &'static str;
}

macro_rules! scalar {
    ($($t:ty: $scan:ident, $reduce:ident);*) => {$(
        impl sealed::Sealed for $t {}
        impl Scalar for $t {
            const SCAN_KERNEL: &'static str = names::$scan;
            const REDUCE_KERNEL: &'static str = names::$reduce;
        }
    )*};
}
scalar!(
    u32: SCAN_EXCLUSIVE_U32, REDUCE_SUM_U32;
    u64: SCAN_EXCLUSIVE_U64, REDUCE_SUM_U64;
    f32: SCAN_EXCLUSIVE_F32, REDUCE_SUM_F32;
    f64: SCAN_EXCLUSIVE_F64, REDUCE_SUM_F64
);
