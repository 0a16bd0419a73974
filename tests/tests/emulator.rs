//! The SIMT emulator's own semantics and its reports of misuse, with kernels written here for
//! the purpose: planted mistakes (a missing barrier before reading other warps' shared memory,
//! a shuffle whose mask leaves out an active lane) must be reported, naming the kernel, block,
//! warp and lanes, within seconds; the same kernels without the mistake must pass.

use std::time::{Duration, Instant};
use warpkit_kernels::emu::{self, Fault, Launch, Misuse, Options, SHARED_POISON};
use warpkit_kernels::kernel::Kernel;
use warpkit_kernels::op::Sum;
use warpkit_kernels::simt::atomic::load_acquire_u32;
use warpkit_kernels::simt::shared::{SharedSlice, dynamic_bytes};
use warpkit_kernels::simt::warp::{FULL_MASK, all, shfl_down, shfl_xor};
use warpkit_kernels::simt::*;
use warpkit_kernels::{kernel, warp};

kernel! {
    /// Parameters of [`sum_each_block`].
    pub struct MissingBarrier {
        pub input: *const u32,
        pub out: *mut u32,
        pub with_barrier: u32,
    }
    fn sum_each_block => planted_missing_barrier;
}

/// Sums each block's values through one shared slot per warp; `with_barrier == 0` plants the
/// mistake of reading the other warps' slots without a barrier after writing them.
///
/// # Safety
/// One input per thread and one output per block.
pub unsafe fn sum_each_block(p: MissingBarrier) {
    let MissingBarrier {
        input,
        out,
        with_barrier,
    } = p;
    // SAFETY: one input per thread and one output per block (the test's launch).
    unsafe {
        let slots = SharedSlice::<u32>::carve(0, warps_per_block());
        let total = warp::reduce(*input.add(global_x() as usize), Sum);
        if lane_id() == 0 {
            slots.set(warp_id(), total);
        }
        if with_barrier != 0 {
            sync_threads();
        }
        if thread_rank() == 0 {
            let sum = (0..warps_per_block()).fold(0u32, |s, w| s.wrapping_add(slots.get(w)));
            *out.add(block_x() as usize) = sum;
        }
    }
}

kernel! {
    /// Parameters of [`shuffle_down`].
    pub struct PartialShuffle {
        pub input: *const u32,
        pub out: *mut u32,
        pub mask: u32,
    }
    fn shuffle_down => planted_partial_shuffle;
}

/// Each lane reads its neighbour's value with `shfl_down(mask, v, 1)`, every lane active: a
/// `mask` other than the full one plants the mistake of leaving active lanes out.
///
/// # Safety
/// One input and one output per thread.
pub unsafe fn shuffle_down(p: PartialShuffle) {
    let i = global_x() as usize;
    // SAFETY: one input and one output per thread.
    unsafe { *p.out.add(i) = shfl_down(p.mask, *p.input.add(i), 1) }
}

kernel! {
    /// Parameters of [`quit_before_shuffle`].
    pub struct CollectiveAfterExit {
        pub quitter: u32,
    }
    fn quit_before_shuffle => collective_after_exit;
}

/// Lane `quitter` of every warp returns before a full-warp shuffle.
///
/// # Safety
/// None: this is the misuse under test.
pub unsafe fn quit_before_shuffle(p: CollectiveAfterExit) {
    if lane_id() == p.quitter {
        return;
    }
    // SAFETY: none: this is the misuse under test.
    unsafe { shfl_xor(FULL_MASK, 1u32, 1) };
}

kernel! {
    /// Parameters of [`quit_before_barrier`].
    pub struct BarrierAfterExit {
        pub first_out: u32,
    }
    fn quit_before_barrier => barrier_after_exit;
}

/// Threads from `first_out` on return before the barrier.
///
/// # Safety
/// None: this is the misuse under test.
pub unsafe fn quit_before_barrier(p: BarrierAfterExit) {
    if thread_rank() >= p.first_out {
        return;
    }
    // SAFETY: none: this is the misuse under test.
    unsafe { sync_threads() };
}

