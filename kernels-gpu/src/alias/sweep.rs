//! The sequential sweep that defines the table, and the types it works on.
//!
//! State after some rows: `i` light and `j` heavy items done, and the `spill`, the weight heavy
//! item `j` has already given to light rows (units scaled by N; a row holds `Q`). With
//! `D(i) = i·Q − N·SL[i]` the light items' cumulative deficit and `E(j) = N·SH[j] − j·Q` the
//! heavy items' cumulative excess, `spill = D(i) − E(j)`. The next row is heavy item `j`'s when
//! what it has left, `N·q_h − spill`, fits in one row (or no light item is left), else light
//! item `i`'s, aliased to heavy item `j`.

/// A light or heavy item as the partition writes it: its quantized weight beside its index
/// (the paper's faster layout, so packing reads no other array). Its weight in scaled units is
/// `N·q + rem`: `rem` (in what would be padding) is 0 except for the one item per PSA+ tile that
/// the greedy sweep left partly used, whose remaining weight need not be a multiple of N.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C, align(16))]
pub struct Entry {
    pub q: u64,
    pub item: u32,
    pub rem: u32,
}

impl Entry {
    /// An item at its full quantized weight.
    #[inline(always)]
    pub fn new(item: u32, q: u64) -> Entry {
        Entry { q, item, rem: 0 }
    }
}

/// A row of the alias table: draw the row's own item with probability `threshold`, else
/// `alias`. 16 bytes with f64 thresholds (the last 4 a zero field, so that a row has no
/// padding bytes and the host can store it as plain words), 8 with f32, and aligned to its
/// size, so that a row is read with one vector load (it took two 8-byte loads for f64 rows in
/// shared memory, two 4-byte loads for f32 rows).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct Row<F: Weight> {
    pub threshold: F,
    pub alias: u32,
    _pad: F::RowPad,
    _align: [F::RowAlign; 0],
}

/// Rows as plain data for the host (`bytemuck`), for f32 and f64 only: a `Weight` of another
/// type could leave padding in its rows.
#[cfg(not(target_arch = "nvptx64"))]
mod pod {
    use super::Row;
    // SAFETY: both rows are `repr(C)` plain numbers without padding bytes (f32 + u32: 8 bytes,
    // aligned to 8; f64 + u32 + u32: 16, aligned to 16), `Copy` and `'static`; every bit
    // pattern is a row, all zeros included.
    unsafe impl bytemuck::Zeroable for Row<f32> {}
    unsafe impl bytemuck::Pod for Row<f32> {}
    unsafe impl bytemuck::Zeroable for Row<f64> {}
    unsafe impl bytemuck::Pod for Row<f64> {}
    const _: () = assert!(size_of::<Row<f32>>() == 8 && size_of::<Row<f64>>() == 16);
}

/// Zero-sized alignment markers for [`Row`]: 8 bytes (f32 rows) and 16 (f64 rows).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(align(8))]
pub struct Align8;

/// See [`Align8`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(align(16))]
pub struct Align16;

impl<F: Weight> Row<F> {
    /// The row that draws its own item with probability `threshold`, else `alias`.
    #[inline(always)]
    pub fn new(threshold: F, alias: u32) -> Row<F> {
        Row {
            threshold,
            alias,
            _pad: F::RowPad::default(),
            _align: [],
        }
    }

    /// Writes the row with one store: 128 bits for f64 rows, 64 for f32 (the paper's int4
    /// stores, which halve the pack's write transactions against two narrower stores).
    ///
    /// # Safety
    /// `p` is valid for a row and aligned to the row's size (table rows are, in buffers
    /// aligned to 256 bytes).
    #[inline(always)]
    pub unsafe fn store(self, p: *mut Row<F>) {
        let bits = self.threshold.to_bits64();
        // SAFETY: the caller's contract; the words are the row's `repr(C)` layout in little
        // endian (threshold first, alias next, zero padding).
        unsafe {
            if size_of::<Row<F>>() == 16 {
                crate::simt::memory::store128::<u64, 2>(p.cast(), [bits, self.alias as u64]);
            } else {
                p.cast::<u64>().write(bits | (self.alias as u64) << 32);
            }
        }
    }
}

