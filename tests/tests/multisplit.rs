//! Multisplit: the CPU backend (a stable counting sort) against a plain stable sort by bucket,
//! for every bucket function, the bucket counts and sizes, and uniform, skewed and
//! single-bucket inputs; the devices' direct multisplit against the CPU backend, exactly; bad
//! input.

use rand_core::RngCore;
use warpkit::multisplit::{Buckets, Keep, Method, Multisplit, MultisplitKey, Split, compact};
use warpkit::{Backend, Error, Philox};
use warpkit_kernels::multisplit::bucket::{BucketFn, Key};
use warpkit_tests::{Agreement, HostileWords, TestValue, cap, devices, fresh_rng, on_every_device};

/// A bucket function under test: its name, the multisplit, and a key of bucket `b` made from
/// random bits `r`.
type Way<'a> = (&'static str, Multisplit<'a, u32>, Box<dyn Fn(u32, u32) -> u32>);

const MS: [u32; 9] = [1, 2, 3, 7, 32, 33, 256, 4096, 65536];
const NS: [usize; 6] = [0, 1, 31, 32, 33, 1_000_003];

/// The reference: indices in a stable sort by bucket, then keys and values gathered.
fn reference<K: Key, V: Copy>(bucket: impl Fn(K) -> u32, m: u32, keys: &[K], values: &[V]) -> Split<K, V> {
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by_key(|&i| bucket(keys[i]));
    let mut counts = vec![0u32; m as usize];
    keys.iter().for_each(|&k| counts[bucket(k) as usize] += 1);
    let offsets = counts
        .iter()
        .scan(0, |run, &c| {
            *run += c;
            Some(*run - c)
        })
        .collect();
    Split {
        keys: order.iter().map(|&i| keys[i]).collect(),
        values: if values.is_empty() {
            vec![]
        } else {
            order.iter().map(|&i| values[i]).collect()
        },
        offsets,
        counts,
    }
}

/// The bucket each key should land in: uniform, 90 % in bucket 0, or all in the last bucket.
fn target_buckets(rng: &mut Philox, n: usize, m: u32, shape: &str) -> Vec<u32> {
    (0..n)
        .map(|_| {
            let r = rng.next_u32();
            match shape {
                "uniform" => r % m,
                "skewed" if !r.is_multiple_of(10) => 0,
                "skewed" => rng.next_u32() % m,
                _ => m - 1,
            }
        })
        .collect()
}

/// Checks the CPU backend against the reference for keys `keys` of `split`, keys-only and with
/// their indices (u32) and a second value type as values.
fn check<K: MultisplitKey + std::fmt::Debug, V: bytemuck::Pod + Send + Sync + PartialEq + std::fmt::Debug>(
    split: &Multisplit<K>,
    bucket: impl Fn(K) -> u32 + Copy,
    keys: &[K],
    values: &[V],
    label: &str,
) {
    let cpu = Backend::cpu();
    let m = split.buckets();
    let got = split.keys(&cpu, keys).unwrap();
    assert!(got == reference(bucket, m, keys, &[] as &[()]), "{label}: keys");
    let index: Vec<u32> = (0..keys.len() as u32).collect();
    let got = split.pairs(&cpu, keys, &index).unwrap();
    let expected = reference(bucket, m, keys, &index);
    assert!(got == expected, "{label}: pairs with indices");
    // Stability, directly: indices rise within each bucket.
    for (&o, &c) in got.offsets.iter().zip(&got.counts) {
        let run = &got.values[o as usize..(o + c) as usize];
        assert!(
            run.windows(2).all(|w| w[0] < w[1]),
            "{label}: a bucket lost input order"
        );
    }
    let got = split.pairs(&cpu, keys, values).unwrap();
    assert!(got == reference(bucket, m, keys, values), "{label}: pairs");
}

