//! Issue 45's collectives over NCCL, on every GPU of the host (two or more), a rank a thread
//! (`NcclGroup::from_devices`), by wall clock (each call returns when its work is done):
//! the all-reduce (sum) of 1 GiB of f32 in device buffers, against PyTorch's 329-355 GB/s bus
//! bandwidth on the same machines (criterion's throughput counts the bytes a rank reduces; the
//! line printed after gives the bus bandwidth, `2(n − 1)/n` of them a second); and the
//! host-staged all-gather of 64 bytes a rank that every distributed reduction and scan makes,
//! its latency. Without two GPUs and NCCL it says why and measures nothing.
//!
//! Then issue 45's three targets, everything in device memory, by wall clock through the
//! public calls (each returns when its work is done; allocations inside them counted), the
//! slowest rank's median of [`REPS`] starts made together: moments and sums of 2^30 f64 a GPU
//! against the sum of the GPUs' rates alone; a multisplit of 2^30 u32 keys a GPU into 256
//! buckets by their top bits, spread over the ranks, against the all-to-all of the same counts
//! (NCCL's grouped sends and receives, `Group::all_to_all_device`); 4·10^9 samples of a
//! 10^9-row f32 table sharded over the GPUs against one GPU holding the whole table, in
//! rounds of 10^9 samples. `WARPKIT_DIST_BENCH_LOG2` (default 30) sets the 2^30, the tables
//! and samples scaling with it.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rand_core::{RngCore, SeedableRng};
use std::sync::Barrier;
use std::time::{Duration, Instant};
use warpkit::alias::{AliasTable, SampleOptions};
use warpkit::dist::{self, Group, NcclGroup, Partition, ShardedTable, UniqueId, all_gather};
use warpkit::moments::summary_of_buffer;
use warpkit::multisplit::{Buckets, Multisplit};
use warpkit::{Device, DeviceBuffer, Gpu, Philox};
use warpkit_benches::brief;

/// f32s reduced: 1 GiB.
const N: usize = 1 << 28;

/// A rank: its group handle and buffers, moved to a thread of its own for each measurement.
struct Rank {
    group: NcclGroup,
    part: DeviceBuffer<f32>,
    out: DeviceBuffer<f32>,
}

/// Runs `work` `iters` times on every rank at once, a thread each; the slowest rank's time.
fn on_ranks(ranks: &mut Vec<Rank>, iters: u64, work: impl Fn(&mut Rank) + Sync) -> Duration {
    let work = &work;
    let (back, slowest) = std::thread::scope(|scope| {
        let threads: Vec<_> = std::mem::take(ranks)
            .into_iter()
            .map(|mut rank| {
                scope.spawn(move || {
                    let t = Instant::now();
                    for _ in 0..iters {
                        work(&mut rank);
                    }
                    (rank, t.elapsed())
                })
            })
            .collect();
        let done: Vec<_> = threads.into_iter().map(|t| t.join().expect("a rank")).collect();
        let slowest = done.iter().map(|d| d.1).max().unwrap_or_default();
        (done.into_iter().map(|d| d.0).collect(), slowest)
    });
    *ranks = back;
    slowest
}

fn ranks_or_why() -> Result<Vec<Rank>, String> {
    let count = Gpu::count().map_err(|e| e.to_string())?;
    if count < 2 {
        return Err(format!("{count} GPU(s); the collectives need two or more"));
    }
    UniqueId::new().map_err(|e| e.to_string())?;
    let devices = (0..count)
        .map(Device::gpu)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    let groups = NcclGroup::from_devices(&devices, NcclGroup::DEFAULT_TIMEOUT).map_err(|e| e.to_string())?;
    groups
        .into_iter()
        .map(|group| {
            let device = group.device().clone();
            let part = device.filled(N, 1.0f32).map_err(|e| e.to_string())?;
            let out = device.zeros::<f32>(N).map_err(|e| e.to_string())?;
            Ok(Rank { group, part, out })
        })
        .collect()
}