/// A split: the sweep's state after `light + heavy` rows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct Split {
    pub light: u32,
    pub heavy: u32,
}

impl Split {
    /// The split with each count cut to `shape`'s light and heavy items: where a split read from
    /// memory (a checked launch cannot trust its contents) leaves a sweep's reads in bounds.
    #[inline(always)]
    pub fn within(self, shape: &Shape) -> Split {
        Split {
            light: (self.light as u64).min(shape.n_light) as u32,
            heavy: (self.heavy as u64).min(shape.n_heavy()) as u32,
        }
    }

    /// The split with each count cut to `end`'s, so that a section never runs backwards.
    #[inline(always)]
    pub fn up_to(self, end: Split) -> Split {
        Split {
            light: self.light.min(end.light),
            heavy: self.heavy.min(end.heavy),
        }
    }
}

/// f32 or f64: the weight and threshold types.
pub trait Weight: crate::num::Element + PartialOrd + Default {
    /// The alignment marker that makes a [`Row`] of this type aligned to its size.
    type RowAlign: Copy + Default + core::fmt::Debug + PartialEq + Send + Sync;
    /// What fills a [`Row`] of this type to its size: nothing (f32 rows) or a `u32` (f64).
    type RowPad: Copy + Default + core::fmt::Debug + PartialEq + Send + Sync;
    /// Half the width, in quantized units, of the band around an average item's weight `2^31`
    /// where a total summed in this type puts the light test's threshold: a build classes the
    /// items outside it before the total is known (see
    /// [`ProvisionalSums`](super::partition::ProvisionalSums)).
    const THRESHOLD_BAND: u64;
    fn to_f64(self) -> f64;
    fn from_f64(x: f64) -> Self;
}

impl Weight for f32 {
    type RowAlign = Align8;
    type RowPad = [u32; 0];
    /// Fixed-grid f32 totals of up to 10^8 weights lie within `3·10^-5` of the exact sum,
    /// relatively (their bound at about 400 roundings deep).
    const THRESHOLD_BAND: u64 = 1 << 16;
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self as f64
    }
    #[inline(always)]
    fn from_f64(x: f64) -> f32 {
        x as f32
    }
}

impl Weight for f64 {
    type RowAlign = Align16;
    type RowPad = u32;
    /// One weight: f64 totals put the threshold at `2^31 − 1` or `2^31`.
    const THRESHOLD_BAND: u64 = 0;
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline(always)]
    fn from_f64(x: f64) -> f64 {
        x
    }
}

/// What every step of the construction knows about the partitioned items.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub struct Shape {
    /// Items (rows) of this sweep: the whole table for PSA, the greedy sweep's leftovers for
    /// the PSA step of PSA+, one tile's items for its greedy sweep.
    pub n: u64,
    /// Light items; heavy items follow them in the partitioned order.
    pub n_light: u64,
    /// Total quantized weight of the whole table: one row holds this many scaled units.
    pub total: u64,
    /// Items of the whole table, `N`: a quantized weight `q` is `N·q` scaled units.
    pub scale: u64,
}

#[cfg(not(target_arch = "nvptx64"))]
// SAFETY: four counts; kernels index with them only within the `#[len]` of their families.
unsafe impl crate::kernel::Plain for Shape {}

crate::kernel_group! {
    /// Where the construction's earlier launches left the light count and the total quantized
    /// weight in device memory: the split and the packs read them as they start, so that the
    /// host queues them without waiting for either.
    pub struct Settled {
        /// The light count (cut to the sweep's items as it is read).
        #[len(1u64)]
        pub light: *const u32,
        #[len(1u64)]
        pub total: *const u64,
    }
}

