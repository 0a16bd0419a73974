//! The distributed primitives over NCCL (`warpkit::dist::NcclGroup`), on every GPU of the host
//! (at least two; skipped, and said so, with fewer): the ranks as threads of this process
//! (`NcclGroup::from_devices`) and as processes the launcher starts (`launch`, running this
//! test binary's `rank_process` in each). Each rank holds its part of data every rank makes from
//! one seed, computes on its own GPU, and checks its results against the whole on the CPU: sums
//! (f64 within 1e-12 relative, u32 exact), extremes exact, moments (mean within 1e-12 relative,
//! m2 within 1e-10), its part of the exclusive scan (u32 exact), its buckets of the multisplit
//! (exact, stable), a sharded table's samples in its shard and the counts of all ranks within
//! the chi-square bound at significance 1e-6, ragged all-to-alls byte for byte (of host bytes and
//! of device buffers), the device-buffer forms (extremes, moments, multisplit keys and pairs, a
//! sharded table built and drawn on the device) equal to the host ones, and different
//! amounts as `RanksDisagree` on every rank. A rank that never arrives makes the other's
//! collective time out, and that rank's later ones `RankLeft`; none hangs.

use std::ffi::OsString;
use std::io::Write;
use std::sync::{Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};
use warpkit::alias::SampleOptions;
use warpkit::dist::{self, Ended, Group, NcclGroup, Partition, ShardedTable, all_gather, launch};
use warpkit::multisplit::{Buckets, Multisplit};
use warpkit::rand_core::{RngCore, SeedableRng};
use warpkit::{Backend, Device, Error, Gpu, Philox};
use warpkit_tests::chi_square_critical;

/// The host's GPUs if there are two or more (`None` otherwise, said on stderr), held by this
/// test alone (two tests' communicators queuing on the same streams could wait on each other).
/// With `in_process`, NCCL must load here too: two GPUs without NCCL fail the test, unless
/// `WARPKIT_TEST_NCCL=optional` says that the machine has none.
fn gpus_or_skip(test: &str, in_process: bool) -> Option<(MutexGuard<'static, ()>, Vec<Device>)> {
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
    let skip = |why: String| {
        // Straight to stderr, past the harness's capture, so that it shows when the test passes.
        let _ = writeln!(std::io::stderr(), "\nSKIPPED: {test}: {why}");
        None
    };
    let count = match Gpu::count() {
        Ok(n) if n >= 2 => n,
        Ok(n) => return skip(format!("{n} GPU(s); NCCL's tests need two or more")),
        Err(e) => return skip(e.to_string()),
    };
    if in_process && let Err(e) = dist::UniqueId::new() {
        if std::env::var("WARPKIT_TEST_NCCL").is_ok_and(|v| v == "optional") {
            return skip(e.to_string());
        }
        panic!("{count} GPUs but no NCCL here ({e}); WARPKIT_TEST_NCCL=optional skips");
    }
    let gpus = (0..count).map(Device::gpu).collect::<warpkit::Result<_>>();
    let alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    gpus.map_or_else(|e| skip(e.to_string()), |gpus| Some((alone, gpus)))
}

