//! Pack: each section between two splits is swept on its own, writing its rows into the table:
//! the paper's baseline (one thread a section, light and heavy items read straight from global
//! memory), shared-memory and chunked packs, each reading the items in either layout of
//! [`super::layout`].

use super::ALIAS_BLOCK_THREADS;
use super::layout::{Compact, EntrySource, Indexed, Stored};
use super::quantizer::Quantizer;
use super::split::{Prefix, PrefixWord, prefix_in, spill};
use super::sweep::{Cursor, Entry, Row, RowOf, Settled, Shape, Split, Weight, rows};
use crate::launch::LaunchShape;
use crate::num::Element;
pub use crate::policy::alias::{
    CHUNK_ITEMS, CHUNKED_PACK_ROWS, CHUNKED_PACK_THREADS, SHARED_PACK_ROWS, SHARED_PACK_THREAD_ROWS,
    SHARED_PACK_THREADS,
};
use crate::simt::global_x;
use crate::simt::shared::SharedSlice;

/// Sweeps section `s` (rows `splits[s] .. splits[s + 1]`) into the table.
///
/// # Safety
/// `entries` reads the `n` partitioned items, `at` is as [`Sections`] describes, and `s <
/// at.sections`. Splits and items read from memory are cut to the shape and the table, so any
/// contents keep every access in bounds; the rows are right where every item's row belongs to
/// exactly one section.
#[inline(always)]
pub unsafe fn pack_section<F: Weight, W: PrefixWord, E: EntrySource>(
    entries: E,
    at: &Sections<F, W>,
    s: u64,
) {
    let shape = &at.shape;
    // SAFETY: all indices stay below the lengths of the caller's contract.
    unsafe {
        let (from, to) = at.section(s);
        let prefix = prefix_in(shape, at.prefix);
        let light = |i: u64| entries.get(i);
        let heavy = |j: u64| entries.get(shape.n_light + j);
        let start = spill(shape, &prefix, from);
        rows(shape, from, to, start, light, heavy, |item, row, _| {
            at.put(item, row)
        });
    }
}

/// The paper's baseline pack: section `s` by thread `s` of the grid.
///
/// # Safety
/// As for [`pack_section`], with `sections + 1` splits and `settled` a word each.
#[inline(always)]
pub unsafe fn pack_thread_baseline<P: PackParams>(p: P) {
    // SAFETY: the caller's launch met the family's reaches.
    let (entries, at) = unsafe { p.parts() };
    let s = global_x();
    if s < at.sections {
        // SAFETY: forwarded to the caller's contract.
        unsafe { pack_section(entries, &at, s) }
    }
}

/// Entries a block stages: its rows' light and heavy items and one heavy item past the last
/// (the alias of its last heavy row).
const SHARED_PACK_ENTRIES: u64 = SHARED_PACK_ROWS + 2;

/// Where staged entry `e` sits: one 16-byte gap after every 8 entries. Each thread sweeps 8
/// consecutive rows, so the lanes of a warp read entries about 8 (or, at half light items, 4)
/// apart: unpadded, 128 bytes apart, all in the same banks (6.6-way conflicts measured); with
/// the gap each lane's entry falls 16 bytes further along the banks.
#[inline(always)]
const fn padded(e: u64) -> u32 {
    (e + e / 8) as u32
}

/// Byte offsets of a shared-memory pack block's arrays, for prefix words of `word` bytes: the
/// staged entries, their prefix sums (one more than the entries), each thread's split (and the
/// block's end), a u64 per warp for the block scans; the last is the total.
const fn shared_pack_layout(word: u64) -> [u64; 4] {
    let sums = (padded(SHARED_PACK_ENTRIES) as u64 + 1) * size_of::<Entry>() as u64;
    let splits = sums + (SHARED_PACK_ENTRIES + 1) * word;
    let scratch = splits + (SHARED_PACK_THREADS as u64 + 1) * size_of::<Split>() as u64;
    [
        sums,
        splits,
        scratch,
        scratch + SHARED_PACK_THREADS as u64 / 32 * 8,
    ]
}

/// Shared memory of a shared-memory pack block whose prefix words are `word` bytes (8 for PSA,
/// 16 for the PSA step of PSA+): 54 and 70 KiB.
pub const fn shared_pack_bytes(word: usize) -> u32 {
    shared_pack_layout(word as u64)[3] as u32
}

