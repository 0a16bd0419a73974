//! One block of an emulated launch: its threads as coroutines on one OS thread, each resumed in
//! rank order until its next synchronization point (barrier, collective, spin-wait), until all
//! have returned or nothing can move any more.

use super::memory;
use super::race::SharedMemory;
use super::warp::{Op, Pending, Warp};
use super::{Launch, Misuse, Site, ThreadId, lanes, ranges};
use crate::simt::types::Dim3;
use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};
use std::cell::{Cell, RefCell};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Stack of each emulated thread: kernels keep little on the stack, but debug builds and panic
/// messages need room. Pages are committed only when touched.
const STACK_BYTES: usize = 256 * 1024;

/// Stacks of finished threads, reused by later blocks and launches (mapping one costs more
/// than running a small kernel's thread).
static STACKS: Mutex<Vec<DefaultStack>> = Mutex::new(Vec::new());

/// Where a thread is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    /// Can run.
    Ready,
    /// Can run, but its last step was a spin-wait.
    Spinning,
    /// Waits at the block barrier at this site.
    Barrier(Site),
    /// Waits for its warp collective to complete (its call is in the warp's `pending`).
    Collective,
    /// Waits at `active_mask` at this site until the rest of its warp is elsewhere.
    ActiveMask(Site),
    /// Returned from the kernel.
    Exited,
}

/// The mutable state of a block, shared by its threads and the scheduler (one OS thread, so a
/// `RefCell`; no borrow is held across a switch between threads).
struct Sched {
    status: Vec<Status>,
    warps: Vec<Warp>,
    at_barrier: u32,
    exited: u32,
    /// Barriers completed so far, plus one: the race detector's epoch.
    epoch: u32,
    fault: Option<Misuse>,
    /// Whether anything but a spin-wait happened since the scheduler last looked.
    progress: bool,
    /// The OR of the predicates of the threads at the barrier now, and of those of the last
    /// completed barrier (what `sync_threads_or` returns; kept until every thread has read it,
    /// as none can complete the next barrier before then).
    any_arriving: bool,
    any_passed: bool,
    /// Threads that spin-waited since the last barrier: their collectives are part of the
    /// wait (a spin loop with a vote in it), not progress.
    spun: Vec<bool>,
}

/// What every thread of the block sees.
pub(super) struct Block {
    pub idx: Dim3,
    pub dim: Dim3,
    pub grid: Dim3,
    pub shared: SharedMemory,
    sched: RefCell<Sched>,
}

/// One emulated thread's own context; `hw` reaches it through [`current`].
pub(super) struct Lane {
    pub id: ThreadId,
    pub idx: Dim3,
    block: *const Block,
    yielder: Cell<*const Yielder<(), ()>>,
}

thread_local! {
    /// The lane whose coroutine runs on this OS thread now, or null outside a launch.
    static CURRENT: Cell<*const Lane> = const { Cell::new(std::ptr::null()) };
}

/// The emulated thread running now. Panics when called outside an emulator launch (a kernel
/// function called directly from host code).
pub(super) fn current() -> &'static Lane {
    let lane = CURRENT.with(Cell::get);
    assert!(!lane.is_null(), "a SIMT function ran outside an emulator launch");
    // SAFETY: CURRENT is set only while this lane's coroutine runs, and the scheduler keeps
    // every `Lane` alive until all coroutines of the block are gone.
    unsafe { &*lane }
}

/// The emulated thread running on this OS thread now and its block, if any; the fault handler
/// of [`memory`](super::memory) asks, so it reads nothing a lane could be holding.
pub(super) fn current_thread() -> Option<(ThreadId, Dim3)> {
    let lane = CURRENT.with(Cell::get);
    // SAFETY: as in `current`.
    (!lane.is_null()).then(|| unsafe { ((*lane).id, (*(*lane).block).idx) })
}

impl Lane {
    pub fn block(&self) -> &Block {
        // SAFETY: the block outlives its threads' coroutines (see `Run::execute`).
        unsafe { &*self.block }
    }

    /// The block's barrier epoch and this warp's completed `sync_warp` masks, for the race
    /// detector.
    pub fn with_order<R>(&self, f: impl FnOnce(u32, &[u32]) -> R) -> R {
        let s = self.block().sched.borrow();
        f(s.epoch, &s.warps[self.id.warp as usize].syncs)
    }

    fn suspend(&self) {
        // SAFETY: set when the coroutine started; valid while it runs.
        unsafe { &*self.yielder.get() }.suspend(())
    }