/// Every rank's checks, against the whole each rank makes from `seed`.
fn battery(group: &NcclGroup, seed: u64) {
    let (rank, world) = (group.rank(), group.world());
    let label = format!("rank {rank} of {world}");
    let backend = Backend::Device(group.device().clone());
    let mut rng = Philox::seed_from_u64(seed);
    let n = 100_003;
    let x: Vec<f64> = (0..n)
        .map(|_| 1e6 + (rng.next_u32() as f64) / 2f64.powi(32))
        .collect();
    let words: Vec<u32> = (0..n).map(|_| rng.next_u32()).collect();
    let part = Partition::new(n as u64, world).unwrap().range(rank);
    let part = part.start as usize..part.end as usize;

    let sum: f64 = x.iter().sum();
    let got = dist::reduce::sum(group, &backend, &x[part.clone()]).unwrap();
    assert!(
        (got - sum).abs() <= 1e-12 * sum,
        "{label}: sum {got} against {sum}"
    );
    let mut total = group.device().filled(1, f64::NAN).unwrap();
    let on_device = group.device().upload(&x[part.clone()]).unwrap();
    dist::reduce::sum_into(group, group.device(), &on_device, &mut total).unwrap();
    let got = group.device().download(&total).unwrap()[0];
    assert!(
        (got - sum).abs() <= 1e-12 * sum,
        "{label}: sum_into {got} against {sum}"
    );
    let got = dist::reduce::sum(group, &backend, &words[part.clone()]).unwrap();
    assert_eq!(got, words.iter().fold(0u32, |a, &w| a.wrapping_add(w)), "{label}");
    let (min, max) = (
        x.iter().copied().fold(f64::INFINITY, f64::min),
        x.iter().copied().fold(0.0, f64::max),
    );
    assert_eq!(
        dist::reduce::min(group, &backend, &x[part.clone()]).unwrap(),
        min,
        "{label}"
    );
    assert_eq!(
        dist::reduce::max(group, &backend, &x[part.clone()]).unwrap(),
        max,
        "{label}"
    );
    let m = dist::reduce::moments(group, &backend, &x[part.clone()]).unwrap();
    let mean = sum / n as f64;
    let m2: f64 = x.iter().map(|v| (v - mean) * (v - mean)).sum();
    assert_eq!((m.count, m.min, m.max), (n as u64, min, max), "{label}");
    assert!((m.mean - mean).abs() <= 1e-12 * mean, "{label}: mean {}", m.mean);
    assert!(
        (m.m2 - m2).abs() <= 1e-10 * m2,
        "{label}: m2 {} against {m2}",
        m.m2
    );

    let scanned = dist::scan::exclusive_scan(group, &backend, &words[part.clone()]).unwrap();
    let before = words[..part.start].iter().fold(0u32, |a, &w| a.wrapping_add(w));
    let want: Vec<u32> = words[part.clone()]
        .iter()
        .scan(before, |run, &w| {
            let at = *run;
            *run = run.wrapping_add(w);
            Some(at)
        })
        .collect();
    assert_eq!(scanned, want, "{label}: scan");

    let split = Multisplit::new(Buckets::Modulo(7)).unwrap();
    let got = dist::multisplit::keys(group, &backend, &split, &words[part.clone()]).unwrap();
    let mine = Partition::new(7, world).unwrap().range(rank);
    for (i, b) in (mine.start..mine.end).enumerate() {
        let want: Vec<u32> = words.iter().copied().filter(|&k| (k % 7) as u64 == b).collect();
        let (at, count) = (got.offsets[i] as usize, got.counts[i] as usize);
        assert_eq!(&got.keys[at..at + count], &want[..], "{label}: bucket {b}");
    }

    let index: Vec<u64> = (0..n as u64).collect();
    let paired = dist::multisplit::pairs(
        group,
        &backend,
        &split,
        &words[part.clone()],
        &index[part.clone()],
    )
    .unwrap();
    assert_eq!(paired.keys, got.keys, "{label}: pairs");
    assert!(
        paired
            .values
            .iter()
            .zip(&paired.keys)
            .all(|(&i, &key)| words[i as usize] == key),
        "{label}: values"
    );

    // The same with everything in device memory: extremes and moments of buffers equal the
    // slices' to the bit; the multisplit's keys and values moved by NCCL's sends and receives.
    let d_x = group.device().upload(&x[part.clone()]).unwrap();
    assert_eq!(
        (
            dist::reduce::extreme_of_buffer(group, group.device(), &d_x, true).unwrap(),
            dist::reduce::extreme_of_buffer(group, group.device(), &d_x, false).unwrap(),
            dist::reduce::moments_of_buffer(group, group.device(), &d_x).unwrap(),
        ),
        (min, max, m),
        "{label}: of buffers"
    );
    let d_keys = group.device().upload(&words[part.clone()]).unwrap();
    let d_index = group.device().upload(&index[part.clone()]).unwrap();
    let (keys, bounds) = dist::multisplit::keys_on_device(group, group.device(), &split, &d_keys).unwrap();
    assert_eq!(
        (
            group.device().download(&keys).unwrap(),
            bounds.offsets,
            bounds.counts
        ),
        (got.keys.clone(), got.offsets.clone(), got.counts.clone()),
        "{label}: keys on the device"
    );
    let (keys, values, bounds) =
        dist::multisplit::pairs_on_device(group, group.device(), &split, &d_keys, &d_index).unwrap();
    assert_eq!(
        (
            group.device().download(&keys).unwrap(),
            group.device().download(&values).unwrap(),
            bounds.counts
        ),
        (paired.keys, paired.values, paired.counts),
        "{label}: pairs on the device"
    );

    let k = 300;
    let weights: Vec<f64> = (1..=k).map(|i| i as f64).collect();
    let shard = Partition::new(k as u64, world).unwrap().range(rank);
    let table = ShardedTable::new(
        group,
        &backend,
        &weights[shard.start as usize..shard.end as usize],
    )
    .unwrap();
    let s = 200_000u64;
    let drawn = table
        .sample(&mut Philox::seed_from_u64(seed ^ 1), s, SampleOptions::default())
        .unwrap();
    assert!(
        drawn.iter().all(|&row| shard.contains(&row)),
        "{label}: a sample outside the shard"
    );
    let gathered = table
        .sample_gathered(
            group,
            &mut Philox::seed_from_u64(seed ^ 1),
            s,
            SampleOptions::default(),
        )
        .unwrap();
    assert_eq!(gathered.len() as u64, s, "{label}: gathered");
    assert!(
        gathered.iter().all(|&row| row < k as u64),
        "{label}: gathered rows"
    );
    // The table built from and drawn into device memory: the same samples.
    let d_shard = group
        .device()
        .upload(&weights[shard.start as usize..shard.end as usize])
        .unwrap();
    let on_device = ShardedTable::from_device(group, group.device(), &d_shard).unwrap();
    let rows = on_device
        .sample_on_device(
            group.device(),
            &mut Philox::seed_from_u64(seed ^ 1),
            s,
            SampleOptions::default(),
        )
        .unwrap();
    let rows = group.device().download(&rows).unwrap();
    assert!(
        rows.iter()
            .map(|&r| shard.start + r as u64)
            .eq(drawn.iter().copied()),
        "{label}: samples drawn on the device"
    );
    let mut counts = vec![0u64; k];
    for row in drawn {
        counts[row as usize] += 1;
    }
    let counts: Vec<u64> = all_gather(group, &counts).unwrap();
    let counts: Vec<u64> = (0..k).map(|i| counts.iter().skip(i).step_by(k).sum()).collect();
    assert_eq!(counts.iter().sum::<u64>(), s, "{label}");
    let whole = (k * (k + 1) / 2) as f64;
    let chi2: f64 = (0..k)
        .map(|i| {
            let expected = s as f64 * (i + 1) as f64 / whole;
            (counts[i] as f64 - expected).powi(2) / expected
        })
        .sum();
    assert!(
        chi2 < chi_square_critical((k - 1) as f64),
        "{label}: chi-square {chi2}"
    );

    // Device buffers: sums of u32 (wrapping) and of f64 integers (exact in any order), and
    // the gather, into poisoned outputs.
    let device = group.device();
    let ints = |r: u32| -> Vec<u32> {
        (0..100_000u32)
            .map(|i| i.wrapping_mul(0x9e37_79b9).wrapping_add(r))
            .collect()
    };
    let part = device.upload(&ints(rank)).unwrap();
    let mut out = device.filled(100_000, 0xdead_beefu32).unwrap();
    group.all_reduce_sum(device, &part, &mut out).unwrap();
    let want: Vec<u32> = (0..100_000)
        .map(|i| (0..world).fold(0u32, |a, r| a.wrapping_add(ints(r)[i])))
        .collect();
    assert_eq!(device.download(&out).unwrap(), want, "{label}: all-reduce u32");
    let reals = device.upload(&vec![rank as f64 + 0.5; 4097]).unwrap();
    let mut sum = device.filled(4097, f64::NAN).unwrap();
    group.all_reduce_sum(device, &reals, &mut sum).unwrap();
    let whole = (0..world).map(|r| r as f64 + 0.5).sum::<f64>();
    assert!(
        device.download(&sum).unwrap().iter().all(|&x| x == whole),
        "{label}: all-reduce f64"
    );
    let mut gathered = device.filled(100_000 * world as usize, 0xdead_beefu32).unwrap();
    group.all_gather_into(device, &part, &mut gathered).unwrap();
    assert_eq!(
        device.download(&gathered).unwrap(),
        (0..world).flat_map(ints).collect::<Vec<_>>(),
        "{label}: all-gather"
    );

    // Ragged parts: rank r sends rank d (r·7 + d·3) mod 11 bytes of value r·16 + d.
    let len = |r: u32, d: u32| ((r * 7 + d * 3) % 11) as usize;
    let sends: Vec<Vec<u8>> = (0..world)
        .map(|d| vec![(rank * 16 + d) as u8; len(rank, d)])
        .collect();
    let got = group.all_to_all_bytes(&sends).unwrap();
    for (r, part) in (0..).zip(&got) {
        assert_eq!(
            part,
            &vec![(r * 16 + rank) as u8; len(r, rank)],
            "{label}: from rank {r}"
        );
    }
    // The same ragged parts as u32 device buffers.
    let counts: Vec<usize> = (0..world).map(|d| len(rank, d)).collect();
    let data: Vec<u32> = (0..world)
        .flat_map(|d| std::iter::repeat_n(rank * 16 + d, len(rank, d)))
        .collect();
    let (got, from) = group
        .all_to_all_device(device, &device.upload(&data).unwrap(), &counts)
        .unwrap();
    let want: Vec<u32> = (0..world)
        .flat_map(|r| std::iter::repeat_n(r * 16 + rank, len(r, rank)))
        .collect();
    assert_eq!(
        device.download(&got).unwrap(),
        want,
        "{label}: all-to-all of buffers"
    );
    assert_eq!(
        from,
        (0..world).map(|r| len(r, rank)).collect::<Vec<_>>(),
        "{label}"
    );
    let mine = vec![rank; 1 + (rank == world - 1) as usize];
    match all_gather(group, &mine) {
        Err(Error::RanksDisagree { rank: r, .. }) => assert_eq!(r, world - 1, "{label}"),
        other => panic!("{label}: {other:?}"),
    }
    assert_eq!(
        all_gather(group, &[rank]).unwrap(),
        (0..world).collect::<Vec<_>>(),
        "{label}: after"
    );
}