kernel! {
    /// Parameters of [`split_barriers`].
    pub struct DivergentBarriers {
        pub apart: u32,
    }
    fn split_barriers => divergent_barriers;
}

/// Warp `apart` waits at one barrier, the other warps at another.
///
/// # Safety
/// None: this is the misuse under test.
#[allow(clippy::if_same_then_else)]
pub unsafe fn split_barriers(p: DivergentBarriers) {
    // SAFETY: none: this is the misuse under test.
    unsafe {
        if warp_id() == p.apart {
            sync_threads();
        } else {
            sync_threads();
        }
    }
}

kernel! {
    /// Parameters of the spin waits.
    pub struct Flag {
        pub flag: *const u32,
    }
    /// Spins until `flag` becomes non-zero.
    fn spin => spin_on_flag;
    /// Spins until `flag` becomes non-zero, the warp voting on it each time round (the shape
    /// of the scan's look-back).
    fn spin_voting => spin_with_vote;
}

/// Spins until `flag` becomes non-zero.
///
/// # Safety
/// `flag` is a valid u32.
pub unsafe fn spin(p: Flag) {
    // SAFETY: `flag` is a valid u32 (the test's).
    unsafe { while load_acquire_u32(p.flag) == 0 {} }
}

/// Spins until `flag` becomes non-zero, the warp voting on it each time round.
///
/// # Safety
/// `flag` is a valid u32; whole warps.
pub unsafe fn spin_voting(p: Flag) {
    // SAFETY: `flag` is a valid u32 (the test's); whole warps vote.
    unsafe { while !all(FULL_MASK, load_acquire_u32(p.flag) != 0) {} }
}

kernel! {
    /// Parameters of [`read_shared`].
    pub struct SharedIndex {
        pub index: u32,
    }
    fn read_shared => shared_out_of_range;
}

/// Reads shared element `index` of a slice of 4.
///
/// # Safety
/// The launch gives 16 bytes of shared memory.
pub unsafe fn read_shared(p: SharedIndex) {
    // SAFETY: the launch gives 16 bytes of shared memory.
    let slots = unsafe { SharedSlice::<u32>::carve(0, 4) };
    slots.get(p.index);
}

kernel! {
    /// Parameters of [`report_indices`].
    pub struct WhereAmI {
        pub out: *mut u32,
    }
    fn report_indices => where_am_i;
}

/// Each thread writes its thread and block indices, the block's dynamic shared memory size and
/// the first word of its shared memory before anyone wrote it, 8 words at its linear global
/// rank.
///
/// # Safety
/// The launch gives at least 4 bytes of shared memory; `out` holds 8 words per thread of the
/// grid.
pub unsafe fn report_indices(p: WhereAmI) {
    let (t, b, bd, g) = (thread_idx(), block_idx(), block_dim(), grid_dim());
    let block_rank = (b.z * g.y + b.y) * g.x + b.x;
    let rank = block_rank as usize * bd.volume() as usize + thread_rank() as usize;
    // SAFETY: the launch gives at least 4 bytes of shared memory; `out` holds 8 words per
    // thread of the grid.
    unsafe {
        let fresh = SharedSlice::<u32>::carve(0, 1).get(0);
        let words = [t.x, t.y, t.z, b.x, b.y, b.z, dynamic_bytes(), fresh];
        for (k, w) in words.into_iter().enumerate() {
            *p.out.add(rank * 8 + k) = w;
        }
    }
}

kernel! {
    /// Parameters of [`write_shifted`].
    pub struct ShiftedWrite {
        pub out: *mut u32,
        /// The one thread that writes elsewhere, and how far from its own element.
        pub thread: u32,
        pub shift: i64,
    }
    fn write_shifted => planted_shifted_write;
}

/// Each thread writes its rank to its own element of `out`, but thread `thread` writes it
/// `shift` elements away: the planted mistake of an index computed wrong.
///
/// # Safety
/// `out` holds one element per thread, and `shift` keeps the odd write inside it.
pub unsafe fn write_shifted(p: ShiftedWrite) {
    let i = global_x() as i64;
    let at = if i == p.thread as i64 { i + p.shift } else { i };
    // SAFETY: the caller's contract.
    unsafe { *p.out.offset(at as isize) = i as u32 };
}

