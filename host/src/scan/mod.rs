//! Exclusive and inclusive prefix sums of u32, u64, i32, i64, f32 or f64
//! ([`Backend::exclusive_scan`], [`Backend::inclusive_scan`]): on a device a single pass with
//! decoupled look-back ([`Device::exclusive_scan_into`]; host memory that is page-locked both
//! ways goes through chunk by chunk with its copies overlapped), on the CPU fixed chunks with
//! rayon ([`Cpu::exclusive_scan`]). Integers wrap; at most
//! [`MAX_LEN`] elements. A device scan may start from a value
//! ([`Device::exclusive_scan_from_into`]: the scan of a part whose predecessors sum to it, as
//! `dist::scan::exclusive_scan_into` scans a rank's part) at no extra pass.
//!
//! [`Device::exclusive_scan_into`]: crate::Device::exclusive_scan_into
//! [`Device::exclusive_scan_from_into`]: crate::Device::exclusive_scan_from_into
//! [`Cpu::exclusive_scan`]: crate::cpu::Cpu::exclusive_scan

mod cpu;
mod launch;

pub use launch::{SCAN_TUNING_U32, ScanU32};

use crate::MAX_LEN;
use crate::error::{Result, check_len, check_same_len};
use crate::runtime::backend::Backend;
use crate::runtime::cpu::filled_by;
use crate::runtime::element::Scalar;
use warpkit_kernels::grid::kernels::OperatorKernels;

impl Backend {
    /// Exclusive prefix sums: `out[i] = input[0] + ... + input[i-1]`.
    pub fn exclusive_scan<T: Scalar>(&self, input: &[T]) -> Result<Vec<T>> {
        filled_by(input.len(), |out| self.exclusive_scan_into(input, out))
    }

    /// As [`Backend::exclusive_scan`], into `out` of the input's length (`Err(LengthMismatch)`
    /// before any copy otherwise). Slices of a [`PinnedBuffer`](crate::PinnedBuffer) move at
    /// the link's speed.
    pub fn exclusive_scan_into<T: Scalar>(&self, input: &[T], out: &mut [T]) -> Result<()> {
        self.scan_into(input, out, false)
    }

    /// Inclusive prefix sums: `out[i] = input[0] + ... + input[i]`.
    pub fn inclusive_scan<T: Scalar>(&self, input: &[T]) -> Result<Vec<T>> {
        filled_by(input.len(), |out| self.inclusive_scan_into(input, out))
    }

    /// As [`Backend::inclusive_scan`], into `out` of the input's length, as
    /// [`Backend::exclusive_scan_into`].
    pub fn inclusive_scan_into<T: Scalar>(&self, input: &[T], out: &mut [T]) -> Result<()> {
        self.scan_into(input, out, true)
    }

    /// The exclusive scan by `op`, an operator of one's own whose kernels a device crate
    /// declared with [`warpkit_kernels::operator_kernels!`] (loaded on a GPU with
    /// [`Device::load`](crate::Device::load)): `out[i]` combines `input[0..i]`, `out[0]` is the
    /// identity. On a device those kernels (which make the operator by `Default`), on the CPU
    /// `op` itself, in order.
    pub fn exclusive_scan_by<T: Scalar, O: OperatorKernels<T> + Default>(
        &self,
        op: O,
        input: &[T],
    ) -> Result<Vec<T>> {
        self.scan_by(op, input, false)
    }

    /// The inclusive scan by `op`: `out[i]` combines `input[0..=i]`; otherwise as
    /// [`Backend::exclusive_scan_by`].
    pub fn inclusive_scan_by<T: Scalar, O: OperatorKernels<T> + Default>(
        &self,
        op: O,
        input: &[T],
    ) -> Result<Vec<T>> {
        self.scan_by(op, input, true)
    }

    fn scan_by<T: Scalar, O: OperatorKernels<T> + Default>(
        &self,
        op: O,
        input: &[T],
        inclusive: bool,
    ) -> Result<Vec<T>> {
        check_len("scan input", input.len(), MAX_LEN)?;
        match self {
            Backend::Device(d) => {
                let input = d.upload(input)?;
                let scanned = if inclusive {
                    d.inclusive_scan_by::<T, O>(&input)?
                } else {
                    d.exclusive_scan_by::<T, O>(&input)?
                };
                d.download(&scanned)
            }
            Backend::Cpu(_) => {
                let mut run = op.identity();
                let each = |&x: &T| {
                    let before = run;
                    run = op.combine(run, x);
                    if inclusive { run } else { before }
                };
                Ok(input.iter().map(each).collect())
            }
        }
    }

    fn scan_into<T: Scalar>(&self, input: &[T], out: &mut [T], inclusive: bool) -> Result<()> {
        check_len("scan input", input.len(), MAX_LEN)?;
        check_same_len("scan output", input.len(), out.len())?;
        match self {
            #[cfg(feature = "cuda")]
            Backend::Device(d) if let Some(chunk) = d.pipeline_chunk(input, out) => {
                // Page-locked both ways: copies in and out overlap, chunk by chunk. Each chunk
                // is scanned from zero and lands shifted by the total of the chunks
                // before it: the last landed sum, plus the chunk's last input if exclusive.
                let carry = |chunk_in: &[T], landed: &[T]| {
                    let last = *landed.last().expect("chunks are not empty");
                    if inclusive {
                        last
                    } else {
                        last.add(*chunk_in.last().expect("not empty"))
                    }
                };
                d.pipeline(
                    (input, out),
                    chunk,
                    |staged, scanned, range| d.scan_chunk(inclusive, staged, scanned, range),
                    (T::ZERO, carry),
                    T::add,
                )
            }
            Backend::Device(d) => {
                let mut scanned = d.workspace(input.len())?;
                let input = d.upload(input)?;
                if inclusive {
                    d.inclusive_scan_into(&input, &mut scanned)?;
                } else {
                    d.exclusive_scan_into(&input, &mut scanned)?;
                }
                d.download_into(&scanned, out)
            }
            Backend::Cpu(c) if inclusive => c.inclusive_scan_into(input, out),
            Backend::Cpu(c) => c.exclusive_scan_into(input, out),
        }
    }
}