/// A block's own prefix sums in shared memory, from 0 at its first light and first heavy item,
/// with the spill where its rows start as the origin: the search and spill of [`super::split`]
/// then find the block's splits without reading global memory.
struct BlockPrefix<'a, W: PrefixWord> {
    sums: SharedSlice<W>,
    shape: &'a Shape,
    origin: u128,
}

impl<W: PrefixWord> Prefix for BlockPrefix<'_, W> {
    #[inline(always)]
    fn at(&self, t: u64) -> u128 {
        self.sums.get(t as u32).scaled(self.shape)
    }
    #[inline(always)]
    fn origin(&self) -> u128 {
        self.origin
    }
}

/// The paper's shared-memory pack, with the block's section split again inside the block: a block
/// packs the rows `splits[s] .. splits[s + 1]` of one section `s` ([`SHARED_PACK_ROWS`] rows),
/// the blocks taking the sections last to first. It copies the
/// light entries and the heavy entries those rows touch into shared memory (asynchronous
/// copies, all in flight at once, where weights lie beside the indices; indices only gathers
/// each weight through its index), scans their weights block-wide, and each thread finds the
/// split at its own first row by a binary search in those sums; then every thread sweeps its
/// [`SHARED_PACK_THREAD_ROWS`] rows from shared memory, staging the rows there, and the block
/// writes them out in item order. Many short sweeps keep 8 warps a block busy where one long
/// sweep a thread left the SM waiting on the sweep's dependent steps (the paper's version: 64
/// threads of 32 rows), and searching shared memory replaces some ten dependent global reads a
/// thread.
///
/// The block's sums stay within u64: its light items weigh at most a row each (`q <= Q/N`,
/// about 2^31), and of its heavy items only the first can weigh more than the block's rows
/// hold (`q < 2^63`), the others being used up within them.
///
/// # Safety
/// As for [`pack_section`], with sections of [`SHARED_PACK_ROWS`] rows, one block of
/// [`SHARED_PACK_THREADS`] threads a section and [`shared_pack_bytes`] of dynamic shared memory
/// for `W`. A block whose splits ask for more rows returns; entries whose weights are not their
/// prefix sums' can trip the shared slices' bounds checks (a trap, never a stray access).
#[inline(always)]
pub unsafe fn pack_block_shared<P: PackParams>(p: P) {
    // SAFETY: the caller's launch met the family's reaches.
    let (entries, at) = unsafe { p.parts() };
    let shape = &at.shape;
    use super::split::{heavy_range, search};
    use crate::simt::shared::wait_copies;
    use crate::simt::{block_x, sync_threads, thread_x};
    let threads = SHARED_PACK_THREADS as u64;
    if block_x() as u64 >= at.sections {
        return;
    }
    // The last section first: the partition wrote the ends of the light and heavy runs last,
    // and those are the last sections' entries, in L2 still (the split between reads little).
    let (b, t) = (at.sections - 1 - block_x() as u64, thread_x() as u64);
    let [sums_at, splits_at, scratch_at, _] = shared_pack_layout(size_of::<P::W>() as u64);
    // SAFETY: split indices up to `sections`; entry indices below `n`; the shared slices fit
    // the launch's bytes (the layout above), entries at offset 0 (16-byte aligned); every
    // thread of the block reaches every barrier and block scan.
    unsafe {
        let (from, to) = at.section(b);
        // Splits from memory could ask for more rows than the block stages (the same test in
        // every thread, before any barrier).
        if (to.light - from.light) as u64 + (to.heavy - from.heavy) as u64 > SHARED_PACK_ROWS {
            return;
        }
        let (l0, l1) = (from.light as u64, to.light as u64);
        let h0 = from.heavy as u64;
        let h1 = (to.heavy as u64 + 1).min(shape.n_heavy());
        let (n_light, count) = (l1 - l0, l1 - l0 + h1 - h0);
        let local = SharedSlice::<Entry>::carve(0, padded(count) + 1);
        let sums = SharedSlice::<P::W>::carve(sums_at as u32, count as u32 + 1);
        let mine = SharedSlice::<Split>::carve(splits_at as u32, threads as u32 + 1);
        let scratch = SharedSlice::<u64>::carve(scratch_at as u32, threads as u32 / 32);
        let mut e = t;
        while e < count {
            let global = if e < n_light {
                l0 + e
            } else {
                shape.n_light + h0 + e - n_light
            };
            entries.stage(local, padded(e), global);
            e += threads;
        }
        // While the copies fly (weights beside indices; indices only gathers the weights
        // above, load by load): where the sweep stands at the block's first row.
        let origin = spill(shape, &prefix_in(shape, at.prefix), from);
        wait_copies();
        sync_threads();
        // The block's prefix sums: each thread scans a run of consecutive entries.
        let run = count.div_ceil(threads);
        let (first, last) = ((t * run).min(count), ((t + 1) * run).min(count));
        // Staged entry `e`, light ones as the layout left them in their slots.
        let staged = |e: u64| {
            let entry = local.get(padded(e));
            if e < n_light {
                <P::Items as EntrySource>::staged_light(entry)
            } else {
                entry
            }
        };
        let mut sum = <P::W>::ZERO;
        for e in first..last {
            sum = sum.add(<P::W>::of(staged(e)));
        }
        let mut sum = sum.block_exclusive_scan(scratch);
        for e in first..last {
            sums.set(e as u32, sum);
            sum = sum.add(<P::W>::of(staged(e)));
        }
        if first < last && last == count {
            sums.set(count as u32, sum);
        }
        sync_threads();
        // This thread's first row, as a split of the block's own sweep.
        let block_shape = Shape {
            n: n_light + to.heavy as u64 - h0,
            n_light,
            ..*shape
        };
        let block_prefix = BlockPrefix { sums, shape, origin };
        let rows_here = to.light as u64 + to.heavy as u64 - l0 - h0;
        let k = (t * SHARED_PACK_THREAD_ROWS).min(rows_here);
        let (lo, hi) = heavy_range(&block_shape, k);
        let own = search(&block_shape, &block_prefix, k, lo, hi);
        let start_spill = spill(&block_shape, &block_prefix, own);
        let start = Split {
            light: own.light + from.light,
            heavy: own.heavy + from.heavy,
        };
        mine.set(t as u32, start);
        if t == 0 {
            mine.set(threads as u32, to);
        }
        sync_threads();
        let end = mine.get(t as u32 + 1);
        let light = |i: u64| <P::Items as EntrySource>::staged_light(local.get(padded(i - l0)));
        let heavy = |j: u64| local.get(padded(n_light + j - h0));
        // Rows are staged, not stored: a thread's rows are consecutive, so the lanes' stores
        // would land 8 rows apart. A light row takes its own entry's slot (no other thread
        // reads a light entry); a heavy row keeps only its threshold, in the prefix sums' place
        // (not read after the searches), since its alias is the next heavy entry's item.
        let heavy_rows = to.heavy as u64 - h0;
        let thresholds = SharedSlice::<u64>::carve(sums_at as u32, heavy_rows as u32);
        rows(
            shape,
            start,
            end,
            start_spill,
            light,
            heavy,
            |item, row: Row<P::F>, of| match of {
                RowOf::Light(i) => {
                    let staged = Entry {
                        q: row.threshold.to_bits64(),
                        item,
                        rem: row.alias,
                    };
                    local.set(padded(i - l0), staged)
                }
                RowOf::Heavy(j) => thresholds.set((j - h0) as u32, row.threshold.to_bits64()),
            },
        );
        sync_threads();
        // Light rows in light order, then heavy rows in heavy order: consecutive lanes write
        // rising items.
        let mut e = t;
        while e < n_light {
            let staged = local.get(padded(e));
            let row = Row::<P::F>::new(<P::F>::from_bits64(staged.q), staged.rem);
            at.put(staged.item, row);
            e += threads;
        }
        let mut e = t;
        while e < heavy_rows {
            let h = local.get(padded(n_light + e));
            let alias = if h0 + e + 1 < shape.n_heavy() {
                local.get(padded(n_light + e + 1)).item
            } else {
                h.item
            };
            let threshold = <P::F>::from_bits64(thresholds.get(e as u32));
            at.put(h.item, Row::new(threshold, alias));
            e += threads;
        }
    }
}