fn dim(x: u32, y: u32, z: u32) -> Dim3 {
    Dim3 { x, y, z }
}

/// Launches `K` with `params` on `blocks` blocks of `threads`, with a short stall timeout, and
/// returns the result and how long it took.
fn run<K: Kernel>(
    blocks: u32,
    threads: u32,
    shared_bytes: u32,
    params: K::Params,
) -> (Result<(), Fault>, Duration) {
    let cooperative = <K::Params as warpkit_kernels::kernel::Params>::COOPERATIVE;
    run_as::<K>(
        cooperative,
        Options::default().workers,
        [blocks, threads, shared_bytes],
        params,
    )
}

/// [`run`], cooperatively or not as `cooperative` says, on `workers` OS threads; `shape` is
/// blocks, threads and shared bytes.
fn run_as<K: Kernel>(
    cooperative: bool,
    workers: usize,
    shape: [u32; 3],
    params: K::Params,
) -> (Result<(), Fault>, Duration) {
    let [blocks, threads, shared_bytes] = shape;
    struct Shared<A>(A);
    // SAFETY: the parameters here hold pointers to the test's own buffers, alive during the
    // launch.
    unsafe impl<A> Sync for Shared<A> {}
    let params = Shared(params);
    let options = Options {
        stall_timeout: Duration::from_millis(300),
        workers,
    };
    let launch = Launch {
        grid: dim(blocks, 1, 1),
        block: dim(threads, 1, 1),
        shared_bytes,
        cooperative,
    };
    let start = Instant::now();
    let body = || {
        let params = &params;
        // SAFETY: each test sizes its buffers for its launch.
        unsafe { K::run(params.0) }
    };
    let result = emu::launch(K::NAME, launch, &options, &body);
    (result, start.elapsed())
}

/// The fault of a launch that must fail, after checking it came within seconds.
fn fault(result: (Result<(), Fault>, Duration)) -> Fault {
    let (result, took) = result;
    let fault = result.expect_err("the emulator must report the misuse");
    assert!(took < Duration::from_secs(5), "reported after {took:?}");
    println!("reported in {took:?}: {fault}");
    fault
}

#[test]
fn a_missing_barrier_before_reading_other_warps_shared_memory_is_reported() {
    let input: Vec<u32> = (0..512).collect();
    let mut out = vec![0u32; 2];
    let p = MissingBarrier {
        input: input.as_ptr(),
        out: out.as_mut_ptr(),
        with_barrier: 1,
    };
    let (ok, _) = run::<planted_missing_barrier>(2, 256, 32, p);
    ok.expect("with the barrier");
    assert_eq!(out, [(0..256).sum::<u32>(), (256..512).sum::<u32>()]);

    let p = MissingBarrier { with_barrier: 0, ..p };
    let f = fault(run::<planted_missing_barrier>(2, 256, 32, p));
    assert_eq!(f.kernel, "planted_missing_barrier");
    assert!(f.block.x < 2 && (f.block.y, f.block.z) == (0, 0), "{f}");
    let Misuse::SharedRace { earlier, later, .. } = f.misuse else {
        panic!("expected a shared-memory race, got {f}")
    };
    assert_ne!(earlier.thread.warp, later.thread.warp, "{f}");
    assert!(
        [earlier.thread, later.thread].iter().any(|t| t.rank == 0),
        "thread 0 reads the other warps' slots: {f}"
    );
    assert!(f.to_string().contains("warp"), "{f}");
}

#[test]
fn a_shuffle_mask_leaving_out_an_active_lane_is_reported() {
    let input: Vec<u32> = (0..64).map(|i| i * 3).collect();
    let mut out = vec![0u32; 64];
    let p = PartialShuffle {
        input: input.as_ptr(),
        out: out.as_mut_ptr(),
        mask: FULL_MASK,
    };
    let (ok, _) = run::<planted_partial_shuffle>(1, 64, 0, p);
    ok.expect("with the full mask");
    let expected: Vec<u32> = (0..64)
        .map(|i| input[if i % 32 == 31 { i } else { i + 1 }])
        .collect();
    assert_eq!(out, expected);

    let mask = 0x7fff_ffff;
    let f = fault(run::<planted_partial_shuffle>(
        1,
        64,
        0,
        PartialShuffle { mask, ..p },
    ));
    let Misuse::LaneNotInMask {
        thread,
        mask: m,
        site,
        ..
    } = f.misuse
    else {
        panic!("expected a lane outside its mask, got {f}")
    };
    assert_eq!((thread.lane, m), (31, mask), "{f}");
    assert!(
        site.file().ends_with("emulator.rs"),
        "the site is the kernel's call: {f}"
    );
    assert_eq!(f.kernel, "planted_partial_shuffle");
}

