//! The two layouts of the partitioned items (the paper's l and h arrays, here one buffer: light
//! items, then heavy ones): each item's quantized weight stored beside its index (the paper's
//! faster layout), or indices only (4 bytes an item), the pack then reading each weight through
//! its index and quantizing it again.
//!
//! Beside its index, a light item's weight takes 32 bits (it is at most `Q/N`, about `2^31`), so
//! PSA's partition writes light entries in 8 bytes and heavy ones in 16 ([`Compact`]): the
//! light run, most of the items under a skewed distribution, costs half the bytes to write and
//! to read back. PSA+'s leftovers carry a remainder beside the weight and stay whole
//! ([`Stored`]).
//!
//! Every layout gives the pack the same entries, bit for bit (quantizing is a pure function of
//! the weight), so all build the same table. Indices only writes 4 bytes an item instead of 8
//! or 16, but turns every entry the pack reads into a dependent, scattered weight load.
//! Only PSA has it: PSA+'s greedy sweep leaves items partly used, whose remaining weight is not
//! the input's and has to be stored.

use super::quantizer::Quantizer;
use super::sweep::{Entry, Weight};
use crate::simt::shared::SharedSlice;

/// What the partition writes for each item, in partitioned order, into a buffer of `n`
/// elements of `Self`: the entries in [`Compact`] form, or their items (indices only).
pub trait EntrySink: Copy {
    /// Writes the light entry at position `i` (below `n_light`).
    ///
    /// # Safety
    /// `out` holds `n` elements and `i < n`.
    unsafe fn put_light(out: *mut Self, i: u64, entry: Entry);

    /// Writes the heavy entry at position `p` of the partitioned order (`n_light <= p < n`).
    ///
    /// # Safety
    /// `out` holds `n` elements, `n_light <= p < n`.
    unsafe fn put_heavy(out: *mut Self, p: u64, n_light: u64, entry: Entry);
}

impl EntrySink for Entry {
    #[inline(always)]
    unsafe fn put_light(out: *mut Entry, i: u64, entry: Entry) {
        // SAFETY: word `i < n` of a buffer of `n` entries (`2n` words).
        unsafe { *out.cast::<u64>().add(i as usize) = Compact::light_word(entry) }
    }

    #[inline(always)]
    unsafe fn put_heavy(out: *mut Entry, p: u64, n_light: u64, entry: Entry) {
        // SAFETY: `p - n_light / 2 <= p < n`.
        unsafe { *out.add((p - n_light / 2) as usize) = entry }
    }
}

impl EntrySink for u32 {
    #[inline(always)]
    unsafe fn put_light(out: *mut u32, i: u64, entry: Entry) {
        // SAFETY: the caller's contract.
        unsafe { *out.add(i as usize) = entry.item }
    }

    #[inline(always)]
    unsafe fn put_heavy(out: *mut u32, p: u64, _n_light: u64, entry: Entry) {
        // SAFETY: the caller's contract.
        unsafe { *out.add(p as usize) = entry.item }
    }
}

/// Where the split's packs read the items, in partitioned order.
pub trait EntrySource: Copy {
    /// Entry `i`.
    ///
    /// # Safety
    /// `i` is within the array.
    unsafe fn get(self, i: u64) -> Entry;

    /// Puts entry `i` into `dst[slot]`, perhaps asynchronously: it has landed after
    /// [`crate::simt::shared::wait_copies`]. A light entry may land in another form, which
    /// [`EntrySource::staged_light`] turns back into the entry.
    ///
    /// # Safety
    /// `i` is within the array, `slot` within `dst`, which was carved at a 16-byte aligned
    /// offset.
    #[inline(always)]
    unsafe fn stage(self, dst: SharedSlice<Entry>, slot: u32, i: u64) {
        // SAFETY: the caller's contract.
        unsafe { dst.set(slot, self.get(i)) }
    }

    /// The light entry that [`EntrySource::stage`] left in a slot, once it has landed.
    #[inline(always)]
    fn staged_light(staged: Entry) -> Entry {
        staged
    }
}

/// Whole entries, weights beside indices: PSA+'s leftovers (whose remainders [`Compact`] has no room
/// for).
#[derive(Clone, Copy)]
pub struct Stored(pub *const Entry);

impl EntrySource for Stored {
    #[inline(always)]
    unsafe fn get(self, i: u64) -> Entry {
        // SAFETY: the caller's contract.
        unsafe { *self.0.add(i as usize) }
    }

    #[inline(always)]
    unsafe fn stage(self, dst: SharedSlice<Entry>, slot: u32, i: u64) {
        // SAFETY: the caller's contract; device buffers are 16-byte aligned, so every entry is.
        unsafe { dst.copy_async(slot, self.0.add(i as usize)) }
    }
}

/// PSA's entries as its partition writes them, in a buffer of `n` entries: the light run as
/// 8-byte words (the weight in the low half, the index in the high half), then, at the first
/// 16-byte boundary after it, the heavy run as whole entries.
#[derive(Clone, Copy)]
pub struct Compact {
    pub light: *const u64,
    pub heavy: *const Entry,
    pub n_light: u64,
}

impl Compact {
    /// The runs of a buffer of entries with `n_light` light items.
    #[inline(always)]
    pub fn new(entries: *const Entry, n_light: u64) -> Compact {
        Compact {
            light: entries.cast(),
            heavy: entries.wrapping_add(n_light.div_ceil(2) as usize),
            n_light,
        }
    }

    /// A light entry's word: its weight (below `2^32`) and its index.
    #[inline(always)]
    pub fn light_word(e: Entry) -> u64 {
        e.q as u32 as u64 | (e.item as u64) << 32
    }

    /// The entry of a light entry's word.
    #[inline(always)]
    pub fn light_entry(word: u64) -> Entry {
        Entry::new((word >> 32) as u32, word as u32 as u64)
    }
}

impl EntrySource for Compact {
    #[inline(always)]
    unsafe fn get(self, i: u64) -> Entry {
        // SAFETY: the caller's contract: light words below `n_light`, heavy entries after them.
        unsafe {
            if i < self.n_light {
                Compact::light_entry(*self.light.add(i as usize))
            } else {
                *self.heavy.add((i - self.n_light) as usize)
            }
        }
    }

    #[inline(always)]
    unsafe fn stage(self, dst: SharedSlice<Entry>, slot: u32, i: u64) {
        // SAFETY: the caller's contract; device buffers are 16-byte aligned, so every word is
        // 8-byte aligned and every heavy entry 16-byte aligned.
        unsafe {
            if i < self.n_light {
                dst.copy_async_front(slot, self.light.add(i as usize))
            } else {
                dst.copy_async(slot, self.heavy.add((i - self.n_light) as usize))
            }
        }
    }

    #[inline(always)]
    fn staged_light(staged: Entry) -> Entry {
        Compact::light_entry(staged.q)
    }
}

/// Indices only: the weight read through the index and quantized as the partition did.
#[derive(Clone, Copy)]
pub struct Indexed<F> {
    pub items: *const u32,
    pub weights: *const F,
    pub quantizer: Quantizer,
    /// The last item of the weights: an index read from `items` is cut to it.
    pub last: u32,
}

impl<F: Weight> EntrySource for Indexed<F> {
    #[inline(always)]
    unsafe fn get(self, i: u64) -> Entry {
        // SAFETY: the caller's contract; the index is cut to the weights' last item.
        unsafe {
            let item = (*self.items.add(i as usize)).min(self.last);
            let w = *self.weights.add(item as usize);
            Entry::new(item, self.quantizer.quantize(w.to_f64()))
        }
    }
}