/// Shared memory of a chunked pack block: each thread's window starts (light, heavy), its
/// windows of light and heavy entries, and a slot per warp for the block-wide count.
pub const fn chunked_pack_bytes() -> u32 {
    let threads = CHUNKED_PACK_THREADS as u64;
    (threads * 16 + threads * 2 * CHUNK_ITEMS * size_of::<Entry>() as u64 + threads / 32 * 8) as u32
}

/// The paper's chunked pack: each thread sweeps a long section, reading its light and heavy
/// items from windows of [`CHUNK_ITEMS`] each in shared memory. In rounds, every thread posts
/// where its sweep stands, the block copies every unfinished thread's next windows together
/// (coalesced runs of 16 entries), each thread sweeps until a window runs out, and a block-wide
/// count tells whether any thread still has rows to write.
///
/// # Safety
/// As for [`pack_section`], with sections of at most [`CHUNKED_PACK_ROWS`] rows, blocks of
/// [`CHUNKED_PACK_THREADS`] threads and [`chunked_pack_bytes`] of dynamic shared memory.
#[inline(always)]
pub unsafe fn pack_block_chunked<P: PackParams>(p: P) {
    // SAFETY: the caller's launch met the family's reaches.
    let (entries, at) = unsafe { p.parts() };
    let shape = &at.shape;
    use crate::block;
    use crate::op::Sum;
    use crate::simt::shared::SharedSlice;
    use crate::simt::{block_dim_x, block_x, sync_threads, thread_x};
    const C: u64 = CHUNK_ITEMS;
    let threads = block_dim_x() as u64;
    let t = thread_x() as u64;
    let s = block_x() as u64 * threads + t;
    // SAFETY: split indices up to `sections`, entry indices below `n` (checked before each
    // copy); the shared slices fit the launch's bytes; every thread reaches every barrier and
    // block reduction, finished or not.
    unsafe {
        let starts = SharedSlice::<u64>::carve(0, 2 * threads as u32);
        let windows = SharedSlice::<Entry>::carve(16 * threads as u32, (2 * C * threads) as u32);
        let count_at = 16 * threads as u32 + windows.len() * size_of::<Entry>() as u32;
        let counter = SharedSlice::<u64>::carve(count_at, threads.div_ceil(32) as u32);
        let prefix_at = prefix_in(shape, at.prefix);
        let (mut cursor, end, mut done) = if s < at.sections {
            let (a, b) = at.section(s);
            let cursor = Cursor::at(a, spill(shape, &prefix_at, a));
            (cursor, b.light as u64 + b.heavy as u64, false)
        } else {
            (Cursor::at(Split::default(), 0), 0, true)
        };
        loop {
            let (lo_light, lo_heavy) = (cursor.light, cursor.heavy);
            starts.set(2 * t as u32, if done { u64::MAX } else { lo_light });
            starts.set(2 * t as u32 + 1, lo_heavy);
            sync_threads();
            let mut k = t;
            while k < 2 * C * threads {
                let (w, e) = (k / (2 * C), k % (2 * C));
                let light_start = starts.get(2 * w as u32);
                if light_start != u64::MAX {
                    let entry = if e < C {
                        let i = light_start + e;
                        (i < shape.n_light).then(|| entries.get(i))
                    } else {
                        let j = starts.get(2 * w as u32 + 1) + e - C;
                        (j < shape.n_heavy()).then(|| entries.get(shape.n_light + j))
                    };
                    if let Some(entry) = entry {
                        windows.set(k as u32, entry);
                    }
                }
                k += threads;
            }
            sync_threads();
            if !done {
                let base = (2 * C * t) as u32;
                let light = |i: u64| windows.get(base + (i - lo_light) as u32);
                let heavy = |j: u64| windows.get(base + C as u32 + (j - lo_heavy) as u32);
                done = cursor.advance(
                    shape,
                    end,
                    lo_light + C,
                    lo_heavy + C,
                    light,
                    heavy,
                    |item, row: Row<P::F>, _| at.put(item, row),
                );
            }
            // The count's barriers also end this round's reads of the windows and starts.
            if block::reduce(!done as u64, Sum, counter) == 0 {
                break;
            }
        }
    }
}

