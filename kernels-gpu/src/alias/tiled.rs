//! Tiled sampling: samples in random order drawn from sections of the table in shared memory,
//! in three launches.
//!
//! The baseline's order is random because every sample reads its own random row: one random
//! table read a sample, from the L2 cache at best and from DRAM once the table outgrows it. The
//! sectioned samplers read shared memory instead but write their samples grouped by section,
//! and permuting that output afterwards scatters every store. Here the output is cut into tiles
//! of [`TILE`] positions, and every position picks its section as the baseline picks a row (a
//! 64-bit number `r`, row `⌊r·N / 2^64⌋`, its section `row >> shift`), so each section's chance
//! is its share of the rows and positions are independent. Then:
//!
//! 1. [`tile_ranks`], a block a tile: the tile's count of positions per section, where each
//!    section's run starts in the tile grouped by section, and each position's place in that
//!    grouping (stable: positions of one section in their order), by the block ranking
//!    [`crate::block::rank`] of the multisplit.
//! 2. [`tile_draws`], a block a section (and a share of the tiles), the section copied to shared
//!    memory: each tile's run of that section, drawn afresh within it (a row of the section,
//!    then its item or alias), written where the run starts.
//! 3. [`tile_gather`], a block a tile: the tile read into shared memory, position `p` written
//!    the sample at its place.
//!
//! Given the sections picked, a run's samples are independent draws from its section's rows,
//! and which of them a position gets depends on the sections alone: every position holds an
//! independent draw with the baseline's distribution. Samples move 12 bytes a sample through
//! memory (the draw's store, the gather's load and store) plus a 2-byte place written and read.
//!
//! Random numbers: position `j` picks its section by the 64-bit number whose high word is word
//! `⌊j/32⌋ mod 4` of block `32⌊j/128⌋ + j mod 32` of the call's stream (a lane's four windows 32
//! apart share a block) and whose low word, read only where the high word leaves the section
//! open ([`section_of`]), is word 0 of block `j` under the key xored with [`REFINE_KEY`]; the
//! run of `c` samples of section `d` in tile `t`, from place `o`, draws its samples `j` and `j +
//! ⌈c/2⌉` with the two 64-bit numbers (words 0 and 1, then 2 and 3) of block `t·TILE + o + j`
//! under the key xored with [`DRAW_KEY`]. Numbers depend on positions and places only, so every
//! device and grid draws the same samples. (Four samples a block, each from one word as the
//! other samplers draw them, measured slower here: 54.8 against 59.6 G samples/s at 10^7 rows.)

use super::sample::{Draws, draw_number, locate};
use super::sectioned::CutRow;
use super::sweep::Weight;
use crate::block::rank::rank;
use crate::block::scan::exclusive_scan;
use crate::block::{DigitFn, LaneLoad};
use crate::launch::LaunchShape;
use crate::op::Sum;
use crate::rng::philox::{Stream, counter_add, philox4x32_10};
use crate::simt::shared::SharedSlice;
use crate::simt::warp::{FULL_MASK, shfl_idx};
use crate::simt::{
    block_dim_x, block_x, grid_dim_x, lane_id, sync_threads, sync_threads_unaligned, thread_x, warp_id,
};
use crate::warp;

/// Positions of a tile.
pub const TILE: u64 = 1 << 14;
/// Threads of a ranking or gathering block.
pub const TILE_THREADS: u32 = 1024;
/// Warps of a ranking block.
const WARPS: u32 = TILE_THREADS / 32;
/// Windows of 32 positions each warp of a ranking block ranks.
const WINDOWS: usize = (TILE / (32 * WARPS as u64)) as usize;
/// Threads of a drawing block.
pub const DRAW_THREADS: u32 = 1024;
/// Sections at most: the ranking keeps a count and a match word per warp and section in
/// shared memory (192 KiB at this many).
pub const MAX_SECTIONS: u32 = 768;
/// Rows of a section at most (`2^MAX_SHIFT`), copied to shared memory 8 bytes a row.
pub const MAX_SHIFT: u32 = 14;
/// The draws' numbers use the sampling key with this mask xored in, a stream apart from the
/// sections' numbers.
pub const DRAW_KEY: u32 = 0x5a3c_96e1;
/// The sections' low words, drawn where the high word leaves the section open, use the
/// sampling key with this mask xored in.
pub const REFINE_KEY: u32 = 0x3c96_e15a;