    /// Ends the launch with `misuse`; this thread never runs again.
    pub fn fault(&self, misuse: Misuse) -> ! {
        self.block().sched.borrow_mut().fault.get_or_insert(misuse);
        self.suspend();
        unreachable!("a faulted thread was resumed")
    }

    /// `bar.sync`: waits until every thread of the block has arrived.
    pub fn barrier(&self, site: Site) {
        self.barrier_or(site, false);
    }

    /// `bar.red.or.pred`: [`Lane::barrier`], returning whether any thread arrived with `pred`.
    pub fn barrier_or(&self, site: Site, pred: bool) -> bool {
        let block = self.block();
        let mut s = block.sched.borrow_mut();
        s.any_arriving |= pred;
        if s.exited > 0 {
            let misuse = Misuse::BarrierSkipped {
                site,
                waiting: s.at_barrier + 1,
                exited: exited_threads(&s.status),
            };
            drop(s);
            self.fault(misuse);
        }
        s.progress = true;
        s.status[self.id.rank as usize] = Status::Barrier(site);
        s.at_barrier += 1;
        if s.at_barrier < s.status.len() as u32 {
            drop(s);
            self.suspend();
            return block.sched.borrow().any_passed;
        }
        let mut sites: Vec<(Site, u32)> = Vec::new();
        for st in &s.status {
            if let Status::Barrier(at) = st {
                match sites.iter_mut().find(|(s, _)| s == at) {
                    Some((_, n)) => *n += 1,
                    None => sites.push((at, 1)),
                }
            }
        }
        if sites.len() > 1 {
            let sites = sites
                .iter()
                .map(|(at, n)| format!("{n} threads at {at}"))
                .collect::<Vec<_>>()
                .join(", ");
            drop(s);
            self.fault(Misuse::BarrierMismatch { sites });
        }
        s.status.fill(Status::Ready);
        s.spun.fill(false);
        s.at_barrier = 0;
        s.epoch += 1;
        s.any_passed = std::mem::take(&mut s.any_arriving);
        for w in &mut s.warps {
            w.syncs.clear();
        }
        s.any_passed
    }

    /// A warp collective: waits until its group is complete and returns this lane's result.
    pub fn collective(&self, op: Op, mask: u32, value: u64, arg: u32, site: Site) -> u64 {
        let ThreadId { rank, warp, lane } = self.id;
        if mask >> lane & 1 == 0 {
            self.fault(Misuse::LaneNotInMask {
                op,
                thread: self.id,
                mask,
                site,
            });
        }
        let block = self.block();
        let mut s = block.sched.borrow_mut();
        s.progress |= !s.spun[rank as usize];
        s.status[rank as usize] = Status::Collective;
        let call = Pending {
            op,
            mask,
            value,
            arg,
            site,
        };
        if let Some(members) = s.warps[warp as usize].arrive(lane, call) {
            for l in (0..32).filter(|l| members >> l & 1 != 0) {
                s.status[(warp * 32 + l) as usize] = Status::Ready;
            }
        }
        let waiting = s.status[rank as usize] == Status::Collective;
        drop(s);
        if waiting {
            self.suspend();
        }
        block.sched.borrow().warps[warp as usize].result[lane as usize]
    }

    /// `activemask`: the lanes of this warp that reach this call site while the others wait
    /// elsewhere or have exited.
    pub fn active_mask(&self, site: Site) -> u32 {
        let block = self.block();
        block.sched.borrow_mut().status[self.id.rank as usize] = Status::ActiveMask(site);
        self.suspend();
        block.sched.borrow().warps[self.id.warp as usize].result[self.id.lane as usize] as u32
    }

    /// A spin-wait step: lets the other threads run; not progress by itself.
    pub fn spin(&self) {
        let mut s = self.block().sched.borrow_mut();
        s.status[self.id.rank as usize] = Status::Spinning;
        s.spun[self.id.rank as usize] = true;
        drop(s);
        self.suspend();
    }
}

/// Ranks of the exited threads, as ranges.
fn exited_threads(status: &[Status]) -> String {
    ranges((0..status.len() as u32).filter(|&r| status[r as usize] == Status::Exited))
}

/// One block to run.
pub(super) struct Run<'a> {
    pub launch: Launch,
    pub idx: Dim3,
    pub stall_timeout: Duration,
    pub abort: &'a AtomicBool,
}

type Thread = Coroutine<(), (), (), DefaultStack>;

