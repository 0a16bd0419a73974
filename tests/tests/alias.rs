//! Alias tables: the table check for every construction method and backend on the issue's
//! weight distributions, identical tables across methods and devices, sampling against the
//! weights (chi-square), reproducible samples, and bad input.

use rand::distr::Distribution;
use rand_core::{RngCore, SeedableRng};
use warpkit::alias::{
    AliasTable, AliasWeight, Construction, Order, Row, SampleOptions, Sampling, check_table,
};
use warpkit::{Backend, Device, Error, Philox};
use warpkit_tests::*;

/// The weight distributions at `n` items.
fn distributions<F: AliasWeight>(rng: &mut Philox, n: usize) -> Vec<(&'static str, Vec<F>)> {
    let from = |f: &dyn Fn(usize) -> f64| (0..n).map(|i| F::from_f64(f(i))).collect::<Vec<F>>();
    let mut power: Vec<F> = from(&|i| 1.0 / (i + 1) as f64);
    for i in (1..n).rev() {
        power.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
    }
    let uniform: Vec<F> = (0..n).map(|_| F::from_f64(f64::random(rng) + 1.0)).collect();
    let heavy = (rng.next_u64() % n as u64) as usize;
    let mut d = vec![
        ("uniform", uniform),
        ("shuffled power law", power),
        ("one heavy item", from(&|i| if i == heavy { 1e6 } else { 1.0 })),
        ("all equal", from(&|_| 0.25)),
        ("with zeros", from(&|i| (i % 3) as f64)),
    ];
    if F::NAME == "f64" {
        d.push(("tiny and huge", from(&|i| if i % 2 == 0 { 1e-30 } else { 1e30 })));
    }
    d.retain(|(_, w)| w.iter().any(|x| x.to_f64() > 0.0));
    d
}

/// The constructions of the CPU backend.
const CPU_CONSTRUCTIONS: [Construction; 3] = [
    Construction::Sequential,
    Construction::PSA_BASELINE,
    Construction::PSA_PLUS_BASELINE,
];

/// Items tested: up to 10^5 on the emulator, 10^6 on the CPU, 10^8 on the GPU.
const COUNTS: [usize; 9] = [1, 2, 3, 10, 1000, 4099, 100_003, 1_000_000, 100_000_000];

/// The most items tested on `backend` (at most `WARPKIT_TEST_MAX_LEN`). The emulator stops at
/// 100 003 (about a hundred tiles of every pass): its tables of 10^6 items took half an hour of
/// the test command on two cores, and the GPU builds those sizes and larger.
fn max_items(backend: &Backend) -> usize {
    cap(match backend {
        Backend::Device(Device::Gpu(_)) => usize::MAX,
        Backend::Device(_) => 100_003,
        Backend::Cpu(_) => 1_000_000,
    })
}

/// Whether two tables are the same, bit for bit.
fn same_rows<F: AliasWeight>(x: &[Row<F>], y: &[Row<F>]) -> bool {
    x.len() == y.len()
        && x.iter().zip(y).all(|(r, s)| {
            r.alias == s.alias && r.threshold.to_f64().to_bits() == s.threshold.to_f64().to_bits()
        })
}

/// A table and what built it.
type Labelled<F> = (String, Vec<Row<F>>);

