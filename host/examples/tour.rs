//! warpkit's tour: every primitive on real-sized synthetic data, its result checked against a
//! plain sequential computation and its time printed. Runs on the GPU when there is one, on the
//! CPU otherwise; `tour cpu`, `tour gpu` or `tour emulator` forces a backend (the emulator runs
//! the GPU kernels on the CPU: slow, for debugging). `WARPKIT_TOUR_LEN=N` caps every size at N
//! elements (at least 1), for slow runs such as under compute-sanitizer; the checks stay.
//! `WARPKIT_TOUR_SOAK_SECS=S` repeats the tour in this one process until S seconds have passed
//! (a soak test), printing after each round the device's memory in use and the process's
//! resident memory, and fails if either grew between the first round and the last.
//! `WARPKIT_TOUR_ONLY=alias,som` runs only the parts named (of [`PARTS`]; the Philox stream,
//! the scan and the sum always run, as the others' inputs come from them): one primitive's
//! launches alone, e.g. for a profiler.

use std::io::Write;
use std::time::Instant;
use warpkit::alias::{AliasTable, SampleOptions, check_table};
use warpkit::convolve::Convolution;
use warpkit::lbp::{bins, histogram, histograms_into};
use warpkit::moments::{SUMMARY_WORDS, summary, summary_into};
use warpkit::multisplit::{Buckets, Multisplit};
use warpkit::rand_core::{RngCore, SeedableRng};
use warpkit::som::{Schedule, Som, Training, train_into};
use warpkit::subset::Subsets;
use warpkit::{Backend, Device, Error, Gpu, GpuTimer, Philox};

/// Elements per primitive: large enough to fill an H100, small enough for a laptop's CPU.
const N: usize = 1 << 26;

/// `WARPKIT_TOUR_LEN`: the most elements of any of the tour's inputs, where it is set.
fn len_cap() -> Result<Option<usize>, String> {
    match std::env::var("WARPKIT_TOUR_LEN") {
        Ok(v) if !v.trim().is_empty() => match v.trim().parse() {
            Ok(n) if n > 0 => Ok(Some(n)),
            _ => Err(format!(
                "WARPKIT_TOUR_LEN={v:?}: give a number of elements, at least 1"
            )),
        },
        _ => Ok(None),
    }
}

/// The parts `WARPKIT_TOUR_ONLY` may name: each primitive after the sum, the multi-GPU part and
/// the device-resident timings.
const PARTS: [&str; 9] = [
    "alias",
    "multisplit",
    "subset",
    "convolve",
    "moments",
    "lbp",
    "som",
    "multi-gpu",
    "device",
];

/// The parts of the tour to run: every one, or those `WARPKIT_TOUR_ONLY` names.
struct Parts(Option<Vec<String>>);

impl Parts {
    fn from_env() -> Result<Parts, String> {
        match std::env::var("WARPKIT_TOUR_ONLY") {
            Ok(v) if !v.trim().is_empty() => {
                let names: Vec<String> = v.split(',').map(|p| p.trim().to_string()).collect();
                match names.iter().find(|n| !PARTS.contains(&n.as_str())) {
                    Some(bad) => Err(format!(
                        "WARPKIT_TOUR_ONLY={v:?}: no part {bad:?}; the parts: {}",
                        PARTS.join(", ")
                    )),
                    None => Ok(Parts(Some(names))),
                }
            }
            _ => Ok(Parts(None)),
        }
    }

    fn has(&self, part: &str) -> bool {
        self.0
            .as_ref()
            .is_none_or(|names| names.iter().any(|n| n == part))
    }
}

/// `WARPKIT_TOUR_SOAK_SECS`: how long to repeat the tour, where it is set.
fn soak_time() -> Result<Option<std::time::Duration>, String> {
    match std::env::var("WARPKIT_TOUR_SOAK_SECS") {
        Ok(v) if !v.trim().is_empty() => match v.trim().parse::<u64>() {
            Ok(s) => Ok(Some(std::time::Duration::from_secs(s))),
            _ => Err(format!("WARPKIT_TOUR_SOAK_SECS={v:?}: give whole seconds")),
        },
        _ => Ok(None),
    }
}

