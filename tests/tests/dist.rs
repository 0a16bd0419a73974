//! Reductions and scans over the ranks of a group (`warpkit::dist`), each rank a thread with its
//! `LocalGroup` handle and its part of the data (`Partition`), on the CPU backend and on every
//! device (ranks sharing it): sums of f64 (within 1e-12 relative of the f64 reference), u32 and i64
//! (exact, wrapping), min and max (exact), moments (count, min, max exact; mean within 1e-12
//! relative of the two-pass reference, m2 too plus what the ranks' rounded means carry), the same
//! on every rank to the bit, for worlds of 1 to 5 ranks and lengths that leave some ranks nothing;
//! exclusive scans against the whole's (u32 exact, f64 within 1e-12 of the running magnitude);
//! tables sharded over the ranks draw from the whole; multisplits across them are the whole's
//! split, pairs with their values. All parts empty: sum 0, the rest `EmptyVector`. Collectives
//! whose ranks give different amounts, lose a rank, or wait past the timeout return errors on every
//! rank, never hang. The launcher's ranks see their variables and one failing rank stops the rest;
//! an NCCL group's set-up refuses bad ids, ranks and devices before NCCL is loaded (the NCCL groups
//! themselves: `dist_nccl.rs`, on GPUs).

use std::ops::Range;
use std::thread;
use std::time::{Duration, Instant};
use warpkit::alias::SampleOptions;
use warpkit::dist::{self, Group, LocalGroup, Partition, ShardedTable, all_gather};
use warpkit::moments::Summary;
use warpkit::multisplit::{Buckets, Multisplit};
use warpkit::rand_core::SeedableRng;
use warpkit::{Backend, Error, Philox};
use warpkit_tests::{TestValue, chi_square_critical, devices, fresh_rng, random_vec};

/// What each rank computes from its part.
#[derive(Debug, PartialEq)]
struct Results {
    sum: f64,
    sum_u32: u32,
    sum_i64: i64,
    min: f64,
    max: f64,
    moments: Summary,
}

