//! One device shared by many host threads (issue 46). Every primitive is called from 16
//! threads at once on one `Device` (the emulator here, and a GPU where present) and on the CPU
//! backend, each thread in its own order, three rounds; every result must equal the same call
//! made alone. Then several devices opened apart on one GPU, or several emulators, at once. A `Device` is a handle: clones share its stream, module cache and scratch, whose
//! locks serialize what must be (the scratch, the plan caches), so calls from many threads
//! queue in some order on the one stream and each call's own work stays in order within it.
//! Also checked at compile time: the handles users share between threads are `Send + Sync`.

use std::sync::Barrier;
use warpkit::alias::{AliasTable, SampleOptions};
use warpkit::convolve::Convolution;
use warpkit::lbp::histogram;
use warpkit::moments::summary;
use warpkit::multisplit::{Buckets, Multisplit};
use warpkit::rand_core::SeedableRng;
use warpkit::som::{Accumulate, best_matching_units};
use warpkit::subset::Subsets;
use warpkit::{Backend, Device, DeviceBuffer, Philox};
use warpkit_tests::devices;

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

/// A call of one primitive, its result as words to compare.
type Call = fn(&Backend) -> Vec<u64>;

/// Deterministic values in [0, 1).
fn unit(n: usize, salt: u64) -> Vec<f64> {
    (0..n as u64)
        .map(|i| ((i ^ salt).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 11) as f64 / (1u64 << 53) as f64)
        .collect()
}

fn words<T: Copy + Into<u64>>(v: &[T]) -> Vec<u64> {
    v.iter().map(|&x| x.into()).collect()
}

/// Every primitive once, at sizes the emulator takes quickly.
fn calls() -> Vec<(&'static str, Call)> {
    vec![
        ("exclusive scan", |b| {
            let x: Vec<u32> = (0..5000).map(|i| i % 7).collect();
            words(&b.exclusive_scan(&x).unwrap())
        }),
        ("sum", |b| vec![b.sum(&unit(3000, 1)).unwrap().to_bits()]),
        ("moments", |b| {
            let x: Vec<f32> = unit(3000, 2).iter().map(|&v| v as f32).collect();
            summary(b, &x)
                .unwrap()
                .words()
                .iter()
                .map(|w| w.to_bits())
                .collect()
        }),
        ("alias", |b| {
            let table = AliasTable::new(b, &unit(1000, 3)).unwrap();
            let mut rng = Philox::seed_from_u64(7);
            words(&table.sample(&mut rng, 4096, SampleOptions::default()).unwrap())
        }),
        ("multisplit", |b| {
            let keys: Vec<u32> = unit(4000, 4).iter().map(|&v| (v * 1000.0) as u32).collect();
            let values: Vec<u32> = (0..4000).collect();
            let split = Multisplit::new(Buckets::Splitters(&[100, 250, 700])).unwrap();
            let out = split.pairs(b, &keys, &values).unwrap();
            [words(&out.keys), words(&out.values), words(&out.offsets)].concat()
        }),
        ("subsets", |b| {
            let hands = Subsets::range(52, 5).unwrap().positions(b, 7, 300).unwrap();
            words(hands.as_flat())
        }),
        ("convolution", |b| {
            let r = Convolution::new().full(b, &unit(300, 5), &unit(200, 6)).unwrap();
            r.iter().map(|x| x.to_bits()).collect()
        }),
        ("lbp", |b| {
            let signal: Vec<f32> = unit(5000, 7).iter().map(|&v| v as f32).collect();
            words(&histogram(b, &signal, 4).unwrap())
        }),
        ("som", |b| {
            let f = |n, salt| unit(n, salt).iter().map(|&v| v as f32).collect::<Vec<f32>>();
            words(&best_matching_units(b, &f(300 * 5, 8), &f(400 * 5, 9), 5, Accumulate::F32).unwrap())
        }),
    ]
}

/// Runs every call from [`THREADS`] threads at once, each thread in its own order, and checks
/// each result against the call made alone.
fn check_shared(backend: &Backend, label: &str) {
    let calls = calls();
    let alone: Vec<Vec<u64>> = calls.iter().map(|(_, call)| call(backend)).collect();
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
                            call(backend) == alone[i],
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
        let calls = calls();
        let alone: Vec<Vec<u64>> = calls
            .iter()
            .map(|(_, call)| call(&Backend::Device(d.clone())))
            .collect();
        std::thread::scope(|s| {
            for (h, other) in handles.iter().enumerate() {
                let (calls, alone) = (&calls, &alone);
                s.spawn(move || {
                    let b = Backend::Device(other.clone());
                    for (i, (name, call)) in calls.iter().enumerate() {
                        assert!(
                            call(&b) == alone[i],
                            "{}: {name} on device {h} differs",
                            other.describe()
                        );
                    }
                });
            }
        });
    }
}