/// The process's resident memory in bytes (Linux's /proc; None elsewhere).
fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let backend = match std::env::args().nth(1).as_deref() {
        Some("cpu") => Backend::cpu(),
        Some("gpu") => Backend::gpu()?,
        Some("emulator") => Backend::emulator(),
        None => match Backend::auto_with_reason() {
            (backend, None) => backend,
            (backend, Some(why)) => {
                println!("no GPU ({why}): the tour runs on the CPU backend");
                backend
            }
        },
        Some(other) => return Err(format!("unknown backend {other:?}: use cpu, gpu or emulator").into()),
    };
    let cap = len_cap()?.unwrap_or(usize::MAX);
    let parts = Parts::from_env()?;
    let n = N.min(cap);
    println!(
        "warpkit tour on {}, {n} elements per primitive\n",
        backend.describe()
    );
    if let Backend::Device(Device::Gpu(gpu)) = &backend {
        // Loaded here, so that the lines below time the work and not each area's first load.
        let t = Instant::now();
        gpu.load_kernels()?;
        println!("kernels loaded in {:.1} ms\n", t.elapsed().as_secs_f64() * 1e3);
    }
    let Some(soak) = soak_time()? else {
        return match tour(&backend, n, cap, &parts)? {
            0 => {
                println!("\nall results checked");
                Ok(())
            }
            failures => Err(format!("{failures} primitive(s) gave wrong results").into()),
        };
    };
    // The soak: memory is read after each round's caches are released, so that a round's
    // sizes leave no trace and what remains is what a round failed to give back.
    let start = Instant::now();
    let (mut rounds, mut failures, mut first, mut last) = (0u32, 0, None, None);
    while rounds == 0 || start.elapsed() < soak {
        failures += tour(&backend, n, cap, &parts)?;
        rounds += 1;
        let device = match &backend {
            Backend::Device(device) => {
                device.release_cached();
                device.memory_in_use()
            }
            _ => 0,
        };
        let memory = (device, resident_bytes().unwrap_or(0));
        println!(
            "\nsoak round {rounds} at {:.0} s: {failures} failure(s), device memory in use {} B, resident {:.1} MiB\n",
            start.elapsed().as_secs_f64(),
            memory.0,
            memory.1 as f64 / (1 << 20) as f64
        );
        first.get_or_insert(memory);
        last = Some(memory);
    }
    let (first, last) = (first.unwrap_or_default(), last.unwrap_or_default());
    // Resident memory may wander by allocator pages; a leak of a round's data is megabytes.
    let grew = last.0 > first.0 || last.1 > first.1 + (16 << 20);
    println!(
        "soak: {rounds} rounds in {:.0} s, {failures} failure(s); device memory in use {} -> {} B, resident {:.1} -> {:.1} MiB",
        start.elapsed().as_secs_f64(),
        first.0,
        last.0,
        first.1 as f64 / (1 << 20) as f64,
        last.1 as f64 / (1 << 20) as f64
    );
    if failures > 0 || grew {
        return Err(format!("soak: {failures} failure(s), memory grew: {grew}").into());
    }
    Ok(())
}

