//! The SIMT emulator: runs this crate's kernels on the host with the GPU's semantics, so that
//! a kernel's logic bugs show up in `cargo test` on a machine without a GPU.
//!
//! A launch runs the grid block by block, blocks in parallel on OS threads (one worker per
//! core, blocks taken in index order, x fastest; a cooperative launch has as many OS threads as
//! blocks, so that its blocks can wait for each other, in a grid barrier say). Within a block every GPU thread is a
//! stackful coroutine with its own stack, run by one OS thread from one synchronization point
//! to the next, as a warp scheduler would: `sync_threads` is a barrier of the whole block; a
//! warp collective completes once every lane named in its mask has called a collective of the
//! same kind and mask, each lane then seeing the values the others passed in that call; dynamic
//! shared memory is one buffer per block, filled with [`SHARED_POISON`]; atomics are host
//! atomics on the same memory. Because the scheduler sees every thread, misuse ends the launch
//! with a [`Fault`] naming the kernel, block, warp and lanes instead of hanging: a collective
//! whose mask names lanes that never arrive, a lane outside its own mask, a barrier some
//! threads skip or reach at different call sites, shared-memory races between barriers, traps
//! and panics, blocks that only spin for longer than [`Options::stall_timeout`], and (on Linux)
//! global-memory accesses past the end of a buffer allocated through [`memory`].
//!
//! Not modelled: timing, memory coalescing, bank conflicts, the exact interleaving of racing
//! threads (the schedule is deterministic), races on global memory, global accesses within a
//! buffer's rounding to 16 bytes, less than a page before it or more than a page away from
//! it, and accesses to shared
//! memory through raw pointers (only [`SharedSlice`](crate::simt::shared::SharedSlice)'s `get`
//! and `set` are checked for races). The f32 SFU approximations are replaced by the host's
//! correctly rounded functions.

mod block;
pub(crate) mod hw;
pub mod memory;
mod race;
mod warp;

use crate::simt::types::Dim3;
use memory::GlobalAccess;
use std::fmt;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

pub use warp::Op;

/// The byte every block's dynamic shared memory starts filled with: reads of words no thread
/// wrote give NaN for floats and all-ones for integers.
pub const SHARED_POISON: u8 = 0xff;

/// A source location in kernel code, captured with `#[track_caller]`.
pub type Site = &'static core::panic::Location<'static>;

/// Grid, block and dynamic shared memory of one emulated launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Launch {
    pub grid: Dim3,
    pub block: Dim3,
    pub shared_bytes: u32,
    /// Every block at once, as many OS threads as blocks, as a cooperative launch has every
    /// block resident: its blocks may wait for each other ([`crate::grid::barrier`]). The
    /// caller keeps such grids small (each block's threads are coroutines with stacks of their
    /// own).
    pub cooperative: bool,
}

/// How the emulator runs a launch.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// OS threads running blocks in parallel.
    pub workers: usize,
    /// How long a block may make no progress but spin-waits (acquire loads, `nanosleep`)
    /// before the launch is reported as stalled.
    pub stall_timeout: Duration,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            workers: std::thread::available_parallelism().map_or(1, |n| n.get()),
            stall_timeout: Duration::from_secs(10),
        }
    }
}

/// One thread of a block, by its linear rank and its place in the warps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThreadId {
    pub rank: u32,
    pub warp: u32,
    pub lane: u32,
}

impl ThreadId {
    fn new(rank: u32) -> ThreadId {
        ThreadId {
            rank,
            warp: rank / 32,
            lane: rank % 32,
        }
    }
}

impl fmt::Display for ThreadId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "thread {} (warp {}, lane {})", self.rank, self.warp, self.lane)
    }
}

/// What an access to shared memory does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessKind {
    Read,
    Write,
    /// An atomic update (`red.shared`): it races with plain reads and writes of other threads
    /// that nothing orders, not with other atomics.
    Atomic,
}

/// One side of a shared-memory race.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    pub thread: ThreadId,
    pub kind: AccessKind,
    pub site: Site,
}

impl fmt::Display for Access {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            AccessKind::Read => "read",
            AccessKind::Write => "write",
            AccessKind::Atomic => "atomic update",
        };
        write!(f, "{what} by {} at {}", self.thread, self.site)
    }
}

/// What a kernel did wrong, as the emulator saw it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Misuse {
    /// The launch shape has an empty grid or block.
    EmptyLaunch,
    /// A lane called a warp collective whose mask leaves the lane itself out.
    LaneNotInMask {
        op: Op,
        thread: ThreadId,
        mask: u32,
        site: Site,
    },
    /// A warp collective waits for lanes of its mask that never arrive at a matching
    /// collective: `waiting` lanes arrived, `missing` lanes are elsewhere (`missing_at`).
    CollectiveStuck {
        op: Op,
        warp: u32,
        mask: u32,
        waiting: u32,
        missing: u32,
        site: Site,
        missing_at: String,
    },
    /// Threads wait at a barrier that others of the block exited without reaching.
    BarrierSkipped {
        site: Site,
        waiting: u32,
        exited: String,
    },
    /// The threads of the block reached different barrier call sites.
    BarrierMismatch { sites: String },
    /// Two threads touched the same shared-memory word between barriers, at least one
    /// writing, with no barrier or `sync_warp` ordering them.
    SharedRace {
        byte_offset: u32,
        earlier: Access,
        later: Access,
    },
    /// A thread trapped or panicked.
    Trap { thread: ThreadId, message: String },
    /// A thread accessed global memory outside its buffer, into the guard page beside it (see
    /// [`memory`]).
    OutOfBounds { thread: ThreadId, access: GlobalAccess },
    /// The threads that could run only spin-waited for this long.
    Stalled { seconds: u64, spinning: String },
}