#[test]
fn cpu_multisplit_equals_a_stable_sort_by_bucket() {
    let mut rng = fresh_rng("multisplit");
    for m in MS {
        let step = u32::MAX / m;
        let splitters: Vec<u32> = (1..m).map(|j| j * step).collect();
        let bits = m.trailing_zeros();
        let ways: Vec<Way> = {
            let mut w: Vec<Way> = vec![
                (
                    "modulo",
                    Multisplit::new(Buckets::Modulo(m)).unwrap(),
                    Box::new(move |b, r| b + m * (r / m / 2)),
                ),
                (
                    "splitters",
                    Multisplit::new(Buckets::Splitters(&splitters)).unwrap(),
                    Box::new(move |b, r| b * step + r % step),
                ),
            ];
            if m.is_power_of_two() {
                let shift = 32 - bits;
                w.push((
                    "bit field",
                    Multisplit::new(Buckets::BitField { shift, bits }).unwrap(),
                    Box::new(move |b, r| if bits == 0 { r } else { (r >> bits) | b << shift }),
                ));
            }
            w
        };
        for (name, split, key_for) in &ways {
            for n in NS.map(cap) {
                for shape in ["uniform", "skewed", "single bucket"] {
                    let targets = target_buckets(&mut rng, n, m, shape);
                    let keys: Vec<u32> = targets.iter().map(|&b| key_for(b, rng.next_u32())).collect();
                    let values: Vec<f64> = keys.iter().map(|&k| k as f64 * 0.5).collect();
                    let label = format!("{name} m={m} n={n} {shape}");
                    let bucket = |k: u32| -> u32 {
                        match *name {
                            "modulo" => k % m,
                            "splitters" => splitters.partition_point(|&s| s <= k) as u32,
                            _ => {
                                if bits == 0 {
                                    0
                                } else {
                                    k >> (32 - bits)
                                }
                            }
                        }
                    };
                    assert!(
                        keys.iter().zip(&targets).all(|(&k, &b)| bucket(k) == b),
                        "{label}: keys"
                    );
                    check(split, bucket, &keys, &values, &label);
                }
            }
        }
    }
}

#[test]
fn u64_keys_by_hash_at_2_pow_24() {
    let mut rng = fresh_rng("multisplit u64");
    let n = cap(1 << 24);
    for m in [2u32, 256, 65536] {
        let bits = m.trailing_zeros();
        let hash = Multisplit::<u64>::new(Buckets::Hash { bits }).unwrap();
        let f = warpkit_kernels::multisplit::bucket::MultiplicativeHash { bits };
        let keys: Vec<u64> = (0..n).map(|_| rng.next_u64()).collect();
        let values: Vec<i32> = keys.iter().map(|&k| k as i32).collect();
        check(
            &hash,
            |k| f.bucket(k),
            &keys,
            &values,
            &format!("hash m={m} n={n}"),
        );
    }
}

#[test]
fn bad_input_is_refused() {
    assert!(matches!(
        Multisplit::<u32>::new(Buckets::Modulo(0)),
        Err(Error::NoBuckets)
    ));
    assert!(matches!(
        Multisplit::<u32>::new(Buckets::Modulo(65537)),
        Err(Error::TooManyBuckets { m: 65537, .. })
    ));
    assert!(matches!(
        Multisplit::<u64>::new(Buckets::Hash { bits: 17 }),
        Err(Error::TooManyBuckets { .. })
    ));
    assert!(matches!(
        Multisplit::new(Buckets::Splitters(&[1u32, 5, 3])),
        Err(Error::UnsortedSplitters { index: 2 })
    ));
    assert!(matches!(
        Multisplit::<u32>::new(Buckets::BitField { shift: 24, bits: 9 }),
        Err(Error::BitFieldOutsideKey { .. })
    ));
    // An empty field at the very top is one bucket, not a shift past the key.
    let top = Multisplit::<u64>::new(Buckets::BitField { shift: 64, bits: 0 }).unwrap();
    assert_eq!(top.keys(&Backend::cpu(), &[u64::MAX, 3]).unwrap().counts, [2]);
    assert_eq!(
        top.keys(&Backend::emulator(), &[u64::MAX, 3]).unwrap().counts,
        [2]
    );
    let split = Multisplit::<u32>::new(Buckets::Modulo(3)).unwrap();
    assert!(matches!(
        split.pairs(&Backend::cpu(), &[1, 2, 3], &[1u32, 2]),
        Err(Error::LengthMismatch { .. })
    ));
    assert_eq!(split.keys(&Backend::cpu(), &[]).unwrap().counts, [0, 0, 0]);
    // A device method named on the CPU backend: its own split, which is the same.
    assert_eq!(
        split
            .with_method(Method::Direct)
            .keys(&Backend::cpu(), &[5, 1, 3])
            .unwrap()
            .keys,
        [3, 1, 5]
    );
}

