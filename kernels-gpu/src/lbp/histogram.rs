//! The histogram kernel: a persistent grid, each block counting a run of consecutive tiles
//! into its shared histogram ([`Plan`]) and flushing it into the global histogram of the
//! signal it was counting (skipping empty bins) when its run crosses into the next signal,
//! when packed counts could overflow, and at the end. Per tile: its window read once into
//! shared memory, a barrier, `items` patterns a thread of `2n + 1` shared reads and one shared
//! atomic each, a barrier. Cost: 4 bytes read a position, plus the flushes' atomics (a block's
//! non-empty bins, once a run).

use super::{Input, MAX_NEIGHBOURHOOD, Plan, bins};
use crate::launch::LaunchShape;
use crate::simt::atomic::add_u32;
use crate::simt::shared::SharedSlice;
use crate::simt::{block_x, grid_dim_x, sync_threads, thread_x, trap, warp_id};

own_kernel! {
    /// Parameters of the histogram kernels: the local binary pattern histograms of
    /// neighbourhood `n` of the launch's signals, added into `hist`.
    pub struct Histogram<T: Input> {
        /// The signals' elements.
        #[len(len)]
        pub input: *const T,
        /// The neighbourhood, 1..=8.
        pub n: u32,
        /// Elements of `input`: the one signal's, with `bounds` null.
        pub len: u64,
        /// Signals, with `bounds` non-null.
        pub signals: u32,
        /// Null for one signal of `len` elements; else where the `signals` signals lie
        /// (element offsets, then tile offsets from [`Plan::tiles`], `signals + 1` each).
        #[len(if bounds.is_null() { 0 } else { 2 * (u128::from(signals) + 1) })]
        pub bounds: *const u64,
        /// `bins(n)` counts a signal, zeroed by the caller.
        #[len(u128::from(if bounds.is_null() { 1 } else { signals }) * u128::from(bins(n)))]
        pub hist: *mut u32,
    }
    check |p, shape| {
        (1..=MAX_NEIGHBOURHOOD).contains(&n)
            && len <= u64::from(u32::MAX)
            && (bounds.is_null() || signals > 0)
            && shape.is_linear(Plan::of(n).threads, Plan::of(n).shared_bytes(n))
    };
    /// The histograms of i32, u32 and f32 signals.
    fn histograms => lbp_histogram_i32<i32>, lbp_histogram_u32<u32>, lbp_histogram_f32<f32>;
}

impl<T: Input> Histogram<T> {
    /// The launch over `tiles` tiles in all (at least one block): a persistent grid, each
    /// block of `Plan::of(n)` with its shared memory counting a run of consecutive tiles. The
    /// host caps the grid at the blocks the device holds at once.
    pub const fn plan(&self, tiles: u64) -> LaunchShape {
        let plan = Plan::of(self.n);
        let blocks = if tiles == 0 { 1 } else { tiles };
        LaunchShape::linear(blocks, plan.threads, plan.shared_bytes(self.n))
    }
}

/// Where a launch's signals lie: with `bounds` null, one signal of `len` elements; otherwise
/// `bounds` holds `count + 1` element offsets (signal `s` is `bounds[s] .. bounds[s + 1]`),
/// then `count + 1` tile offsets (its tiles are `bounds[count + 1 + s] ..`, numbered over the
/// whole launch). Whatever `bounds` holds, the kernel reads only `input[.. len]` and ends: an
/// offset is clamped to `len`, lengths and tile numbers saturate, and the tiles of the launch
/// are at most `len` (a tile holds a position at least).
#[derive(Clone, Copy)]
struct Signals {
    count: u32,
    bounds: *const u64,
    len: u64,
    tiles: u64,
}

impl Signals {
    /// Element offset of signal `s <= count`, at most `len`.
    ///
    /// # Safety
    /// `bounds` as the type says.
    #[inline(always)]
    unsafe fn start(&self, s: u32) -> u64 {
        match (self.bounds.is_null(), s) {
            (true, 0) => 0,
            (true, _) => self.len,
            // SAFETY: `s <= count` (the caller's contract).
            (false, _) => unsafe { *self.bounds.add(s as usize) }.min(self.len),
        }
    }

    /// First tile of signal `s <= count` (of `count`: all the tiles).
    ///
    /// # Safety
    /// As for [`Signals::start`].
    #[inline(always)]
    unsafe fn first_tile(&self, s: u32) -> u64 {
        match (self.bounds.is_null(), s) {
            (true, 0) => 0,
            (true, _) => self.tiles,
            // SAFETY: `count + 1 + s <= 2 count + 1` (the caller's contract).
            (false, _) => unsafe { *self.bounds.add((self.count + 1 + s) as usize) },
        }
    }

