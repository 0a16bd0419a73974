//! The two layouts of the partitioned items (the paper's l and h arrays, here one array: light
//! items, then heavy ones): each item's quantized weight stored beside its index (16-byte
//! [`Entry`]s, the paper's faster layout), or indices only (4 bytes an item), the pack then
//! reading each weight through its index and quantizing it again.
//!
//! Both give the pack the same entries, bit for bit (quantizing is a pure function of the
//! weight), so both build the same table. Indices only writes 4 bytes an item instead of 16
//! (12 with the prefix sums instead of 24), but turns every entry the pack reads into a
//! dependent, scattered weight load.
//! Only PSA has it: PSA+'s greedy sweep leaves items partly used, whose remaining weight is not
//! the input's and has to be stored.

use super::quantizer::Quantizer;
use super::sweep::{Entry, Weight};
use crate::simt::shared::SharedSlice;

/// What the partition writes for each item, in partitioned order: the whole entry (weights
/// beside indices) or its item (indices only).
pub trait EntrySink: Copy {
    fn of(entry: Entry) -> Self;
}

impl EntrySink for Entry {
    #[inline(always)]
    fn of(entry: Entry) -> Entry {
        entry
    }
}

impl EntrySink for u32 {
    #[inline(always)]
    fn of(entry: Entry) -> u32 {
        entry.item
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
    /// [`crate::simt::shared::wait_copies`].
    ///
    /// # Safety
    /// `i` is within the array, `slot` within `dst`, which was carved at a 16-byte aligned
    /// offset.
    #[inline(always)]
    unsafe fn stage(self, dst: SharedSlice<Entry>, slot: u32, i: u64) {
        // SAFETY: the caller's contract.
        unsafe { dst.set(slot, self.get(i)) }
    }
}

/// Weights beside indices.
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
