//! Exclusive prefix sums of u32, u64, f32 or f64 ([`Backend::exclusive_scan`]): on a device a
//! single pass with decoupled look-back ([`Device::exclusive_scan_into`], `device.rs`), on the
//! CPU fixed chunks with rayon ([`Cpu::exclusive_scan`], `cpu.rs`). Integers wrap; at most
//! [`MAX_LEN`](crate::MAX_LEN) elements.
//!
//! [`Device::exclusive_scan_into`]: crate::Device::exclusive_scan_into
//! [`Cpu::exclusive_scan`]: crate::cpu::Cpu::exclusive_scan

mod cpu;
mod device;

pub use device::{SCAN_TUNING_U32, ScanU32};

use crate::error::Result;
use crate::runtime::backend::Backend;
use crate::runtime::element::Scalar;

impl Backend {
    /// Exclusive prefix sums: `out[i] = input[0] + ... + input[i-1]`.
    pub fn exclusive_scan<T: Scalar>(&self, input: &[T]) -> Result<Vec<T>> {
        match self {
            Backend::Device(d) => d.download(&d.exclusive_scan(&d.upload(input)?)?),
            Backend::Cpu(c) => c.exclusive_scan(input),
        }
    }
}
