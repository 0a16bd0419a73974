//! One-pass moments: count, mean, variance, minimum and maximum of f32 or f64 data,
//! summed in f64.
//!
//! ```
//! use warpkit::Backend;
//! use warpkit::moments::summary;
//!
//! let s = summary(&Backend::cpu(), &[1e9 + 1.0, 1e9 + 2.0, 1e9 + 3.0])?;
//! assert_eq!((s.count, s.mean, s.min, s.max), (3, 1e9 + 2.0, 1e9 + 1.0, 1e9 + 3.0));
//! assert!((s.variance() - 2.0 / 3.0).abs() < 1e-12); // no sum-of-squares cancellation
//! assert_eq!(s.sample_variance(), Some(1.0));
//! # Ok::<(), warpkit::Error>(())
//! ```
//!
//! A device reads the data once: each thread keeps sums shifted by its first element (no
//! division an element), and threads, blocks and the grid combine by Chan's pairwise update
//! ([`warpkit_kernels::moments`]). The CPU backend takes two passes with rayon (the mean, then
//! the squared deviations from it) and is the tests' reference. [`column_summaries`] gives each
//! column of a row-major matrix its own summary in one read. A NaN anywhere makes every
//! field but `count` NaN; with infinities (and no NaN) the mean is the infinity's sign (NaN if
//! both appear) and the variance NaN, as IEEE arithmetic says.

mod cpu;
mod launch;

use crate::error::{Error, Result, check_same_len};
use crate::runtime::backend::Backend;
use crate::runtime::device::{Device, DeviceBuffer};
use crate::runtime::element::Scalar;
/// Words of a [`Summary`] as a device writes it (`summary_into`): count, mean, m2, min, max,
/// as f64; [`Summary::from_words`] reads them.
pub const SUMMARY_WORDS: usize = warpkit_kernels::moments::SUMMARY_WORDS;
use warpkit_kernels::moments::kernels::MomentsKernels;
use warpkit_kernels::num::Element;

/// The element types summarized: f32 and f64.
pub trait Sample: Scalar + MomentsKernels + Into<f64> {}

impl Sample for f32 {}
impl Sample for f64 {}

/// The moments of some values.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Summary {
    /// How many values.
    pub count: u64,
    /// Their mean.
    pub mean: f64,
    /// The sum of their squared deviations from the mean.
    pub m2: f64,
    /// The smallest (NaN if any value is).
    pub min: f64,
    /// The largest (NaN if any value is).
    pub max: f64,
}

impl Summary {
    /// The summary from its words as [`summary_into`] leaves them on a device: count, mean,
    /// m2, min, max.
    pub fn from_words([count, mean, m2, min, max]: [f64; SUMMARY_WORDS]) -> Summary {
        Summary {
            count: count as u64,
            mean,
            m2,
            min,
            max,
        }
    }

    /// Its words as [`Summary::from_words`] reads them: count, mean, m2, min, max.
    pub fn words(&self) -> [f64; SUMMARY_WORDS] {
        [self.count as f64, self.mean, self.m2, self.min, self.max]
    }

    /// The summary of both sets of values together, by Chan, Golub and LeVeque's pairwise
    /// update: the means' difference `δ` adds `δ²·na·nb / n` to the sums of squares, so no
    /// sum of squares cancels. An infinite or NaN mean makes the mean their IEEE sum and the
    /// variance NaN, as [`summary`] of all the values would. (The device's combine,
    /// [`warpkit_kernels::moments::Summarize`], is the same update on 32-bit counts and
    /// shifted means, as a block holds them.)
    ///
    /// ```
    /// use warpkit::Backend;
    /// use warpkit::moments::summary;
    ///
    /// let cpu = Backend::cpu();
    /// let both = summary(&cpu, &[1.0, 2.0])?.combine(summary(&cpu, &[3.0, 4.0, 5.0])?);
    /// assert_eq!((both.count, both.mean, both.m2, both.min, both.max), (5, 3.0, 10.0, 1.0, 5.0));
    /// # Ok::<(), warpkit::Error>(())
    /// ```
    pub fn combine(self, other: Summary) -> Summary {
        if other.count == 0 {
            return self;
        }
        if self.count == 0 {
            return other;
        }
        let count = self.count + other.count;
        let (na, nb, n) = (self.count as f64, other.count as f64, count as f64);
        let (mean, m2) = if self.mean.is_finite() && other.mean.is_finite() {
            let delta = other.mean - self.mean;
            (
                self.mean + delta * (nb / n),
                self.m2 + other.m2 + delta * delta * (na * nb / n),
            )
        } else {
            (self.mean + other.mean, f64::NAN)
        };
        Summary {
            count,
            mean,
            m2,
            min: self.min.lesser(other.min),
            max: self.max.greater(other.max),
        }
    }

    /// The population variance, `m2 / count` (0 for one value).
    pub fn variance(&self) -> f64 {
        self.m2 / self.count as f64
    }

    /// The sample variance, `m2 / (count − 1)`; none for a single value.
    pub fn sample_variance(&self) -> Option<f64> {
        (self.count > 1).then(|| self.m2 / (self.count - 1) as f64)
    }

    /// The population standard deviation.
    pub fn std_dev(&self) -> f64 {
        self.variance().sqrt()
    }
}