/// One pass over every primitive; returns how many gave wrong results.
fn tour(backend: &Backend, n: usize, cap: usize, parts: &Parts) -> Result<usize, Box<dyn std::error::Error>> {
    let mut failures = 0;

    // Philox: a stream of n words, equal to the host generator's.
    let (key, counter) = ([0x5eed_0001, 0x0000_2026], [0, 0, 0, 0]);
    let t = begin("philox stream");
    let words = backend.philox_words(key, counter, n)?;
    let took = t.elapsed();
    let mut host = Philox::new(key, counter);
    let ok = words.iter().all(|&w| w == host.next_u32());
    failures += report(ok, took.as_secs_f64(), 4 * n);

    // Exclusive scan of bucket sizes (u32), e.g. offsets of variable-length records.
    let sizes: Vec<u32> = words.iter().map(|w| w % 1000).collect();
    let t = begin("exclusive scan u32");
    let offsets = backend.exclusive_scan(&sizes)?;
    let took = t.elapsed();
    let mut running = 0u32;
    let ok = sizes.iter().zip(&offsets).all(|(&s, &o)| {
        let good = o == running;
        running = running.wrapping_add(s);
        good
    });
    failures += report(ok, took.as_secs_f64(), 8 * n);

    // Sum of n f64 energies in [0, 1).
    let energies: Vec<f64> = words.iter().map(|&w| w as f64 / 4_294_967_296.0).collect();
    let t = begin("sum f64");
    let total = backend.sum(&energies)?;
    let took = t.elapsed();
    let reference: f64 = energies.iter().sum();
    let ok = (total - reference).abs() <= 1e-12 * reference;
    failures += report(ok, took.as_secs_f64(), 8 * n);

    if parts.has("alias") {
        failures += alias_tour(backend, ALIAS_ITEMS.min(cap), ALIAS_SAMPLES.min(cap))?;
    }
    if parts.has("multisplit") {
        failures += multisplit_tour(backend, &words[..MULTISPLIT_KEYS.min(cap)])?;
    }
    if parts.has("subset") {
        failures += subset_tour(backend, BOARDS.min(cap))?;
    }
    if parts.has("convolve") {
        failures += convolve_tour(backend, COUNTS.min(cap))?;
    }
    if parts.has("moments") {
        failures += moments_tour(backend, &energies)?;
    }
    if parts.has("lbp") {
        let signal: Vec<i32> = words[..LBP_LEN.min(n)].iter().map(|&w| w as i32).collect();
        failures += lbp_tour(backend, &signal)?;
    }
    let nodes = som_nodes(&words[..(SOM_NODES * SOM_DIM).min(n)]);
    if parts.has("som") {
        failures += som_tour(backend, &nodes)?;
    }
    #[cfg(feature = "nccl")]
    if let (true, Backend::Device(Device::Gpu(_))) = (parts.has("multi-gpu"), backend) {
        failures += multi_gpu_tour(&words[..MULTISPLIT_KEYS.min(cap)], &energies)?;
    }

    if let (true, Backend::Device(device @ Device::Gpu(gpu))) = (parts.has("device"), backend) {
        println!("\ndevice-resident timings (CUDA events, data already on the GPU):");
        device_timings(device, gpu, &sizes, &energies, &nodes)?;
    }
    Ok(failures)
}

/// Items of the tour's alias table and samples drawn from it: the seed's sizes.
const ALIAS_ITEMS: usize = 10_000_000;
const ALIAS_SAMPLES: usize = 100_000_000;

/// An alias table of `items` shuffled power-law weights (w_i = 1/i), checked row by row, then
/// `samples` drawn from it, the most likely item's frequency checked against its weight.
fn alias_tour(backend: &Backend, items: usize, samples: usize) -> Result<usize, Box<dyn std::error::Error>> {
    let mut rng = Philox::seed_from_u64(2026);
    let mut weights: Vec<f64> = (1..=items).map(|i| 1.0 / i as f64).collect();
    for i in (1..weights.len()).rev() {
        weights.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
    }
    let t = begin(&format!("alias table f64 {}", short(items)));
    let table = AliasTable::new(backend, &weights)?;
    let built = t.elapsed().as_secs_f64();
    let worst = check_table(&table.rows()?, &weights);
    let ok = matches!(worst, Ok(e) if e <= 1e-9);
    finish(built, &rate(items, built, "items/s", "host to table"), ok);
    let t = begin(&format!("alias sample {}", short(samples)));
    let drawn_samples = table.sample(&mut rng, samples, SampleOptions::default())?;
    let drawn = t.elapsed().as_secs_f64();
    let top = weights.iter().position(|&w| w == 1.0).expect("the weight 1/1");
    let total: f64 = weights.iter().sum();
    let hits = drawn_samples.iter().filter(|&&x| x as usize == top).count() as f64;
    let expected = samples as f64 / total;
    // Five standard deviations of a binomial count.
    let sampled_ok = (hits - expected).abs() <= 5.0 * expected.sqrt();
    finish(
        drawn,
        &rate(samples, drawn, "samples/s", "to the host"),
        sampled_ok,
    );
    Ok(usize::from(!ok) + usize::from(!sampled_ok))
}

