//! [`Span`]: a vector inside a larger buffer, as BLAS gives one (an offset and a stride).

use crate::error::{Error, Result};

/// Elements `offset`, `offset + stride`, …, `offset + (len − 1)·stride` of a buffer: a row
/// (`stride` 1) or a column (`stride` the row length) of a row-major matrix, for example.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// The buffer index of its first element.
    pub offset: usize,
    /// Its elements.
    pub len: usize,
    /// Buffer elements from one of its elements to the next.
    pub stride: usize,
}

impl Span {
    /// The span of `len` elements from `offset`, `stride` apart.
    pub const fn new(offset: usize, len: usize, stride: usize) -> Span {
        Span { offset, len, stride }
    }

    /// The buffer index of element `i`.
    pub fn index(&self, i: usize) -> usize {
        self.offset + i * self.stride
    }

    /// `Ok` if the span is a non-empty vector inside a buffer of `len` elements with a
    /// non-zero stride.
    pub(crate) fn check(&self, what: &'static str, len: usize) -> Result<()> {
        if self.len == 0 {
            return Err(Error::EmptyVector { what });
        }
        if self.stride == 0 {
            return Err(Error::ZeroStride { what });
        }
        let last = self.offset as u128 + (self.len as u128 - 1) * self.stride as u128;
        if last >= len as u128 {
            return Err(Error::SpanOutOfBounds { what, end: last, len });
        }
        Ok(())
    }

    /// Whether the two (checked) spans share an element: whether `o1 + i·s1 = o2 + j·s2` has a
    /// solution with `i < len1`, `j < len2`, by the extended Euclidean algorithm.
    pub(crate) fn meets(&self, other: &Span) -> bool {
        let (o1, s1, l1) = (self.offset as i128, self.stride as i128, self.len as i128);
        let (o2, s2, l2) = (other.offset as i128, other.stride as i128, other.len as i128);
        let (g, x, y) = extended_gcd(s1, s2); // s1·x + s2·y = g
        let d = o2 - o1;
        if d % g != 0 {
            return false;
        }
        // i = x·d/g + (s2/g)·t and j = −y·d/g + (s1/g)·t solve s1·i − s2·j = d for every t.
        let (i0, j0) = (x * (d / g), -y * (d / g));
        let (di, dj) = (s2 / g, s1 / g);
        let lo = ceil_div(-i0, di).max(ceil_div(-j0, dj));
        let hi = floor_div(l1 - 1 - i0, di).min(floor_div(l2 - 1 - j0, dj));
        lo <= hi
    }
}

/// `(g, x, y)` with `a·x + b·y = g = gcd(a, b)`, for positive `a` and `b`.
fn extended_gcd(a: i128, b: i128) -> (i128, i128, i128) {
    if b == 0 {
        (a, 1, 0)
    } else {
        let (g, x, y) = extended_gcd(b, a % b);
        (g, y, x - (a / b) * y)
    }
}

fn floor_div(a: i128, b: i128) -> i128 {
    a.div_euclid(b)
}

fn ceil_div(a: i128, b: i128) -> i128 {
    -((-a).div_euclid(b))
}

#[cfg(test)]
mod tests {
    use super::Span;

    #[test]
    fn meeting_spans_match_a_brute_force_search() {
        let mut spans = Vec::new();
        for offset in 0..7 {
            for len in 1..5 {
                for stride in 1..5 {
                    spans.push(Span::new(offset, len, stride));
                }
            }
        }
        for a in &spans {
            for b in &spans {
                let brute = (0..a.len).any(|i| (0..b.len).any(|j| a.index(i) == b.index(j)));
                assert_eq!(a.meets(b), brute, "{a:?} {b:?}");
            }
        }
    }
}