impl fmt::Display for Misuse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Misuse::EmptyLaunch => write!(f, "empty grid or block"),
            Misuse::LaneNotInMask {
                op,
                thread,
                mask,
                site,
            } => write!(
                f,
                "{thread} called {op} at {site} with mask {mask:#010x}, which leaves the lane out"
            ),
            Misuse::CollectiveStuck {
                op,
                warp,
                mask,
                waiting,
                missing,
                site,
                missing_at,
            } => write!(
                f,
                "warp {warp}: {op} at {site} with mask {mask:#010x} never completes: lanes {} \
                 wait, lanes {} never arrive ({missing_at})",
                lanes(*waiting),
                lanes(*missing)
            ),
            Misuse::BarrierSkipped {
                site,
                waiting,
                exited,
            } => write!(
                f,
                "{waiting} threads wait at the barrier at {site}, which threads {exited} \
                 exited without reaching"
            ),
            Misuse::BarrierMismatch { sites } => {
                write!(f, "the threads of the block wait at different barriers: {sites}")
            }
            Misuse::SharedRace {
                byte_offset,
                earlier,
                later,
            } => write!(
                f,
                "shared-memory race on bytes {byte_offset}..{}: {earlier}, then {later}, with \
                 no barrier between",
                byte_offset + 4
            ),
            Misuse::Trap { thread, message } => write!(f, "{thread} trapped: {message}"),
            Misuse::OutOfBounds { thread, access } => write!(f, "{thread} {access}"),
            Misuse::Stalled { seconds, spinning } => write!(
                f,
                "no progress for {seconds} s: threads {spinning} only spin-wait"
            ),
        }
    }
}

/// A failed emulated launch: which kernel and block, and what went wrong there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    pub kernel: &'static str,
    pub block: Dim3,
    pub misuse: Misuse,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.block;
        write!(
            f,
            "kernel {}, block ({}, {}, {}): {}",
            self.kernel, b.x, b.y, b.z, self.misuse
        )
    }
}

impl std::error::Error for Fault {}

/// Lanes of a mask as ranges, e.g. `0-15, 17`.
pub fn lanes(mask: u32) -> String {
    ranges((0..32).filter(|l| mask >> l & 1 != 0))
}

/// Increasing numbers as ranges, e.g. `3-7, 9`.
fn ranges(items: impl IntoIterator<Item = u32>) -> String {
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for i in items {
        match runs.last_mut() {
            Some((_, end)) if *end + 1 == i => *end = i,
            _ => runs.push((i, i)),
        }
    }
    let text: Vec<String> = runs
        .iter()
        .map(|&(a, b)| if a == b { a.to_string() } else { format!("{a}-{b}") })
        .collect();
    if text.is_empty() {
        "none".into()
    } else {
        text.join(", ")
    }
}

/// Runs `body` as every thread of every block of `launch`, as kernel `kernel`. Returns when
/// all blocks have finished, or with the first fault (other blocks then stop at their next
/// synchronization point).
///
/// `body` is typically `|| unsafe { some_kernel(args) }`; it may run on several OS threads at
/// once, one block each.
pub fn launch(
    kernel: &'static str,
    launch: Launch,
    options: &Options,
    body: &(dyn Fn() + Sync),
) -> Result<(), Fault> {
    let blocks = launch.grid.volume();
    if blocks == 0 || launch.block.volume() == 0 {
        return Err(Fault {
            kernel,
            block: launch.grid,
            misuse: Misuse::EmptyLaunch,
        });
    }
    let next = AtomicU64::new(0);
    let abort = AtomicBool::new(false);
    let first_fault = Mutex::new(None);
    let workers = if launch.cooperative {
        blocks as usize
    } else {
        options.workers.clamp(1, blocks.min(1024) as usize)
    };
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                loop {
                    let b = next.fetch_add(1, Ordering::Relaxed);
                    if b >= blocks || abort.load(Ordering::Relaxed) {
                        break;
                    }
                    let g = launch.grid;
                    let idx = Dim3 {
                        x: (b % g.x as u64) as u32,
                        y: (b / g.x as u64 % g.y as u64) as u32,
                        z: (b / (g.x as u64 * g.y as u64)) as u32,
                    };
                    let run = block::Run {
                        launch,
                        idx,
                        stall_timeout: options.stall_timeout,
                        abort: &abort,
                    };
                    match run.execute(body) {
                        Ok(()) => {}
                        Err(None) => break,
                        Err(Some(misuse)) => {
                            abort.store(true, Ordering::Relaxed);
                            let mut first = first_fault.lock().unwrap_or_else(|e| e.into_inner());
                            first.get_or_insert(Fault {
                                kernel,
                                block: idx,
                                misuse,
                            });
                            break;
                        }
                    }
                }
            });
        }
    });
    memory::close_guards();
    match first_fault.into_inner().unwrap_or_else(|e| e.into_inner()) {
        Some(fault) => Err(fault),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lane_sets_print_as_ranges() {
        assert_eq!(lanes(0x0000_ffff), "0-15");
        assert_eq!(lanes(0x8000_0005), "0, 2, 31");
        assert_eq!(lanes(0), "none");
        assert_eq!(ranges([3, 4, 5, 9]), "3-5, 9");
    }
}