/// Keys of the tour's multisplit.
const MULTISPLIT_KEYS: usize = 1 << 24;

/// Random keys into 256 buckets by their top byte (a radix digit), with their indices as
/// values; checked against a sequential stable placement.
fn multisplit_tour(backend: &Backend, keys: &[u32]) -> Result<usize, Box<dyn std::error::Error>> {
    let split = Multisplit::new(Buckets::BitField { shift: 24, bits: 8 })?;
    let index: Vec<u32> = (0..keys.len() as u32).collect();
    let t = begin(&format!("multisplit {}, m=256", short(keys.len())));
    let out = split.pairs(backend, keys, &index)?;
    let took = t.elapsed().as_secs_f64();
    let mut next = vec![0usize; 256];
    keys.iter().for_each(|&k| next[(k >> 24) as usize] += 1);
    let mut at = 0;
    for slot in next.iter_mut() {
        (*slot, at) = (at, at + *slot);
    }
    let mut ok = out.offsets.iter().zip(&next).all(|(&o, &e)| o as usize == e);
    for (i, &k) in keys.iter().enumerate() {
        let slot = &mut next[(k >> 24) as usize];
        ok &= out.keys[*slot] == k && out.values[*slot] == i as u32;
        *slot += 1;
    }
    finish(took, &rate(keys.len(), took, "pairs/s", "host to host"), ok);
    Ok(usize::from(!ok))
}

/// Over every GPU of the host, two or more (a rank each, a thread each, over NCCL), each rank
/// holding its part of the data: the sum of the energies and the multisplit of the keys into
/// 256 buckets by their top byte, each bucket on the rank that owns it; checked against the
/// sequential sum and the stable split of all the keys. Timed on the second call (the first
/// sets up NCCL's connections).
#[cfg(feature = "nccl")]
fn multi_gpu_tour(keys: &[u32], energies: &[f64]) -> Result<usize, Box<dyn std::error::Error>> {
    use warpkit::dist::{self, Group, NcclGroup, Partition};
    let label = "multi-GPU";
    let count = Gpu::count()?;
    if count < 2 {
        println!("{label:<24}skipped: one GPU");
        return Ok(0);
    }
    let gpus = (0..count).map(Device::gpu).collect::<Result<Vec<_>, _>>()?;
    let groups = match NcclGroup::from_devices(&gpus, NcclGroup::DEFAULT_TIMEOUT) {
        Ok(groups) => groups,
        Err(e) => {
            println!("{label:<24}skipped: {e}");
            return Ok(0);
        }
    };
    let split = Multisplit::new(Buckets::BitField { shift: 24, bits: 8 })?;
    let world = count as u32;
    let part = |len: usize, rank: u32| {
        let r = Partition::new(len as u64, world)
            .expect("a world of GPUs")
            .range(rank);
        r.start as usize..r.end as usize
    };
    begin(&format!("{count} GPUs sum+split {}", short(keys.len())));
    let results = std::thread::scope(|scope| {
        let ranks: Vec<_> = groups
            .into_iter()
            .map(|group| {
                let split = &split;
                scope.spawn(move || -> Result<_, Error> {
                    let backend = Backend::Device(group.device().clone());
                    let (e, k) = (part(energies.len(), group.rank()), part(keys.len(), group.rank()));
                    let call = || -> Result<_, Error> {
                        let sum = dist::reduce::sum(&group, &backend, &energies[e.clone()])?;
                        Ok((
                            sum,
                            dist::multisplit::keys(&group, &backend, split, &keys[k.clone()])?,
                        ))
                    };
                    call()?;
                    let t = Instant::now();
                    let result = call()?;
                    Ok((result, t.elapsed().as_secs_f64()))
                })
            })
            .collect();
        ranks
            .into_iter()
            .map(|r| r.join().expect("a rank's thread"))
            .collect::<Result<Vec<_>, _>>()
    })?;
    let reference: f64 = energies.iter().sum();
    let mut whole = keys.to_vec();
    whole.sort_by_key(|k| k >> 24); // stable
    let owners = Partition::new(256, world)?;
    let (mut ok, mut at) = (true, 0);
    let took = results.iter().map(|r| r.1).fold(0.0, f64::max);
    for (rank, ((sum, split), _)) in (0..).zip(&results) {
        ok &= (sum - reference).abs() <= 1e-12 * reference;
        let buckets = owners.range(rank);
        ok &= split.counts.len() as u64 == buckets.end - buckets.start;
        ok &= split.keys == whole[at..at + split.keys.len()];
        ok &= split.keys.iter().all(|k| buckets.contains(&((k >> 24) as u64)));
        at += split.keys.len();
    }
    ok &= at == keys.len();
    Ok(finish(
        took,
        &rate(keys.len(), took, "keys/s", "host to host"),
        ok,
    ))
}