const _: () = assert!(TILE_THREADS <= crate::launch_bounds::ALIAS_TILE_RANKS.max_threads);
const _: () =
    assert!(WINDOWS.is_multiple_of(4) && TILE <= 1 << 16 && MAX_SECTIONS <= TILE_THREADS && WARPS == 32);

/// Sections of a table of `n > 0` rows, `2^shift` rows each (the last may hold fewer): an
/// eighth of the rows rounded up to a power of two, at most `2^MAX_SHIFT` (so that small tables
/// still make several sections, and large ones the fewest that fit shared memory). `None` past
/// [`MAX_SECTIONS`] sections (12 582 912 rows).
pub const fn tile_sections(n: u64) -> Option<(u32, u32)> {
    let eighth = n.div_ceil(8).next_power_of_two();
    let rows = if eighth < 1 << MAX_SHIFT {
        eighth
    } else {
        1 << MAX_SHIFT
    };
    let sections = n.div_ceil(rows);
    if n == 0 || sections > MAX_SECTIONS as u64 {
        None
    } else {
        Some((rows.trailing_zeros(), sections as u32))
    }
}

/// Dynamic shared memory of a ranking block over `sections` sections: a count and a match word
/// per warp and section, each section's start, and the scan's word per warp.
pub const fn rank_shared_bytes(sections: u32) -> u32 {
    ((2 * WARPS + 1) * sections + WARPS) * 4
}

/// Dynamic shared memory of a drawing block with sections of `2^shift` rows.
pub const fn draw_shared_bytes(shift: u32) -> u32 {
    super::sectioned::shared_section_bytes(1 << shift)
}

/// Dynamic shared memory of a gathering block: a tile of samples.
pub const GATHER_SHARED_BYTES: u32 = TILE as u32 * 4;

/// How the tiles' sections are cut.
#[derive(Clone, Copy)]
#[cfg_attr(not(target_arch = "nvptx64"), derive(Debug))]
pub struct TileSections {
    /// Rows of the table, and `2^shift` rows a section.
    pub n: u64,
    pub shift: u32,
    pub sections: u32,
}

#[cfg(not(target_arch = "nvptx64"))]
// SAFETY: numbers only.
unsafe impl crate::kernel::Plain for TileSections {}

impl TileSections {
    /// Whether the sections cover the rows as [`tile_sections`] cuts them.
    pub const fn valid(&self) -> bool {
        match tile_sections(self.n) {
            Some((shift, sections)) => shift == self.shift && sections == self.sections,
            None => false,
        }
    }
}

own_kernel! {
    /// Parameters of [`tile_ranks`]: tiles `first_tile..` of `s` positions, a block each.
    pub struct TileRanks {
        pub cut: TileSections,
        pub s: u64,
        pub stream: Stream,
        pub first_tile: u64,
        /// Per block's tile, where each section's run starts in the tile and (last) the tile's
        /// length: `sections + 1` words.
        #[len(shape.grid[0] as u64 * (cut.sections as u64 + 1))]
        pub starts: *mut u32,
        /// Per block's tile, each position's place in the tile grouped by section.
        #[len(shape.grid[0] as u64 * TILE)]
        pub places: *mut u16,
    }
    check |p, shape| cut.valid()
        && shape.is_1d()
        && shape.block[0] == TILE_THREADS
        && shape.shared_bytes >= rank_shared_bytes(cut.sections)
        && p.first_tile.checked_add(shape.grid[0] as u64).is_some_and(|end| end - 1 < s.div_ceil(TILE));
    /// Each tile's sections counted and ranked.
    fn tile_ranks => alias_tile_ranks;
}

impl TileRanks {
    /// A block a tile of this round's `tiles`.
    pub const fn plan(&self, tiles: u32) -> LaunchShape {
        LaunchShape::linear(tiles as u64, TILE_THREADS, rank_shared_bytes(self.cut.sections))
    }
}

/// A lane's windows: the sections its positions pick.
#[derive(Clone, Copy)]
struct Picks {
    rows: u32,
    shift: u32,
    stream: Stream,
    /// Block of the lane's first window (and of the next three, 32 positions apart).
    block: u64,
    /// The lane's first position.
    first: u64,
    valid: u32,
}

