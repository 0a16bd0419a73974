//! The Philox stream: Random123's known answers on the host, and every device's and the CPU
//! backend's fills equal to the host generator's words for the same key and counter.

use rand_core::{RngCore, SeedableRng};
use warpkit::{Backend, Philox};
use warpkit_tests::*;

#[test]
fn host_generator_yields_the_known_answer_blocks() {
    let mut rng = Philox::new(
        [0xa4093822, 0x299f31d0],
        [0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344],
    );
    let words: Vec<u32> = (0..4).map(|_| rng.next_u32()).collect();
    assert_eq!(words, [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1]);
    let mut zero = Philox::new([0, 0], [0; 4]);
    assert_eq!(zero.next_u64(), 0xe169c58d_6627e8d5);
}

/// Keys and starting counters, including counters whose low words carry during the fill.
fn streams() -> Vec<([u32; 2], [u32; 4])> {
    let mut rng = fresh_rng("philox streams");
    vec![
        ([0, 0], [0; 4]),
        ([rng.next_u32(), rng.next_u32()], [u32::MAX - 5, u32::MAX, 7, 0]),
        (
            [rng.next_u32(), rng.next_u32()],
            [rng.next_u32(), rng.next_u32(), rng.next_u32(), rng.next_u32()],
        ),
    ]
}

fn check_backend(backend: &Backend, max_len: usize) {
    for (key, counter) in streams() {
        for n in sizes_up_to(max_len) {
            let got = backend.philox_words(key, counter, n).unwrap();
            let mut host = Philox::new(key, counter);
            let first_bad = got.iter().position(|&w| w != host.next_u32());
            assert_eq!(
                first_bad,
                None,
                "{} n={n} key={key:?} counter={counter:?}",
                backend.describe()
            );
        }
    }
}

#[test]
fn device_streams_equal_host_stream() {
    for device in devices("device_streams_equal_host_stream") {
        let max = max_len(&device);
        check_backend(&Backend::Device(device), max);
    }
}

#[test]
fn cpu_stream_equals_host_stream() {
    check_backend(&Backend::cpu(), CPU_MAX_LEN);
}

#[test]
fn seeding_is_reproducible() {
    let a: Vec<u32> = (0..9)
        .map({
            let mut r = Philox::seed_from_u64(3);
            move |_| r.next_u32()
        })
        .collect();
    let mut r = Philox::from_seed(3u64.to_le_bytes());
    assert!(a.iter().all(|&w| w == r.next_u32()));
}