fn dist(c: &mut Criterion) {
    let mut ranks = match ranks_or_why() {
        Ok(ranks) => ranks,
        Err(why) => {
            println!("dist: nothing measured: {why}");
            return;
        }
    };
    let world = ranks.len();
    println!("dist: {world} ranks on {}", ranks[0].group.device().describe());
    // A rank that panics outside a collective would leave the others at a barrier for ever:
    // a panic ends the process.
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        report(info);
        std::process::abort();
    }));
    let reduce = |rank: &mut Rank| {
        let Rank { group, part, out } = rank;
        group
            .all_reduce_sum(&group.device().clone(), part, out)
            .expect("all-reduce");
    };
    let mut group = c.benchmark_group("dist");
    brief(&mut group);
    group.throughput(Throughput::Bytes((N * 4) as u64));
    let label = format!("1 GiB f32, {world} GPUs");
    group.bench_function(BenchmarkId::new("all_reduce_sum (wall clock)", &label), |b| {
        b.iter_custom(|iters| on_ranks(&mut ranks, iters, reduce))
    });
    group.throughput(Throughput::Elements(1));
    group.bench_function(
        BenchmarkId::new("all_gather 64 B (wall clock)", format!("{world} GPUs")),
        |b| {
            b.iter_custom(|iters| {
                on_ranks(&mut ranks, iters, |rank| {
                    std::hint::black_box(
                        all_gather(&rank.group, &[rank.group.rank() as u64; 8]).expect("gather"),
                    );
                })
            })
        },
    );
    group.finish();
    let calls = 10;
    let took = on_ranks(&mut ranks, calls, reduce).as_secs_f64() / calls as f64;
    let bus = 2.0 * (world - 1) as f64 / world as f64 * (N * 4) as f64 / took;
    println!(
        "dist: all-reduce 1 GiB f32 over {world} GPUs: {:.3} ms a call, bus bandwidth {:.1} GB/s (PyTorch: 329-355)",
        took * 1e3,
        bus / 1e9
    );
    let mut groups: Vec<NcclGroup> = ranks.into_iter().map(|r| r.group).collect();
    let log2 = std::env::var("WARPKIT_DIST_BENCH_LOG2")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(30u32);
    moments_and_sums(&mut groups, 1 << log2);
    multisplit(&mut groups, 1 << log2);
    sampling(&mut groups, (1e9 / 2f64.powi(30 - log2 as i32)) as usize);
}

/// Timed repetitions of each measurement of the targets.
const REPS: usize = 5;

/// Runs `work` on every rank at once, a thread each with its group and a barrier of all of
/// them; the results in rank order.
fn each_rank<R: Send>(
    groups: &mut Vec<NcclGroup>,
    work: impl Fn(&NcclGroup, &Barrier) -> R + Sync,
) -> Vec<R> {
    let barrier = Barrier::new(groups.len());
    let (work, barrier) = (&work, &barrier);
    let (back, results): (Vec<_>, Vec<_>) = std::thread::scope(|scope| {
        let threads: Vec<_> = std::mem::take(groups)
            .into_iter()
            .map(|group| {
                scope.spawn(move || {
                    let result = work(&group, barrier);
                    (group, result)
                })
            })
            .collect();
        threads.into_iter().map(|t| t.join().expect("a rank")).unzip()
    });
    *groups = back;
    results
}

/// [`REPS`] times of `call` after one untimed call, each started with the other ranks
/// (`barrier`; `Barrier::new(1)` for a GPU alone).
fn timed(barrier: &Barrier, mut call: impl FnMut()) -> Vec<Duration> {
    call();
    (0..REPS)
        .map(|_| {
            barrier.wait();
            let t = Instant::now();
            call();
            t.elapsed()
        })
        .collect()
}

/// The median over the repetitions of the slowest rank's time, in seconds.
fn slowest_median(per_rank: &[Vec<Duration>]) -> f64 {
    let mut slowest: Vec<f64> = (0..REPS)
        .map(|i| {
            per_rank
                .iter()
                .map(|r| r[i])
                .max()
                .unwrap_or_default()
                .as_secs_f64()
        })
        .collect();
    slowest.sort_by(f64::total_cmp);
    slowest[REPS / 2]
}

/// `n` values a rank from a generator seeded by the rank.
fn random_words(rank: u32, n: usize) -> Vec<u32> {
    let mut rng = Philox::seed_from_u64(rank as u64);
    (0..n).map(|_| rng.next_u32()).collect()
}

/// Moments and sums of `n` f64 a GPU: the ranks together against the sum of each GPU's rate
/// alone (target: at least 0.95 of it).
fn moments_and_sums(groups: &mut Vec<NcclGroup>, n: usize) {
    let world = groups.len();
    let parts = each_rank(groups, |group, _| {
        let x: Vec<f64> = random_words(group.rank(), n).iter().map(|&w| w as f64).collect();
        group.device().upload(&x).expect("upload")
    });
    let devices: Vec<Device> = groups.iter().map(|g| g.device().clone()).collect();
    let alone = Barrier::new(1);
    let mut rates = [0.0f64; 2];
    for (device, part) in devices.iter().zip(&parts) {
        let mut out = device.zeros::<f64>(1).expect("output");
        let t = slowest_median(&[timed(&alone, || {
            summary_of_buffer(device, part).expect("moments");
        })]);
        rates[0] += n as f64 / t;
        let t = slowest_median(&[timed(&alone, || {
            device.sum_into(part, &mut out).expect("sum");
            device.download(&out).expect("sum back");
        })]);
        rates[1] += n as f64 / t;
    }
    let parts = &parts;
    let times = each_rank(groups, |group, barrier| {
        let (device, part) = (group.device(), &parts[group.rank() as usize]);
        let mut out = device.zeros::<f64>(1).expect("output");
        let moments = timed(barrier, || {
            dist::reduce::moments_of_buffer(group, device, part).expect("moments");
        });
        let sums = timed(barrier, || {
            dist::reduce::sum_into(group, device, part, &mut out).expect("sum");
            device.download(&out).expect("sum back");
        });
        (moments, sums)
    });
    let (moments, sums): (Vec<_>, Vec<_>) = times.into_iter().unzip();
    for (what, per_rank, alone) in [("moments", moments, rates[0]), ("sum", sums, rates[1])] {
        let together = (world * n) as f64 / slowest_median(&per_rank);
        println!(
            "dist: {what} of 2^{} f64 a GPU over {world} GPUs: {:.1} G elements/s against {:.1} summed alone: {:.3} (target 0.95)",
            n.ilog2(),
            together / 1e9,
            alone / 1e9,
            together / alone
        );
    }
}

