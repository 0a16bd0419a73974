//! One's own kernels under `cargo test`, with no GPU: the emulator runs them with 32-lane warps
//! and whole blocks, checks each launch against the kernels' declared reach, and reports the
//! planted race, the planted out-of-range shared access and an unchecked gather's read past its
//! input with the kernel, block, thread and (for global memory) the address.

use own_kernels::{Exchange, exchange, largest_magnitude, launch_gather};
use own_kernels_device::THREADS;
use warpkit::{Device, Error, Misuse};

/// Values whose magnitudes rise to one peak at `peak` (negative, to test the operator's `abs`).
fn peaked(n: usize, peak: usize) -> Vec<f32> {
    (0..n)
        .map(|i| if i == peak { -1e6 } else { (i % 97) as f32 - 48.0 })
        .collect()
}

#[test]
fn a_block_reduction_by_ones_own_operator_finds_the_largest_magnitude() {
    let emu = Device::emulator();
    for (n, peak) in [(1, 0), (THREADS as usize, 7), (5000, 4321), (5000, 0), (700, 699)] {
        let values = emu.upload(&peaked(n, peak)).unwrap();
        let found = largest_magnitude(&emu, &values).unwrap();
        assert_eq!(found, Some((-1e6, peak as u32)), "n = {n}");
    }
    // Ties go to the lowest index, within a block and across blocks.
    let ties = emu.upload(&vec![-3.0f32; 1000]).unwrap();
    assert_eq!(largest_magnitude(&emu, &ties).unwrap(), Some((-3.0, 0)));
    assert_eq!(
        largest_magnitude(&emu, &emu.zeros::<f32>(0).unwrap()).unwrap(),
        None
    );
}

#[test]
fn the_neighbour_exchange_with_its_barrier_is_right() {
    let emu = Device::emulator();
    let n = 3 * THREADS as usize + 5;
    let input: Vec<u32> = (0..n as u32).map(|i| i * 3 + 1).collect();
    let out = exchange(
        &emu,
        &emu.upload(&input).unwrap(),
        Exchange::Neighbours { barrier: true },
    )
    .unwrap();
    let block = THREADS as usize;
    let want: Vec<u32> = (0..n)
        .map(|i| {
            let (start, t) = (i / block * block, i % block);
            // Past the end the neighbour's slot holds 0, the value of a thread past `n`.
            input.get(start + (t + 1) % block).copied().unwrap_or(0)
        })
        .collect();
    assert_eq!(emu.download(&out).unwrap(), want);
}

#[test]
fn the_planted_race_is_reported_with_its_kernel_and_threads() {
    let emu = Device::emulator();
    let input = emu.upload(&vec![1u32; 2 * THREADS as usize]).unwrap();
    match exchange(&emu, &input, Exchange::Neighbours { barrier: false }) {
        Err(Error::Emulator(fault)) => {
            assert_eq!(fault.kernel, "own_neighbours");
            assert!(matches!(fault.misuse, Misuse::SharedRace { .. }), "{fault}");
            println!("reported as expected: {fault}");
        }
        other => panic!("the race went unreported: {other:?}"),
    }
}

#[test]
fn a_launch_outside_the_declared_reach_is_refused_before_it_runs() {
    let emu = Device::emulator();
    let input = emu.upload(&[1u32; 10]).unwrap();
    let mut short = emu.zeros::<u32>(9).unwrap();
    let mut b = emu.bind();
    let values = own_kernels_device::Values {
        input: b.read(&input).unwrap(),
        n: 10,
        out: b.write(&mut short).unwrap(),
    };
    let p = own_kernels_device::Neighbours { values, barrier: 1 };
    let refused = b.launch::<own_kernels_device::own_neighbours>(values.plan(), p);
    assert!(
        matches!(refused, Err(Error::LaunchContract { .. })),
        "{refused:?}"
    );
}

#[test]
fn an_out_of_range_shared_access_is_reported_with_its_thread() {
    let emu = Device::emulator();
    let n = 2 * THREADS as usize;
    let input: Vec<u32> = (0..n as u32).collect();
    let input = emu.upload(&input).unwrap();
    let right = emu
        .download(&exchange(&emu, &input, Exchange::Reverse { off_by_one: false }).unwrap())
        .unwrap();
    let block = THREADS as usize;
    assert!((0..n).all(|i| right[i] as usize == i / block * block + block - 1 - i % block));
    match exchange(&emu, &input, Exchange::Reverse { off_by_one: true }) {
        Err(Error::Emulator(fault)) => {
            assert_eq!(fault.kernel, "own_reverse");
            // Thread 0 of a block reads slot THREADS: the first and only one out of range.
            assert!(
                matches!(fault.misuse, Misuse::Trap { thread, .. } if thread.rank == 0),
                "{fault}"
            );
            println!("reported as expected: {fault}");
        }
        other => panic!("the out-of-range read went unreported: {other:?}"),
    }
}

#[test]
#[cfg(target_os = "linux")]
fn a_read_past_a_global_buffer_is_reported_with_its_thread_and_address() {
    let emu = Device::emulator();
    let input = emu.upload(&(0..1000u32).collect::<Vec<_>>()).unwrap();
    // Index 1000 is one past the input; thread 37 of block 1 reads it.
    let mut indices: Vec<u32> = (0..2 * THREADS).map(|i| i % 1000).collect();
    let bad = THREADS as usize + 37;
    indices[bad] = 1000;
    let indices = emu.upload(&indices).unwrap();
    let mut out = emu.zeros::<u32>(indices.len()).unwrap();
    // SAFETY: deliberately not: one index is past the input, which the emulator reports.
    let result = unsafe { launch_gather(&emu, &input, &indices, &mut out) };
    match result {
        Err(Error::Emulator(fault)) => {
            assert_eq!(fault.kernel, "own_gather");
            assert_eq!(
                (fault.block.x, fault.block.y, fault.block.z),
                (1, 0, 0),
                "{fault}"
            );
            let Misuse::OutOfBounds { thread, access } = fault.misuse else {
                panic!("not an out-of-bounds access: {fault}");
            };
            assert_eq!(thread.rank, 37, "{fault}");
            assert_eq!(access.offset(), 4000, "{fault}");
            assert_eq!(access.bytes, 4000, "{fault}");
            assert_ne!(access.write, Some(true), "{fault}");
            println!("reported as expected: {fault}");
        }
        other => panic!("the read past the input went unreported: {other:?}"),
    }
    // The guard page is closed again: the same launch with good indices runs clean.
    let good = emu
        .upload(&(0..2 * THREADS).map(|i| i % 1000).collect::<Vec<_>>())
        .unwrap();
    // SAFETY: every index is below 1000.
    unsafe { launch_gather(&emu, &input, &good, &mut out) }.unwrap();
    let got = emu.download(&out).unwrap();
    assert!(got.iter().enumerate().all(|(i, &v)| v == i as u32 % 1000));
}