fn tables_pass_the_check<F: AliasWeight>() {
    let mut rng = fresh_rng(&format!("alias tables {}", F::NAME));
    let mut backends = vec![Backend::cpu()];
    backends.extend(devices("alias tables").into_iter().map(Backend::Device));
    let on_device: Vec<_> = Construction::on_device().collect();
    for n in COUNTS {
        for (name, weights) in distributions::<F>(&mut rng, n) {
            // The first table of each (CPU or device, PSA+ or not), to compare the rest with.
            let mut first: [[Option<Labelled<F>>; 2]; 2] = Default::default();
            for backend in &backends {
                if n > max_items(backend) {
                    continue;
                }
                let (is_cpu, methods) = match backend {
                    Backend::Cpu(_) => (true, &CPU_CONSTRUCTIONS[..]),
                    Backend::Device(_) => (false, &on_device[..]),
                };
                for &method in methods {
                    let label = format!("{} {name} n={n} {method:?} on {}", F::NAME, backend.describe());
                    let table = AliasTable::build(backend, &weights, method)
                        .unwrap_or_else(|e| panic!("{label}: {e}"));
                    let rows = table.rows().unwrap();
                    // Every method sweeps the same quantized weights: PSA (and Vose) give one
                    // table, bit for bit, and PSA+ another, on the CPU and on every device
                    // (the devices' totals are summed in the same order as each other). The
                    // first of each is checked; the others, being equal to it, pass too.
                    let plus = matches!(method, Construction::PsaPlus { .. });
                    match &first[is_cpu as usize][plus as usize] {
                        Some((l, r)) => {
                            assert!(same_rows(r, &rows), "{l} and {label} differ");
                            println!("{label}: the table of {l}, bit for bit");
                        }
                        None => {
                            let worst =
                                check_table(&rows, &weights).unwrap_or_else(|e| panic!("{label}: {e}"));
                            println!("{label}: mass error {worst:.1e} of the largest");
                            first[is_cpu as usize][plus as usize] = Some((label, rows));
                        }
                    }
                }
            }
            // Where the CPU quantized as the devices did (the same PSA table), PSA+ (the same
            // tiles) must give the same table too.
            if let [
                [Some((_, dev)), Some((_, dev_plus))],
                [Some((_, cpu)), Some((cpu_label, cpu_plus))],
            ] = &first
                && same_rows(dev, cpu)
            {
                assert!(
                    same_rows(dev_plus, cpu_plus),
                    "{cpu_label} differs from the devices'"
                );
                println!("{cpu_label}: the devices' table, bit for bit");
            }
        }
    }
}

#[test]
fn tables_pass_the_check_f64() {
    tables_pass_the_check::<f64>();
}

#[test]
fn tables_pass_the_check_f32() {
    tables_pass_the_check::<f32>();
}

/// Samples drawn by [`sampling_matches_weights`] on `backend`: 10^8 on the GPU and 2^22 on the
/// CPU and the emulator (where 10^8 took minutes of the test command; 2^22 detects errors about
/// 5 times as large as 10^8 does, about 1.5e-2), or fewer under `WARPKIT_TEST_MAX_LEN`, but never
/// fewer than 2^20. That least count keeps the chi-square test valid: the least
/// likely item the tests draw (weight 1/10^4 of the power law, whose total is about 9.6) is
/// still expected about 11 times, so the statistic follows its chi-square law and the test
/// keeps its false-alarm rate of 1e-6. Its power drops with the count: at 2^20 samples it
/// detects errors about 10 times as large as at 10^8 (about 3e-2 instead of 3e-3).
fn chi_square_samples(backend: &Backend) -> usize {
    let samples = match backend {
        Backend::Device(Device::Gpu(_)) => 100_000_000,
        _ => 1 << 22,
    };
    cap(samples).max(1 << 20)
}

/// Tests the counts of `samples` against `weights`: items of weight 0 never drawn, and the
/// chi-square statistic below its 1e-6 critical value (power: see [`sampling_matches_weights`]).
fn chi_square_test(label: &str, weights: &[f64], samples: &[u32]) {
    let s = samples.len();
    let mut counts = vec![0u64; weights.len()];
    for &x in samples {
        counts[x as usize] += 1;
    }
    let total: f64 = weights.iter().sum();
    let (mut chi2, mut dof) = (0.0, -1.0);
    for (i, (&c, &w)) in counts.iter().zip(weights).enumerate() {
        if w == 0.0 {
            assert_eq!(c, 0, "{label}: item {i} of weight 0 drawn");
            continue;
        }
        let expected = s as f64 * w / total;
        chi2 += (c as f64 - expected).powi(2) / expected;
        dof += 1.0;
    }
    let critical = chi_square_critical(dof);
    println!("{label}: chi-square {chi2:.1} over {dof} degrees of freedom (critical {critical:.1})");
    assert!(chi2 < critical, "{label}: chi-square {chi2} >= {critical}");
}

