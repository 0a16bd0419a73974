//! The element types of the scans and reductions (sum, minimum, maximum), tied to their
//! kernels.

use bytemuck::Pod;
use warpkit_kernels::grid::kernels::ScalarKernels;
pub use warpkit_kernels::num::Element;

/// u32, u64, i32, i64, f32 or f64: the types the device-wide scan and reduction are built for.
/// Integers wrap on overflow; floats follow IEEE addition (the device's summation order differs
/// from a sequential loop, so float results differ from it by rounding).
pub trait Scalar: Element + Pod + Unpin + std::fmt::Debug + ScalarKernels {}

impl Scalar for u32 {}
impl Scalar for u64 {}
impl Scalar for f32 {}
impl Scalar for f64 {}
impl Scalar for i32 {}
impl Scalar for i64 {}
