//! How a map is trained: the number of epochs, the Gaussian's radius and the online learning
//! rate from the first epoch to the last, and everything both backends derive from that on the
//! host before training (the per-epoch tables, the node order, the fixed-point scales), so that
//! the same schedule gives the same map on every backend.

use super::{Accumulate, Training};
use crate::error::{Error, Result};
use crate::philox::Philox;
use rand_core::RngCore;
use std::time::Duration;
use warpkit_kernels::simt::math::FastMath;

/// The narrowest Gaussian a schedule takes, in cells: already 0 one cell away.
pub const MIN_RADIUS: f64 = 0.01;

/// How the radius and the rate go from their first value to their last over the epochs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Decay {
    /// In equal steps.
    Linear,
    /// By an equal factor each epoch (the usual choice: the neighbourhood shrinks fast at first).
    Exponential,
}

/// A training schedule. The Gaussian neighbourhood of a cell `(r, c)` around the best cell
/// `(br, bc)` is `exp(−((r − br)² + (c − bc)²) / (2σ²))`, cut off beyond `3σ` rows or columns.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Schedule {
    /// Epochs: passes over all nodes.
    pub epochs: u32,
    /// σ of the Gaussian, in cells, at the first and at the last epoch (at least
    /// [`MIN_RADIUS`]).
    pub radius: (f64, f64),
    /// The online learning rate at the first and at the last epoch, in (0, 1] (batch training
    /// has none: a cell moves to its neighbourhood's weighted mean).
    pub rate: (f64, f64),
    /// How both go from first to last.
    pub decay: Decay,
    /// The order online training visits the nodes in, a new one each epoch, is drawn from
    /// warpkit's Philox stream with this key.
    pub seed: u64,
    /// The type best-matching-unit distances are summed in.
    pub accumulate: Accumulate,
}

impl Schedule {
    /// A common schedule for a `rows × cols` map: σ from half the longer side down to 1 (or to
    /// half the starting σ on maps under 4 cells a side), the rate from 0.5 to 0.01, both
    /// exponentially; f32 distances; seed 0.
    pub fn for_map(rows: usize, cols: usize, epochs: u32) -> Schedule {
        let start = (rows.max(cols) as f64 / 2.0).max(0.5);
        Schedule {
            epochs,
            radius: (start, 1.0f64.min(start / 2.0)),
            rate: (0.5, 0.01),
            decay: Decay::Exponential,
            seed: 0,
            accumulate: Accumulate::F32,
        }
    }

    /// Refuses no epochs, radii that are not finite or below [`MIN_RADIUS`] and rates outside
    /// (0, 1].
    pub(crate) fn check(&self) -> Result<()> {
        if self.epochs == 0 {
            return Err(Error::OutOfRange {
                what: "epochs",
                value: 0,
                min: 1,
                max: u32::MAX as u64,
            });
        }
        let radii = [("first radius", self.radius.0), ("last radius", self.radius.1)];
        for (what, value) in radii {
            if !(value.is_finite() && value >= MIN_RADIUS) {
                return Err(Error::BadParameter {
                    what,
                    value,
                    expected: "finite and at least 0.01",
                });
            }
        }
        for (what, value) in [("first rate", self.rate.0), ("last rate", self.rate.1)] {
            if !(value > 0.0 && value <= 1.0) {
                return Err(Error::BadParameter {
                    what,
                    value,
                    expected: "in (0, 1]",
                });
            }
        }
        Ok(())
    }

    /// The value of `(first, last)` at `epoch`: a weighted mean of the two (or of their
    /// logarithms), so that it never leaves the range between them. `libm`'s portable `exp` and
    /// `log` (through the kernels' `FastMath`) make the tables the same on every platform.
    fn at(&self, (first, last): (f64, f64), epoch: u32) -> f64 {
        let f = match self.epochs {
            1 => 0.0,
            n => epoch as f64 / (n - 1) as f64,
        };
        match self.decay {
            Decay::Linear => first * (1.0 - f) + last * f,
            Decay::Exponential => (first.fast_ln() * (1.0 - f) + last.fast_ln() * f).fast_exp(),
        }
    }