#[test]
fn a_collective_waiting_for_an_exited_lane_is_reported() {
    let f = fault(run::<collective_after_exit>(
        3,
        64,
        0,
        CollectiveAfterExit { quitter: 7 },
    ));
    let Misuse::CollectiveStuck {
        warp,
        mask,
        missing,
        ref missing_at,
        ..
    } = f.misuse
    else {
        panic!("expected a stuck collective, got {f}")
    };
    assert_eq!((warp, mask, missing), (0, FULL_MASK, 1 << 7), "{f}");
    assert!(missing_at.contains("lanes 7: exited"), "{f}");
}

#[test]
fn lanes_missing_from_a_partial_warp_are_reported() {
    // A block of 40 threads: the second warp has 8 lanes, the full mask names 32.
    let f = fault(run::<collective_after_exit>(
        1,
        40,
        0,
        CollectiveAfterExit { quitter: 99 },
    ));
    let Misuse::CollectiveStuck {
        warp,
        missing,
        ref missing_at,
        ..
    } = f.misuse
    else {
        panic!("expected a stuck collective, got {f}")
    };
    assert_eq!((warp, missing), (1, 0xffff_ff00), "{f}");
    assert!(missing_at.contains("no such thread"), "{f}");
}

#[test]
fn a_barrier_skipped_by_exited_threads_is_reported() {
    let f = fault(run::<barrier_after_exit>(
        2,
        128,
        0,
        BarrierAfterExit { first_out: 64 },
    ));
    let Misuse::BarrierSkipped { ref exited, .. } = f.misuse else {
        panic!("expected a skipped barrier, got {f}")
    };
    // Reported as soon as the first of them exits while others wait.
    assert_eq!(exited, "64", "{f}");
    let (ok, _) = run::<barrier_after_exit>(2, 128, 0, BarrierAfterExit { first_out: 128 });
    ok.expect("every thread reaches the barrier");
}

#[test]
fn threads_at_different_barriers_are_reported() {
    let f = fault(run::<divergent_barriers>(
        1,
        96,
        0,
        DivergentBarriers { apart: 0 },
    ));
    let Misuse::BarrierMismatch { ref sites } = f.misuse else {
        panic!("expected divergent barriers, got {f}")
    };
    assert!(
        sites.contains("32 threads at") && sites.contains("64 threads at"),
        "{f}"
    );
}

kernel! {
    #![cooperative]
    /// Parameters of [`grid_rounds`].
    pub struct GridRounds {
        pub counter: *mut u32,
        pub values: *mut u32,
        pub sums: *mut u32,
        pub rounds: u32,
    }
    fn grid_rounds => emulated_grid_rounds;
}

/// For each of `rounds` rounds, every block publishes `block + round` in `values[block]`, and
/// after a grid barrier writes the sum of all blocks' values to `sums[round · blocks + block]`;
/// a second barrier keeps the next round's values from overwriting ones still being summed.
///
/// # Safety
/// `counter` a `u32` of 0 or 2^31, `values` one a block, `sums` `rounds` a
/// block; a cooperative launch.
pub unsafe fn grid_rounds(p: GridRounds) {
    let blocks = grid_dim_x();
    // SAFETY: the caller's contract; only thread 0 of a block touches `values` and `sums`.
    unsafe {
        for round in 0..p.rounds {
            if thread_rank() == 0 {
                *p.values.add(block_x() as usize) = block_x() + round;
            }
            warpkit_kernels::grid::barrier::sync(p.counter);
            if thread_rank() == 0 {
                let sum = (0..blocks as usize).fold(0u32, |s, b| s + *p.values.add(b));
                *p.sums.add((round * blocks + block_x()) as usize) = sum;
            }
            warpkit_kernels::grid::barrier::sync(p.counter);
        }
    }
}