    /// Where signal `s < count` lies, read once a signal rather than once a tile.
    ///
    /// # Safety
    /// As for [`Signals::start`].
    #[inline(always)]
    unsafe fn span<const N: u32>(&self, s: u32) -> Span {
        // SAFETY: `s + 1 <= count` (the caller's contract).
        unsafe {
            let start = self.start(s);
            // Every offset is at most `len <= u32::MAX` (the launch's check), tiles clamped there.
            Span {
                start: start as u32,
                positions: self.start(s + 1).saturating_sub(start + 2 * N as u64) as u32,
                first_tile: self.first_tile(s).min(self.len) as u32,
                end_tile: self.first_tile(s + 1).min(self.len) as u32,
            }
        }
    }

    /// The signal holding tile `t` (below all the tiles): the last whose first tile is at most
    /// `t`, by bisection (every signal has a tile).
    ///
    /// # Safety
    /// As for [`Signals::start`].
    #[inline(always)]
    unsafe fn of_tile(&self, t: u64) -> u32 {
        let (mut lo, mut hi) = (0, self.count);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            // SAFETY: `mid < count`.
            if unsafe { self.first_tile(mid) } <= t {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        lo
    }
}

/// One signal of a launch: its first element, its positions (its length less `2N`, none for a
/// shorter one) and the launch's numbers of its first tile and of the tile after its last. In
/// 32 bits, as the launch's lengths are: four registers live across the tile loop, where 64-bit
/// fields cost eight and a quarter of the blocks a multiprocessor holds (n = 4, H100).
#[derive(Clone, Copy)]
struct Span {
    start: u32,
    positions: u32,
    first_tile: u32,
    end_tile: u32,
}

/// The pattern centred on `window[j + N]`.
///
/// # Safety
/// `j + 2N < window.len()`.
#[inline(always)]
unsafe fn pattern<T: Copy + PartialOrd, const N: u32>(window: SharedSlice<T>, j: u32) -> u32 {
    // SAFETY: every index is at most `j + 2N` (the caller's contract).
    unsafe {
        let centre = window.get_unchecked(j + N);
        let mut p = 0;
        for q in 0..N {
            p |= ((window.get_unchecked(j + q) >= centre) as u32) << q;
            p |= ((window.get_unchecked(j + N + 1 + q) >= centre) as u32) << (N + q);
        }
        p
    }
}

/// One block's shared state.
#[derive(Clone, Copy)]
struct Block<T: Copy> {
    plan: Plan,
    counts: SharedSlice<u32>,
    window: SharedSlice<T>,
}

impl<T: Copy + PartialOrd> Block<T> {
    /// Counts the patterns of tile `k` of the signal `span` into the shared histogram.
    ///
    /// # Safety
    /// The whole block calls; `input` as the kernel's contract says, `span` a signal's from
    /// [`Signals::span`] (any `k`: one past the signal's tiles counts nothing).
    #[inline(always)]
    unsafe fn count_tile<const N: u32>(&self, input: *const T, span: &Span, k: u32) {
        let threads = self.plan.threads;
        let tile = self.plan.tile();
        // SAFETY: the window covers positions `k·tile ..` of the signal and their `2N`
        // neighbours, all inside it (its `positions` are its length less `2N`, and it ends at
        // `len` at most; see `Signals`); both barriers are reached by the whole block.
        unsafe {
            let first = k.wrapping_mul(tile);
            let here = span.positions.saturating_sub(first).min(tile);
            // Where the tile holds a position, `start + first + here + 2N` is at most the
            // signal's end, at most `len`; an empty tile (of bad offsets) reads nothing.
            let window = if here == 0 { 0 } else { here + 2 * N };
            let source = input.wrapping_add(span.start as usize + first as usize);
            let mut e = thread_x();
            while e < window {
                self.window.set_unchecked(e, *source.add(e as usize));
                e += threads;
            }
            sync_threads();
            let row = if self.plan.rows > 1 {
                warp_id() * self.plan.row_words(N)
            } else {
                0
            };
            // A loop, not unrolled over the plan's items: unrolled, the compiler hoists every
            // item's `2N + 1` reads and needs 154 registers, a block a multiprocessor.
            let mut j = thread_x();
            while j < here {
                let p = pattern::<T, N>(self.window, j);
                if self.plan.packed {
                    self.counts.add_unchecked(p >> 1, 1 << ((p & 1) * 16));
                } else {
                    self.counts.add_unchecked(row + p, 1);
                }
                j += threads;
            }
            sync_threads();
        }
    }