crate::kernel_group! {
    /// What every pack takes beside its items: their prefix sums and shape, the splits of their
    /// sections, and the table.
    pub struct Packing<F: Weight, W: PrefixWord> {
        /// The `shape.n + 1` prefix sums.
        #[len(u128::from(shape.n) + 1)]
        pub prefix: *const W,
        /// The sweep's items and the table's ([`Shape::unsettled`]); its light count and total
        /// are the family's `settled`.
        pub shape: Shape,
        /// The `sections + 1` splits.
        #[len(u128::from(sections) + 1)]
        pub splits: *const Split,
        pub sections: u64,
        /// The table's `shape.scale` rows.
        #[len(shape.scale)]
        pub table: *mut Row<F>,
    }
}

impl<F: Weight, W: PrefixWord> Packing<F, W> {
    /// The sections as the packs' bodies read them, the shape with the light count and total
    /// from `settled`.
    ///
    /// # Safety
    /// `settled` points to a word each.
    #[inline(always)]
    unsafe fn sections(self, settled: Settled) -> Sections<F, W> {
        let Packing {
            prefix,
            shape,
            splits,
            sections,
            table,
        } = self;
        // SAFETY: the caller's contract.
        let shape = unsafe { settled.shape(shape) };
        Sections {
            shape,
            prefix,
            splits,
            sections,
            table,
            last: (shape.scale - 1) as u32,
        }
    }
}