#[test]
fn blocks_of_a_cooperative_launch_meet_in_grid_barriers() {
    let (blocks, rounds) = (6u32, 5u32);
    // The count starts at 0 or 2^31: the barrier waits for its top bit to flip.
    let mut counter = 0x8000_0000_u32;
    let mut values = vec![u32::MAX; blocks as usize];
    let mut sums = vec![u32::MAX; (blocks * rounds) as usize];
    let p = GridRounds {
        counter: &mut counter,
        values: values.as_mut_ptr(),
        sums: sums.as_mut_ptr(),
        rounds,
    };
    // More blocks than workers: a cooperative launch runs them all at once.
    let (result, _) = run_as::<emulated_grid_rounds>(true, 2, [blocks, 64, 0], p);
    result.expect("every block reaches every barrier");
    for round in 0..rounds {
        let want = blocks * (blocks - 1) / 2 + round * blocks;
        let got = &sums[(round * blocks) as usize..][..blocks as usize];
        assert!(
            got.iter().all(|&s| s == want),
            "round {round}: {got:?}, want {want}"
        );
    }
    // Two barriers a round, each adding 2^31: the count is back where it started.
    assert_eq!(counter, 0x8000_0000);
    // Launched block by block on one worker, the first block waits for ever: a stall, not a hang.
    let f = fault(run_as::<emulated_grid_rounds>(false, 1, [blocks, 64, 0], p));
    assert!(matches!(f.misuse, Misuse::Stalled { .. }), "{f}");
}

#[test]
fn a_spin_wait_nobody_releases_is_reported_as_stalled() {
    let flag = 0u32;
    let p = Flag { flag: &flag };
    let f = fault(run::<spin_on_flag>(2, 32, 0, p));
    assert!(matches!(f.misuse, Misuse::Stalled { .. }), "{f}");
    // A vote inside the loop is part of the wait, not progress.
    let f = fault(run::<spin_with_vote>(1, 64, 0, p));
    assert!(matches!(f.misuse, Misuse::Stalled { .. }), "{f}");
}

#[test]
fn traps_name_the_thread_and_the_site() {
    let f = fault(run::<shared_out_of_range>(1, 32, 16, SharedIndex { index: 4 }));
    let Misuse::Trap { thread, ref message } = f.misuse else {
        panic!("expected a trap, got {f}")
    };
    assert_eq!(thread.rank, 0, "{f}");
    assert!(
        message.contains("emulator.rs"),
        "the site is the kernel's call: {f}"
    );
    let (ok, _) = run::<shared_out_of_range>(1, 32, 16, SharedIndex { index: 3 });
    ok.expect("in range");
}

#[test]
fn indices_shared_memory_and_poison_follow_the_launch() {
    let (grid, block) = (dim(3, 2, 2), dim(4, 2, 5));
    let threads = (grid.volume() * block.volume()) as usize;
    let mut out = vec![u32::MAX - 1; 8 * threads];
    let launch = Launch {
        grid,
        block,
        shared_bytes: 20,
        cooperative: false,
    };
    let ptr = out.as_mut_ptr() as usize;
    let body = || {
        // SAFETY: `out` holds 8 words per thread of the grid.
        unsafe { report_indices(WhereAmI { out: ptr as *mut u32 }) }
    };
    emu::launch("where_am_i", launch, &Options::default(), &body).unwrap();
    let poison = u32::from_ne_bytes([SHARED_POISON; 4]);
    for (rank, w) in out.chunks(8).enumerate() {
        let (t, b) = (rank % 40, rank / 40);
        let expected = [
            t as u32 % 4,
            t as u32 / 4 % 2,
            t as u32 / 8,
            b as u32 % 3,
            b as u32 / 3 % 2,
            b as u32 / 6,
            20,
            poison,
        ];
        assert_eq!(w, expected, "thread {rank} of the grid");
    }
}