/// Draws `s` samples and tests their counts against the weights: items of weight 0 are never
/// drawn, and the chi-square statistic stays below its 1e-6 critical value. With 10^8 samples
/// this detects (power > 0.99) a relative probability error of about 3e-3 in one item of
/// N = 10, or spread over all items of N = 10^4 (see [`chi_square_samples`] for fewer).
fn sampling_matches_weights(backend: &Backend, method: Sampling, weights: &[f64], s: usize, seed: u64) {
    let label = format!("n={} {method:?} on {}", weights.len(), backend.describe());
    let table = AliasTable::new(backend, weights).unwrap();
    let mut rng = Philox::seed_from_u64(seed);
    let samples = table
        .sample(&mut rng, s, SampleOptions::default().method(method))
        .unwrap();
    chi_square_test(&label, weights, &samples);
    // The same seed gives the same samples.
    let some = table
        .sample(
            &mut Philox::seed_from_u64(seed),
            cap(1 << 20),
            SampleOptions::default().method(method),
        )
        .unwrap();
    let again = table
        .sample(
            &mut Philox::seed_from_u64(seed),
            cap(1 << 20),
            SampleOptions::default().method(method),
        )
        .unwrap();
    assert!(again == some, "{label}: samples differ for the same seed");
}

/// One draw per call through `rand`'s `Distribution`, from a CPU table and from device tables
/// (their rows copied to the host): 2^20 draws pass the chi-square test (a relative error of
/// about 3e-2 in one item of ten is detected, see [`chi_square_samples`]), and a sampler gives
/// the same draws for the same seed as one over the same rows.
#[test]
fn host_samplers_follow_the_weights() {
    let weights: Vec<f64> = (0..10).map(|i| i as f64).collect();
    let mut rng = fresh_rng("host sampler");
    let cpu = AliasTable::new(&Backend::cpu(), &weights).unwrap();
    let mut backends = vec![Backend::cpu()];
    backends.extend(devices("host sampler").into_iter().map(Backend::Device));
    for backend in backends {
        let label = format!("host sampler of a table on {}", backend.describe());
        let table = AliasTable::new(&backend, &weights).unwrap();
        let sampler = table.sampler().unwrap();
        let seed = rng.next_u64();
        let draws: Vec<u32> = sampler
            .sample_iter(Philox::seed_from_u64(seed))
            .take(1 << 20)
            .collect();
        chi_square_test(&label, &weights, &draws);
        if table.rows().unwrap() == cpu.rows().unwrap() {
            let theirs = cpu.sampler().unwrap();
            let mut a = Philox::seed_from_u64(seed);
            let same = (0..1000).map(|_| theirs.sample(&mut a)).collect::<Vec<_>>();
            assert!(
                same[..] == draws[..1000],
                "{label}: draws differ over the same rows"
            );
        }
    }
}

#[test]
fn samples_follow_the_weights() {
    let ten: Vec<f64> = (0..10).map(|i| i as f64).collect();
    let mut rng = fresh_rng("sampling weights");
    let mut power: Vec<f64> = (0..10_000)
        .map(|i| if i % 100 == 7 { 0.0 } else { 1.0 / (i + 1) as f64 })
        .collect();
    for i in (1..power.len()).rev() {
        power.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
    }
    let mut backends = vec![Backend::cpu(), Backend::emulator()];
    backends.extend(gpu_or_skip("samples_follow_the_weights").map(Backend::Device));
    for backend in &backends {
        let methods: &[Sampling] = match backend {
            Backend::Cpu(_) => &[Sampling::Baseline],
            Backend::Device(_) => &METHODS,
        };
        for &method in methods {
            sampling_matches_weights(backend, method, &ten, chi_square_samples(backend), 11);
            sampling_matches_weights(backend, method, &power, chi_square_samples(backend), 12);
        }
    }
    // A device sampler named on the CPU backend draws by the CPU's own: the same samples.
    let cpu_table = AliasTable::new(&Backend::cpu(), &ten).unwrap();
    let named = SampleOptions::default().method(METHODS[1]);
    let own = SampleOptions::default();
    assert_eq!(
        cpu_table
            .sample(&mut Philox::seed_from_u64(3), 1000, named)
            .unwrap(),
        cpu_table
            .sample(&mut Philox::seed_from_u64(3), 1000, own)
            .unwrap()
    );
}

/// Every device sampling method, with sections small enough that the tests' tables have
/// several.
const METHODS: [Sampling; 5] = [
    Sampling::Baseline,
    Sampling::CachedSectioned { section_rows: 4 },
    Sampling::CachedLimitedSectioned { section_rows: 1024 },
    Sampling::SharedMemorySectioned,
    Sampling::Tiled,
];

/// Whether `method` draws in random order itself (no order changes its samples).
fn random_by_itself(method: Sampling) -> bool {
    matches!(method, Sampling::Baseline | Sampling::Tiled)
}

#[test]
fn devices_draw_the_same_samples() {
    for method in METHODS {
        devices_draw_the_same_samples_by(method);
    }
}