/// The parts of a pack's parameters that every layout shares.
pub struct Sections<F: Weight, W> {
    pub shape: Shape,
    /// The `shape.n + 1` prefix sums.
    pub prefix: *const W,
    /// The `sections + 1` splits.
    pub splits: *const Split,
    pub sections: u64,
    /// The table's rows.
    pub table: *mut Row<F>,
    /// The table's last row: an item read from memory is cut to it.
    pub last: u32,
}

impl<F: Weight, W> Sections<F, W> {
    /// Section `s`'s first and end splits, cut to the shape and the first to the end (so
    /// that any splits in memory give a section the sweep can run).
    ///
    /// # Safety
    /// `s < sections`, with `sections + 1` splits at `splits`.
    #[inline(always)]
    unsafe fn section(&self, s: u64) -> (Split, Split) {
        // SAFETY: the caller's contract.
        let (from, to) = unsafe { (*self.splits.add(s as usize), *self.splits.add(s as usize + 1)) };
        let to = to.within(&self.shape);
        (from.within(&self.shape).up_to(to), to)
    }

    /// Stores `row` as `item`'s, the item cut to the table.
    ///
    /// # Safety
    /// `table` holds `last + 1` rows.
    #[inline(always)]
    unsafe fn put(&self, item: u32, row: Row<F>) {
        // SAFETY: the caller's contract.
        unsafe { row.store(self.table.add(item.min(self.last) as usize)) }
    }
}

/// A pack's parameters: where its items come from, and its sections.
pub trait PackParams: Copy {
    type F: Weight;
    type W: PrefixWord;
    type Items: EntrySource;
    /// The items and the sections, the shape's light count and total read from memory.
    ///
    /// # Safety
    /// The parameters meet their family's reaches (a checked launch's).
    unsafe fn parts(self) -> (Self::Items, Sections<Self::F, Self::W>);
}

own_kernel! {
    /// Parameters of the packs that read entries, weights beside indices.
    pub struct Pack<F: Weight, W: PrefixWord> {
        /// The `shape.n` partitioned entries.
        #[len(packing.shape.n)]
        pub entries: *const Entry,
        /// Their prefix sums (u64 for PSA, `[u64; 2]` for the PSA step of PSA+), splits and table.
        #[group]
        pub packing: Packing<F, W>,
        /// The light count and total quantized weight.
        #[group]
        pub settled: Settled,
    }
    check |p, launch| packing.shape.fits();
    /// One thread a section, the paper's baseline (PSA, then the PSA step of PSA+).
    fn pack_thread_baseline => alias_pack_baseline_f32<f32, u64>, alias_pack_baseline_f64<f64, u64>,
        alias_pack_baseline_plus_f32<f32, [u64; 2]>, alias_pack_baseline_plus_f64<f64, [u64; 2]>;
    check |p, launch| *launch == plan_thread_baseline(packing.sections);
    /// Items staged in shared memory (PSA, then the PSA step of PSA+).
    fn pack_block_shared => alias_pack_shared_f32<f32, u64>, alias_pack_shared_f64<f64, u64>,
        alias_pack_shared_plus_f32<f32, [u64; 2]>, alias_pack_shared_plus_f64<f64, [u64; 2]>;
    check |p, launch| *launch == p.plan_shared();
    /// Long sections, items loaded in chunks (PSA, then the PSA step of PSA+).
    fn pack_block_chunked => alias_pack_chunked_f32<f32, u64>, alias_pack_chunked_f64<f64, u64>,
        alias_pack_chunked_plus_f32<f32, [u64; 2]>, alias_pack_chunked_plus_f64<f64, [u64; 2]>;
    check |p, launch| *launch == plan_block_chunked(packing.sections);
}