/// A multisplit of `n` u32 keys a GPU into 256 buckets by their top bits, owned by the ranks
/// as `Partition` cuts them, against the all-to-all of the same counts (target: at least 0.7
/// of its rate).
fn multisplit(groups: &mut Vec<NcclGroup>, n: usize) {
    let world = groups.len();
    let split = Multisplit::new(Buckets::BitField { shift: 24, bits: 8 }).expect("split");
    let owners = Partition::new(256, world as u32).expect("owners");
    let times = each_rank(groups, |group, barrier| {
        let device = group.device();
        let keys = device.upload(&random_words(group.rank(), n)).expect("upload");
        let whole = timed(barrier, || {
            dist::multisplit::keys_on_device(group, device, &split, &keys).expect("multisplit");
        });
        let mut local = device.zeros::<u32>(n).expect("local");
        let bounds = split.keys_into(device, &keys, &mut local).expect("local split");
        let sends = dist::multisplit::counts_by_rank(&owners, &bounds).expect("counts");
        let exchange = timed(barrier, || {
            group
                .all_to_all_device(device, &local, &sends)
                .expect("all-to-all");
        });
        (whole, exchange)
    });
    let (whole, exchange): (Vec<_>, Vec<_>) = times.into_iter().unzip();
    let (t_split, t_bound) = (slowest_median(&whole), slowest_median(&exchange));
    println!(
        "dist: multisplit of 2^{} u32 keys a GPU into 256 buckets over {world} GPUs: {:.2} ms, {:.1} G keys/s a GPU; the all-to-all of the same counts {:.2} ms: {:.3} of its rate (target 0.7)",
        n.ilog2(),
        t_split * 1e3,
        n as f64 / t_split / 1e9,
        t_bound * 1e3,
        t_bound / t_split
    );
}

/// `4·rows` samples of a table of `rows` f32 weights: sharded over the ranks against one GPU
/// holding the whole table (target: at least 0.95 × the GPUs of its rate), in rounds of
/// `rows` samples.
fn sampling(groups: &mut Vec<NcclGroup>, rows: usize) {
    let world = groups.len();
    let weight = |w: u32| (w >> 8) as f32 + 1.0;
    let alone = {
        let device = groups[0].device().clone();
        let weights: Vec<f32> = random_words(0, rows).into_iter().map(weight).collect();
        let table =
            AliasTable::from_device(&device, &device.upload(&weights).expect("upload")).expect("table");
        let mut out = device.zeros::<u32>(rows).expect("samples");
        let mut rng = Philox::seed_from_u64(7);
        slowest_median(&[timed(&Barrier::new(1), || {
            for _ in 0..4 {
                table
                    .sample_into(&mut rng, &mut out, SampleOptions::default())
                    .expect("samples");
            }
            device.synchronize().expect("sampled");
        })])
    };
    let times = each_rank(groups, |group, barrier| {
        let device = group.device();
        let shard = Partition::new(rows as u64, world as u32)
            .expect("shards")
            .range(group.rank());
        let weights: Vec<f32> = random_words(0, rows)[shard.start as usize..shard.end as usize]
            .iter()
            .map(|&w| weight(w))
            .collect();
        let shard = device.upload(&weights).expect("upload");
        let table = ShardedTable::from_device(group, device, &shard).expect("sharded table");
        let mut rng = Philox::seed_from_u64(7);
        timed(barrier, || {
            for _ in 0..4 {
                table
                    .sample_on_device(device, &mut rng, rows as u64, SampleOptions::default())
                    .expect("samples");
            }
            device.synchronize().expect("sampled");
        })
    });
    let together = slowest_median(&times);
    let samples = 4.0 * rows as f64;
    println!(
        "dist: {samples:.2e} samples of a {rows}-row f32 table: one GPU {:.1} G/s, sharded over {world} GPUs {:.1} G/s: {:.2}x (target 1.9x on 2)",
        samples / alone / 1e9,
        samples / together / 1e9,
        alone / together
    );
}

criterion_group!(benches, dist);
criterion_main!(benches);
