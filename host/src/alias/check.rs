//! The table check: every alias a valid index, every threshold in [0, 1], and every item's
//! mass over all rows equal to `N·w_i / W` within the weight type's tolerance, relative to the
//! largest mass.

use super::AliasWeight;
use warpkit_kernels::alias::{Row, Weight};

/// What is wrong with a table.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum TableDefect {
    #[error("the table has {rows} rows for {items} weights")]
    Length { rows: usize, items: usize },
    #[error("row {row} has alias {alias}, not an item")]
    Alias { row: usize, alias: u32 },
    #[error("row {row} has threshold {threshold}, outside [0, 1]")]
    Threshold { row: usize, threshold: f64 },
    #[error("item {item} receives {got} rows of mass, expected {expected} (tolerance {tolerance})")]
    Mass {
        item: usize,
        got: f64,
        expected: f64,
        tolerance: f64,
    },
}

/// The mass (in rows) each item receives: its own row's threshold plus `1 − threshold` of
/// every row aliased to it. Checks aliases and thresholds on the way.
pub fn item_masses<F: Weight>(rows: &[Row<F>]) -> Result<Vec<f64>, TableDefect> {
    let mut mass = vec![0.0f64; rows.len()];
    for (row, r) in rows.iter().enumerate() {
        let threshold = r.threshold.to_f64();
        if !(0.0..=1.0).contains(&threshold) {
            return Err(TableDefect::Threshold { row, threshold });
        }
        let alias = r.alias as usize;
        if alias >= rows.len() {
            return Err(TableDefect::Alias { row, alias: r.alias });
        }
        mass[row] += threshold;
        mass[alias] += 1.0 - threshold;
    }
    Ok(mass)
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
    let total: f64 = weights.iter().map(|w| w.to_f64()).sum();
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
