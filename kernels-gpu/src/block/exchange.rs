//! Staged exchange of a block's tile through shared memory: keys (and values) placed in slots
//! grouped by digit ([`Staged::carve`] gives the slots), then written out a slot a thread at a
//! time in slot order ([`Staged::write_out`]), so that each digit's run goes to global memory
//! by consecutive threads: coalesced stores for a scatter by digit. Shared memory: a tile of
//! keys and, unless there are none, a tile of values.

use super::DigitFn;
use crate::simt::shared::SharedSlice;
use crate::simt::thread_x;

/// A tile of `THREADS·ITEMS` keys, and as many values (or none), in shared memory.
pub struct Staged<K: Copy, V: Copy, const THREADS: u32, const ITEMS: usize> {
    pub keys: SharedSlice<K>,
    pub values: SharedSlice<V>,
}

impl<K: Copy, V: Copy, const THREADS: u32, const ITEMS: usize> Staged<K, V, THREADS, ITEMS> {
    /// Slots of a tile.
    pub const TILE: u32 = THREADS * ITEMS as u32;

    /// The tile's slots, carved by `next` (which hands out byte offsets): [`Self::TILE`] keys,
    /// and as many values unless `with_values` is false.
    ///
    /// # Safety
    /// `next` hands out offsets within the launch's dynamic shared memory, aligned for `K`
    /// and `V`.
    #[inline(always)]
    pub unsafe fn carve(next: &mut impl FnMut(u32) -> u32, with_values: bool) -> Self {
        let slots = if with_values { Self::TILE } else { 0 };
        // SAFETY: the caller's contract.
        unsafe {
            let keys = SharedSlice::<K>::carve(next(Self::TILE * size_of::<K>() as u32), Self::TILE);
            Staged {
                keys,
                values: SharedSlice::<V>::carve(next(slots * size_of::<V>() as u32), slots),
            }
        }
    }

    /// Writes the first `items` staged keys (and values, with `VALUES`), grouped by digit
    /// (`digits` of the key), each to `moved[digit] + j` for slot `j` (`moved` being each digit's
    /// start in `out` less its first slot), a key a thread at a time in slot order.
    ///
    /// # Safety
    /// The slots and moves are final (a barrier after they were written); the places they give
    /// are within `out`; `moved` has a word for every digit `digits` returns; every thread of a
    /// block of `THREADS` calls.
    #[inline(always)]
    pub unsafe fn write_out<const VALUES: bool>(
        self,
        moved: SharedSlice<u32>,
        digits: impl DigitFn<K>,
        items: u32,
        out: (*mut K, *mut V),
    ) {
        let Staged { keys, values } = self;
        // SAFETY: the caller's contract; slots below `items`, within the staging.
        let write = |j: u32| unsafe {
            let key = keys.get_unchecked(j);
            let to = moved.get_unchecked(digits.digit(key)).wrapping_add(j) as usize;
            *out.0.add(to) = key;
            if VALUES {
                *out.1.add(to) = values.get_unchecked(j);
            }
        };
        // A full tile (all but the last) writes without a bound check a key.
        let slots = (0..Self::TILE / THREADS).map(|k| k * THREADS + thread_x());
        if items == Self::TILE {
            slots.for_each(write);
        } else {
            slots.filter(|&j| j < items).for_each(write);
        }
    }
}