/// `method` with sections of an eighth of `n` rows (at least 4): a few blocks at every size.
fn scaled(method: Sampling, n: usize) -> Sampling {
    let section_rows = (n as u32 / 8).max(4);
    match method {
        Sampling::CachedSectioned { .. } => Sampling::CachedSectioned { section_rows },
        Sampling::CachedLimitedSectioned { .. } => Sampling::CachedLimitedSectioned { section_rows },
        other => other,
    }
}

fn devices_draw_the_same_samples_by(method: Sampling) {
    on_every_device(
        &format!("alias samples {method:?}"),
        Agreement::Bitwise,
        |rng, n| {
            let weights: Vec<f64> = (0..n.clamp(1, 1 << 20)).map(|_| f64::random(rng) + 1.0).collect();
            (weights, rng.next_u64())
        },
        |device, (weights, seed)| {
            let table = AliasTable::new(&Backend::Device(device.clone()), weights)?;
            let mut out = device.filled(cap(100_003), u32::poison())?;
            let method = scaled(method, weights.len());
            table.sample_into(
                &mut Philox::seed_from_u64(*seed),
                &mut out,
                SampleOptions::default().method(method),
            )?;
            device.download(&out)
        },
        |(weights, _), got, label| {
            assert!(
                got.iter().all(|&x| (x as usize) < weights.len()),
                "{label}: sample out of range"
            );
        },
    );
}

/// The share of pairs `(x[t], x[pair(t)])` whose items lie within `n / 8` of each other.
fn close_share(x: &[u32], n: usize, pair: impl Fn(usize) -> usize) -> f64 {
    let close = (0..x.len())
        .filter(|&t| x[t].abs_diff(x[pair(t)]) < (n / 8) as u32)
        .count();
    close as f64 / x.len() as f64
}

/// Shuffled samples are the drawn ones, moved: the same multiset for the same seed (the
/// baseline's and the tiled sampler's, whose order is random already, unchanged); and no
/// grouping is left: neighbours in the output are close items (within N/8) as often as two
/// samples paired at random, within 6 standard errors (about 0.011 at 10^5 samples), where the
/// sectioned samplers' grouped output has its neighbours at least 0.1 more often close (which
/// gives the test its power; the tiled sampler's sections are at most N/8 rows, so output
/// grouped by section would fail it too).
#[test]
fn shuffled_samples_are_the_drawn_ones_in_random_order() {
    // Under `WARPKIT_TEST_MAX_LEN`, no fewer than 2^14 samples: 6 standard errors are then
    // about 0.028, still well inside the 0.1 by which grouped neighbours are more often close,
    // so the test keeps its power.
    let s = cap(100_003).max(1 << 14);
    on_every_device(
        "alias shuffled samples",
        Agreement::Bitwise,
        |rng, n| {
            let weights: Vec<f64> = (0..n.clamp(64, 1 << 16))
                .map(|_| f64::random(rng) + 1.0)
                .collect();
            (weights, rng.next_u64())
        },
        |device, (weights, seed)| {
            let table = AliasTable::new(&Backend::Device(device.clone()), weights)?;
            let mut got = Vec::new();
            for method in METHODS.map(|m| scaled(m, weights.len())) {
                for order in [Order::AsDrawn, Order::Shuffled] {
                    let mut out = device.filled(s, u32::poison())?;
                    let mut rng = Philox::seed_from_u64(*seed);
                    table.sample_into(
                        &mut rng,
                        &mut out,
                        SampleOptions::default().method(method).order(order),
                    )?;
                    got.extend(device.download(&out)?);
                }
            }
            Ok(got)
        },
        |(weights, seed), got, label| {
            let n = weights.len();
            let mut rng = Philox::seed_from_u64(*seed);
            let random_pair: Vec<usize> = (0..s).map(|_| (rng.next_u64() % s as u64) as usize).collect();
            for (m, pair) in got.chunks(2 * s).enumerate() {
                let (drawn, shuffled) = pair.split_at(s);
                let label = format!("{label} {:?}", METHODS[m]);
                let (mut a, mut b) = (drawn.to_vec(), shuffled.to_vec());
                a.sort_unstable();
                b.sort_unstable();
                assert!(a == b, "{label}: shuffled samples are not the drawn ones");
                if METHODS[m] == Sampling::Baseline {
                    assert!(drawn == shuffled, "{label}: the baseline's order changed");
                    continue;
                }
                let random = close_share(shuffled, n, |t| random_pair[t]);
                let tolerance = 6.0 * (2.0 * random * (1.0 - random) / s as f64).sqrt();
                let neighbours = close_share(shuffled, n, |t| (t + 1) % s);
                let grouped = close_share(drawn, n, |t| (t + 1) % s);
                assert!(
                    (neighbours - random).abs() < tolerance,
                    "{label}: shuffled neighbours close {neighbours:.4}, at random {random:.4}"
                );
                if random_by_itself(METHODS[m]) {
                    assert!(drawn == shuffled, "{label}: the order changed");
                    continue;
                }
                assert!(
                    grouped > random + 0.1,
                    "{label}: drawn order not grouped ({grouped:.4})"
                );
            }
        },
    );
}