/// The split as one vector of words, for comparing engines.
fn flat<K: Key, V>(s: Split<K, V>, value: impl Fn(V) -> u64) -> Vec<u64> {
    let mut out: Vec<u64> = s.keys.iter().map(|k| k.to_u64()).collect();
    out.extend(s.values.into_iter().map(value));
    out.extend(s.offsets.iter().chain(&s.counts).map(|&x| x as u64));
    out
}

/// The devices' direct and block-level multisplits equal the CPU backend's, keys-only and with
/// 4- and 8-byte values, for `buckets` over keys `key_for(bucket, random bits)`.
fn devices_match_the_cpu<K: MultisplitKey>(
    label: &str,
    buckets: Buckets<K>,
    key_for: impl Fn(u32, &mut Philox) -> K,
) {
    for shape in ["uniform", "skewed", "single bucket"] {
        devices_match_the_cpu_on(&format!("{label} {shape}"), buckets, shape, &key_for);
    }
}

fn devices_match_the_cpu_on<K: MultisplitKey>(
    label: &str,
    buckets: Buckets<K>,
    shape: &str,
    key_for: impl Fn(u32, &mut Philox) -> K,
) {
    let split = Multisplit::new(buckets).unwrap();
    let m = split.buckets();
    on_every_device(
        label,
        Agreement::Bitwise,
        |rng, n| {
            // The sizes stop at 2^24: the GPU's 2^28 runs at that size too.
            let n = n.min(1 << 24);
            let keys: Vec<K> = target_buckets(rng, n, m, shape)
                .into_iter()
                .map(|b| key_for(b, rng))
                .collect();
            let narrow: Vec<f32> = (0..n).map(|i| i as f32).collect();
            let wide: Vec<u64> = (0..n as u64)
                .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
                .collect();
            (keys, narrow, wide)
        },
        |device, (keys, narrow, wide)| {
            let backend = Backend::Device(device.clone());
            let mut got = Vec::new();
            for method in Method::ALL {
                let split = split.with_method(method);
                got.extend(flat(split.keys(&backend, keys)?, |_: ()| 0));
                got.extend(flat(split.pairs(&backend, keys, narrow)?, |v| v.to_bits() as u64));
                got.extend(flat(split.pairs(&backend, keys, wide)?, |v| v));
            }
            Ok(got)
        },
        |(keys, narrow, wide), got, label| {
            let cpu = Backend::cpu();
            let mut expected = flat(split.keys(&cpu, keys).unwrap(), |_: ()| 0);
            expected.extend(flat(split.pairs(&cpu, keys, narrow).unwrap(), |v| {
                v.to_bits() as u64
            }));
            expected.extend(flat(split.pairs(&cpu, keys, wide).unwrap(), |v| v));
            expected = expected.repeat(Method::ALL.len()); // every method
            let diff = got.iter().zip(&expected).position(|(a, b)| a != b);
            assert!(
                got.len() == expected.len() && diff.is_none(),
                "{label}: differs at {diff:?}"
            );
        },
    );
}

/// The devices against the CPU for key mod m, each m of `ms`.
fn devices_split_like_the_cpu_by_modulo(ms: &[u32]) {
    for &m in ms {
        devices_match_the_cpu(
            &format!("multisplit modulo m={m}"),
            Buckets::Modulo(m),
            |b, rng| b + m * (rng.next_u32() / m / 2),
        );
    }
}

// The bucket counts in three tests, so that the harness runs them side by side.
#[test]
fn devices_split_like_the_cpu_by_modulo_up_to_7() {
    devices_split_like_the_cpu_by_modulo(&MS[..4]);
}