/// Runs `f(group, part)` on `world` ranks, each a thread with its handle and its part of `len`
/// elements as `Partition` cuts them; the ranks' results in rank order.
fn on_ranks<R: Send>(world: u32, len: usize, f: impl Fn(&LocalGroup, Range<usize>) -> R + Sync) -> Vec<R> {
    let ranks = LocalGroup::new(world, LocalGroup::DEFAULT_TIMEOUT).unwrap();
    let plan = Partition::new(len as u64, world).unwrap();
    let f = &f;
    thread::scope(|scope| {
        let handles: Vec<_> = ranks
            .into_iter()
            .map(|group| {
                let range = plan.range(group.rank());
                scope.spawn(move || f(&group, range.start as usize..range.end as usize))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

/// Every rank's results on `backend` from its part of the three inputs.
/// On a device, the forms that take device buffers give the same results to the bit.
fn run_ranks(world: u32, backend: &Backend, data: (&[f64], &[u32], &[i64])) -> Vec<warpkit::Result<Results>> {
    on_ranks(world, data.0.len(), |group, part| {
        let results = Results {
            sum: dist::reduce::sum(group, backend, &data.0[part.clone()])?,
            sum_u32: dist::reduce::sum(group, backend, &data.1[part.clone()])?,
            sum_i64: dist::reduce::sum(group, backend, &data.2[part.clone()])?,
            min: dist::reduce::min(group, backend, &data.0[part.clone()])?,
            max: dist::reduce::max(group, backend, &data.0[part.clone()])?,
            moments: dist::reduce::moments(group, backend, &data.0[part.clone()])?,
        };
        if let Backend::Device(device) = backend {
            let x = device.upload(&data.0[part])?;
            let of_buffers = (
                dist::reduce::extreme_of_buffer(group, device, &x, true)?,
                dist::reduce::extreme_of_buffer(group, device, &x, false)?,
                dist::reduce::moments_of_buffer(group, device, &x)?,
            );
            assert!(
                of_buffers.0.to_bits() == results.min.to_bits()
                    && of_buffers.1.to_bits() == results.max.to_bits()
                    && of_buffers.2 == results.moments,
                "{backend:?}, rank {}: of buffers {of_buffers:?}",
                group.rank()
            );
        }
        Ok(results)
    })
}

#[test]
fn reductions_over_ranks_match_the_whole() {
    let mut backends = vec![Backend::cpu()];
    backends.extend(devices("dist reductions").into_iter().map(Backend::Device));
    for backend in &backends {
        for (world, n) in [(1u32, 1000usize), (2, 2), (3, 100_003), (5, 3), (4, 65_537)] {
            let mut rng = fresh_rng(&format!("dist {world} ranks, {n}"));
            let x: Vec<f64> = random_vec::<f64>(&mut rng, n).iter().map(|v| 1e6 + v).collect();
            let (words, longs): (Vec<u32>, Vec<i64>) = (random_vec(&mut rng, n), random_vec(&mut rng, n));
            let results = run_ranks(world, backend, (&x, &words, &longs));
            let first = results[0].as_ref().unwrap();
            for r in &results {
                assert_eq!(
                    r.as_ref().unwrap(),
                    first,
                    "{backend:?}, {world} ranks: ranks differ"
                );
            }
            let label = format!("{backend:?}, {world} ranks, {n} values");
            let sum: f64 = x.iter().sum();
            assert!(
                (first.sum - sum).abs() <= 1e-12 * sum.abs(),
                "{label}: sum {} against {sum}",
                first.sum
            );
            assert_eq!(
                first.sum_u32,
                words.iter().fold(0u32, |a, &w| a.wrapping_add(w)),
                "{label}"
            );
            assert_eq!(
                first.sum_i64,
                longs.iter().fold(0i64, |a, &w| a.wrapping_add(w)),
                "{label}"
            );
            assert_eq!(
                first.min,
                x.iter().copied().fold(f64::INFINITY, f64::min),
                "{label}"
            );
            assert_eq!(
                first.max,
                x.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                "{label}"
            );
            let mean = sum / n as f64;
            let m2: f64 = x.iter().map(|v| (v - mean) * (v - mean)).sum();
            let m = first.moments;
            assert_eq!(
                (m.count, m.min, m.max),
                (n as u64, first.min, first.max),
                "{label}"
            );
            assert!(
                (m.mean - mean).abs() <= 1e-12 * mean.abs(),
                "{label}: mean {} against {mean}",
                m.mean
            );
            // Each rank's mean is known to its rounding, which the combine's δ² terms carry:
            // at most about ε·|mean|·(max − min)·n a combine.
            let spread = first.max - first.min;
            let bound = 1e-12 * m2 + f64::EPSILON * mean.abs() * spread * (n as f64) * world as f64;
            assert!((m.m2 - m2).abs() <= bound, "{label}: m2 {} against {m2}", m.m2);
        }
    }
}

/// The exclusive scan over `world` ranks holding `data` as `Partition` cuts it: each rank's
/// part of it, concatenated in rank order; on a device with `buffers`, the scan of device
/// buffers (into a poisoned output).
fn scan_over_ranks<T: TestValue>(world: u32, backend: &Backend, data: &[T], buffers: bool) -> Vec<T> {
    on_ranks(world, data.len(), |group, part| match backend {
        Backend::Device(device) if buffers => {
            let part = device.upload(&data[part]).unwrap();
            let mut out = device.filled(part.len(), T::poison()).unwrap();
            dist::scan::exclusive_scan_into(group, device, &part, &mut out).unwrap();
            device.download(&out).unwrap()
        }
        _ => dist::scan::exclusive_scan(group, backend, &data[part]).unwrap(),
    })
    .concat()
}

/// Exclusive scans over ranks, of slices and (on devices) of device buffers: u32 exact
/// (wrapping), f64 within 1e-12 of the running sum of magnitudes, against the whole's
/// sequential scan.
#[test]
fn scans_over_ranks_match_the_whole() {
    let mut backends = vec![Backend::cpu()];
    backends.extend(devices("dist scans").into_iter().map(Backend::Device));
    for (backend, buffers) in backends.iter().flat_map(|b| [(b, false), (b, true)]) {
        if buffers && matches!(backend, Backend::Cpu(_)) {
            continue;
        }
        for (world, n) in [(1u32, 7usize), (3, 2), (4, 100_003)] {
            let mut rng = fresh_rng(&format!("dist scan {world} ranks, {n}"));
            let (words, x): (Vec<u32>, Vec<f64>) = (random_vec(&mut rng, n), random_vec(&mut rng, n));
            let label = format!("{backend:?} (buffers: {buffers}), {world} ranks, {n} values");
            let got = scan_over_ranks(world, backend, &words, buffers);
            let mut run = 0u32;
            for (i, (&g, &w)) in got.iter().zip(&words).enumerate() {
                assert_eq!(g, run, "{label}: u32 element {i}");
                run = run.wrapping_add(w);
            }
            let got = scan_over_ranks(world, backend, &x, buffers);
            let (mut run, mut magnitude) = (0.0f64, 0.0f64);
            for (i, (&g, &v)) in got.iter().zip(&x).enumerate() {
                assert!(
                    (g - run).abs() <= 1e-12 * magnitude.max(1.0),
                    "{label}: f64 element {i}: {g} against {run}"
                );
                (run, magnitude) = (run + v, magnitude + v.abs());
            }
            assert_eq!(got.len(), n, "{label}");
        }
    }
}

/// A table sharded over ranks draws from the whole: weights `1..=k` over 3 ranks, and over 4
/// with one rank holding none; every sample in its rank's shard, `s` in all, the items'
/// counts within the chi-square bound at significance 1e-6, the same samples for the same
/// seed. A rank whose weights are bad gets its own error, the others `RankFailed`.
#[test]
fn sharded_tables_draw_from_the_whole() {
    let mut backends = vec![Backend::cpu()];
    backends.extend(devices("dist sharded tables").into_iter().map(Backend::Device));
    let s = 120_000u64;
    for backend in &backends {
        for (world, k) in [(3u32, 300usize), (4, 3)] {
            let weights: Vec<f64> = (1..=k).map(|i| i as f64).collect();
            let draw = |seed| {
                on_ranks(world, k, |group, part| {
                    let table = ShardedTable::new(group, backend, &weights[part.clone()]).unwrap();
                    assert_eq!(table.first_row(), part.start as u64);
                    let mut rng = Philox::seed_from_u64(seed);
                    let drawn = table.sample(&mut rng, s, SampleOptions::default()).unwrap();
                    assert!(drawn.iter().all(|&row| part.contains(&(row as usize))));
                    drawn
                })
            };
            let samples = draw(11);
            assert_eq!(samples, draw(11), "{backend:?}, {world} ranks: the same seed");
            // Built from and drawn into device memory: the same totals (integer weights sum
            // exactly in any order), so the same samples.
            if let Backend::Device(device) = backend {
                let on_device = on_ranks(world, k, |group, part| {
                    let shard = device.upload(&weights[part]).unwrap();
                    let table = ShardedTable::from_device(group, device, &shard).unwrap();
                    let mut rng = Philox::seed_from_u64(11);
                    let drawn = table
                        .sample_on_device(device, &mut rng, s, SampleOptions::default())
                        .unwrap();
                    let first = table.first_row();
                    let rows = device.download(&drawn).unwrap();
                    rows.into_iter().map(|r| first + r as u64).collect::<Vec<_>>()
                });
                assert_eq!(on_device, samples, "{backend:?}, {world} ranks: from the device");
            }
            // Gathered on request: every rank holds every rank's samples, in rank order.
            let gathered = on_ranks(world, k, |group, part| {
                let table = ShardedTable::new(group, backend, &weights[part]).unwrap();
                let mut rng = Philox::seed_from_u64(11);
                table
                    .sample_gathered(group, &mut rng, s, SampleOptions::default())
                    .unwrap()
            });
            for g in &gathered {
                assert_eq!(g, &samples.concat(), "{backend:?}, {world} ranks: gathered");
            }
            let mut counts = vec![0u64; k];
            for row in samples.concat() {
                counts[row as usize] += 1;
            }
            assert_eq!(counts.iter().sum::<u64>(), s);
            let whole = (k * (k + 1) / 2) as f64;
            let chi2: f64 = counts
                .iter()
                .enumerate()
                .map(|(i, &c)| {
                    let expected = s as f64 * (i + 1) as f64 / whole;
                    (c as f64 - expected).powi(2) / expected
                })
                .sum();
            let bound = chi_square_critical((k - 1) as f64);
            assert!(
                chi2 < bound,
                "{backend:?}, {world} ranks: chi-square {chi2} past {bound}"
            );
        }
    }
    // A NaN weight on rank 1, on the CPU and in an emulator's memory.
    for on_device in [false, true] {
        let results = on_ranks(3, 30, |group, part| {
            let mut shard: Vec<f64> = part.map(|i| i as f64 + 1.0).collect();
            if group.rank() == 1 {
                shard[0] = f64::NAN;
            }
            if on_device {
                let device = warpkit::Device::emulator();
                ShardedTable::from_device(group, &device, &device.upload(&shard)?).map(|_| ())
            } else {
                ShardedTable::new(group, &Backend::cpu(), &shard).map(|_| ())
            }
        });
        for (rank, r) in results.iter().enumerate() {
            if rank == 1 {
                assert!(!matches!(r, Ok(()) | Err(Error::RankFailed { .. })), "{r:?}");
            } else {
                assert!(matches!(r, Err(Error::RankFailed { rank: 1 })), "{r:?}");
            }
        }
    }
}

/// A key's bucket, as the test computes it.
type BucketOf = fn(u32) -> usize;

/// A multisplit across ranks is the stable split of all ranks' keys in rank order, each
/// bucket on the rank that owns it: keys by `key mod 7` and by their top 4 bits over 1, 3 and 4
/// ranks (more ranks than buckets too), ranks holding different numbers of keys, none or all.
#[test]
fn multisplits_across_ranks_are_the_whole_split() {
    let mut backends = vec![Backend::cpu()];
    backends.extend(devices("dist multisplit").into_iter().map(Backend::Device));
    let splits: [(Buckets<u32>, BucketOf); 3] = [
        (Buckets::Modulo(7), |k| (k % 7) as usize),
        (Buckets::BitField { shift: 28, bits: 4 }, |k| (k >> 28) as usize),
        (Buckets::Modulo(2), |k| (k % 2) as usize),
    ];
    for backend in &backends {
        for (world, n) in [(1u32, 1000usize), (3, 10_007), (4, 5)] {
            let mut rng = fresh_rng(&format!("dist multisplit {world} ranks, {n}"));
            let keys: Vec<u32> = random_vec(&mut rng, n);
            for (buckets, bucket_of) in splits {
                let split = Multisplit::new(buckets).unwrap();
                let m = split.buckets() as u64;
                let got = on_ranks(world, n, |group, part| {
                    dist::multisplit::keys(group, backend, &split, &keys[part]).unwrap()
                });
                // With each key's index in the whole as its value (8 bytes): the values move
                // with the keys, which split alike.
                let index: Vec<u64> = (0..n as u64).collect();
                let pairs = on_ranks(world, n, |group, part| {
                    dist::multisplit::pairs(group, backend, &split, &keys[part.clone()], &index[part])
                        .unwrap()
                });
                for (rank, (p, k)) in pairs.iter().zip(&got).enumerate() {
                    let label = format!("{backend:?}, {world} ranks, {buckets:?}, rank {rank}");
                    assert_eq!(
                        (&p.keys, &p.offsets, &p.counts),
                        (&k.keys, &k.offsets, &k.counts),
                        "{label}: pairs"
                    );
                    assert!(
                        p.values
                            .iter()
                            .zip(&p.keys)
                            .all(|(&i, &key)| keys[i as usize] == key),
                        "{label}: values"
                    );
                    for (&at, &count) in p.offsets.iter().zip(&p.counts) {
                        let bucket = &p.values[at as usize..(at + count) as usize];
                        assert!(bucket.windows(2).all(|w| w[0] < w[1]), "{label}: stable");
                    }
                }
                // The same split with everything in device memory.
                if let Backend::Device(device) = backend {
                    let on_device = on_ranks(world, n, |group, part| {
                        let k = device.upload(&keys[part.clone()]).unwrap();
                        let v = device.upload(&index[part]).unwrap();
                        let (keys, bounds) =
                            dist::multisplit::keys_on_device(group, device, &split, &k).unwrap();
                        let (pair_keys, values, pair_bounds) =
                            dist::multisplit::pairs_on_device(group, device, &split, &k, &v).unwrap();
                        let download = |b| device.download(b).unwrap();
                        (
                            (download(&keys), bounds),
                            (
                                download(&pair_keys),
                                device.download(&values).unwrap(),
                                pair_bounds,
                            ),
                        )
                    });
                    for (rank, ((k, b), (pk, pv, pb))) in on_device.into_iter().enumerate() {
                        let (want, with) = (&got[rank], &pairs[rank]);
                        let label = format!("{device:?}, {world} ranks, {buckets:?}, rank {rank}");
                        assert_eq!(
                            (&k, &b.offsets, &b.counts),
                            (&want.keys, &want.offsets, &want.counts),
                            "{label}: keys on the device"
                        );
                        assert_eq!(
                            (&pk, &pv, &pb.offsets, &pb.counts),
                            (&with.keys, &with.values, &with.offsets, &with.counts),
                            "{label}: pairs on the device"
                        );
                    }
                }
                let owners = Partition::new(m, world).unwrap();
                for (rank, split) in got.iter().enumerate() {
                    let label = format!("{backend:?}, {world} ranks, {buckets:?}, rank {rank}");
                    let mine = owners.range(rank as u32);
                    assert_eq!(split.counts.len() as u64, mine.end - mine.start, "{label}");
                    for (i, b) in (mine.start as usize..mine.end as usize).enumerate() {
                        let want: Vec<u32> = keys.iter().copied().filter(|&k| bucket_of(k) == b).collect();
                        let (at, count) = (split.offsets[i] as usize, split.counts[i] as usize);
                        assert_eq!(&split.keys[at..at + count], &want[..], "{label}, bucket {b}");
                    }
                    assert_eq!(
                        split.keys.len(),
                        split.counts.iter().sum::<u32>() as usize,
                        "{label}"
                    );
                }
            }
        }
    }
}

#[test]
fn empty_parts_everywhere() {
    let ranks = LocalGroup::new(3, LocalGroup::DEFAULT_TIMEOUT).unwrap();
    let cpu = Backend::cpu();
    thread::scope(|scope| {
        for group in ranks {
            let cpu = &cpu;
            scope.spawn(move || {
                let none: &[f64] = &[];
                assert_eq!(dist::reduce::sum(&group, cpu, none).unwrap(), 0.0);
                assert!(matches!(
                    dist::reduce::min(&group, cpu, none),
                    Err(Error::EmptyVector { .. })
                ));
                assert!(matches!(
                    dist::reduce::max(&group, cpu, none),
                    Err(Error::EmptyVector { .. })
                ));
                assert!(matches!(
                    dist::reduce::moments(&group, cpu, none),
                    Err(Error::EmptyVector { .. })
                ));
            });
        }
    });
    assert!(matches!(
        LocalGroup::new(0, LocalGroup::DEFAULT_TIMEOUT),
        Err(Error::OutOfRange { .. })
    ));
}

#[test]
fn collectives_that_cannot_complete_fail_on_every_rank() {
    // Different amounts: every rank is told, and the group still works after.
    let ranks = LocalGroup::new(3, LocalGroup::DEFAULT_TIMEOUT).unwrap();
    thread::scope(|scope| {
        for group in ranks {
            scope.spawn(move || {
                let mine = vec![group.rank(); 1 + (group.rank() == 2) as usize];
                match all_gather(&group, &mine) {
                    Err(Error::RanksDisagree {
                        rank: 2,
                        expected: 4,
                        actual: 8,
                        ..
                    }) => {}
                    other => panic!("rank {}: {other:?}", group.rank()),
                }
                assert_eq!(all_gather(&group, &[group.rank()]).unwrap(), [0, 1, 2]);
                // An all-to-all: rank `r` sends `d` the bytes `[r; d]`; rank 1 then one part
                // short.
                let sends: Vec<Vec<u8>> = (0..3).map(|d| vec![group.rank() as u8; d]).collect();
                let got = group.all_to_all_bytes(&sends).unwrap();
                assert_eq!(
                    got,
                    (0..3)
                        .map(|r| vec![r as u8; group.rank() as usize])
                        .collect::<Vec<_>>()
                );
                let parts = if group.rank() == 1 {
                    &sends[..2]
                } else {
                    &sends[..]
                };
                match group.all_to_all_bytes(parts) {
                    Err(Error::RanksDisagree {
                        rank: 1,
                        expected: 3,
                        actual: 2,
                        ..
                    }) => {}
                    other => panic!("rank {}: {other:?}", group.rank()),
                }
            });
        }
    });

    // A rank that leaves: the others' collective fails at once, not after the timeout.
    let mut ranks = LocalGroup::new(3, Duration::from_secs(600)).unwrap();
    let leaving = ranks.pop().unwrap();
    let start = Instant::now();
    thread::scope(|scope| {
        for group in ranks {
            scope.spawn(move || match all_gather(&group, &[1u8]) {
                Err(Error::RankLeft { rank: 2 }) => {}
                other => panic!("rank {}: {other:?}", group.rank()),
            });
        }
        thread::sleep(Duration::from_millis(50));
        drop(leaving);
    });
    assert!(
        start.elapsed() < Duration::from_secs(60),
        "waited {:?}",
        start.elapsed()
    );

    // A rank that never arrives: the collective times out, and that rank, arriving late,
    // finds the group left.
    let mut ranks = LocalGroup::new(2, Duration::from_millis(100)).unwrap();
    let (late, early) = (ranks.pop().unwrap(), ranks.pop().unwrap());
    match all_gather(&early, &[0u32]) {
        Err(Error::CollectiveTimeout {
            arrived: Some(1),
            world: 2,
            waited,
        }) => {
            assert!(waited >= Duration::from_millis(100), "{waited:?}")
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        all_gather(&late, &[1u32]),
        Err(Error::RankLeft { rank: 0 })
    ));
}

/// Chan's combine of two summaries is the summary of both parts, with infinities as IEEE
/// arithmetic gives them.
#[test]
fn summaries_combine_as_the_whole() {
    let cpu = Backend::cpu();
    let s = |v: &[f64]| warpkit::moments::summary(&cpu, v).unwrap();
    let mut rng = fresh_rng("dist combine");
    let x: Vec<f64> = random_vec::<f64>(&mut rng, 1001)
        .iter()
        .map(|v| 1e9 + v)
        .collect();
    for cut in [1, 500, 1000] {
        let (a, b) = (s(&x[..cut]), s(&x[cut..]));
        let (whole, both) = (s(&x), a.combine(b));
        assert_eq!(
            (both.count, both.min, both.max),
            (whole.count, whole.min, whole.max)
        );
        assert!((both.mean - whole.mean).abs() <= 1e-12 * whole.mean);
        // The means' difference is known to their rounding (an ulp of 1e9 is 1.2e-7), which
        // the update's δ² term carries: that, not the sums of squares, bounds m2's error.
        let (na, nb) = (a.count as f64, b.count as f64);
        let delta = (b.mean - a.mean).abs();
        let bound = 4.0 * f64::EPSILON * whole.mean * delta * na * nb / (na + nb) + 1e-12 * whole.m2;
        assert!(
            (both.m2 - whole.m2).abs() <= bound,
            "{} against {}, cut {cut}",
            both.m2,
            whole.m2
        );
    }
    let inf = s(&[1.0, f64::INFINITY]).combine(s(&[2.0]));
    assert_eq!(inf.mean, f64::INFINITY);
    assert!(inf.m2.is_nan());
    assert!(s(&[f64::INFINITY]).combine(s(&[f64::NEG_INFINITY])).mean.is_nan());
}

/// The launcher starts every rank with its variables (rank, world, local rank, one id file of
/// the run for all, multicast off) and removes the run's directory after; the first rank to
/// fail stops the others at once and is reported; a program that cannot start, or a world of
/// none, is an error.
#[test]
fn the_launcher_starts_ranks_and_stops_them() {
    use std::ffi::OsString;
    use warpkit::dist::{Ended, launch};
    let out = std::env::temp_dir().join(format!("warpkit-launch-test-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    let script = format!(
        "echo \"$RANK $WORLD_SIZE $LOCAL_RANK $LOCAL_WORLD_SIZE $NCCL_NVLS_ENABLE $WARPKIT_NCCL_ID_FILE\" > {}/$RANK",
        out.display()
    );
    let sh = |script: &str| -> Vec<OsString> { vec!["-c".into(), script.into()] };
    assert_eq!(launch(3, "sh", &sh(&script)).unwrap(), Ended::Succeeded);
    let seen: Vec<Vec<String>> = (0..3)
        .map(|r| {
            let line = std::fs::read_to_string(out.join(r.to_string())).unwrap();
            line.split_whitespace().map(String::from).collect()
        })
        .collect();
    for (r, fields) in seen.iter().enumerate() {
        let r = r.to_string();
        assert_eq!(fields[..5], [&r, "3", &r, "3", "0"], "rank {r}");
        assert_eq!(fields[5], seen[0][5], "rank {r}: the id file");
    }
    let run_dir = std::path::Path::new(&seen[0][5]).parent().unwrap();
    assert!(!run_dir.exists(), "{run_dir:?} left behind");
    std::fs::remove_dir_all(&out).unwrap();

    let start = Instant::now();
    let ended = launch(4, "sh", &sh("if [ \"$RANK\" = 2 ]; then exit 3; fi; sleep 60")).unwrap();
    match ended {
        Ended::RankFailed { rank: 2, status } => assert_eq!(status.code(), Some(3)),
        other => panic!("{other:?}"),
    }
    assert!(start.elapsed() < Duration::from_secs(30), "{:?}", start.elapsed());

    assert!(matches!(
        launch(2, "/nonexistent/warpkit-rank", &[]),
        Err(Error::Launch(_))
    ));
    assert!(matches!(launch(0, "sh", &[]), Err(Error::OutOfRange { .. })));
}

/// What an NCCL group is set up from, checked before NCCL is loaded: ids in hex (round trip,
/// wrong lengths and digits refused), an id file another rank wrote, one never written (an
/// error after the timeout), a rank outside its world, the emulator as a rank's device, and a
/// process that no launcher started.
#[test]
fn nccl_set_up_is_checked_first() {
    use warpkit::dist::{NcclGroup, UniqueId};
    let hex: String = (0..128u32)
        .map(|i| format!("{:02x}", (i * 37 + 5) % 256))
        .collect();
    let id = UniqueId::from_hex(&hex).unwrap();
    assert_eq!(id.to_hex(), hex);
    assert_eq!(UniqueId::from_hex(&format!("  {hex}\n")), Some(id));
    assert_eq!(UniqueId::from_hex(&hex[2..]), None);
    assert_eq!(UniqueId::from_hex(&hex.replace('5', "g")), None);
    assert_eq!(UniqueId::from_hex(&format!("{}é", &hex[..254])), None);

    let file = std::env::temp_dir().join(format!("warpkit-id-test-{}", std::process::id()));
    std::fs::write(&file, &hex).unwrap();
    assert_eq!(
        UniqueId::share_through_file(&file, 1, Duration::from_secs(1)).unwrap(),
        id
    );
    std::fs::remove_file(&file).unwrap();
    assert!(matches!(
        UniqueId::share_through_file(&file, 1, Duration::from_millis(50)),
        Err(Error::Environment { .. })
    ));

    let emulator = warpkit::Device::emulator();
    assert!(matches!(
        NcclGroup::from_rank(&emulator, 2, 2, &id, Duration::from_secs(1)),
        Err(Error::OutOfRange { .. })
    ));
    assert!(matches!(
        NcclGroup::from_rank(&emulator, 0, 0, &id, Duration::from_secs(1)),
        Err(Error::OutOfRange { .. })
    ));
    assert!(matches!(
        NcclGroup::from_rank(&emulator, 0, 2, &id, Duration::from_secs(1)),
        Err(Error::NcclUnavailable(_))
    ));
    if std::env::var_os("RANK").is_none() {
        assert!(matches!(
            NcclGroup::from_env(Duration::from_secs(1)),
            Err(Error::Environment { name: "RANK", .. })
        ));
    }
}

/// Collectives of device buffers over a group of threads (the host-staged default every group
/// but NCCL's uses), on the emulator: sums of u32 (wrapping) and f64 in rank order, gathers in
/// rank order, into poisoned outputs; `dist::reduce::sum_into` on them; parts of different
/// lengths are `RanksDisagree` on every rank, an output of the wrong length `LengthMismatch` on
/// its rank and `RankFailed` on the others; all-to-alls of device buffers; a rank whose own
/// work fails before a collective tells the others in it.
#[test]
fn device_collectives_over_threads() {
    let device = warpkit::Device::emulator();
    let n = 1000;
    let ints = |r: u32| -> Vec<u32> { (0..n).map(|i| (i as u32).wrapping_mul(0x9e37_79b9) ^ r).collect() };
    let reals = |r: u32| -> Vec<f64> { (0..n).map(|i| (i as f64).sqrt() + r as f64 * 0.1).collect() };
    for world in [1u32, 3] {
        let results = on_ranks(world, 0, |group, _| {
            let rank = group.rank();
            let part = device.upload(&ints(rank)).unwrap();
            let mut out = device.filled(n, 0xdead_beefu32).unwrap();
            group.all_reduce_sum(&device, &part, &mut out).unwrap();
            let mut gathered = device.filled(n * world as usize, 0xdead_beefu32).unwrap();
            group.all_gather_into(&device, &part, &mut gathered).unwrap();
            let x = device.upload(&reals(rank)).unwrap();
            let mut sum = device.filled(n, f64::NAN).unwrap();
            group.all_reduce_sum(&device, &x, &mut sum).unwrap();
            (
                device.download(&out).unwrap(),
                device.download(&gathered).unwrap(),
                device.download(&sum).unwrap(),
            )
        });
        let sum_u32: Vec<u32> = (0..n)
            .map(|i| (0..world).fold(0u32, |a, r| a.wrapping_add(ints(r)[i])))
            .collect();
        let sum_f64: Vec<f64> = (0..n)
            .map(|i| (0..world).fold(0.0, |a, r| a + reals(r)[i]))
            .collect();
        let all: Vec<u32> = (0..world).flat_map(ints).collect();
        for (rank, (sums, gathered, reals)) in results.iter().enumerate() {
            assert_eq!(sums, &sum_u32, "{world} ranks, rank {rank}");
            assert_eq!(gathered, &all, "{world} ranks, rank {rank}");
            assert_eq!(reals, &sum_f64, "{world} ranks, rank {rank}");
        }
    }
    // Sums of device buffers, left on the device: u32 exact, f64 within 1e-12.
    let x: Vec<f64> = (0..10_007).map(|i| (i as f64).sqrt()).collect();
    let words: Vec<u32> = (0..10_007u32).map(|i| i.wrapping_mul(0x9e37_79b9)).collect();
    let sums = on_ranks(3, x.len(), |group, part| {
        let mut total = device.filled(1, f64::NAN).unwrap();
        let d = device.upload(&x[part.clone()]).unwrap();
        dist::reduce::sum_into(group, &device, &d, &mut total).unwrap();
        let mut wrapped = device.filled(1, 0xdead_beefu32).unwrap();
        let w = device.upload(&words[part]).unwrap();
        dist::reduce::sum_into(group, &device, &w, &mut wrapped).unwrap();
        (
            device.download(&total).unwrap()[0],
            device.download(&wrapped).unwrap()[0],
        )
    });
    let (sum, wrapped) = (
        x.iter().sum::<f64>(),
        words.iter().fold(0u32, |a, &w| a.wrapping_add(w)),
    );
    for (total, w) in sums {
        assert!((total - sum).abs() <= 1e-12 * sum, "{total} against {sum}");
        assert_eq!(w, wrapped);
    }
    // All-to-all of device buffers: rank `r` sends rank `d` `r + 2d` elements `1000r + d`;
    // a rank whose counts do not sum to its buffer fails, the others learn it.
    for world in [1u32, 3] {
        let results = on_ranks(world, 0, |group, _| {
            let r = group.rank();
            let sends: Vec<usize> = (0..world).map(|d| (r + 2 * d) as usize).collect();
            let data: Vec<u32> = (0..world)
                .flat_map(|d| std::iter::repeat_n(1000 * r + d, (r + 2 * d) as usize))
                .collect();
            let part = device.upload(&data).unwrap();
            let (got, counts) = group.all_to_all_device(&device, &part, &sends).unwrap();
            (device.download(&got).unwrap(), counts)
        });
        for (d, (got, counts)) in results.into_iter().enumerate() {
            let d = d as u32;
            let want: Vec<u32> = (0..world)
                .flat_map(|r| std::iter::repeat_n(1000 * r + d, (r + 2 * d) as usize))
                .collect();
            let want_counts: Vec<usize> = (0..world).map(|r| (r + 2 * d) as usize).collect();
            assert_eq!((got, counts), (want, want_counts), "{world} ranks, rank {d}");
        }
    }
    // A rank whose own work fails before a collective (here its device out of memory) gets
    // its error, the others `RankFailed`, at once rather than at the timeout.
    let start = Instant::now();
    let results = on_ranks(3, 0, |group, _| {
        let mine = warpkit::Device::emulator();
        let (keys, x) = (
            mine.upload(&[3u32, 1, 2]).unwrap(),
            mine.upload(&[1.0f64]).unwrap(),
        );
        let split = Multisplit::new(Buckets::Modulo(3)).unwrap();
        // Rank 1's next allocation fails, before each call.
        let fail = || mine.fail_allocation((group.rank() == 1) as u64);
        fail();
        let extreme = dist::reduce::extreme_of_buffer(group, &mine, &x, true).map(drop);
        fail();
        let moments = dist::reduce::moments_of_buffer(group, &mine, &x).map(drop);
        fail();
        let multisplit = dist::multisplit::keys_on_device(group, &mine, &split, &keys).map(drop);
        [extreme, moments, multisplit]
    });
    for (rank, calls) in results.iter().enumerate() {
        for r in calls {
            match rank {
                1 => assert!(matches!(r, Err(Error::OutOfMemory)), "{r:?}"),
                _ => assert!(matches!(r, Err(Error::RankFailed { rank: 1 })), "{r:?}"),
            }
        }
    }
    assert!(start.elapsed() < Duration::from_secs(30), "{:?}", start.elapsed());
    let results = on_ranks(3, 0, |group, _| {
        let part = device.upload(&[7u32; 6]).unwrap();
        let sends = if group.rank() == 2 {
            vec![1, 2, 4]
        } else {
            vec![1, 2, 3]
        };
        group
            .all_to_all_device(&device, &part, &sends)
            .map(|(_, counts)| counts)
    });
    for (rank, r) in results.iter().enumerate() {
        match rank {
            2 => assert!(matches!(r, Err(Error::LengthMismatch { .. })), "{r:?}"),
            _ => assert!(matches!(r, Err(Error::RankFailed { rank: 2 })), "{r:?}"),
        }
    }
    let results = on_ranks(3, 0, |group, _| {
        let part = device
            .upload(&vec![1u32; 4 + (group.rank() == 1) as usize])
            .unwrap();
        let mut out = device.zeros::<u32>(part.len()).unwrap();
        group.all_reduce_sum(&device, &part, &mut out)
    });
    for r in results {
        assert!(matches!(r, Err(Error::RanksDisagree { rank: 1, .. })), "{r:?}");
    }
    let results = on_ranks(2, 0, |group, _| {
        let part = device.upload(&[1u32; 4]).unwrap();
        let mut out = device.zeros::<u32>(4 + group.rank() as usize).unwrap();
        group.all_reduce_sum(&device, &part, &mut out)
    });
    assert!(
        matches!(results[0], Err(Error::RankFailed { rank: 1 })),
        "{:?}",
        results[0]
    );
    assert!(
        matches!(results[1], Err(Error::LengthMismatch { .. })),
        "{:?}",
        results[1]
    );
}

/// Gathers of any number of values a rank (as sharded tables' samples are gathered): in rank
/// order on every rank, ranks with none included; a rank whose own call failed gets its error
/// and the others `RankFailed`, none waits.
#[test]
fn gathers_of_varied_lengths() {
    use warpkit::dist::all_gather_varied;
    let got = on_ranks(4, 0, |group, _| {
        all_gather_varied(group, Ok(vec![group.rank(); group.rank() as usize]))
    });
    for g in got {
        assert_eq!(g.unwrap(), [1, 2, 2, 3, 3, 3]);
    }
    let got = on_ranks(3, 0, |group, _| {
        let mine = if group.rank() == 1 {
            Err(Error::EmptyVector {
                what: "rank 1's part",
            })
        } else {
            Ok(vec![7u64])
        };
        all_gather_varied(group, mine)
    });
    assert!(
        matches!(got[0], Err(Error::RankFailed { rank: 1 })),
        "{:?}",
        got[0]
    );
    assert!(matches!(got[1], Err(Error::EmptyVector { .. })), "{:?}", got[1]);
    assert!(
        matches!(got[2], Err(Error::RankFailed { rank: 1 })),
        "{:?}",
        got[2]
    );
}