impl LaneLoad<u32, WINDOWS> for Picks {
    #[inline(always)]
    unsafe fn load(self) -> [u32; WINDOWS] {
        let mut sections = [0; WINDOWS];
        let refine_key = [self.stream.key[0] ^ REFINE_KEY, self.stream.key[1]];
        for m in 0..WINDOWS / 4 {
            let w = philox4x32_10(
                counter_add(self.stream.counter, self.block + 32 * m as u64),
                self.stream.key,
            );
            for (k, &high) in w.iter().enumerate() {
                let j = self.first + 32 * (4 * m + k) as u64;
                let refine = || philox4x32_10(counter_add(self.stream.counter, j), refine_key)[0];
                sections[4 * m + k] = section_of(self.rows, self.shift, high, refine);
            }
        }
        sections
    }

    #[inline(always)]
    fn valid(self) -> u32 {
        self.valid
    }
}

/// The section (of `2^shift` rows) of the 64-bit number whose high word is `high`, among
/// `rows` rows: that of row `⌊r·rows / 2^64⌋`, as the baseline picks a row. Numbers with this
/// high word fall in rows `⌊high·rows / 2^32⌋ ..= ⌊(high·rows + rows − 1) / 2^32⌋`; where those
/// lie in one section the low word cannot change it and is not drawn (`refine` gives it
/// otherwise: about `sections / 2^32` of the time).
#[inline(always)]
pub fn section_of(rows: u32, shift: u32, high: u32, refine: impl FnOnce() -> u32) -> u32 {
    let product = high as u64 * rows as u64;
    let (first, last) = ((product >> 32) as u32, ((product + rows as u64 - 1) >> 32) as u32);
    if first >> shift == last >> shift {
        first >> shift
    } else {
        locate(rows, (high as u64) << 32 | refine() as u64).0 >> shift
    }
}

/// A section is its own digit.
struct Section;

impl DigitFn<u32> for Section {
    #[inline(always)]
    fn digit(&self, key: u32) -> u32 {
        key
    }
}

/// The tile of position `first_tile + blockIdx.x`: its sections' run starts and its positions'
/// places ([`TileRanks`]).
///
/// # Safety
/// The launch is as [`TileRanks`] checks.
#[inline(always)]
pub unsafe fn tile_ranks(p: TileRanks) {
    let TileSections { n, shift, sections } = p.cut;
    let b = block_x() as u64;
    let start = (p.first_tile + b) * TILE;
    let len = (p.s - start).min(TILE) as u32;
    let (lane, warp, x) = (lane_id(), warp_id(), thread_x());
    let warp_first = warp * 32 * WINDOWS as u32;
    let first = start + (warp_first + lane) as u64;
    let picks = Picks {
        rows: n as u32,
        shift,
        stream: p.stream,
        block: (start + warp_first as u64) / 4 + lane as u64,
        first,
        valid: len
            .saturating_sub(warp_first + lane)
            .div_ceil(32)
            .min(WINDOWS as u32),
    };
    let slots = WARPS * sections;
    // SAFETY: the launch gives `rank_shared_bytes(sections)`; every thread reaches each barrier
    // and every lane each warp scan (bounds uniform over the warp); digits below `sections`
    // (rows below `n`); stores inside the block's tile of both outputs.
    unsafe {
        let counts = SharedSlice::<u32>::carve(0, slots);
        let matches = SharedSlice::<u32>::carve(4 * slots, slots);
        let digit_starts = SharedSlice::<u32>::carve(8 * slots, sections);
        let scratch = SharedSlice::<u32>::carve(8 * slots + 4 * sections, WARPS);
        let ranked = rank(picks, (sections, true), (counts, matches), Section);
        // Warps leave `rank` from lane-dependent stores: barriers here are unaligned
        // ([`sync_threads_unaligned`]; the aligned one hung on the H200).
        sync_threads_unaligned();
        // Each section's column of warp counts becomes the warps' starts within the section
        // (warp `w` scans sections `w, w + 32, ...`, a lane a warp), and its total is scanned
        // over the sections (a thread a section) for where its run starts in the tile.
        let mut d = warp;
        while d < sections {
            let (before, total) = warp::exclusive_scan(counts.get_unchecked(lane * sections + d), Sum);
            counts.set_unchecked(lane * sections + d, before);
            if lane == 0 {
                digit_starts.set_unchecked(d, total);
            }
            d += WARPS;
        }
        sync_threads_unaligned();
        // A select, not a branch: LLVM would otherwise copy the scan, barriers and all, into
        // both sides of `x < sections`.
        let total = digit_starts.get_unchecked(x.min(sections - 1)) * (x < sections) as u32;
        let (at, _) = exclusive_scan(total, Sum, scratch);
        let starts = p.starts.add(b as usize * (sections as usize + 1));
        if x < sections {
            digit_starts.set_unchecked(x, at);
            *starts.add(x as usize) = at;
        }
        if x == 0 {
            *starts.add(sections as usize) = len;
        }
        sync_threads_unaligned();
        let places = p.places.add((b * TILE) as usize + (warp_first + lane) as usize);
        for k in 0..WINDOWS {
            if (k as u32) < picks.valid {
                let digit = ranked.digit(k);
                let place = digit_starts.get_unchecked(digit)
                    + counts.get_unchecked(warp * sections + digit)
                    + ranked.rank(k);
                *places.add(32 * k) = place as u16;
            }
        }
    }
}

