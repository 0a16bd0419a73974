//! The CPU backend: the same primitives with rayon, in plain Rust. It serves machines without
//! a GPU and is the reference the GPU kernels are tested against. Each area adds its methods
//! to [`Cpu`] in its own `cpu.rs`; this module holds the engine and its chunking.
//!
//! Work is split into fixed chunks (independent of the thread count), so float results repeat
//! exactly from run to run and machine to machine.

use super::element::Scalar;
use crate::error::Result;

/// Elements per rayon task.
pub(crate) const CHUNK: usize = 1 << 16;

/// The CPU backend (stateless; rayon's global pool runs the work).
#[derive(Clone, Copy, Debug, Default)]
pub struct Cpu;

/// The sum of one chunk, in order.
pub(crate) fn sum_seq<T: Scalar>(xs: &[T]) -> T {
    xs.iter().fold(T::ZERO, |a, &b| a.add(b))
}

/// A vector of `len` elements, all written by `fill` (the allocating form of an `_into` call).
pub(crate) fn filled_by<T: Scalar>(len: usize, fill: impl FnOnce(&mut [T]) -> Result<()>) -> Result<Vec<T>> {
    let mut out = vec![T::ZERO; len];
    fill(&mut out)?;
    Ok(out)
}
