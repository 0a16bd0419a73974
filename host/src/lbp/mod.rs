//! Local binary pattern histograms of 1D signals.
//!
//! ```
//! use warpkit::Backend;
//! use warpkit::lbp::{bins, histogram};
//!
//! // Neighbourhood 1: each inner position's pattern says whether its left (bit 0) and right
//! // (bit 1) neighbours are at least as large as it.
//! let counts = histogram(&Backend::cpu(), &[3, 1, 4, 1, 5, 9, 2, 6], 1)?;
//! assert_eq!(counts.len(), bins(1) as usize);
//! assert_eq!(counts, [2, 0, 1, 3]); // peaks 4 and 9, a rise at 5, dips at 1, 1 and 2
//! # Ok::<(), warpkit::Error>(())
//! ```
//!
//! For a neighbourhood `n` (1 to [`MAX_NEIGHBOURHOOD`]) the pattern at position `i` of a
//! signal `x` of length `L`, for `n <= i < L − n`, has `2n` bits: bit `j < n` is set when
//! `x[i − n + j] >= x[i]`, bit `n + j` when `x[i + 1 + j] >= x[i]` (`>=`: equal neighbours set
//! their bit). A signal's histogram counts its `L − 2n` patterns in [`bins`]`(n) = 2^(2n)`
//! bins. With f32 signals a NaN compares false: it sets no bit of its neighbours' patterns, and
//! its own pattern is 0.
//!
//! Devices count tiles of positions into histograms in shared memory and add each block's to
//! the result once ([`warpkit_kernels::lbp`]); the CPU backend folds patterns with rayon and is
//! the tests' reference. [`histograms`] takes many signals at once, a histogram each.

mod cpu;
mod launch;

use crate::error::{Error, Result, check_len, check_offsets, check_same_len};
use crate::runtime::backend::Backend;
use crate::runtime::device::{Device, DeviceBuffer};
use bytemuck::Pod;
use std::fmt::Debug;
use warpkit_kernels::lbp::LbpKernels;
pub use warpkit_kernels::lbp::{MAX_NEIGHBOURHOOD, bins};

/// The element types of signals: i32, u32 and f32.
pub trait Signal: LbpKernels + Pod + Unpin + Debug + Send + Sync + 'static {}

impl Signal for i32 {}
impl Signal for u32 {}
impl Signal for f32 {}

/// The histogram of `signal`'s patterns of neighbourhood `n` ([`bins`]`(n)` counts).
pub fn histogram<T: Signal>(backend: &Backend, signal: &[T], n: u32) -> Result<Vec<u32>> {
    histograms(backend, signal, &[0, signal.len()], n)
}

/// The histograms of many signals at once: signal `s` is `data[offsets[s] .. offsets[s + 1]]`
/// (offsets from 0 to `data.len()`, rising); [`bins`]`(n)` counts a signal, one signal after
/// another.
pub fn histograms<T: Signal>(backend: &Backend, data: &[T], offsets: &[usize], n: u32) -> Result<Vec<u32>> {
    check(data.len(), offsets, n)?;
    match backend {
        Backend::Cpu(_) => Ok(cpu::histograms(data, offsets, n)),
        Backend::Device(d) => {
            let mut out = d.workspace::<u32>((offsets.len() - 1) * bins(n) as usize)?;
            histograms_into(d, &d.upload(data)?, offsets, n, &mut out)?;
            d.download(&out)
        }
    }
}

/// [`histograms`] of a device buffer into `out` on the same device (`bins(n)` counts a
/// signal, overwritten), without waiting for the device. A single signal is `offsets = [0,
/// data.len()]`; more are described to the kernel in a small upload.
pub fn histograms_into<T: Signal>(
    device: &Device,
    data: &DeviceBuffer<T>,
    offsets: &[usize],
    n: u32,
    out: &mut DeviceBuffer<u32>,
) -> Result<()> {
    check(data.len(), offsets, n)?;
    check_same_len(
        "histograms output",
        (offsets.len() - 1) * bins(n) as usize,
        out.len(),
    )?;
    launch::histograms_into(device, data, offsets, n, out)
}

/// Refuses a neighbourhood outside 1..=8, offsets that do not cut the data into signals, and
/// signals shorter than `2n + 1`.
fn check(len: usize, offsets: &[usize], n: u32) -> Result<()> {
    if !(1..=MAX_NEIGHBOURHOOD).contains(&n) {
        return Err(Error::OutOfRange {
            what: "neighbourhood",
            value: n as u64,
            min: 1,
            max: MAX_NEIGHBOURHOOD as u64,
        });
    }
    check_len("signal data", len, crate::MAX_LEN)?;
    match offsets {
        [0, end] if *end == len => {}
        _ => check_offsets("signal offsets", len, offsets, crate::MAX_LEN)?,
    }
    let short = offsets.windows(2).position(|w| w[1] - w[0] < 2 * n as usize + 1);
    match short {
        Some(index) => Err(Error::SignalTooShort {
            index,
            len: offsets[index + 1] - offsets[index],
            n,
        }),
        None => Ok(()),
    }
}