/// `1000 values: mean 3, variance 4, standard deviation 2, min 0, max 6`, every figure to 6
/// significant digits, or to a precision's (`{:.3}`: 3), so that small and large figures
/// both keep their digits.
impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let figures = [
            ("mean", self.mean),
            ("variance", self.variance()),
            ("standard deviation", self.std_dev()),
            ("min", self.min),
            ("max", self.max),
        ];
        let digits = f.precision().unwrap_or(6).max(1);
        write!(f, "{} values", self.count)?;
        for (i, (name, value)) in figures.into_iter().enumerate() {
            let sep = if i == 0 { ':' } else { ',' };
            write!(f, "{sep} {name} {}", significant(value, digits))?;
        }
        Ok(())
    }
}

/// `value` to `digits` significant digits, trailing zeros dropped: fixed notation from 1e-4 to
/// below 10^digits, scientific outside (`1.5e-7`).
fn significant(value: f64, digits: usize) -> String {
    if value == 0.0 || !value.is_finite() {
        return value.to_string();
    }
    let exponent = value.abs().log10().floor() as i64;
    let trim = |s: String| match s.contains('.') {
        true => s.trim_end_matches('0').trim_end_matches('.').to_string(),
        false => s,
    };
    if (-4..digits as i64).contains(&exponent) {
        let decimals = (digits as i64 - 1 - exponent).max(0) as usize;
        trim(format!("{value:.decimals$}"))
    } else {
        let s = format!("{value:.*e}", digits - 1);
        let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
        format!("{}e{exp}", trim(mantissa.to_string()))
    }
}

/// The [`Summary`] of `data` (not empty) on `backend`.
pub fn summary<F: Sample>(backend: &Backend, data: &[F]) -> Result<Summary> {
    check(data.len())?;
    match backend {
        Backend::Cpu(_) => Ok(Summary::from_words(cpu::columns(data, data.len(), 1)[0].words())),
        Backend::Device(d) => summary_of_buffer(d, &d.upload(data)?),
    }
}

/// The [`Summary`] of a device buffer (not empty), read once on its device.
pub fn summary_of_buffer<F: Sample>(device: &Device, data: &DeviceBuffer<F>) -> Result<Summary> {
    let mut out = device.zeros::<f64>(SUMMARY_WORDS)?;
    summary_into(device, data, &mut out)?;
    let words = device.download(&out)?;
    Ok(Summary::from_words(
        words.try_into().expect("SUMMARY_WORDS words"),
    ))
}

/// The summary of a device buffer (not empty) into `out`, [`SUMMARY_WORDS`] f64 on the same
/// device (see [`Summary::from_words`]), for results that stay there: nothing is copied back
/// and the call does not wait for the device.
pub fn summary_into<F: Sample>(
    device: &Device,
    data: &DeviceBuffer<F>,
    out: &mut DeviceBuffer<f64>,
) -> Result<()> {
    check(data.len())?;
    check_same_len("moments output", SUMMARY_WORDS, out.len())?;
    launch::summary_into(device, data, out)
}

/// The [`Summary`] of each column of the row-major `rows × cols` matrix `data` (neither 0).
pub fn column_summaries<F: Sample>(
    backend: &Backend,
    data: &[F],
    rows: usize,
    cols: usize,
) -> Result<Vec<Summary>> {
    check_matrix(data.len(), rows, cols)?;
    match backend {
        Backend::Cpu(_) => Ok(cpu::columns(data, rows, cols)
            .into_iter()
            .map(|s| Summary::from_words(s.words()))
            .collect()),
        Backend::Device(d) => column_summaries_of_buffer(d, &d.upload(data)?, rows, cols),
    }
}

/// [`column_summaries`] of a device buffer, read once on its device.
pub fn column_summaries_of_buffer<F: Sample>(
    device: &Device,
    data: &DeviceBuffer<F>,
    rows: usize,
    cols: usize,
) -> Result<Vec<Summary>> {
    let mut out = device.workspace::<f64>(cols.saturating_mul(SUMMARY_WORDS))?;
    column_summaries_into(device, data, rows, cols, &mut out)?;
    let words = device.download(&out)?;
    Ok(words
        .chunks_exact(SUMMARY_WORDS)
        .map(|w| Summary::from_words(w.try_into().expect("SUMMARY_WORDS words")))
        .collect())
}

/// [`column_summaries`] of a device buffer into `out`, [`SUMMARY_WORDS`] f64 a column on the
/// same device (see [`Summary::from_words`]), without waiting for the device.
pub fn column_summaries_into<F: Sample>(
    device: &Device,
    data: &DeviceBuffer<F>,
    rows: usize,
    cols: usize,
    out: &mut DeviceBuffer<f64>,
) -> Result<()> {
    check_matrix(data.len(), rows, cols)?;
    check_same_len("column summaries output", cols * SUMMARY_WORDS, out.len())?;
    launch::columns_into(device, data, rows as u64, cols as u64, out)
}

/// Refuses an empty matrix, a shape that is not the data's, and more rows than the device's
/// counts hold.
fn check_matrix(len: usize, rows: usize, cols: usize) -> Result<()> {
    if rows == 0 || cols == 0 {
        return Err(Error::EmptyVector { what: "matrix" });
    }
    check_same_len("matrix data", rows.saturating_mul(cols), len)?;
    crate::error::check_len("matrix rows", rows, crate::MAX_LEN)
}

/// Refuses empty data and lengths the device's counts cannot hold.
fn check(len: usize) -> Result<()> {
    if len == 0 {
        return Err(Error::EmptyVector { what: "data" });
    }
    crate::error::check_len("moments input", len, crate::MAX_LEN)
}