/// Boards of the tour's K-subsets.
const BOARDS: usize = 1 << 22;

/// Random 15×15 boards with 141 stones (a Go, Gomoku or Hex position's occupied points), each
/// checked to hold 141 stones on the board, and the centre point's frequency checked against
/// 141/225 (five standard deviations).
fn subset_tour(backend: &Backend, boards: usize) -> Result<usize, Box<dyn std::error::Error>> {
    let board = Subsets::grid(15, 15, 141)?;
    let t = begin(&format!("15x15 boards {}", short(boards)));
    let bits = board.bits(backend, 2026, boards)?;
    let took = t.elapsed().as_secs_f64();
    let mut ok = bits.len() == boards && bits.row_len() == board.words();
    let mut centre = 0usize;
    for b in &bits {
        ok &= b.iter().map(|w| w.count_ones()).sum::<u32>() == 141 && b[7] >> 1 == 0;
        centre += (b[3] >> 16 & 1) as usize;
    }
    let p = 141.0 / 225.0;
    let expected = boards as f64 * p;
    ok &= (centre as f64 - expected).abs() <= 5.0 * (expected * (1.0 - p)).sqrt();
    finish(took, &rate(boards, took, "boards/s", "to the host"), ok);
    Ok(usize::from(!ok))
}

/// Length of the tour's two count distributions.
const COUNTS: usize = 1 << 16;