#[test]
fn devices_split_like_the_cpu_by_modulo_32_to_256() {
    devices_split_like_the_cpu_by_modulo(&MS[4..7]);
}

#[test]
fn devices_split_like_the_cpu_by_modulo_in_two_passes() {
    devices_split_like_the_cpu_by_modulo(&MS[7..]);
}

/// The scatter kernels meet a table they did not make (zeros, starts at `n - 1`, at
/// `u32::MAX`, random words) on every device, write method and radix: no store lands past the
/// keys' `n` slots (a guard of poison after them stays), and no launch faults.
#[test]
fn no_table_sends_a_scatter_out_of_bounds() {
    const GUARD: usize = 4096;
    let mut rng = fresh_rng("multisplit scatter with any table");
    let n = cap(10_007);
    let keys: Vec<u32> = (0..n).map(|_| rng.next_u32()).collect();
    let words = HostileWords::new(&mut rng, n);
    for device in devices("multisplit scatter with any table") {
        let d_keys = device.upload(&keys).unwrap();
        for radix in [2, 32, 256] {
            for method in Method::ALL {
                for (t, name) in HostileWords::KINDS.iter().enumerate() {
                    let mut out = device.filled(n + GUARD, u32::poison()).unwrap();
                    warpkit::checks::multisplit_scatter_with_table(
                        &device,
                        &d_keys,
                        (radix, method),
                        |i| words.word(t, i) as u32,
                        &mut out,
                    )
                    .unwrap();
                    let out = device.download(&out).unwrap();
                    assert!(
                        out[n..].iter().all(|&w| w == u32::poison()),
                        "radix {radix} {method:?}, table {name}, on {}: a store past n",
                        device.describe()
                    );
                }
            }
        }
    }
}

/// A bucket function that breaks its contract (key mod 2m under a claim of m buckets) ends in
/// `BucketOutOfRange` naming the largest bucket, on every device and method, one pass and two;
/// nothing is written out of bounds (the buffers are exact, and the emulator and the GPU would
/// fault).
#[test]
fn buckets_past_m_are_reported_after_the_launch() {
    let mut rng = fresh_rng("multisplit buckets past m");
    // At least 4099 keys under `WARPKIT_TEST_MAX_LEN`: each lands past m with probability 1/2
    // or more, so some surely do.
    let keys: Vec<u32> = (0..cap(100_003).max(4099)).map(|_| rng.next_u32()).collect();
    for device in warpkit_tests::devices("multisplit buckets past m") {
        for (modulo, m) in [(14u32, 7u32), (600, 300), (65536, 4096)] {
            let largest = keys.iter().map(|k| k % modulo).max().unwrap();
            for method in Method::ALL {
                let got = warpkit::checks::multisplit_claiming_buckets(&device, &keys, modulo, m, method);
                assert!(
                    matches!(got, Err(Error::BucketOutOfRange { bucket, m: mm }) if bucket == largest && mm == m),
                    "m={m} {method:?} on {}: {got:?}",
                    device.describe()
                );
            }
            // The same kernels under an honest claim split as the CPU does.
            let honest =
                warpkit::checks::multisplit_claiming_buckets(&device, &keys, m, m, Method::BlockLevel)
                    .unwrap();
            let cpu = Multisplit::new(Buckets::Modulo(m))
                .unwrap()
                .keys(&Backend::cpu(), &keys)
                .unwrap();
            assert!(
                (honest.keys, honest.offsets, honest.counts) == (cpu.keys, cpu.offsets, cpu.counts),
                "m={m} honest claim"
            );
        }
    }
}

#[test]
fn devices_split_like_the_cpu_by_other_buckets() {
    let splitters: Vec<u64> = (1..1000u64).map(|j| j << 40).collect();
    devices_match_the_cpu(
        "multisplit splitters m=1000 u64",
        Buckets::Splitters(&splitters),
        |b, rng| (b as u64) << 40 | rng.next_u64() >> 24,
    );
    devices_match_the_cpu(
        "multisplit bit field m=32",
        Buckets::BitField { shift: 3, bits: 5 },
        |b, rng| rng.next_u32() & !(31 << 3) | b << 3,
    );
    devices_match_the_cpu(
        "multisplit hash m=4096 u64",
        Buckets::Hash { bits: 12 },
        |_, rng| rng.next_u64(),
    );
}