impl Settled {
    /// `shape` with the light count (cut to `shape.n`) and the total read from memory.
    ///
    /// # Safety
    /// `light` and `total` point to readable words (the group's reaches).
    #[inline(always)]
    pub unsafe fn shape(self, shape: Shape) -> Shape {
        // SAFETY: the caller's contract.
        let (light, total) = unsafe { (u64::from(*self.light), *self.total) };
        Shape {
            n_light: light.min(shape.n),
            total,
            ..shape
        }
    }
}

impl Shape {
    /// Whether the counts are a table's: light items among the sweep's, the sweep's among the
    /// table's `N` (at most `u32::MAX` items, indices being u32), and `N > 0`. A checked
    /// launch's reaches assume it.
    pub const fn fits(&self) -> bool {
        self.n_light <= self.n && self.n <= self.scale && self.scale > 0 && self.scale <= u32::MAX as u64
    }

    /// The shape a launch is given of a sweep over `n` items of a table of `scale`, whose
    /// light count and total its kernels read from a [`Settled`].
    pub const fn unsettled(n: u64, scale: u64) -> Shape {
        Shape {
            n,
            n_light: 0,
            total: 0,
            scale,
        }
    }

    /// The shape of a sweep over a whole table of `n` items.
    #[inline(always)]
    pub fn whole(n: u64, n_light: u64, total: u64) -> Shape {
        Shape {
            n,
            n_light,
            total,
            scale: n,
        }
    }

    pub fn n_heavy(&self) -> u64 {
        self.n - self.n_light
    }

    /// `N·q`: a quantized weight in row units scaled by N (a row holds `total`).
    #[inline(always)]
    pub fn scaled(&self, q: u64) -> u128 {
        self.scale as u128 * q as u128
    }

    /// An entry's weight in scaled units.
    #[inline(always)]
    pub fn weight(&self, e: Entry) -> u128 {
        self.scaled(e.q) + e.rem as u128
    }

    /// Whether an item of quantized weight `q` is light (fits in one row).
    #[inline(always)]
    pub fn is_light(&self, q: u64) -> bool {
        self.scaled(q) <= self.total as u128
    }

    /// The entry of an item whose weight is `w` scaled units (`w < N·2^64`).
    #[inline(always)]
    pub fn entry(&self, item: u32, w: u128) -> Entry {
        let (q, rem) = div_rem_u32(w, self.scale);
        Entry {
            q: q as u64,
            item,
            rem: rem as u32,
        }
    }

    /// The threshold of a row whose own item keeps `kept` scaled units of the row.
    #[inline(always)]
    pub fn threshold<F: Weight>(&self, kept: u128) -> F {
        // `kept <= total < 2^63`: exact as u64; two f64 roundings at most.
        F::from_f64(kept as u64 as f64 / self.total as f64)
    }
}

/// `w / d` and `w % d` for `0 < d < 2^32`, by four 64-by-32-bit steps of long division (a u128
/// division is a long software loop on the GPU).
#[inline(always)]
pub fn div_rem_u32(w: u128, d: u64) -> (u128, u64) {
    let (mut q, mut r) = (0u128, 0u64);
    for shift in [96, 64, 32, 0] {
        let digit = r << 32 | (w >> shift) as u32 as u64;
        let dq = digit / d;
        q = q << 32 | dq as u128;
        r = digit - dq * d;
    }
    (q, r)
}

/// Whose row the sweep writes: light item `i`'s or heavy item `j`'s (indices in the
/// partitioned lists), for writers that stage rows by their place in the lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowOf {
    Light(u64),
    Heavy(u64),
}

/// The sweep between rows: light and heavy items done, and the spill.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cursor {
    pub light: u64,
    pub heavy: u64,
    pub spill: u128,
}