    /// Epoch `epoch`'s neighbourhood on a map whose longer side is `side` cells.
    pub(crate) fn epoch(&self, epoch: u32, side: usize) -> Epoch {
        let sigma = self.at(self.radius, epoch);
        let radius = ((3.0 * sigma).ceil() as usize).min(side - 1);
        let gaussian = (0..=radius)
            .map(|k| (-0.5 * (k as f64 / sigma).powi(2)).fast_exp())
            .collect();
        Epoch {
            radius: radius as u32,
            gaussian,
            rate: self.at(self.rate, epoch),
        }
    }

    /// Where a run by `training` stands once epoch `epoch` (from 0) is done, `elapsed` after it
    /// began.
    pub(crate) fn progress(&self, training: Training, epoch: u32, elapsed: Duration) -> Progress {
        Progress {
            epoch: epoch + 1,
            epochs: self.epochs,
            radius: self.at(self.radius, epoch),
            rate: (training == Training::Online).then(|| self.at(self.rate, epoch)),
            elapsed,
        }
    }

    /// The order online training visits `count` nodes in at `epoch`: a Fisher–Yates shuffle on
    /// the Philox stream of key `seed` from counter `(0, 0, epoch, 1)` (bounded draws by
    /// multiply-shift of 64-bit words: a bias below count / 2^64).
    pub(crate) fn order(&self, count: usize, epoch: u32) -> Vec<u32> {
        let key = [self.seed as u32, (self.seed >> 32) as u32];
        let mut rng = Philox::new(key, [0, 0, epoch, 1]);
        let mut order: Vec<u32> = (0..count as u32).collect();
        for i in (1..count).rev() {
            let j = ((rng.next_u64() as u128 * (i as u128 + 1)) >> 64) as usize;
            order.swap(i, j);
        }
        order
    }
}

/// `30 epochs, radius 10 → 1 cells, rate 0.5 → 0.01, Exponential decay, seed 0, F32
/// distances`.
impl std::fmt::Display for Schedule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Schedule {
            epochs,
            radius: (r0, r1),
            rate: (a0, a1),
            decay,
            seed,
            accumulate,
        } = self;
        write!(
            f,
            "{epochs} epochs, radius {r0} → {r1} cells, rate {a0} → {a1}, {decay:?} decay, \
             seed {seed}, {accumulate:?} distances"
        )
    }
}

/// Where a training run stands after an epoch, as [`Som::train_with`] reports it.
///
/// [`Som::train_with`]: super::Som::train_with
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct Progress {
    /// Epochs done: 1 after the first, [`Schedule::epochs`] after the last.
    pub epoch: u32,
    /// Epochs in all.
    pub epochs: u32,
    /// σ of the Gaussian in the epoch just done, in cells.
    pub radius: f64,
    /// The learning rate of that epoch, in online training (batch training has none).
    pub rate: Option<f64>,
    /// Since the call began.
    pub elapsed: Duration,
}

/// `epoch 10 of 30: radius 3.162 cells, rate 0.0500, 0.012 s` (no rate in batch training).
impl std::fmt::Display for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "epoch {} of {}: radius {:.3} cells, ",
            self.epoch, self.epochs, self.radius
        )?;
        if let Some(rate) = self.rate {
            write!(f, "rate {rate:.4}, ")?;
        }
        write!(f, "{:.3} s", self.elapsed.as_secs_f64())
    }
}

/// One epoch's neighbourhood.
pub(crate) struct Epoch {
    /// Rows or columns beyond which the Gaussian is cut off.
    pub radius: u32,
    /// `exp(−k² / (2σ²))` for `k` in `0 ..= radius`.
    pub gaussian: Vec<f64>,
    /// The online learning rate.
    pub rate: f64,
}

impl Epoch {
    /// The online step's table: `rate · g`, then `g`, rounded to f32.
    pub fn online_table(&self) -> Vec<f32> {
        let scaled = self.gaussian.iter().map(|g| (self.rate * g) as f32);
        scaled.chain(self.gaussian.iter().map(|&g| g as f32)).collect()
    }
}
