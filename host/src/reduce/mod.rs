//! The sum, minimum and maximum of u32, u64, i32, i64, f32 or f64 ([`Backend::sum`],
//! [`Backend::min`], [`Backend::max`]): on a device a persistent grid's
//! partials summed by one block ([`Device::sum_into`], `launch.rs`), on the CPU fixed chunks
//! with rayon ([`Cpu::sum`], `cpu.rs`). Float sums repeat exactly for a device and length.
//!
//! [`Device::sum_into`]: crate::Device::sum_into
//! [`Cpu::sum`]: crate::cpu::Cpu::sum

mod cpu;
mod launch;

use crate::error::Result;
use crate::runtime::backend::Backend;
use crate::runtime::element::Scalar;
use warpkit_kernels::grid::kernels::OperatorKernels;

impl Backend {
    /// The sum of all elements.
    pub fn sum<T: Scalar>(&self, input: &[T]) -> Result<T> {
        match self {
            Backend::Device(d) => d.sum(&d.upload(input)?),
            Backend::Cpu(c) => c.sum(input),
        }
    }

    /// The reduction of all elements by `op`, an operator of one's own whose kernels a device
    /// crate declared with [`warpkit_kernels::operator_kernels!`] (loaded on a GPU with
    /// [`Device::load`](crate::Device::load)): on a device those kernels (which make the
    /// operator by `Default`), on the CPU `op` itself; the identity for no elements.
    pub fn reduce_by<T: Scalar, O: OperatorKernels<T> + Sync>(&self, op: O, input: &[T]) -> Result<T> {
        match self {
            Backend::Device(d) => d.reduce_by::<T, O>(&d.upload(input)?),
            Backend::Cpu(c) => c.reduce_by(op, input),
        }
    }

    /// The least element: NaN if any is NaN, -0 below +0; `Err(EmptyVector)` when empty.
    pub fn min<T: Scalar>(&self, input: &[T]) -> Result<T> {
        match self {
            Backend::Device(d) => d.min(&d.upload(input)?),
            Backend::Cpu(c) => c.min(input),
        }
    }

    /// The greatest element, as [`Backend::min`].
    pub fn max<T: Scalar>(&self, input: &[T]) -> Result<T> {
        match self {
            Backend::Device(d) => d.max(&d.upload(input)?),
            Backend::Cpu(c) => c.max(input),
        }
    }
}