/// Sums of discrete random variables: 100 loaded dice by repeated squaring, checked against
/// the CPU backend and the exact mean and variance; then two Poisson counts of `len` entries
/// each (λ = len/3 and len/2), whose sum is Poisson with the total rate: every entry above
/// 1e-280 checked to 1e-9 relative against that law, deep tails included.
fn convolve_tour(backend: &Backend, len: usize) -> Result<usize, Box<dyn std::error::Error>> {
    let conv = Convolution::new();
    let die = [0.1, 0.1, 0.1, 0.1, 0.1, 0.5]; // faces 1..=6, a six loaded to one half
    let t = begin("100 loaded dice");
    let hundred = conv.power(backend, &die, 100)?;
    let took = t.elapsed().as_secs_f64();
    let cpu = conv.power(&Backend::cpu(), &die, 100)?;
    let moment = |k: i32| {
        hundred
            .iter()
            .enumerate()
            .map(|(i, p)| p * (i as f64).powi(k))
            .sum::<f64>()
    };
    let (face_mean, face_var) = (3.5, 15.5 - 3.5f64.powi(2)); // faces 0..=5
    let var = moment(2) - moment(1).powi(2);
    let ok = hundred.len() == 501
        && (moment(0) - 1.0).abs() < 1e-12
        && (moment(1) - 100.0 * face_mean).abs() < 1e-9 * 350.0
        && (var - 100.0 * face_var).abs() < 1e-7 * 100.0 * face_var
        && hundred
            .iter()
            .zip(&cpu)
            .all(|(a, b)| (a - b).abs() <= 1e-12 * b.max(1e-300));
    finish(took, &format!("{} entries", hundred.len()), ok);
    let mut failures = usize::from(!ok);

    // ln k! by Stirling's series (a running sum of logs drifts by 1e-8 over 2^17 terms).
    let ln_factorial = |k: usize| -> f64 {
        if k < 20 {
            return (2..=k).map(|i| (i as f64).ln()).sum();
        }
        let x = k as f64;
        x * x.ln() - x + 0.5 * (std::f64::consts::TAU * x).ln() + 1.0 / (12.0 * x) - 1.0 / (360.0 * x.powi(3))
            + 1.0 / (1260.0 * x.powi(5))
    };
    let ln_pmf = |lambda: f64, n: usize| -> Vec<f64> {
        (0..n)
            .map(|k| -lambda + k as f64 * lambda.ln() - ln_factorial(k))
            .collect()
    };
    let (l1, l2) = (len as f64 / 3.0, len as f64 / 2.0);
    let p: Vec<f64> = ln_pmf(l1, len).into_iter().map(f64::exp).collect();
    let q: Vec<f64> = ln_pmf(l2, len).into_iter().map(f64::exp).collect();
    let t = begin(&format!("counts f64 {}x{}", short(len), short(len)));
    let r = conv.full(backend, &p, &q)?;
    let took = t.elapsed().as_secs_f64();
    // Against the law below `len` (higher terms miss the inputs' cut tails, which matters at
    // small `WARPKIT_TOUR_LEN`s), and a device against the CPU's direct sums.
    let law = ln_pmf(l1 + l2, len);
    let mut ok = r.len() == 2 * len - 1
        && r.iter()
            .zip(&law)
            .all(|(&got, &ln)| ln < -644.0 || ((got - ln.exp()) / ln.exp()).abs() < 1e-9);
    if let Backend::Device(_) = backend {
        let cpu = conv.full(&Backend::cpu(), &p, &q)?;
        ok &= r
            .iter()
            .zip(&cpu)
            .all(|(a, b)| (a - b).abs() <= 1e-12 * b.abs() + 1e-290);
    }
    finish(took, &rate(len * len, took, "mul-adds/s", "host to host"), ok);
    failures += usize::from(!ok);
    Ok(failures)
}

/// `n` as the tour's labels write it: 1eK for powers of ten, 2^K for powers of two from 2^10.
fn short(n: usize) -> String {
    let tens = n.checked_ilog10().filter(|&k| k > 0 && 10usize.pow(k) == n);
    match tens {
        Some(k) => format!("1e{k}"),
        None if n.is_power_of_two() && n >= 1 << 10 => format!("2^{}", n.ilog2()),
        None => n.to_string(),
    }
}

/// The label of a line of the tour, printed as its work starts (a slow backend shows where it
/// is), and the start of its clock.
fn begin(label: &str) -> Instant {
    print!("{label:<24}");
    let _ = std::io::stdout().flush();
    Instant::now()
}

/// The rest of the line [`begin`] started: the time, `what` (a rate) and the check; 1 if the
/// result was wrong.
fn finish(seconds: f64, what: &str, ok: bool) -> usize {
    let check = if ok { "checked" } else { "WRONG" };
    println!("{:>10.3} ms  {what:<36} {check}", seconds * 1e3);
    usize::from(!ok)
}