#[test]
fn ranks_as_threads() {
    let Some((_alone, gpus)) = gpus_or_skip("NCCL ranks as threads", true) else {
        return;
    };
    let seed = warpkit_tests::fresh_rng("NCCL ranks as threads").next_u64();
    let groups = NcclGroup::from_devices(&gpus, NcclGroup::DEFAULT_TIMEOUT).unwrap();
    thread::scope(|scope| {
        for group in groups {
            scope.spawn(move || battery(&group, seed));
        }
    });
}

/// The launcher runs this binary's [`rank_process`] as a rank on each GPU.
#[test]
fn ranks_as_processes() {
    let Some((_alone, gpus)) = gpus_or_skip("NCCL ranks as processes", false) else {
        return;
    };
    let args: Vec<OsString> = ["rank_process", "--exact", "--ignored", "--nocapture"]
        .map(OsString::from)
        .into();
    let ended = launch(gpus.len() as u32, std::env::current_exe().unwrap(), &args).unwrap();
    assert_eq!(ended, Ended::Succeeded);
}

/// A rank of [`ranks_as_processes`]: ignored unless the launcher starts it.
#[test]
#[ignore = "a rank of ranks_as_processes, which runs it"]
fn rank_process() {
    if std::env::var_os("RANK").is_none() {
        println!("rank_process runs as a rank of ranks_as_processes only");
        return;
    }
    let group = NcclGroup::from_env(NcclGroup::DEFAULT_TIMEOUT).unwrap();
    battery(&group, 45);
}

#[test]
fn a_rank_that_never_arrives() {
    let Some((_alone, gpus)) = gpus_or_skip("NCCL timeouts", true) else {
        return;
    };
    let mut groups = NcclGroup::from_devices(&gpus[..2], NcclGroup::DEFAULT_TIMEOUT).unwrap();
    let (absent, mut present) = (groups.pop().unwrap(), groups.pop().unwrap());
    present.set_timeout(Duration::from_secs(2));
    let start = Instant::now();
    match all_gather(&present, &[1u64]) {
        Err(Error::CollectiveTimeout { world: 2, .. }) => {}
        other => panic!("{other:?}"),
    }
    assert!(start.elapsed() < Duration::from_secs(30), "{:?}", start.elapsed());
    assert!(matches!(
        all_gather(&present, &[1u64]),
        Err(Error::RankLeft { rank: 0 })
    ));
    drop(absent);
    // The device itself is unharmed.
    let device = present.device();
    assert_eq!(
        device.download(&device.upload(&[3u32, 4]).unwrap()).unwrap(),
        [3, 4]
    );
}