impl Run<'_> {
    /// Runs the block to the end. `Err(None)`: stopped because another block faulted.
    pub fn execute(&self, body: &(dyn Fn() + Sync)) -> Result<(), Option<Misuse>> {
        let dim = self.launch.block;
        let n = dim.volume() as usize;
        let block = Block {
            idx: self.idx,
            dim,
            grid: self.launch.grid,
            shared: SharedMemory::new(self.launch.shared_bytes),
            sched: RefCell::new(Sched {
                status: vec![Status::Ready; n],
                warps: (0..n.div_ceil(32)).map(|_| Warp::default()).collect(),
                at_barrier: 0,
                exited: 0,
                epoch: 1,
                fault: None,
                progress: true,
                any_arriving: false,
                any_passed: false,
                spun: vec![false; n],
            }),
        };
        let lanes: Vec<Lane> = (0..n as u32)
            .map(|rank| Lane {
                id: ThreadId::new(rank),
                idx: Dim3 {
                    x: rank % dim.x,
                    y: rank / dim.x % dim.y,
                    z: rank / (dim.x * dim.y),
                },
                block: &block,
                yielder: Cell::new(std::ptr::null()),
            })
            .collect();
        let mut threads: Vec<Option<Thread>> = {
            let mut pool = STACKS.lock().unwrap_or_else(|e| e.into_inner());
            let keep = pool.len().saturating_sub(n);
            let mut stacks = pool.split_off(keep);
            drop(pool);
            stacks.resize_with(n, || DefaultStack::new(STACK_BYTES).expect("map a thread stack"));
            stacks
                .into_iter()
                .zip(&lanes)
                .map(|(stack, lane)| {
                    let lane: *const Lane = lane;
                    let start = move |yielder: &Yielder<(), ()>, ()| {
                        // SAFETY: `lane` outlives the coroutine (both live in this call).
                        unsafe { &*lane }.yielder.set(yielder);
                        body();
                    };
                    // SAFETY: `body`, `lanes` and `block` outlive every coroutine: all are
                    // finished or dropped (unwound) before this function returns.
                    Some(unsafe { Coroutine::with_stack_unchecked(stack, start) })
                })
                .collect()
        };
        let result = self.schedule(&block, &lanes, &mut threads);
        let finished: Vec<DefaultStack> = threads
            .iter_mut()
            .filter_map(|t| t.take_if(|t| t.done()).map(Thread::into_stack))
            .collect();
        drop(threads); // unwinds the coroutines that did not finish
        STACKS.lock().unwrap_or_else(|e| e.into_inner()).extend(finished);
        result
    }

    fn schedule(
        &self,
        block: &Block,
        lanes: &[Lane],
        threads: &mut [Option<Thread>],
    ) -> Result<(), Option<Misuse>> {
        let n = lanes.len();
        let mut last_progress = Instant::now();
        loop {
            for rank in 0..n {
                let status = block.sched.borrow().status[rank];
                if !matches!(status, Status::Ready | Status::Spinning) {
                    continue;
                }
                block.sched.borrow_mut().status[rank] = Status::Ready;
                let thread = threads[rank].as_mut().expect("a runnable thread has a coroutine");
                CURRENT.with(|c| c.set(&lanes[rank]));
                let step = catch_unwind(AssertUnwindSafe(|| thread.resume(())));
                CURRENT.with(|c| c.set(std::ptr::null()));
                let mut s = block.sched.borrow_mut();
                if let Some(access) = memory::take_out_of_bounds() {
                    s.fault.get_or_insert(Misuse::OutOfBounds {
                        thread: lanes[rank].id,
                        access,
                    });
                }
                match step {
                    Ok(CoroutineResult::Yield(())) => {}
                    Ok(CoroutineResult::Return(())) => {
                        s.status[rank] = Status::Exited;
                        s.exited += 1;
                        s.progress = true;
                        if let Some(Status::Barrier(site)) = s
                            .status
                            .iter()
                            .find(|st| matches!(st, Status::Barrier(_)))
                            .copied()
                        {
                            let misuse = Misuse::BarrierSkipped {
                                site,
                                waiting: s.at_barrier,
                                exited: exited_threads(&s.status),
                            };
                            s.fault.get_or_insert(misuse);
                        }
                    }
                    Err(panic) => {
                        let message = panic
                            .downcast_ref::<&str>()
                            .map(|m| m.to_string())
                            .or_else(|| panic.downcast_ref::<String>().cloned())
                            .unwrap_or_else(|| "panicked".into());
                        s.fault.get_or_insert(Misuse::Trap {
                            thread: lanes[rank].id,
                            message,
                        });
                    }
                }
                if let Some(misuse) = s.fault.take() {
                    return Err(Some(misuse));
                }
            }
            let mut s = block.sched.borrow_mut();
            resolve_active_masks(&mut s);
            if s.exited as usize == n {
                return Ok(());
            }
            let runnable = s
                .status
                .iter()
                .any(|st| matches!(st, Status::Ready | Status::Spinning));
            if !runnable {
                return Err(Some(stuck(&s)));
            }
            if std::mem::take(&mut s.progress) {
                last_progress = Instant::now();
            } else {
                // Only spin-waits: other blocks (other OS threads) must move first.
                if last_progress.elapsed() > self.stall_timeout {
                    let spinning = (0..n as u32).filter(|&r| s.status[r as usize] == Status::Spinning);
                    return Err(Some(Misuse::Stalled {
                        seconds: self.stall_timeout.as_secs(),
                        spinning: ranges(spinning),
                    }));
                }
                std::thread::yield_now();
            }
            if self.abort.load(Ordering::Relaxed) {
                return Err(None);
            }
        }
    }
}

