//! [`SavedTable`]: a table's rows as plain data, to store a built table and load it again on
//! any backend without building it anew.

use super::check::item_masses;
use super::kernels::AliasWeight;
use super::table::{AliasTable, check_count};
use crate::error::{Result, check_same_len};
use crate::runtime::backend::Backend;
use warpkit_kernels::alias::Row;

/// An alias table as plain data ([`AliasTable::save`], [`AliasTable::load`]); with the
/// `serde` feature, `Serialize` and `Deserialize`. Row `i` gives item `i` with probability
/// `thresholds[i]` and item `aliases[i]` otherwise.
///
/// ```
/// use warpkit::Backend;
/// use warpkit::alias::AliasTable;
///
/// let table = AliasTable::new(&Backend::cpu(), &[1.0f64, 2.0, 5.0])?;
/// let saved = table.save()?; // store it: serde, or the two vectors
/// let again = AliasTable::load(&Backend::auto(), &saved)?;
/// assert_eq!(again.probabilities()?, table.probabilities()?);
/// # Ok::<(), warpkit::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SavedTable<F> {
    /// Each row's probability of its own item, in `[0, 1]`.
    pub thresholds: Vec<F>,
    /// Each row's other item, below the number of rows.
    pub aliases: Vec<u32>,
}

impl<F: AliasWeight> SavedTable<F> {
    /// The rows, if they make a table: as many thresholds as aliases (at least one), each
    /// threshold in `[0, 1]`, each alias an item (`Err(Table)` naming the first row that is
    /// not).
    pub(super) fn rows(&self) -> Result<Vec<Row<F>>> {
        check_same_len("saved table aliases", self.thresholds.len(), self.aliases.len())?;
        check_count(self.thresholds.len())?;
        let rows: Vec<Row<F>> = (self.thresholds.iter().zip(&self.aliases))
            .map(|(&t, &a)| Row::new(t, a))
            .collect();
        item_masses(&rows)?;
        Ok(rows)
    }

    /// The plain data of `rows`.
    pub(super) fn of(rows: &[Row<F>]) -> SavedTable<F> {
        SavedTable {
            thresholds: rows.iter().map(|r| r.threshold).collect(),
            aliases: rows.iter().map(|r| r.alias).collect(),
        }
    }
}

impl<F: AliasWeight> AliasTable<F> {
    /// The table's rows as plain data (copied from a device's memory), to store.
    pub fn save(&self) -> Result<SavedTable<F>> {
        Ok(SavedTable::of(&self.rows()?))
    }

    /// A table of saved rows on `backend` (`Err(Table)` for rows that do not make one). It
    /// samples as the saved table did; [`AliasTable::rebuild`] builds it anew by
    /// [`Construction::auto`](super::Construction::auto).
    pub fn load(backend: &Backend, saved: &SavedTable<F>) -> Result<AliasTable<F>> {
        AliasTable::from_rows(backend, saved.rows()?)
    }
}