/// The device-resident calls give what the host-level ones give, leave their inputs as they
/// were (two passes go through scratch), and refuse outputs of the wrong length.
#[test]
fn device_resident_splits_match_and_keep_their_inputs() {
    let mut rng = fresh_rng("multisplit device-resident");
    let mut devices = vec![warpkit::Device::emulator()];
    devices.extend(warpkit_tests::gpu_or_skip("multisplit device-resident"));
    let keys: Vec<u32> = (0..cap(100_003)).map(|_| rng.next_u32()).collect();
    let values: Vec<u64> = (0..keys.len() as u64).collect();
    for device in &devices {
        for m in [7u32, 4096] {
            let split = Multisplit::new(Buckets::Modulo(m)).unwrap();
            let expected = split
                .pairs(&Backend::Device(device.clone()), &keys, &values)
                .unwrap();
            let (d_keys, d_values) = (device.upload(&keys).unwrap(), device.upload(&values).unwrap());
            let mut out_keys = device.zeros::<u32>(keys.len()).unwrap();
            let mut out_values = device.zeros::<u64>(keys.len()).unwrap();
            let bounds = split.keys_into(device, &d_keys, &mut out_keys).unwrap();
            assert_eq!(device.download(&out_keys).unwrap(), expected.keys, "m={m}");
            assert_eq!(
                (&bounds.offsets, &bounds.counts),
                (&expected.offsets, &expected.counts)
            );
            let mut out_keys = device.zeros::<u32>(keys.len()).unwrap();
            let bounds = split
                .pairs_into(device, &d_keys, &d_values, &mut out_keys, &mut out_values)
                .unwrap();
            assert_eq!(device.download(&out_keys).unwrap(), expected.keys, "m={m}");
            assert_eq!(device.download(&out_values).unwrap(), expected.values, "m={m}");
            assert_eq!(
                (&bounds.offsets, &bounds.counts),
                (&expected.offsets, &expected.counts)
            );
            assert_eq!(
                device.download(&d_keys).unwrap(),
                keys,
                "m={m}: input keys changed"
            );
            assert_eq!(
                device.download(&d_values).unwrap(),
                values,
                "m={m}: input values changed"
            );
            let mut short = device.zeros::<u32>(10).unwrap();
            assert!(matches!(
                split.keys_into(device, &d_keys, &mut short),
                Err(Error::LengthMismatch { .. })
            ));
        }
    }
}

/// Compaction keeps what its test keeps, in input order, then the rest in input order, on every
/// device and the CPU; a bit past the key is refused.
#[test]
fn compaction_keeps_in_order() {
    let keeps = [
        Keep::Below(1 << 31),
        Keep::AtLeast(3_000_000_000),
        Keep::BitSet(0),
        Keep::BitClear(31),
    ];
    on_every_device(
        "multisplit compaction",
        Agreement::Bitwise,
        |rng, n| (0..n.min(1 << 24)).map(|_| rng.next_u32()).collect::<Vec<u32>>(),
        |device, keys| {
            let mut got = Vec::new();
            for keep in keeps {
                got.extend(flat(
                    compact(&Backend::Device(device.clone()), keys, keep)?,
                    |_: ()| 0,
                ));
            }
            Ok(got)
        },
        |keys, got, label| {
            let mut expected = Vec::new();
            for keep in keeps {
                let kept = |k: u32| BucketFn::<u32>::bucket(&keep, k) == 0;
                let out: Vec<u32> = keys
                    .iter()
                    .copied()
                    .filter(|&k| kept(k))
                    .chain(keys.iter().copied().filter(|&k| !kept(k)))
                    .collect();
                let first = keys.iter().filter(|&&k| kept(k)).count() as u32;
                let split = Split {
                    keys: out,
                    values: Vec::<()>::new(),
                    offsets: vec![0, first],
                    counts: vec![first, keys.len() as u32 - first],
                };
                assert!(
                    compact(&Backend::cpu(), keys, keep).unwrap() == split,
                    "{label}: CPU {keep:?}"
                );
                expected.extend(flat(split, |_: ()| 0));
            }
            assert!(got == expected, "{label}: device");
        },
    );
    assert!(matches!(
        compact(&Backend::cpu(), &[1u32], Keep::BitSet(32)),
        Err(Error::BitFieldOutsideKey { .. })
    ));
    // Values other than 4 or 8 bytes are refused on every backend, the CPU's included.
    let split = Multisplit::new(Buckets::Modulo(2)).unwrap();
    for backend in [Backend::cpu(), Backend::emulator()] {
        assert!(matches!(
            split.pairs(&backend, &[1u32, 2], &[1u16, 2]),
            Err(Error::UnsupportedMethod { .. })
        ));
    }
}