/// The benchmarks' folded mode draws the same samples: the xor of its output (zeros but one
/// word per thread) is the xor of the samples stored for the same seed. (The baseline's grid,
/// hence its per-thread words, depends on the device: compared with the reference only.)
#[test]
fn folded_samples_xor_to_the_drawn_ones() {
    let s = cap(100_003).max(1); // the checks below split the output in runs of s
    on_every_device(
        "alias folded samples",
        Agreement::ReferenceOnly,
        |rng, n| {
            let weights: Vec<f64> = (0..n.clamp(1, 1 << 16)).map(|_| f64::random(rng) + 1.0).collect();
            (weights, rng.next_u64())
        },
        |device, (weights, seed)| {
            let table = AliasTable::new(&Backend::Device(device.clone()), weights)?;
            let mut got = Vec::new();
            for method in METHODS.map(|m| scaled(m, weights.len())) {
                let mut stored = device.zeros(s)?;
                table.sample_into(
                    &mut Philox::seed_from_u64(*seed),
                    &mut stored,
                    SampleOptions::default().method(method),
                )?;
                let mut folded = device.zeros(s)?;
                table.sample_into_folded(&mut Philox::seed_from_u64(*seed), &mut folded, method)?;
                got.extend(device.download(&stored)?);
                got.extend(device.download(&folded)?);
            }
            Ok(got)
        },
        |_, got, label| {
            for (m, pair) in got.chunks(2 * s).enumerate() {
                let (stored, folded) = pair.split_at(s);
                let xor = |x: &[u32]| x.iter().fold(0, |a, &b| a ^ b);
                assert_eq!(xor(stored), xor(folded), "{label} {:?}", METHODS[m]);
                // The baseline's threads draw two samples or more each and store one word: at
                // most half of s. (A sectioned sampler's thread may draw a single sample of its
                // section, whose rounds give each thread two samples only past 256 of them, so
                // small sections fold nothing; for them only the xor says more.)
                if matches!(METHODS[m], Sampling::Baseline) {
                    let words = folded.iter().filter(|&&x| x != 0).count();
                    assert!(words <= s / 2 + 1, "{label}: {words} words stored");
                }
            }
        },
    );
}

#[test]
fn tiny_totals_quantize_without_overflow() {
    let mut backends = vec![Backend::cpu(), Backend::emulator()];
    backends.extend(gpu_or_skip("tiny_totals_quantize_without_overflow").map(Backend::Device));
    let cases: [&[f64]; 3] = [
        &[1e-300, 1e-300, 0.0],
        &[5e-324, 1e-310, 2e-310],
        &[1e-300, 1e300],
    ];
    for backend in &backends {
        for weights in cases {
            let table = AliasTable::new(backend, weights).unwrap();
            let worst = check_table(&table.rows().unwrap(), weights);
            assert!(worst.is_ok(), "{weights:?} on {}: {worst:?}", backend.describe());
        }
    }
}

#[test]
fn rebuilding_in_place_gives_the_new_table() {
    let mut rng = fresh_rng("alias rebuild");
    let mut backends = vec![Backend::cpu(), Backend::emulator()];
    backends.extend(gpu_or_skip("rebuilding_in_place_gives_the_new_table").map(Backend::Device));
    for backend in &backends {
        let first: Vec<f32> = (0..5000).map(|_| f32::random(&mut rng) + 1.0).collect();
        let mut table = AliasTable::new(backend, &first).unwrap();
        for step in 0..3 {
            let next: Vec<f32> = (0..5000).map(|i| ((i * (step + 2)) % 97) as f32).collect();
            table.rebuild(&next).unwrap();
            check_table(&table.rows().unwrap(), &next).unwrap_or_else(|e| panic!("step {step}: {e}"));
            let p = table.probabilities().unwrap();
            assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-6);
        }
        assert!(matches!(
            table.rebuild(&first[..10]),
            Err(Error::LengthMismatch { .. })
        ));
    }
}

