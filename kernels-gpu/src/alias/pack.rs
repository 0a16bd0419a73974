//! Pack: each section between two splits is swept on its own, one thread a section, writing
//! its rows into the table (the seed's baseline pack: light and heavy items read straight from
//! global memory, weights beside the indices).

use super::split::spill;
use super::sweep::{Entry, Row, Shape, Split, Weight, rows};
use crate::simt::global_x;

/// Sweeps section `s` (rows `splits[s] .. splits[s + 1]`) into `table`.
///
/// # Safety
/// `entries` holds the `n` partitioned items, `prefix` `n + 1` sums, `splits` `s + 2` splits,
/// `table` `n` rows; no other thread writes the same rows (every item's row belongs to exactly
/// one section).
#[inline(always)]
pub unsafe fn pack_section<F: Weight>(
    shape: &Shape,
    entries: *const Entry,
    prefix: *const u64,
    splits: *const Split,
    s: u64,
    table: *mut Row<F>,
) {
    // SAFETY: all indices stay below the lengths of the caller's contract.
    unsafe {
        let (from, to) = (*splits.add(s as usize), *splits.add(s as usize + 1));
        let prefix = |t: u64| *prefix.add(t as usize);
        let light = |i: u64| *entries.add(i as usize);
        let heavy = |j: u64| *entries.add((shape.n_light + j) as usize);
        let start = spill(shape, &prefix, from);
        rows(shape, from, to, start, light, heavy, |item, row| {
            *table.add(item as usize) = row
        });
    }
}

macro_rules! pack_kernels {
    ($($name:ident: $f:ty),*) => {$(
        $crate::kernel! {
            /// Packs every section, one thread each (the seed's baseline pack).
            ///
            /// # Safety
            /// As for [`pack_section`], with `sections + 1` splits.
            #[allow(clippy::too_many_arguments)]
            pub unsafe fn $name(
                entries: *const Entry,
                prefix: *const u64,
                n: u64,
                n_light: u64,
                total: u64,
                splits: *const Split,
                sections: u64,
                table: *mut Row<$f>,
            ) {
                let s = global_x();
                if s < sections {
                    let shape = Shape { n, n_light, total };
                    // SAFETY: forwarded to the launch contract above.
                    unsafe { pack_section(&shape, entries, prefix, splits, s, table) }
                }
            }
        }
    )*};
}
pack_kernels!(alias_pack_baseline_f32: f32, alias_pack_baseline_f64: f64);