own_kernel! {
    /// Parameters of [`tile_draws`]: the runs of tiles `first_tile..first_tile + tiles`, whose
    /// starts [`tile_ranks`] wrote (`sections + 1` words a tile). Blocks are sections first:
    /// block `b` draws section `b mod sections` in its share of the tiles.
    pub struct TileDraws<F: Weight> {
        #[group]
        pub draws: Draws<F>,
        pub shift: u32,
        pub sections: u32,
        pub first_tile: u64,
        pub tiles: u32,
        /// Any contents keep the stores inside each tile; only [`tile_ranks`]' put every
        /// sample where the gather looks for it.
        #[len(tiles as u64 * (sections as u64 + 1))]
        pub starts: *const u32,
    }
    check |p, shape| (TileSections { n: draws.n, shift: p.shift, sections: p.sections }).valid()
        && shape.is_1d()
        && shape.block[0] == DRAW_THREADS
        && shape.grid[0] % sections == 0
        && shape.shared_bytes >= draw_shared_bytes(shift)
        && tiles > 0
        && p.first_tile.checked_add(tiles as u64).is_some_and(|end| end - 1 < draws.s.div_ceil(TILE));
    /// Each section's runs of the tiles, drawn from shared memory.
    fn tile_draws => alias_tile_draws_f32<f32>, alias_tile_draws_f64<f64>;
}

impl<F: Weight> TileDraws<F> {
    /// `chunks` blocks a section, each drawing its runs of a share of the tiles.
    pub const fn plan(&self, chunks: u32) -> LaunchShape {
        LaunchShape::linear(
            self.sections as u64 * chunks as u64,
            DRAW_THREADS,
            draw_shared_bytes(self.shift),
        )
    }
}