#[test]
fn bad_weights_are_refused_before_anything_runs() {
    let mut backends = vec![Backend::cpu(), Backend::emulator()];
    backends.extend(gpu_or_skip("bad_weights_are_refused_before_anything_runs").map(Backend::Device));
    for b in &backends {
        let label = b.describe();
        let err = |w: &[f64]| AliasTable::new(b, w).err();
        assert!(matches!(err(&[]), Some(Error::NoWeights)), "{label}");
        assert!(
            matches!(err(&[1.0, f64::NAN]), Some(Error::InvalidWeight { index: 1 })),
            "{label}"
        );
        assert!(
            matches!(err(&[f64::INFINITY]), Some(Error::InvalidWeight { index: 0 })),
            "{label}"
        );
        assert!(
            matches!(err(&[1.0, 2.0, -0.5]), Some(Error::InvalidWeight { index: 2 })),
            "{label}"
        );
        assert!(matches!(err(&[0.0, 0.0]), Some(Error::AllWeightsZero)), "{label}");
        assert!(
            matches!(err(&[1e308, 1e308]), Some(Error::WeightOverflow)),
            "{label}"
        );
        let f32_overflow = AliasTable::<f32>::new(b, &[3e38, 3e38]).err();
        assert!(matches!(f32_overflow, Some(Error::WeightOverflow)), "{label}");
        let table = AliasTable::new(b, &[1.0f64, 2.0]).unwrap();
        let mut rng = Philox::seed_from_u64(1);
        assert!(
            table
                .sample(&mut rng, 0, SampleOptions::default())
                .unwrap()
                .is_empty(),
            "{label}: S = 0"
        );
        // The default method exists on every backend, also where a device would section.
        let big = AliasTable::new(b, &vec![1.0f64; 10_000]).unwrap();
        assert_eq!(
            big.sample(&mut rng, 40_000, SampleOptions::default())
                .unwrap()
                .len(),
            40_000,
            "{label}: default method"
        );
        let grouped = SampleOptions::default().order(Order::AsDrawn);
        assert_eq!(
            big.sample(&mut rng, 40_000, grouped).unwrap().len(),
            40_000,
            "{label}: default method, grouped"
        );
    }
    // A method the backend does not offer: the backend's own builds, and says so.
    let weights = [1.0f64, 2.0, 5.0];
    let cpu_shared_pack =
        AliasTable::build(&Backend::cpu(), &weights, Construction::FASTEST_ON_DEVICE).unwrap();
    assert_eq!(
        cpu_shared_pack.construction(),
        Construction::auto(&Backend::cpu())
    );
    let device_vose = AliasTable::build(&Backend::emulator(), &weights, Construction::Sequential).unwrap();
    assert_eq!(device_vose.construction(), Construction::FASTEST_ON_DEVICE);
    assert_eq!(
        cpu_shared_pack.probabilities().unwrap(),
        device_vose.probabilities().unwrap()
    );
    // Weights already on a device are checked there, before construction.
    let emu = Device::emulator();
    let w = emu.upload(&[1.0f32, -1.0, 2.0]).unwrap();
    assert!(matches!(
        AliasTable::from_device(&emu, &w).err(),
        Some(Error::InvalidWeight { index: 1 })
    ));
}