/// A user's value type aligned below its size (2 of 4 bytes): kernels move it as words, which
/// device buffers, aligned like CUDA allocations, hold whatever the type's alignment.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
struct Halves([u16; 2]);

// SAFETY: four bytes, no padding, every bit pattern valid (what `#[derive(Pod, Zeroable)]`
// checks; spelled out here to keep bytemuck's derive out of the tests' dependencies).
unsafe impl bytemuck::Zeroable for Halves {}
unsafe impl bytemuck::Pod for Halves {}

/// Values of every alignment travel with their keys as the reference places them, on the
/// devices as on the CPU, from host slices and in device buffers: 4-byte types aligned like a
/// word and below it. Device buffers of other sizes are refused.
#[test]
fn values_travel_whatever_their_alignment() {
    let mut rng = fresh_rng("multisplit value alignment");
    let devices = devices("multisplit value alignment");
    let keys: Vec<u32> = (0..cap(100_003)).map(|_| rng.next_u32()).collect();
    let halves: Vec<Halves> = (0..keys.len())
        .map(|i| Halves([i as u16, (i >> 16) as u16]))
        .collect();
    let reals: Vec<f32> = (0..keys.len()).map(|i| i as f32 * 0.5).collect();
    let split = Multisplit::new(Buckets::Modulo(33)).unwrap();
    let bucket = |k: u32| k % 33;
    let (want_halves, want_reals) = (
        reference(bucket, 33, &keys, &halves),
        reference(bucket, 33, &keys, &reals),
    );
    let backends = devices.into_iter().map(Backend::Device).chain([Backend::cpu()]);
    for backend in backends {
        let got = split.pairs(&backend, &keys, &halves).unwrap();
        assert_eq!(
            (&got.keys, &got.values),
            (&want_halves.keys, &want_halves.values),
            "{}",
            backend.describe()
        );
        let got = split.pairs(&backend, &keys, &reals).unwrap();
        assert_eq!(
            (&got.keys, &got.values),
            (&want_reals.keys, &want_reals.values),
            "{}",
            backend.describe()
        );
        let Backend::Device(device) = &backend else {
            continue;
        };
        let (d_keys, d_halves) = (device.upload(&keys).unwrap(), device.upload(&halves).unwrap());
        let mut out_keys = device.filled(keys.len(), u32::MAX).unwrap();
        let mut out_halves = device.filled(keys.len(), Halves([u16::MAX; 2])).unwrap();
        let bounds = split
            .pairs_into(device, &d_keys, &d_halves, &mut out_keys, &mut out_halves)
            .unwrap();
        assert_eq!(
            device.download(&out_keys).unwrap(),
            want_halves.keys,
            "{}",
            device.describe()
        );
        assert_eq!(
            device.download(&out_halves).unwrap(),
            want_halves.values,
            "{}",
            device.describe()
        );
        assert_eq!(bounds.offsets, want_halves.offsets, "{}", device.describe());
        let shorts = device.upload(&vec![0u16; keys.len()]).unwrap();
        let mut out_shorts = device.zeros::<u16>(keys.len()).unwrap();
        assert!(matches!(
            split.pairs_into(device, &d_keys, &shorts, &mut out_keys, &mut out_shorts),
            Err(Error::UnsupportedMethod { .. })
        ));
    }
}
