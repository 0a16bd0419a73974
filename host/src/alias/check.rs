//! The table check: every alias a valid index, every threshold in [0, 1], and every item's
//! mass over all rows equal to `N·w_i / W` within the weight type's tolerance, relative to the
//! largest mass.

use super::AliasWeight;
use crate::error::TableDefect;
use warpkit_kernels::alias::{Row, Weight};

/// A sum of f64 terms with Neumaier's compensation: within about one rounding of the exact
/// sum however many terms it has. A plain f64 sum is not enough for the check: an item aliased
/// in 10^8 rows that all give it the same share collects the same rounding error 10^8 times,
/// about 1e-9 of its mass.
#[derive(Clone, Copy, Default)]
struct Compensated {
    sum: f64,
    lost: f64,
}

impl Compensated {
    fn add(&mut self, x: f64) {
        let t = self.sum + x;
        self.lost += if self.sum.abs() >= x.abs() {
            (self.sum - t) + x
        } else {
            (x - t) + self.sum
        };
        self.sum = t;
    }

    fn value(self) -> f64 {
        self.sum + self.lost
    }
}

/// The mass (in rows) each item receives: its own row's threshold plus `1 − threshold` of
/// every row aliased to it. Checks aliases and thresholds on the way.
pub fn item_masses<F: Weight>(rows: &[Row<F>]) -> Result<Vec<f64>, TableDefect> {
    let mut mass = vec![Compensated::default(); rows.len()];
    for (row, r) in rows.iter().enumerate() {
        let threshold = r.threshold.to_f64();
        if !(0.0..=1.0).contains(&threshold) {
            return Err(TableDefect::Threshold { row, threshold });
        }
        let alias = r.alias as usize;
        if alias >= rows.len() {
            return Err(TableDefect::Alias { row, alias: r.alias });
        }
        mass[row].add(threshold);
        mass[alias].add(1.0 - threshold);
    }
    Ok(mass.into_iter().map(Compensated::value).collect())
}

/// Checks `rows` against `weights`; returns the largest mass error relative to the largest
/// expected mass.
pub fn check_table<F: AliasWeight>(rows: &[Row<F>], weights: &[F]) -> Result<f64, TableDefect> {
    if rows.len() != weights.len() {
        return Err(TableDefect::Length {
            rows: rows.len(),
            items: weights.len(),
        });
    }
    let mass = item_masses(rows)?;
    let mut total = Compensated::default();
    weights.iter().for_each(|w| total.add(w.to_f64()));
    let total = total.value();
    let n = rows.len() as f64;
    let expected = |i: usize| n * weights[i].to_f64() / total;
    let largest = (0..rows.len()).map(expected).fold(0.0, f64::max);
    let tolerance = F::MASS_TOLERANCE * largest;
    let mut worst = 0.0f64;
    for (item, &got) in mass.iter().enumerate() {
        let error = (got - expected(item)).abs();
        if error > tolerance {
            return Err(TableDefect::Mass {
                item,
                got,
                expected: expected(item),
                tolerance,
            });
        }
        worst = worst.max(error / largest);
    }
    Ok(worst)
}

#[cfg(test)]
mod tests {
    use super::Compensated;

    #[test]
    fn compensated_sum_of_equal_shares_is_exact_to_a_rounding() {
        let (share, count) = (100.0 / 101.0, 10_000_000u32);
        let mut sum = Compensated::default();
        (0..count).for_each(|_| sum.add(share));
        let exact = share * count as f64;
        assert!(
            (sum.value() - exact).abs() <= exact * f64::EPSILON,
            "{}",
            sum.value()
        );
    }
}