    /// Adds the shared histogram into `hist`'s row of signal `s` and zeroes it; after a
    /// [`Block::count_tile`], whose barriers order it.
    ///
    /// # Safety
    /// The whole block calls; `hist` holds `bins(N)` counts for signal `s`.
    #[inline(always)]
    unsafe fn flush<const N: u32>(&self, hist: *mut u32, s: u32) {
        let row_words = self.plan.row_words(N);
        // SAFETY: every word index is below `rows · row_words`, every bin below `bins(N)`.
        unsafe {
            let out = hist.add(s as usize * bins(N) as usize);
            let mut w = thread_x();
            while w < row_words {
                let mut sum = 0u32;
                for r in 0..self.plan.rows {
                    sum += self.counts.get_unchecked(r * row_words + w);
                    self.counts.set_unchecked(r * row_words + w, 0);
                }
                if self.plan.packed {
                    for (half, count) in [(0, sum & 0xffff), (1, sum >> 16)] {
                        if count > 0 {
                            add_u32(out.add((2 * w + half) as usize), count);
                        }
                    }
                } else if sum > 0 {
                    add_u32(out.add(w as usize), sum);
                }
                w += self.plan.threads;
            }
        }
    }
}

/// The kernel body for neighbourhood `N`.
///
/// # Safety
/// As for [`histograms`], with `n = N`.
#[inline(always)]
unsafe fn count<T: Copy + PartialOrd, const N: u32>(input: *const T, signals: Signals, hist: *mut u32) {
    let plan = Plan::of(N);
    let words = plan.rows * plan.row_words(N);
    // SAFETY: the launch gives `plan.shared_bytes(N)`: the histogram's words, then the window;
    // every thread runs the same sequence of tiles and flushes (all decided by block-uniform
    // values), so the whole block reaches every barrier.
    unsafe {
        let block = Block {
            plan,
            counts: SharedSlice::<u32>::carve(0, words),
            window: SharedSlice::<T>::carve(4 * words, plan.tile() + 2 * N),
        };
        let mut w = thread_x();
        while w < words {
            block.counts.set_unchecked(w, 0);
            w += plan.threads;
        }
        let total = signals.first_tile(signals.count).min(signals.len);
        let (b, g) = (block_x() as u64, grid_dim_x() as u64);
        // Below `len <= u32::MAX`.
        let (mut t, end) = ((total * b / g) as u32, (total * (b + 1) / g) as u32);
        let mut s = signals.of_tile(t as u64);
        let mut span = signals.span::<N>(s);
        let mut pending = 0;
        while t < end {
            // The last signal's tiles end the loop, whatever its `end_tile` says.
            if t == span.end_tile && s + 1 < signals.count {
                block.flush::<N>(hist, s);
                (s, pending) = (s + 1, 0);
                span = signals.span::<N>(s);
            } else if pending == plan.round_tiles() {
                block.flush::<N>(hist, s);
                pending = 0;
            }
            block.count_tile::<N>(input, &span, t.wrapping_sub(span.first_tile));
            (t, pending) = (t + 1, pending + 1);
        }
        if pending > 0 {
            block.flush::<N>(hist, s);
        }
    }
}

/// Adds the local binary pattern histograms of neighbourhood `n` of the launch's signals into
/// `hist` (`bins(n)` counts a signal, zeroed by the caller): one signal of `len` elements with
/// `bounds` null, else `signals` of them as `bounds` lays out (element offsets, then tile
/// offsets from [`Plan::tiles`]); `count` for the launch's `n`.
///
/// # Safety
/// `n` in 1..=8; `input` holds `len <= u32::MAX` elements; `bounds` null or, with `signals > 0`, as the
/// struct says (any values); blocks of `Plan::of(n).threads` with `Plan::of(n).shared_bytes(n)`,
/// any number in x; `hist` holds `bins(n)` counts a signal. (The histograms are right where
/// every signal has at least `2n + 1` elements and the offsets are as `Plan::tiles` gives.)
#[inline(always)]
pub unsafe fn histograms<T: Input>(p: Histogram<T>) {
    let Histogram {
        input,
        n,
        len,
        signals: count_signals,
        bounds,
        hist,
    } = p;
    if !(1..=MAX_NEIGHBOURHOOD).contains(&n) {
        trap()
    }
    let signals = Signals {
        count: count_signals,
        bounds,
        len,
        tiles: if bounds.is_null() {
            Plan::of(n).tiles(n, len)
        } else {
            0
        },
    };
    // SAFETY: forwarded to the launch contract above.
    unsafe {
        match n {
            1 => count::<T, 1>(input, signals, hist),
            2 => count::<T, 2>(input, signals, hist),
            3 => count::<T, 3>(input, signals, hist),
            4 => count::<T, 4>(input, signals, hist),
            5 => count::<T, 5>(input, signals, hist),
            6 => count::<T, 6>(input, signals, hist),
            7 => count::<T, 7>(input, signals, hist),
            _ => count::<T, 8>(input, signals, hist),
        }
    }
}
