//! Issue 45's collectives over NCCL, on every GPU of the host (two or more), a rank a thread
//! (`NcclGroup::from_devices`), by wall clock (each call returns when its work is done):
//! the all-reduce (sum) of 1 GiB of f32 in device buffers, against PyTorch's 329-355 GB/s bus
//! bandwidth on the same machines (criterion's throughput counts the bytes a rank reduces; the
//! line printed after gives the bus bandwidth, `2(n − 1)/n` of them a second); and the
//! host-staged all-gather of 64 bytes a rank that every distributed reduction and scan makes,
//! its latency. Without two GPUs and NCCL it says why and measures nothing.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::time::{Duration, Instant};
use warpkit::dist::{Group, NcclGroup, UniqueId, all_gather};
use warpkit::{Device, DeviceBuffer, Gpu};
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
}

criterion_group!(benches, dist);
criterion_main!(benches);