impl<F: Weight, W: PrefixWord> Pack<F, W> {
    /// The launch of [`pack_block_shared`] for these parameters.
    pub const fn plan_shared(&self) -> LaunchShape {
        plan_block_shared(self.packing.sections, size_of::<W>())
    }
}

/// How the packs of a sweep with prefix words `Self` read stored entries: PSA's partition
/// writes them [`Compact`], PSA+'s leftovers whole ([`Stored`]).
pub trait StoredEntries: PrefixWord {
    type Items: EntrySource;
    /// The entries at `entries` of a sweep of `shape`.
    fn items(entries: *const Entry, shape: &Shape) -> Self::Items;
}

impl StoredEntries for u64 {
    type Items = Compact;
    #[inline(always)]
    fn items(entries: *const Entry, shape: &Shape) -> Compact {
        Compact::new(entries, shape.n_light)
    }
}

impl StoredEntries for [u64; 2] {
    type Items = Stored;
    #[inline(always)]
    fn items(entries: *const Entry, _: &Shape) -> Stored {
        Stored(entries)
    }
}

impl<F: Weight, W: StoredEntries> PackParams for Pack<F, W> {
    type F = F;
    type W = W;
    type Items = W::Items;
    #[inline(always)]
    unsafe fn parts(self) -> (W::Items, Sections<F, W>) {
        // SAFETY: `settled` points to a word each (the caller's contract).
        let sections = unsafe { self.packing.sections(self.settled) };
        (W::items(self.entries, &sections.shape), sections)
    }
}

own_kernel! {
    /// Parameters of PSA's packs that read indices only.
    pub struct PackIndexed<F: Weight> {
        /// The `shape.n` indices the indices-only partition wrote for these `weights` (the
        /// table's `shape.scale`), quantized by `quantizer` as there.
        #[len(packing.shape.n)]
        pub items: *const u32,
        #[len(packing.shape.scale)]
        pub weights: *const F,
        pub quantizer: Quantizer,
        /// Their prefix sums, splits and table.
        #[group]
        pub packing: Packing<F, u64>,
        /// The light count and total quantized weight.
        #[group]
        pub settled: Settled,
    }
    check |p, launch| packing.shape.fits();
    /// One thread a section, the paper's baseline, indices only.
    fn pack_thread_baseline => alias_pack_baseline_indices_f32<f32>, alias_pack_baseline_indices_f64<f64>;
    check |p, launch| *launch == plan_thread_baseline(packing.sections);
    /// Items staged in shared memory, indices only.
    fn pack_block_shared => alias_pack_shared_indices_f32<f32>, alias_pack_shared_indices_f64<f64>;
    check |p, launch| *launch == plan_block_shared(packing.sections, size_of::<u64>());
    /// Long sections, items loaded in chunks, indices only.
    fn pack_block_chunked => alias_pack_chunked_indices_f32<f32>, alias_pack_chunked_indices_f64<f64>;
    check |p, launch| *launch == plan_block_chunked(packing.sections);
}

impl<F: Weight> PackParams for PackIndexed<F> {
    type F = F;
    type W = u64;
    type Items = Indexed<F>;
    #[inline(always)]
    unsafe fn parts(self) -> (Indexed<F>, Sections<F, u64>) {
        // SAFETY: `settled` points to a word each (the caller's contract).
        let sections = unsafe { self.packing.sections(self.settled) };
        let items = Indexed {
            items: self.items,
            weights: self.weights,
            quantizer: self.quantizer,
            last: sections.last,
        };
        (items, sections)
    }
}

/// The launch of [`pack_thread_baseline`] over `sections`: one thread a section.
pub const fn plan_thread_baseline(sections: u64) -> LaunchShape {
    LaunchShape::linear(super::partition::blocks_for(sections), ALIAS_BLOCK_THREADS, 0)
}

/// The launch of [`pack_block_shared`] over `sections`, prefix words of `word` bytes: one block
/// a section.
pub const fn plan_block_shared(sections: u64, word: usize) -> LaunchShape {
    LaunchShape::linear(sections, SHARED_PACK_THREADS, shared_pack_bytes(word))
}

/// The launch of [`pack_block_chunked`] over `sections`: one thread a section.
pub const fn plan_block_chunked(sections: u64) -> LaunchShape {
    let threads = CHUNKED_PACK_THREADS;
    LaunchShape::linear(sections.div_ceil(threads as u64), threads, chunked_pack_bytes())
}
