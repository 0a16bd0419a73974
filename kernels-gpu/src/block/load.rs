//! Tile loads: each thread's `ITEMS` elements of a block's tile of `THREADS·ITEMS` consecutive
//! elements, every load issued before the first is used, in one of two arrangements:
//! [`WarpStriped`] (each warp a run of `32·ITEMS`, read as windows of 32 with a lane's items 32
//! apart: coalesced scalar loads, input order kept across lanes) and [`Blocked`] (each thread a
//! run of `ITEMS` consecutive elements, read as 16-byte vectors when whole). One read of each
//! element; past the input's end the elements are `Default`.

use crate::simt::memory::{is_aligned16, load_vectors, load128};
use crate::simt::{lane_id, thread_x, warp_id};

/// The warp-striped arrangement of a tile of `THREADS·ITEMS` elements: warp `w` holds elements
/// `w·32·ITEMS ..` of the tile, a window of 32 consecutive elements per item, lane `l` element
/// `k·32 + l` of the warp's run as its item `k`.
pub struct WarpStriped<const THREADS: u32, const ITEMS: usize>;

impl<const THREADS: u32, const ITEMS: usize> WarpStriped<THREADS, ITEMS> {
    /// Elements of a tile.
    pub const TILE: u64 = THREADS as u64 * ITEMS as u64;
    /// Elements of a warp's run.
    pub const WARP_ITEMS: u32 = 32 * ITEMS as u32;

    /// Index of item `k` of this lane in tile `tile`.
    #[inline(always)]
    pub fn index(tile: u64, k: usize) -> u64 {
        tile * Self::TILE + (warp_id() * Self::WARP_ITEMS) as u64 + (k as u32 * 32 + lane_id()) as u64
    }

    /// How many of this lane's windows of tile `tile` hold an element (below `n`): item `k` of
    /// the lane is one when `k < windows(tile, n)`. One 32-bit compare an item instead of
    /// 64-bit index arithmetic, which costs registers.
    #[inline(always)]
    pub fn windows(tile: u64, n: u64) -> u32 {
        let first = Self::index(tile, 0);
        if first >= n {
            0
        } else {
            (n - first).div_ceil(32).min(ITEMS as u64) as u32
        }
    }

    /// This lane's items of tile `tile` (defaults past `n`).
    ///
    /// # Safety
    /// `src` holds `n` elements.
    #[inline(always)]
    pub unsafe fn load<T: Copy + Default>(src: *const T, n: u64, tile: u64) -> [T; ITEMS] {
        let windows = Self::windows(tile, n);
        core::array::from_fn(|k| {
            // SAFETY: element `k` of the lane is below `n`.
            if (k as u32) < windows {
                unsafe { *src.add(Self::index(tile, k) as usize) }
            } else {
                T::default()
            }
        })
    }

    /// This lane's elements of a full tile, for uses that do not mind their order (a count):
    /// read as 16-byte vectors of `V` elements (`V · size_of::<T>() = 16`), so that the lane
    /// holds runs of `V` consecutive elements instead of one a window. Two loads a lane for
    /// 4-byte elements, four for 8-byte ones, instead of eight (`ITEMS` 8).
    ///
    /// # Safety
    /// Tile `tile` lies wholly within `src`, which is 16-byte aligned.
    #[inline(always)]
    pub unsafe fn load_unordered<T: Copy + Default, const V: usize>(src: *const T, tile: u64) -> [T; ITEMS] {
        const { assert!(ITEMS.is_multiple_of(V) && V * size_of::<T>() == 16) };
        let lane = lane_id() as u64;
        let warp_first = Self::index(tile, 0) - lane;
        let mut item = [T::default(); ITEMS];
        for (r, run) in item.chunks_exact_mut(V).enumerate() {
            let at = warp_first + (r * 32 * V) as u64 + lane * V as u64;
            // SAFETY: within the tile (the caller's contract); 16-byte aligned since the tile
            // and the run start at multiples of 16 bytes.
            let loaded: [T; V] = unsafe { load128(src.add(at as usize)) };
            run.copy_from_slice(&loaded);
        }
        item
    }
}

/// The blocked arrangement of a tile of `THREADS·ITEMS` elements: thread `t` holds elements
/// `t·ITEMS .. (t + 1)·ITEMS` of the tile.
pub struct Blocked<const THREADS: u32, const ITEMS: usize>;

impl<const THREADS: u32, const ITEMS: usize> Blocked<THREADS, ITEMS> {
    /// Elements of a tile.
    pub const TILE: u64 = THREADS as u64 * ITEMS as u64;

    /// This thread's run of tile `tile` (defaults past `n`): by 16-byte vectors when the run is
    /// whole and `src` aligned.
    ///
    /// # Safety
    /// `src` holds `n` elements; `ITEMS` elements of `T` are a whole number of 16-byte vectors.
    #[inline(always)]
    pub unsafe fn load<T: Copy + Default>(src: *const T, n: u64, tile: u64) -> [T; ITEMS] {
        let first = tile * Self::TILE + (thread_x() as usize * ITEMS) as u64;
        // SAFETY: every read is below `n` (the caller's contract); a whole run starts at a
        // multiple of `ITEMS` elements, a multiple of 16 bytes, from an aligned `src`.
        unsafe {
            if first + ITEMS as u64 <= n && is_aligned16(src) {
                load_vectors(src.add(first as usize))
            } else {
                core::array::from_fn(|i| {
                    let at = first + i as u64;
                    if at < n {
                        *src.add(at as usize)
                    } else {
                        T::default()
                    }
                })
            }
        }
    }
}