/// Section `blockIdx.x mod sections`'s runs in its share of the tiles ([`TileDraws`]). A warp
/// takes 32 tiles at a time, a lane reading one tile's run start and end, and spreads the
/// runs' pairs of samples over its lanes (each pair from one Philox block): a run is often
/// shorter than a warp's 64 samples (about `TILE / sections`), and a warp a tile left most
/// lanes idle and waited on each tile's starts in turn (H200, 10^7 rows: 795 µs a round of 2^26).
///
/// # Safety
/// The launch is as [`TileDraws`] checks; `table` holds `n` rows whose aliases are below `n`.
#[inline(always)]
pub unsafe fn tile_draws<F: Weight>(p: TileDraws<F>) {
    let d = p.draws;
    let sections = p.sections;
    let (section, chunk, chunks) = (
        block_x() % sections,
        block_x() / sections,
        grid_dim_x() / sections,
    );
    let first_row = (section as u64) << p.shift;
    let rows = (d.n - first_row).min(1 << p.shift) as u32;
    let key = [d.stream.key[0] ^ DRAW_KEY, d.stream.key[1]];
    let share = |c: u32| (p.tiles as u64 * c as u64 / chunks as u64) as u32;
    let (lane, warps) = (lane_id(), block_dim_x() / 32);
    let end_tile = share(chunk + 1);
    // SAFETY: the launch gives the section's bytes of shared memory and every thread reaches
    // the barrier; rows read are the section's; starts read below `tiles·(sections + 1)`; each
    // store lies in its tile (the run is cut to the tile's length), below `s`; every lane of
    // the warp reaches each shuffle (the loops' bounds are the same in all).
    unsafe {
        let local = SharedSlice::<CutRow>::carve(0, rows);
        let mut r = thread_x();
        while r < rows {
            local.set(r, CutRow::of(*d.table.add(first_row as usize + r as usize)));
            r += block_dim_x();
        }
        sync_threads();
        let cut_row = |row| local.get_unchecked(row);
        let draw = |r: u64| draw_number(d.table, first_row as u32, rows, r, cut_row);
        let mut group = share(chunk) + 32 * warp_id();
        while group < end_tile {
            // This lane's tile: where its run starts (from the tile's first sample) and its pairs.
            let t = group + lane;
            let (base, count) = if t < end_tile {
                let tile = p.first_tile + t as u64;
                let len = (d.s - tile * TILE).min(TILE) as u32;
                let at = p
                    .starts
                    .add(t as usize * (sections as usize + 1) + section as usize);
                let end = (*at.add(1)).min(len);
                let from = (*at).min(end);
                (tile * TILE + from as u64, end - from)
            } else {
                (0, 0)
            };
            let (before, pairs) = warp::exclusive_scan(count.div_ceil(2), Sum);
            let mut q = lane;
            while q - lane < pairs {
                // The run of pair `q`: the last lane whose runs' pairs before it are at most `q`.
                let mut run = 0;
                for step in [16, 8, 4, 2, 1] {
                    if shfl_idx(FULL_MASK, before, run + step) <= q {
                        run += step;
                    }
                }
                let run_base = shfl_idx(FULL_MASK, base, run);
                let run_count = shfl_idx(FULL_MASK, count, run);
                // Pair `j` of a run of `f` pairs draws its places `j` and `j + f`, so that
                // neighbouring lanes store to neighbouring words.
                let j = q - shfl_idx(FULL_MASK, before, run);
                let f = run_count.div_ceil(2);
                if q < pairs {
                    let w = philox4x32_10(counter_add(d.stream.counter, run_base + j as u64), key);
                    let r = [
                        (w[0] as u64) << 32 | w[1] as u64,
                        (w[2] as u64) << 32 | w[3] as u64,
                    ];
                    *d.out.add((run_base + j as u64) as usize) = draw(r[0]);
                    if j + f < run_count {
                        *d.out.add((run_base + (j + f) as u64) as usize) = draw(r[1]);
                    }
                }
                q += 32;
            }
            group += 32 * warps;
        }
    }
}

own_kernel! {
    /// Parameters of [`tile_gather`]: tiles `first_tile..` of the `s` samples, grouped by
    /// section, put in position order by their places.
    pub struct TileGather {
        #[len(s)]
        pub out: *mut u32,
        pub s: u64,
        pub first_tile: u64,
        /// Per block's tile, each position's place ([`TileRanks`]); any contents keep the
        /// reads inside the tile.
        #[len(shape.grid[0] as u64 * TILE)]
        pub places: *const u16,
    }
    check |p, shape| shape.is_1d()
        && shape.block[0] == TILE_THREADS
        && shape.shared_bytes >= GATHER_SHARED_BYTES
        && p.first_tile.checked_add(shape.grid[0] as u64).is_some_and(|end| end - 1 < s.div_ceil(TILE));
    /// Each tile's samples moved from their places to their positions.
    fn tile_gather => alias_tile_gather;
}

impl TileGather {
    /// A block a tile of this round's `tiles`.
    pub const fn plan(tiles: u32) -> LaunchShape {
        LaunchShape::linear(tiles as u64, TILE_THREADS, GATHER_SHARED_BYTES)
    }
}