/// A write `shift` elements from thread 40's own, in a buffer of 64 elements fenced by
/// [`GlobalMemory`](emu::memory::GlobalMemory), and what the emulator made of it.
#[cfg(target_os = "linux")]
fn shifted_write(shift: i64) -> (Result<(), Fault>, Duration, usize) {
    let memory = emu::memory::GlobalMemory::new(64 * 4, 4).expect("map a buffer");
    let out = memory.as_ptr().cast::<u32>();
    let p = ShiftedWrite {
        out,
        thread: 40,
        shift,
    };
    let (result, took) = run::<planted_shifted_write>(2, 32, 0, p);
    (result, took, out as usize)
}

#[test]
#[cfg(target_os = "linux")]
fn a_write_past_a_global_buffer_is_reported_with_its_thread_and_address() {
    let (result, took, start) = shifted_write(24);
    let f = fault((result, took));
    assert_eq!(f.block.x, 1, "{f}");
    let Misuse::OutOfBounds { thread, access } = f.misuse else {
        panic!("expected an out-of-bounds access, got {f}")
    };
    assert_eq!(thread.rank, 8, "{f}");
    assert_eq!((access.buffer, access.bytes), (start, 256), "{f}");
    assert_eq!(access.address, start + 64 * 4, "{f}");
    #[cfg(target_arch = "x86_64")]
    assert_eq!(access.write, Some(true), "{f}");
    assert!(f.to_string().contains("0 bytes past its end"), "{f}");
    // The guard is closed again when the launch ends: the same mistake is reported again.
    let (again, took, _) = shifted_write(24);
    assert!(matches!(fault((again, took)).misuse, Misuse::OutOfBounds { .. }));
    let (in_bounds, _, _) = shifted_write(-40);
    in_bounds.expect("a write inside the buffer");
}

#[test]
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
fn a_write_a_page_before_a_global_buffer_is_reported() {
    // With 4 KiB pages the buffer's 256 bytes end its page, so 4096 bytes before its start lie
    // in the guard page before it.
    let (result, took, start) = shifted_write(-1024 - 40);
    let f = fault((result, took));
    let Misuse::OutOfBounds { access, .. } = f.misuse else {
        panic!("expected an out-of-bounds access, got {f}")
    };
    assert_eq!(access.offset(), -4096, "{f}");
    assert_eq!(access.buffer, start, "{f}");
    assert!(f.to_string().contains("4096 bytes before its start"), "{f}");
}

/// Set in the child process of [`a_wild_access_is_printed_with_its_thread_before_the_process_dies`].
const WILD_CHILD: &str = "WARPKIT_EMULATOR_WILD_CHILD";

/// An emulated thread's access far from every buffer (no guard page to catch it) kills the
/// process as it would have without the emulator, but first prints the thread, block and
/// address; run in a child process, which dies of it. The write lands 256 GiB below its
/// buffer: an address nothing maps, and canonical, so the fault reports it (a non-canonical
/// one faults with address 0).
#[test]
#[cfg(target_os = "linux")]
fn a_wild_access_is_printed_with_its_thread_before_the_process_dies() {
    const SHIFT: i64 = -(1 << 36);
    if std::env::var_os(WILD_CHILD).is_some() {
        let _ = shifted_write(SHIFT);
        unreachable!("the wild write returned");
    }
    let child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "a_wild_access_is_printed_with_its_thread_before_the_process_dies",
            "--nocapture",
        ])
        .env(WILD_CHILD, "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&child.stderr);
    assert!(!child.status.success(), "the child survived:\n{stderr}");
    let report = "warpkit emulator: thread 8 (warp 0, lane 8) of block (1, 0, 0) faulted at address 0x";
    let address = stderr
        .split(report)
        .nth(1)
        .and_then(|r| usize::from_str_radix(r.split(',').next()?, 16).ok());
    assert!(
        address.is_some_and(|a| a > 1 << 20),
        "the child's report names the thread and an address:\n{stderr}"
    );
    println!(
        "the child died, as expected, with: {}",
        stderr
            .lines()
            .find(|l| l.contains("warpkit emulator"))
            .unwrap_or("")
    );
}