/// Completes `active_mask` calls in every warp none of whose lanes can run: the lanes waiting
/// at the same call site form the active mask.
fn resolve_active_masks(s: &mut Sched) {
    let n = s.status.len();
    for w in 0..s.warps.len() {
        let ranks = w * 32..(w * 32 + 32).min(n);
        if s.status[ranks.clone()]
            .iter()
            .any(|st| matches!(st, Status::Ready | Status::Spinning))
        {
            continue;
        }
        for r in ranks.clone() {
            let Status::ActiveMask(site) = s.status[r] else {
                continue;
            };
            let group = ranks
                .clone()
                .filter(|&q| s.status[q] == Status::ActiveMask(site))
                .fold(0u32, |m, q| m | 1 << (q % 32));
            for q in ranks.clone().filter(|&q| group >> (q % 32) & 1 != 0) {
                s.warps[w].result[q % 32] = group as u64;
                s.status[q] = Status::Ready;
            }
            s.progress = true;
        }
    }
}

/// Why a block where no thread can run is stuck: the first collective still waiting, with
/// where each missing lane is instead.
fn stuck(s: &Sched) -> Misuse {
    let n = s.status.len() as u32;
    for (w, warp) in s.warps.iter().enumerate() {
        let Some(call) = warp.pending.iter().flatten().next() else {
            continue;
        };
        let same =
            |l: u32| matches!(warp.pending[l as usize], Some(p) if p.op == call.op && p.mask == call.mask);
        let waiting = (0..32)
            .filter(|&l| call.mask >> l & 1 != 0 && same(l))
            .fold(0, |m, l| m | 1 << l);
        let missing = call.mask & !waiting;
        let place = |l: u32| {
            let rank = w as u32 * 32 + l;
            if rank >= n {
                return format!("no such thread in a block of {n}");
            }
            match s.status[rank as usize] {
                Status::Exited => "exited".into(),
                Status::Barrier(at) => format!("at the barrier at {at}"),
                Status::ActiveMask(at) => format!("at active_mask at {at}"),
                Status::Collective => match warp.pending[l as usize] {
                    Some(p) => format!("at {} with mask {:#010x} at {}", p.op, p.mask, p.site),
                    None => "in a collective".into(),
                },
                Status::Ready | Status::Spinning => "running".into(),
            }
        };
        let mut places: Vec<(String, u32)> = Vec::new();
        for l in (0..32).filter(|l| missing >> l & 1 != 0) {
            let p = place(l);
            match places.iter_mut().find(|(q, _)| *q == p) {
                Some((_, m)) => *m |= 1 << l,
                None => places.push((p, 1 << l)),
            }
        }
        let missing_at = places
            .iter()
            .map(|(p, m)| format!("lanes {}: {p}", lanes(*m)))
            .collect::<Vec<_>>()
            .join("; ");
        return Misuse::CollectiveStuck {
            op: call.op,
            warp: w as u32,
            mask: call.mask,
            waiting,
            missing,
            site: call.site,
            missing_at,
        };
    }
    // No collective waits, so the barrier does: its missing threads exited (reported when they
    // did) or never existed.
    let site = s.status.iter().find_map(|st| match st {
        Status::Barrier(at) => Some(*at),
        _ => None,
    });
    Misuse::BarrierSkipped {
        site: site.unwrap_or(core::panic::Location::caller()),
        waiting: s.at_barrier,
        exited: exited_threads(&s.status),
    }
}
