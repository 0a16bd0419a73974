//! Device memory under failure (issue 46): each allocation of each primitive's call is made to
//! fail in turn (`Device::fail_allocation`, feature `checks`), and the call must return
//! `Error::OutOfMemory`, not panic, and leave the device's memory in use where it found it
//! (`Device::memory_in_use`, the caches released with `Device::release_cached`); then calls
//! with a failure injected at random (`WARPKIT_TEST_FAULT_CALLS` of them, 400 unless set; 10^4
//! on the GPU machine), after which the memory in use is back to its start and every call
//! still gives its plain result; and the cache limit (`Device::set_cache_limit`), cuFFT's plans
//! on a GPU included.

use rand_core::RngCore;
use std::io::Write;
use warpkit::convolve::{Convolution, Method};
use warpkit::{Backend, Device, Error};
use warpkit_tests::primitives::every_primitive;
use warpkit_tests::{devices, fresh_rng, gpu_or_skip};

/// One test at a time: on a GPU every test has the same device (`Device::gpu(0)` is one handle
/// a process), whose memory in use and injected failures the others would change.
fn alone() -> std::sync::MutexGuard<'static, ()> {
    static ONE: std::sync::Mutex<()> = std::sync::Mutex::new(());
    ONE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Allocations a call makes from a device with no caches.
fn allocations_of(d: &Device, call: warpkit_tests::primitives::Call) -> u64 {
    d.release_cached();
    let before = d.allocations();
    call(&Backend::Device(d.clone())).unwrap();
    d.allocations() - before
}

/// The device with its caches released: the memory in use then, and the device as a backend.
fn emptied(d: &Device) -> (u64, Backend) {
    d.release_cached();
    (d.memory_in_use(), Backend::Device(d.clone()))
}

#[test]
fn every_allocation_of_every_call_can_fail() {
    let _alone = alone();
    for d in devices("allocations that fail") {
        let (start, b) = emptied(&d);
        for (name, call) in every_primitive() {
            let plain = call(&b).unwrap();
            let n = allocations_of(&d, call);
            assert!(n > 0, "{name}: no allocation seen");
            for nth in 1..=n {
                d.release_cached();
                d.fail_allocation(nth);
                let got = call(&b);
                d.fail_allocation(0);
                assert!(
                    matches!(got, Err(Error::OutOfMemory)),
                    "{name}: allocation {nth} of {n} failed, the call gave {:?}",
                    got.map(|_| ())
                );
                d.release_cached();
                assert_eq!(
                    d.memory_in_use(),
                    start,
                    "{name}: allocation {nth} of {n} failed, memory left behind"
                );
            }
            assert_eq!(call(&b).unwrap(), plain, "{name}: after its failures");
        }
    }
}

#[test]
fn random_failures_leave_nothing_behind() {
    let _alone = alone();
    let calls_wanted: u64 = std::env::var("WARPKIT_TEST_FAULT_CALLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400);
    let primitives = every_primitive();
    for d in devices("random allocation failures") {
        let (start, b) = emptied(&d);
        let plain: Vec<Vec<u64>> = primitives.iter().map(|(_, call)| call(&b).unwrap()).collect();
        let mut rng = fresh_rng("random allocation failures");
        let (mut failed, mut done) = (0u64, 0u64);
        for _ in 0..calls_wanted {
            let i = rng.next_u32() as usize % primitives.len();
            let (name, call) = primitives[i];
            // Somewhere among the next few allocations, or none.
            d.fail_allocation(u64::from(rng.next_u32() % 12));
            match call(&b) {
                Ok(words) => {
                    assert_eq!(words, plain[i], "{name}: a call that succeeded");
                    done += 1;
                }
                Err(Error::OutOfMemory) => failed += 1,
                Err(e) => panic!("{name}: {e}"),
            }
        }
        d.fail_allocation(0);
        d.release_cached();
        assert_eq!(
            d.memory_in_use(),
            start,
            "after {calls_wanted} calls, {failed} out of memory"
        );
        assert!(
            failed > 0 && done > 0,
            "{failed} failed, {done} done: the injection did not mix"
        );
    }
}

/// With a cache limit of 0 a device keeps nothing between calls; unbounded, a call that needs
/// scratch leaves it for the next.
#[test]
fn the_cache_limit_bounds_what_calls_leave() {
    let _alone = alone();
    for d in devices("cache limit") {
        let (start, b) = emptied(&d);
        d.set_cache_limit(0);
        for (name, call) in every_primitive() {
            let plain = call(&b).unwrap();
            assert_eq!(d.memory_in_use(), start, "{name}: kept memory past a limit of 0");
            assert_eq!(call(&b).unwrap(), plain, "{name}: again, without a cache");
        }
        d.set_cache_limit(u64::MAX);
        let scan = every_primitive()[0].1;
        scan(&b).unwrap();
        assert!(d.memory_in_use() > start, "the scan's scratch is kept");
        d.release_cached();
        assert_eq!(d.memory_in_use(), start);
    }
}

/// On a GPU, cuFFT plans follow the cache limit too: with a limit of 0 an FFT convolution keeps
/// nothing (its plan and workspace serve the call alone); unbounded, the plan's workspace stays
/// until `release_cached`.
#[test]
fn fft_plans_follow_the_cache_limit() {
    let _alone = alone();
    let Some(d) = gpu_or_skip("cuFFT plans under the cache limit") else {
        return;
    };
    let (start, b) = emptied(&d);
    let fft = Convolution::new().with_method(Method::Fft);
    let (p, q): (Vec<f64>, Vec<f64>) = (
        (0..3000).map(f64::from).collect(),
        (0..2000).map(f64::from).collect(),
    );
    d.set_cache_limit(0);
    match fft.full(&b, &p, &q) {
        Err(Error::FftUnavailable) => {
            let _ = writeln!(std::io::stderr(), "\nSKIPPED on GPU: cuFFT plans: no cuFFT here");
            d.set_cache_limit(u64::MAX);
            return;
        }
        result => {
            result.unwrap();
        }
    }
    assert_eq!(
        d.memory_in_use(),
        start,
        "an FFT convolution kept memory past a limit of 0"
    );
    d.set_cache_limit(u64::MAX);
    fft.full(&b, &p, &q).unwrap();
    assert!(
        d.memory_in_use() > start,
        "the plan's workspace is kept without a limit"
    );
    d.release_cached();
    assert_eq!(d.memory_in_use(), start);
}
