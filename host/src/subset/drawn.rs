//! [`Drawn`]: the subsets one call returns, a row of equal length per subset.

use std::ops::{Index, Range};

/// The subsets one call drew: [`Drawn::len`] rows of [`Drawn::row_len`] values, kept in one
/// vector, subset `s` in `as_flat()[s * row_len ..][.. row_len]`. Rows are bit vectors of the
/// mask's words ([`Subsets::bits`](super::Subsets::bits)) or `k` increasing positions
/// ([`Subsets::positions`](super::Subsets::positions)).
///
/// ```
/// use warpkit::Backend;
/// use warpkit::subset::Subsets;
///
/// let hands = Subsets::range(52, 5)?.positions(&Backend::cpu(), 7, 3)?;
/// assert_eq!((hands.len(), hands.row_len()), (3, 5));
/// for hand in &hands {
///     assert!(hand.windows(2).all(|w| w[0] < w[1]));
/// }
/// assert_eq!(&hands[2], hands.iter().last().unwrap());
/// let flat: Vec<u16> = hands.into_flat(); // 15 positions, one hand after another
/// # assert_eq!(flat.len(), 15);
/// # Ok::<(), warpkit::Error>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Drawn<T> {
    flat: Vec<T>,
    row_len: usize,
    count: usize,
}

/// The rows, as a list of lists (`[[1, 7, 9], [0, 2, 5]]`).
impl<T: std::fmt::Debug> std::fmt::Debug for Drawn<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// One subset a line, its values apart by spaces (`1 7 9`); `{:x}` writes them in hex, for
/// bit vectors' words (`1f 0`).
impl<T: std::fmt::Display> std::fmt::Display for Drawn<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.write_rows(f, |f, v| write!(f, "{v}"))
    }
}

/// As [`Display`](std::fmt::Display), each value in hex.
impl<T: std::fmt::LowerHex> std::fmt::LowerHex for Drawn<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.write_rows(f, |f, v| write!(f, "{v:x}"))
    }
}

impl<T> Drawn<T> {
    /// Every row on a line of its own, each value by `value`.
    fn write_rows(
        &self,
        f: &mut std::fmt::Formatter<'_>,
        value: impl Fn(&mut std::fmt::Formatter<'_>, &T) -> std::fmt::Result,
    ) -> std::fmt::Result {
        for (s, row) in self.iter().enumerate() {
            if s > 0 {
                writeln!(f)?;
            }
            for (i, v) in row.iter().enumerate() {
                if i > 0 {
                    write!(f, " ")?;
                }
                value(f, v)?;
            }
        }
        Ok(())
    }

    /// `count` rows of `row_len` values in `flat` (of `count * row_len`).
    pub(super) fn new(flat: Vec<T>, row_len: usize, count: usize) -> Drawn<T> {
        debug_assert_eq!(flat.len(), row_len * count);
        Drawn { flat, row_len, count }
    }

    /// How many subsets.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether no subset was drawn.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Values a subset: the mask's words, or `k`.
    pub fn row_len(&self) -> usize {
        self.row_len
    }

    /// Subset `s`, if there is one.
    pub fn get(&self, s: usize) -> Option<&[T]> {
        (s < self.count).then(|| &self.flat[self.rows(s..s + 1)])
    }

    /// The subsets in order.
    pub fn iter(&self) -> Rows<'_, T> {
        Rows {
            flat: &self.flat,
            row_len: self.row_len,
            next: 0..self.count,
        }
    }

    /// Every subset's values, one subset after another.
    pub fn as_flat(&self) -> &[T] {
        &self.flat
    }

    /// Every subset's values, one subset after another, without a copy.
    pub fn into_flat(self) -> Vec<T> {
        self.flat
    }

    fn rows(&self, subsets: Range<usize>) -> Range<usize> {
        subsets.start * self.row_len..subsets.end * self.row_len
    }
}

impl<T> Index<usize> for Drawn<T> {
    type Output = [T];

    /// Subset `s`; panics past the last, as a slice does.
    fn index(&self, s: usize) -> &[T] {
        self.get(s).unwrap_or_else(|| {
            panic!("subset {s} of {} drawn", self.count);
        })
    }
}

impl<'a, T> IntoIterator for &'a Drawn<T> {
    type Item = &'a [T];
    type IntoIter = Rows<'a, T>;

    fn into_iter(self) -> Rows<'a, T> {
        self.iter()
    }
}

/// The subsets of a [`Drawn`], in order ([`Drawn::iter`]).
#[derive(Clone, Debug)]
pub struct Rows<'a, T> {
    flat: &'a [T],
    row_len: usize,
    next: Range<usize>,
}

impl<'a, T> Rows<'a, T> {
    fn row(&self, s: usize) -> &'a [T] {
        &self.flat[s * self.row_len..(s + 1) * self.row_len]
    }
}

impl<'a, T> Iterator for Rows<'a, T> {
    type Item = &'a [T];

    fn next(&mut self) -> Option<&'a [T]> {
        self.next.next().map(|s| self.row(s))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.next.size_hint()
    }
}

impl<T> DoubleEndedIterator for Rows<'_, T> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.next.next_back().map(|s| self.row(s))
    }
}

impl<T> ExactSizeIterator for Rows<'_, T> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_cut_the_flat_vector_and_allow_empty_rows() {
        let d = Drawn::new((0..6u16).collect(), 2, 3);
        assert_eq!(d.iter().collect::<Vec<_>>(), [&[0, 1][..], &[2, 3], &[4, 5]]);
        assert_eq!(d.iter().next_back(), Some(&[4u16, 5][..]));
        assert_eq!((d.get(3), &d[1]), (None, &[2u16, 3][..]));
        // k = 0: every subset is empty, and there are still `count` of them.
        let empty = Drawn::<u16>::new(Vec::new(), 0, 4);
        assert_eq!(empty.iter().len(), 4);
        assert!(empty.iter().all(|row| row.is_empty()));
    }
}