/// `count` things in `seconds` as a rate in the unit that keeps three or more digits in
/// sight (`12.3 M boards/s`), and the path the data took.
fn rate(count: usize, seconds: f64, unit: &str, path: &str) -> String {
    let per_second = count as f64 / seconds;
    let prefixes = [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")];
    let (scale, prefix) = prefixes
        .into_iter()
        .find(|&(s, _)| per_second >= s)
        .unwrap_or((1.0, ""));
    let space = if unit.starts_with("B/") { "" } else { " " }; // GB/s, but G items/s
    format!("{:>7.2} {prefix}{space}{unit} ({path})", per_second / scale)
}

/// A line of bytes moved, host data in and out.
fn report(ok: bool, seconds: f64, bytes: usize) -> usize {
    finish(seconds, &rate(bytes, seconds, "B/s", "host to host"), ok)
}

/// Mean, variance and extremes of readings with a large common offset (1e9 plus the energies),
/// where the sum-of-squares formula would lose every digit; checked against a sequential
/// two-pass computation.
fn moments_tour(backend: &Backend, energies: &[f64]) -> Result<usize, Box<dyn std::error::Error>> {
    let readings: Vec<f64> = energies.iter().map(|e| 1e9 + e).collect();
    let t = begin("moments f64");
    let s = summary(backend, &readings)?;
    let took = t.elapsed().as_secs_f64();
    // The reference works on the readings less 1e9 (exact), in two sequential passes.
    let held: Vec<f64> = readings.iter().map(|x| x - 1e9).collect();
    let n = held.len() as f64;
    let mean = held.iter().sum::<f64>() / n;
    let variance = held.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
    let min = readings.iter().copied().fold(f64::INFINITY, f64::min);
    let max = readings.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let ok = s.count == readings.len() as u64
        && (s.mean - (1e9 + mean)).abs() <= 1e-6
        && (s.variance() - variance).abs() <= 1e-10 * variance
        && (s.min, s.max) == (min, max);
    Ok(report(ok, took, 8 * readings.len()))
}

/// Length of the tour's LBP signal: the benchmark size.
const LBP_LEN: usize = 10_000_000;

/// The neighbourhood-4 pattern histogram of a random i32 signal, checked against a sequential
/// count.
fn lbp_tour(backend: &Backend, signal: &[i32]) -> Result<usize, Box<dyn std::error::Error>> {
    let t = begin("lbp histogram n=4 i32");
    let counts = histogram(backend, signal, 4)?;
    let took = t.elapsed().as_secs_f64();
    let mut want = vec![0u32; bins(4) as usize];
    for w in signal.windows(9) {
        let bit = |j: usize, k: usize| usize::from(w[k] >= w[4]) << j;
        want[(0..4).map(|j| bit(j, j) | bit(4 + j, 5 + j)).sum::<usize>()] += 1;
    }
    Ok(report(counts == want, took, 4 * signal.len()))
}

/// The seed's SOM case: 12000 nodes of dimension 12 against a 200 × 200 map.
const SOM_NODES: usize = 12_000;
const SOM_DIM: usize = 12;
const SOM_SIDE: usize = 200;

/// Nodes in [0, 1) from the tour's words (at least one whole node).
fn som_nodes(words: &[u32]) -> Vec<f32> {
    let whole = (words.len() / SOM_DIM).max(1) * SOM_DIM;
    (0..whole)
        .map(|i| (words[i % words.len()] >> 8) as f32 / (1 << 24) as f32)
        .collect()
}

/// One batch-training and one online epoch of a random map, each timed from host data;
/// checked: every weight is a weighted mean of the nodes (batch) or moved toward them from
/// within their range (online), so within their range in its dimension, and a device's map is
/// the CPU backend's to the bit.
fn som_tour(backend: &Backend, nodes: &[f32]) -> Result<usize, Box<dyn std::error::Error>> {
    let start = Som::random(SOM_SIDE, SOM_SIDE, SOM_DIM, nodes, 2026)?;
    let schedule = Schedule::for_map(SOM_SIDE, SOM_SIDE, 1);
    let mut range = [(f32::INFINITY, f32::NEG_INFINITY); SOM_DIM];
    for x in nodes.chunks(SOM_DIM) {
        for ((low, high), &v) in range.iter_mut().zip(x) {
            (*low, *high) = (low.min(v), high.max(v));
        }
    }
    let within = |w: &[f32]| {
        w.iter()
            .zip(&range)
            .all(|(w, &(low, high))| (low..=high).contains(w))
    };
    let mut failures = 0;
    for training in [Training::Batch, Training::Online] {
        let train = |b: &Backend| {
            let mut map = start.clone();
            match training {
                Training::Batch => map.train_batch(b, nodes, &schedule),
                Training::Online => map.train_online(b, nodes, &schedule),
            }
            .map(|()| map)
        };
        let t = begin(&format!("som {} epoch", format!("{training:?}").to_lowercase()));
        let map = train(backend)?;
        let took = t.elapsed().as_secs_f64();
        // One node: the random map is already that node's everywhere.
        let moved = map != start || nodes.len() == SOM_DIM;
        let mut ok = moved && map.weights().chunks(SOM_DIM).all(within);
        if let Backend::Device(_) = backend {
            ok &= train(&Backend::cpu())? == map;
        }
        failures += finish(
            took,
            &rate(nodes.len() / SOM_DIM, took, "nodes/s", "host to host"),
            ok,
        );
    }
    Ok(failures)
}

/// Median device time of `work` over a few runs, in seconds.
fn median_seconds(gpu: &Gpu, mut work: impl FnMut() -> Result<(), Error>) -> Result<f64, Error> {
    work()?; // warm-up
    let mut times = Vec::new();
    for _ in 0..9 {
        let timer = GpuTimer::start(gpu)?;
        work()?;
        times.push(timer.stop()?.as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    Ok(times[times.len() / 2])
}

fn device_timings(
    device: &Device,
    gpu: &Gpu,
    sizes: &[u32],
    energies: &[f64],
    nodes: &[f32],
) -> Result<(), Error> {
    let show = |name: &str, seconds: f64, count: usize, unit: &str| {
        begin(name);
        finish(seconds, &rate(count, seconds, unit, "on the device"), true);
    };
    let n = sizes.len();
    let d_sizes = device.upload(sizes)?;
    let mut d_offsets = device.zeros::<u32>(n)?;
    let s = median_seconds(gpu, || device.exclusive_scan_into(&d_sizes, &mut d_offsets))?;
    show("exclusive scan u32", s, 8 * n, "B/s");
    let d_energies = device.upload(energies)?;
    let mut d_total = device.zeros::<f64>(1)?;
    let s = median_seconds(gpu, || device.sum_into(&d_energies, &mut d_total))?;
    show("sum f64", s, 8 * n, "B/s");
    let mut d_summary = device.zeros::<f64>(SUMMARY_WORDS)?;
    let s = median_seconds(gpu, || summary_into(device, &d_energies, &mut d_summary))?;
    show("moments f64", s, 8 * n, "B/s");
    let signal: Vec<i32> = sizes[..LBP_LEN.min(n)].iter().map(|&w| w as i32).collect();
    let d_signal = device.upload(&signal)?;
    let mut d_counts = device.zeros::<u32>(bins(4) as usize)?;
    let offsets = [0, signal.len()];
    let s = median_seconds(gpu, || {
        histograms_into(device, &d_signal, &offsets, 4, &mut d_counts)
    })?;
    show("lbp histogram n=4 i32", s, 4 * signal.len(), "B/s");
    let map = Som::random(SOM_SIDE, SOM_SIDE, SOM_DIM, nodes, 2026)?;
    let (d_nodes, mut d_weights) = (device.upload(nodes)?, device.upload(map.weights())?);
    let schedule = Schedule::for_map(SOM_SIDE, SOM_SIDE, 1);
    for training in [Training::Batch, Training::Online] {
        let s = median_seconds(gpu, || {
            train_into(
                device,
                &d_nodes,
                &mut d_weights,
                (SOM_SIDE, SOM_SIDE),
                &schedule,
                training,
            )
        })?;
        let what = format!("som {} epoch", format!("{training:?}").to_lowercase());
        show(&what, s, nodes.len() / SOM_DIM, "nodes/s");
    }
    let mut d_words = device.zeros::<u32>(n)?;
    let s = median_seconds(gpu, || device.philox_fill(&mut d_words, [1, 2], [0; 4]))?;
    show("philox stream", s, n, "words/s");
    let mut d_copy = device.zeros::<u32>(n)?;
    let s = median_seconds(gpu, || device.copy(&d_sizes, &mut d_copy))?;
    show("copy (128-bit)", s, 8 * n, "B/s");
    let len = COUNTS.min(n);
    let p = device.upload(&energies[..len].iter().map(|&e| e as f32).collect::<Vec<_>>())?;
    let mut r = device.zeros::<f32>(2 * len - 1)?;
    let s = median_seconds(gpu, || Convolution::new().full_into(device, &p, &p, &mut r))?;
    show(
        &format!("convolve f32 {}^2", short(len)),
        s,
        len * len,
        "mul-adds/s",
    );
    Ok(())
}
