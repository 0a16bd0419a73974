//! One device shared by many host threads (issue 46). Every primitive is called from 16
//! threads at once on one `Device` (the emulator here, and a GPU where present) and on the CPU
//! backend, each thread in its own order, three rounds; every result must equal the same call
//! made alone. Then several devices opened apart on one GPU, or several emulators, at once. A `Device` is a handle: clones share its stream, module cache and scratch, whose
//! locks serialize what must be (the scratch, the plan caches), so calls from many threads
//! queue in some order on the one stream and each call's own work stays in order within it.
//! Also checked at compile time: the handles users share between threads are `Send + Sync`.

use std::sync::Barrier;
use warpkit::alias::AliasTable;
use warpkit::convolve::Convolution;
use warpkit::multisplit::Multisplit;
use warpkit::subset::Subsets;
use warpkit::{Backend, Device, DeviceBuffer};
use warpkit_tests::devices;
use warpkit_tests::primitives::every_primitive;

const THREADS: usize = 16;
const ROUNDS: usize = 3;

/// The handles a service shares between threads.
#[test]
fn shared_handles_are_send_and_sync() {
    fn shared<T: Send + Sync>() {}
    shared::<Device>();
    shared::<Backend>();
    shared::<DeviceBuffer<f32>>();
    shared::<AliasTable<f64>>();
    shared::<Multisplit<'static, u32>>();
    shared::<Convolution>();
    shared::<Subsets>();
}

/// Runs every call from [`THREADS`] threads at once, each thread in its own order, and checks
/// each result against the call made alone.
fn check_shared(backend: &Backend, label: &str) {
    let calls = every_primitive();
    let alone: Vec<Vec<u64>> = calls.iter().map(|(_, call)| call(backend).unwrap()).collect();
    let start = Barrier::new(THREADS);
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let (calls, alone, start) = (&calls, &alone, &start);
            s.spawn(move || {
                start.wait();
                for round in 0..ROUNDS {
                    // A different order on each thread and round.
                    for k in 0..calls.len() {
                        let i = (k * (2 * t + 1) + round + t) % calls.len();
                        let (name, call) = calls[i];
                        assert!(
                            call(backend).unwrap() == alone[i],
                            "{label}: {name} on thread {t}, round {round} differs from the call alone"
                        );
                    }
                }
            });
        }
    });
}

#[test]
fn one_device_serves_many_threads() {
    for d in devices("16 threads on one device") {
        check_shared(&Backend::Device(d.clone()), &d.describe());
    }
    check_shared(&Backend::cpu(), "CPU backend");
}

/// Several devices opened apart on one GPU (each its own stream and caches), or several
/// emulators, used from threads at once: each agrees with the calls made alone.
#[test]
fn several_devices_at_once() {
    for d in devices("several devices on one GPU") {
        let open = || match d.as_gpu() {
            Some(_) => Device::gpu(0).unwrap(),
            None => Device::emulator(),
        };
        let handles = [open(), open(), open()];
        let calls = every_primitive();
        let alone: Vec<Vec<u64>> = calls
            .iter()
            .map(|(_, call)| call(&Backend::Device(d.clone())).unwrap())
            .collect();
        std::thread::scope(|s| {
            for (h, other) in handles.iter().enumerate() {
                let (calls, alone) = (&calls, &alone);
                s.spawn(move || {
                    let b = Backend::Device(other.clone());
                    for (i, (name, call)) in calls.iter().enumerate() {
                        assert!(
                            call(&b).unwrap() == alone[i],
                            "{}: {name} on device {h} differs",
                            other.describe()
                        );
                    }
                });
            }
        });
    }
}