impl Cursor {
    /// The cursor at split `at`, whose spill is `spill` (see
    /// [`crate::alias::split::spill`]).
    #[inline(always)]
    pub fn at(at: Split, spill: u128) -> Cursor {
        Cursor {
            light: at.light as u64,
            heavy: at.heavy as u64,
            spill,
        }
    }

    /// Writes rows until `end` rows are done, calling `write(item, row, of)` once a row, or until
    /// the next row needs a light item at or past `light_end` or a heavy item at or past
    /// `heavy_end` (those not at hand): then it stops before that row and returns false.
    /// `light(i)` and `heavy(j)` read the partitioned items.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub fn advance<F: Weight>(
        &mut self,
        shape: &Shape,
        end: u64,
        light_end: u64,
        heavy_end: u64,
        light: impl Fn(u64) -> Entry,
        heavy: impl Fn(u64) -> Entry,
        mut write: impl FnMut(u32, Row<F>, RowOf),
    ) -> bool {
        let (n_light, n_heavy, row) = (shape.n_light, shape.n_heavy(), shape.total as u128);
        let Cursor {
            light: mut i,
            heavy: mut j,
            mut spill,
        } = *self;
        let reached = loop {
            if i + j >= end {
                break true;
            }
            if j < n_heavy && j >= heavy_end {
                break false;
            }
            let current = if j < n_heavy { Some(heavy(j)) } else { None };
            let left = current.map(|h| shape.weight(h).wrapping_sub(spill));
            match (current, left) {
                (Some(h), Some(left)) if i == n_light || left <= row => {
                    let alias = if j + 1 < n_heavy {
                        if j + 1 >= heavy_end {
                            break false;
                        }
                        heavy(j + 1).item
                    } else {
                        h.item
                    };
                    let threshold = shape.threshold(left);
                    write(h.item, Row::new(threshold, alias), RowOf::Heavy(j));
                    spill = row.wrapping_sub(left); // the next heavy item fills the rest of this row
                    j += 1;
                }
                _ => {
                    if i >= light_end {
                        break false;
                    }
                    let l = light(i);
                    let kept = shape.weight(l);
                    let alias = current.map_or(l.item, |h| h.item);
                    write(l.item, Row::new(shape.threshold(kept), alias), RowOf::Light(i));
                    spill = spill.wrapping_add(row.wrapping_sub(kept));
                    i += 1;
                }
            }
        };
        *self = Cursor {
            light: i,
            heavy: j,
            spill,
        };
        reached
    }
}

/// Rows `from.light + from.heavy .. to.light + to.heavy` of the sweep: calls `write(item, row,
/// of)` once per row. `light(i)` and `heavy(j)` read the partitioned items;
/// `spill` is the sweep's spill at `from` (see [`crate::alias::split::spill`]).
#[inline(always)]
pub fn rows<F: Weight>(
    shape: &Shape,
    from: Split,
    to: Split,
    spill: u128,
    light: impl Fn(u64) -> Entry,
    heavy: impl Fn(u64) -> Entry,
    write: impl FnMut(u32, Row<F>, RowOf),
) {
    let end = to.light as u64 + to.heavy as u64;
    Cursor::at(from, spill).advance(shape, end, u64::MAX, u64::MAX, light, heavy, write);
}

#[cfg(test)]
mod tests {
    use super::div_rem_u32;

    #[test]
    fn long_division_by_small_divisors_matches_u128_division() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..100_000 {
            let w = (next() as u128) << 64 | next() as u128;
            let w = w >> (next() % 128);
            let d = (next() >> (32 + next() % 32)).max(1);
            assert_eq!(
                div_rem_u32(w, d),
                (w / d as u128, (w % d as u128) as u64),
                "{w} / {d}"
            );
        }
        assert_eq!(
            div_rem_u32(u128::MAX, u32::MAX as u64).1,
            (u128::MAX % u32::MAX as u128) as u64
        );
    }
}