/// A device rebuild from weights that make no table (a bad weight, all zeros, a total past f32)
/// is refused with its error and leaves the table as it was, by every device method; the same
/// weights rebuilt after give the same rows. (A build that queued its kernels before the
/// check came back, as one tried on 2026-12-06, would have to keep its packs from writing.)
#[test]
fn a_refused_rebuild_leaves_the_table_as_it_was() {
    const N: usize = 3000;
    let mut rng = fresh_rng("alias refused rebuild");
    let good: Vec<f32> = (0..N).map(|_| f32::random(&mut rng) + 1.5).collect();
    let mut negative = good.clone();
    negative[N - 7] = -1.0;
    type Case = (&'static str, Vec<f32>, fn(&Error) -> bool);
    let bad: [Case; 3] = [
        (
            "a negative weight",
            negative,
            |e| matches!(e, Error::InvalidWeight { index } if *index == N - 7),
        ),
        ("all zeros", vec![0.0; N], |e| matches!(e, Error::AllWeightsZero)),
        ("a total past f32", vec![3e38; N], |e| {
            matches!(e, Error::WeightOverflow)
        }),
    ];
    for device in devices("alias refused rebuild") {
        let good_on_device = device.upload(&good).unwrap();
        for method in Construction::on_device() {
            let mut table = AliasTable::from_device_with(&device, &good_on_device, method).unwrap();
            let before = table.rows().unwrap();
            for (what, weights, expected) in &bad {
                let w = device.upload(weights).unwrap();
                let err = table.rebuild_from_device(&w).expect_err(what);
                assert!(expected(&err), "{method:?}, {what}: {err}");
                assert_eq!(
                    table.rows().unwrap(),
                    before,
                    "{method:?}, {what}: the table changed"
                );
            }
            table.rebuild_from_device(&good_on_device).unwrap();
            assert_eq!(
                table.rows().unwrap(),
                before,
                "{method:?}: rebuilt from the same weights"
            );
        }
    }
}

/// The default call gives samples in random order at a size where grouped output would take
/// a sectioned sampler (10^4 rows, 5 samples a row): neighbours in the output are close items
/// (within N/8) as often as two samples paired at random, within 6 standard errors (about
/// 0.009 at 5 × 10^4 samples), while that sampler's grouped output, asked for by name, has
/// neighbours at least 0.1 more often close (the test's power against grouped defaults).
#[test]
fn default_samples_come_in_random_order() {
    let (n, s) = (10_000usize, 50_000usize);
    assert_eq!(
        Sampling::auto(n, s, Order::AsDrawn),
        Sampling::SharedMemorySectioned
    );
    let weights: Vec<f64> = (0..n).map(|i| 1.0 + (i % 7) as f64).collect();
    let mut rng = fresh_rng("alias default order");
    let random_pair: Vec<usize> = (0..s).map(|_| (rng.next_u64() % s as u64) as usize).collect();
    for device in devices("alias default order") {
        let label = device.describe();
        let table = AliasTable::new(&Backend::Device(device), &weights).unwrap();
        let seed = rng.next_u64();
        let default = table
            .sample(&mut Philox::seed_from_u64(seed), s, SampleOptions::default())
            .unwrap();
        let method = Sampling::SharedMemorySectioned;
        let grouped = table
            .sample(
                &mut Philox::seed_from_u64(seed),
                s,
                SampleOptions::default().method(method).order(Order::AsDrawn),
            )
            .unwrap();
        let random = close_share(&default, n, |t| random_pair[t]);
        let tolerance = 6.0 * (2.0 * random * (1.0 - random) / s as f64).sqrt();
        let neighbours = close_share(&default, n, |t| (t + 1) % s);
        assert!(
            (neighbours - random).abs() < tolerance,
            "{label}: default neighbours close {neighbours:.4}, at random {random:.4}"
        );
        let grouped = close_share(&grouped, n, |t| (t + 1) % s);
        assert!(
            grouped > random + 0.1,
            "{label}: the grouped output is not grouped ({grouped:.4})"
        );
    }
}

/// The partition and pack kernels meet buffers they did not fill (tile scans, entries, prefix
/// sums, splits and light counts of each of [`HostileWords`]) on every
/// device and construction method: no store lands past a buffer's end (poisoned guards stay),
/// and no launch faults. The shared-memory pack is left out of the pack step: such contents
/// can trip its shared-memory bounds checks, which end the context (safe, not an error value).
#[test]
fn no_contents_send_a_construction_out_of_bounds() {
    let mut rng = fresh_rng("alias construction with any contents");
    let n = cap(5_003);
    let weights: Vec<f64> = (0..n).map(|_| f64::random(&mut rng) + 0.01).collect();
    let words = HostileWords::new(&mut rng, n);
    for device in devices("alias construction with any contents") {
        let d_weights = device.upload(&weights).unwrap();
        for method in Construction::on_device() {
            for (c, name) in HostileWords::KINDS.iter().enumerate() {
                let intact =
                    warpkit::checks::alias_construct_with_contents(&device, &d_weights, method, |i| {
                        words.word(c, i)
                    })
                    .unwrap();
                assert!(
                    intact,
                    "{method:?}, contents {name}, on {}: a store past a buffer",
                    device.describe()
                );
            }
        }
    }
}