/// Tile `first_tile + blockIdx.x` read into shared memory, position `p` then written the
/// sample at its place ([`TileGather`]).
///
/// # Safety
/// The launch is as [`TileGather`] checks.
#[inline(always)]
pub unsafe fn tile_gather(p: TileGather) {
    let b = block_x() as u64;
    let start = (p.first_tile + b) * TILE;
    let len = (p.s - start).min(TILE) as u32;
    // SAFETY: the launch gives a tile of shared memory, and every thread reaches the barrier;
    // global accesses inside the tile; places masked into the staged tile.
    unsafe {
        let staged = SharedSlice::<u32>::carve(0, TILE as u32);
        let (tile, places) = (p.out.add(start as usize), p.places.add((b * TILE) as usize));
        // A whole tile's loads, of samples and then of places, are all issued before the
        // first use of one (a load at a time left the gather waiting on each).
        const EACH: usize = (TILE / TILE_THREADS as u64) as usize;
        let (x, mask) = (thread_x(), TILE as u32 - 1);
        let at = |k: usize| x as usize + k * TILE_THREADS as usize;
        if len == TILE as u32 {
            let v: [u32; EACH] = core::array::from_fn(|k| *tile.add(at(k)));
            for (k, v) in v.into_iter().enumerate() {
                staged.set_unchecked(at(k) as u32, v);
            }
            sync_threads();
            let from: [u16; EACH] = core::array::from_fn(|k| *places.add(at(k)));
            for (k, from) in from.into_iter().enumerate() {
                *tile.add(at(k)) = staged.get_unchecked(from as u32 & mask);
            }
        } else {
            let mut i = x;
            while i < len {
                staged.set_unchecked(i, *tile.add(i as usize));
                i += TILE_THREADS;
            }
            sync_threads();
            let mut i = x;
            while i < len {
                *tile.add(i as usize) = staged.get_unchecked(*places.add(i as usize) as u32 & mask);
                i += TILE_THREADS;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sections cover the rows, hold at most `2^MAX_SHIFT` and (below that) about an eighth
    /// of them; tables past 768 full sections are refused.
    #[test]
    fn sections_cover_the_rows() {
        for n in [
            1u64,
            2,
            7,
            8,
            9,
            10,
            1000,
            10_000,
            131_072,
            1_000_000,
            10_000_000,
            768 << 14,
        ] {
            let (shift, sections) = tile_sections(n).unwrap();
            let rows = 1u64 << shift;
            assert!(rows <= 1 << MAX_SHIFT && sections as u64 * rows >= n, "n {n}");
            assert!((sections as u64 - 1) * rows < n, "n {n}: a section empty");
            assert!(
                sections >= 8.min(n as u32).div_ceil(2) || rows == 1 << MAX_SHIFT,
                "n {n}"
            );
        }
        assert_eq!(tile_sections(0), None);
        assert_eq!(tile_sections((768 << 14) + 1), None);
    }

    /// The section of a high word, refined by the low word where needed, is the section of
    /// the whole 64-bit number's row, at random numbers and section edges, for tables of
    /// every shape (one section, a short last one, 2^32 − 1 rows).
    #[test]
    fn sections_of_high_words_are_those_of_the_numbers() {
        let mut block = 0;
        let mut next = || {
            block += 1;
            philox4x32_10([block, 2, 0, 0], [5, 6])
        };
        let mut refined = 0;
        for k in 0..200_000u32 {
            let w = next();
            let rows = [1, 10, 16_385, 1_000_000, u32::MAX, w[2] | 1][k as usize % 6];
            let shift = [0, 3, 14, 14, 14, w[3] % 15][k as usize % 6];
            // Every other number sits next to a section edge: its high word straddles it.
            let r = if k % 2 == 0 {
                (w[0] as u64) << 32 | w[1] as u64
            } else {
                let edge = ((w[0] as u64 % (rows as u64 >> shift).max(1)) << shift).min(rows as u64 - 1);
                ((edge as u128) << 64).div_ceil(rows as u128) as u64 ^ (w[1] & 3) as u64
            };
            let want = locate(rows, r).0 >> shift;
            let got = section_of(rows, shift, (r >> 32) as u32, || {
                refined += 1;
                r as u32
            });
            assert_eq!(got, want, "rows {rows}, shift {shift}, r {r:#x}");
        }
        assert!(refined > 10_000, "the low word was needed {refined} times");
    }
}
