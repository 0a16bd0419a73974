//! K-subsets: every subset has exactly k elements, all inside the base mask; both algorithms,
//! by every method on every device, give the CPU backend's subsets for the same seed (poisoned
//! outputs, so unwritten words show); positions list the bits; uniformity by chi-square over
//! every subset of small base sets and over pairs of neighbouring subsets, and by per-position
//! frequencies and pairwise co-occurrences for N = 1024, N = 4096 and the 15×15 board; edge
//! cases; bad input refused before anything runs.

use warpkit::subset::{Algorithm, MAX_COUNT, Method, Subsets};
use warpkit::{Backend, Device, Error};
use warpkit_tests::{cap, chi_square_critical, devices};

/// The CPU backend, the emulator and (when present) the GPU.
fn backends(test: &str) -> Vec<Backend> {
    let mut b = vec![Backend::cpu()];
    b.extend(devices(test).into_iter().map(Backend::Device));
    b
}

/// The ways `backend` draws `subsets`: each algorithm, on a device by every method that runs
/// it (none to choose on the CPU).
fn methods(backend: &Backend, subsets: &Subsets) -> Vec<Subsets> {
    let algorithms = [Algorithm::Halving, Algorithm::Mend]
        .map(|a| subsets.clone().with_algorithm(a).expect("no method forced"));
    match backend {
        Backend::Cpu(_) => algorithms.to_vec(),
        Backend::Device(_) => algorithms
            .iter()
            .flat_map(|a| Method::ALL.iter().filter_map(|&m| a.clone().with_method(m).ok()))
            .collect(),
    }
}

/// Names the algorithm and method of `run` on `backend`.
fn label(name: &str, run: &Subsets, backend: &Backend) -> String {
    let (algorithm, method) = (run.algorithm(), run.method());
    format!("{name} {algorithm:?} {method:?} on {}", backend.describe())
}

/// The base sets under test: the seed's 32-bit, 64-bit, 32×32 and 64×64 cases at k = N/2 and
/// N/8, the 15×15 board, odd widths, a mask of exactly k bits, a 3×3 board with a hole, and
/// the edges k = 0, k = N, N = 1.
fn cases() -> Vec<(&'static str, Subsets)> {
    let hole = 0b111_101_111;
    let sparse = [0x8001_0010, 0, 0, 0x4];
    let irregular: Vec<u32> = (0..40u32)
        .map(|i| i.wrapping_mul(0x9e37_79b9) ^ (i << 7))
        .collect();
    let third = irregular.iter().map(|w| w.count_ones()).sum::<u32>() / 3;
    vec![
        ("N=1 k=0", Subsets::range(1, 0)),
        ("N=1 k=1", Subsets::range(1, 1)),
        ("N=6 k=3", Subsets::range(6, 3)),
        ("32-bit k=16", Subsets::range(32, 16)),
        ("32-bit k=4", Subsets::range(32, 4)),
        ("32-bit k=0", Subsets::range(32, 0)),
        ("32-bit k=32", Subsets::range(32, 32)),
        ("64-bit k=32", Subsets::range(64, 32)),
        ("64-bit k=8", Subsets::range(64, 8)),
        ("N=70 k=35", Subsets::range(70, 35)),
        ("3x3 hole k=3", Subsets::new(&[hole], 3)),
        ("exactly k bits", Subsets::new(&sparse, 4)),
        ("15x15 k=141", Subsets::grid(15, 15, 141)),
        ("32x32 k=512", Subsets::grid(32, 32, 512)),
        ("32x32 k=128", Subsets::grid(32, 32, 128)),
        ("40 irregular words k=n/3", Subsets::new(&irregular, third)),
        ("64x64 k=2048", Subsets::grid(64, 64, 2048)),
        ("64x64 k=512", Subsets::grid(64, 64, 512)),
        ("64x64 k=4096", Subsets::grid(64, 64, 4096)),
        ("N=1024 k=10 (mend's coins all tails)", Subsets::range(1024, 10)),
    ]
    .into_iter()
    .map(|(name, s)| (name, s.unwrap()))
    .collect()
}

/// Subsets drawn per case: fewer of the wide ones on the emulator.
fn count_for(backend: &Backend, subsets: &Subsets) -> usize {
    match backend {
        Backend::Device(Device::Emulator(_)) if subsets.words() > 8 => 40,
        Backend::Device(Device::Emulator(_)) => 300,
        _ => cap(20_000),
    }
}

/// Subsets `0 .. count` as bits and positions, on a device into poisoned buffers.
fn draw(backend: &Backend, subsets: &Subsets, seed: u64, count: usize) -> (Vec<u32>, Vec<u16>) {
    match backend {
        Backend::Device(d) => {
            let mut bits = d.filled(count * subsets.words(), 0xdead_beef).unwrap();
            subsets.bits_into(d, seed, count, &mut bits).unwrap();
            let mut positions = d.filled(count * subsets.k() as usize, 0xffff).unwrap();
            subsets.positions_into(d, seed, count, &mut positions).unwrap();
            (d.download(&bits).unwrap(), d.download(&positions).unwrap())
        }
        Backend::Cpu(_) => (
            subsets.bits(backend, seed, count).unwrap().into_flat(),
            subsets.positions(backend, seed, count).unwrap().into_flat(),
        ),
    }
}

/// Each subset has `k` elements, all in the mask, and its positions are its bits in order.
fn check(subsets: &Subsets, bits: &[u32], positions: &[u16], label: &str) {
    let (words, k) = (subsets.words(), subsets.k() as usize);
    for (s, subset) in bits.chunks(words).enumerate() {
        let outside = subset.iter().zip(subsets.mask()).position(|(w, m)| w & !m != 0);
        assert!(
            outside.is_none(),
            "{label}: subset {s} has bits outside the mask in word {outside:?}"
        );
        let size = subset.iter().map(|w| w.count_ones()).sum::<u32>();
        assert_eq!(size as usize, k, "{label}: subset {s} has {size} elements");
        let listed: Vec<u16> = (0..32 * words)
            .filter(|&i| subset[i / 32] >> (i % 32) & 1 == 1)
            .map(|i| i as u16)
            .collect();
        assert_eq!(
            listed,
            positions[s * k..(s + 1) * k],
            "{label}: positions of subset {s}"
        );
    }
}

#[test]
fn every_subset_has_k_elements_of_the_mask_and_every_backend_agrees() {
    let backends = backends("subsets agree");
    for (name, subsets) in cases() {
        let seed = 0x5eed_0000 + subsets.words() as u64;
        for backend in &backends {
            for run in methods(backend, &subsets) {
                let label = label(name, &run, backend);
                let count = count_for(backend, &run);
                let reference = run.bits(&Backend::cpu(), seed, count).unwrap().into_flat();
                let (bits, positions) = draw(backend, &run, seed, count);
                check(&run, &bits, &positions, &label);
                assert!(
                    bits == reference[..bits.len()],
                    "{label}: subsets differ from the CPU backend's"
                );
                println!("{label}: {count} subsets checked");
            }
        }
    }
}

/// `draws` take exactly `cells` distinct values, each equally often: the chi-square statistic
/// stays below its 1e-6 critical value.
fn assert_equally_often<T: std::hash::Hash + Eq>(
    draws: impl IntoIterator<Item = T>,
    cells: usize,
    label: &str,
) {
    let mut seen = std::collections::HashMap::new();
    for d in draws {
        *seen.entry(d).or_insert(0u64) += 1;
    }
    assert_eq!(seen.len(), cells, "{label}: distinct values");
    let counts: Vec<u64> = seen.into_values().collect();
    let chi2 = chi_square_uniform(&counts);
    let critical = chi_square_critical((cells - 1) as f64);
    println!(
        "{label}: chi-square {chi2:.1} over {} dof (critical {critical:.1})",
        cells - 1
    );
    assert!(chi2 < critical, "{label}: chi-square {chi2} >= {critical}");
}

/// The chi-square statistic of `counts` against equal expectations.
fn chi_square_uniform(counts: &[u64]) -> f64 {
    let expected = counts.iter().sum::<u64>() as f64 / counts.len() as f64;
    counts
        .iter()
        .map(|&c| (c as f64 - expected).powi(2) / expected)
        .sum()
}

/// Every k-subset of a small base set comes out equally often: the chi-square statistic over
/// all C(N, k) subsets stays below its 1e-6 critical value. 2000 draws per subset expected
/// (300 on the emulator): a subset whose probability is off by 25 % alone (65 % on the
/// emulator), or a bias of 3 % spread over all subsets, is caught with power above 0.99.
#[test]
fn small_sets_draw_every_subset_equally_often() {
    let cases = [
        ("N=6 k=3", Subsets::range(6, 3).unwrap(), 20),
        ("N=10 k=4", Subsets::range(10, 4).unwrap(), 210),
        (
            "3x3 with a hole k=3",
            Subsets::new(&[0b111_101_111], 3).unwrap(),
            56,
        ),
    ];
    for backend in &backends("small sets uniform") {
        for (name, base, all) in &cases {
            for run in methods(backend, base) {
                let per = match backend {
                    Backend::Device(Device::Emulator(_)) => 300,
                    _ => 2000,
                };
                let count = all * per;
                let bits = run.bits(backend, 11, count).unwrap();
                let label = label(name, &run, backend);
                assert_equally_often(bits.iter(), *all, &label);
            }
        }
    }
}

/// Neighbouring subsets are independent (a draw that reused or shared random words between
/// subsets would show here): over the pairs (2i, 2i + 1) of a 5-element base set spread over
/// two words (so teams of lanes draw it too), k = 2, every one of the 10 × 10 ordered pairs
/// comes out equally often (chi-square below its 1e-6 critical value). 2000 pairs per cell
/// (300 on the emulator): a pair whose probability is off by 30 % alone (75 %), or a second
/// subset that repeats the first 10 % (25 %) more often than chance, is caught with power above
/// 0.99.
#[test]
fn consecutive_subsets_are_independent() {
    let base = Subsets::new(&[0b111, 0b11 << 30], 2).unwrap();
    let cells = 100;
    for backend in &backends("consecutive subsets independent") {
        for run in methods(backend, &base) {
            let per = match backend {
                Backend::Device(Device::Emulator(_)) => 300,
                _ => 2000,
            };
            let bits = run.bits(backend, 13, 2 * cells * per).unwrap();
            let label = label("pairs", &run, backend);
            assert_equally_often(bits.as_flat().chunks(4), cells, &label);
        }
    }
}

/// For N = 1024 (k = 128, by both algorithms), the 15×15 board (k = 141) and, on the CPU,
/// N = 4096 by mend (k = 1024: four words a lane), each position is taken with probability
/// k/N and each pair of positions with k(k-1)/(N(N-1)): the positions' chi-square
/// (each count's variance `count p (1 - p)`) stays below its 1e-6 critical value, and the
/// co-occurrence of fixed pairs (neighbours, far apart, first and last) within 5 standard
/// deviations. With 10^5 subsets (10^4 on the emulator) a position off by 3 % (10 %) alone is
/// caught with power above 0.99.
#[test]
fn positions_and_pairs_are_uniform_in_large_sets() {
    let wide = Subsets::range(1024, 128).unwrap();
    let cases = [
        ("N=1024 k=128", wide.clone()),
        ("N=1024 k=128", wide.with_algorithm(Algorithm::Mend).unwrap()),
        ("15x15 k=141", Subsets::grid(15, 15, 141).unwrap()),
        ("N=4096 k=1024", Subsets::range(4096, 1024).unwrap()),
    ];
    for backend in &backends("large sets uniform") {
        for (name, base) in &cases {
            // The widest case on the CPU only: the GPU and the emulator give its subsets bit
            // for bit (`every_subset_has_k_elements_of_the_mask_and_every_backend_agrees`).
            if base.words() > 32 && !matches!(backend, Backend::Cpu(_)) {
                continue;
            }
            let count = match backend {
                Backend::Device(Device::Emulator(_)) => 10_000,
                _ => cap(100_000).max(10_000),
            };
            let n = base.elements() as usize;
            let (k, p) = (base.k() as f64, base.k() as f64 / n as f64);
            let pairs = [(0, 1), (0, n - 1), (17, 18), (17, 32), (3, n / 2), (n - 2, n - 1)];
            let label = label(name, base, backend);
            let positions = base.positions(backend, 23, count).unwrap();
            let mut at = vec![0u64; n];
            let mut together = [0u64; 6];
            for subset in &positions {
                let mut member = vec![false; n];
                for &i in subset {
                    at[i as usize] += 1;
                    member[i as usize] = true;
                }
                for (t, &(a, b)) in together.iter_mut().zip(&pairs) {
                    *t += (member[a] && member[b]) as u64;
                }
            }
            let expected = count as f64 * p;
            let variance = expected * (1.0 - p);
            let chi2: f64 = at.iter().map(|&c| (c as f64 - expected).powi(2) / variance).sum();
            let critical = chi_square_critical((n - 1) as f64);
            println!(
                "{label}: positions chi-square {chi2:.1} over {} dof (critical {critical:.1})",
                n - 1
            );
            assert!(
                chi2 < critical,
                "{label}: positions chi-square {chi2} >= {critical}"
            );
            let q = k * (k - 1.0) / (n as f64 * (n as f64 - 1.0));
            for (&t, &(a, b)) in together.iter().zip(&pairs) {
                let z = (t as f64 - count as f64 * q) / (count as f64 * q * (1.0 - q)).sqrt();
                println!("{label}: positions {a} and {b} together {t} times, z = {z:.2}");
                assert!(z.abs() < 5.0, "{label}: pair ({a}, {b}) z = {z}");
            }
        }
    }
}

#[test]
fn bad_input_is_refused_before_anything_runs() {
    assert!(matches!(Subsets::new(&[], 0), Err(Error::EmptyBaseSet)));
    assert!(matches!(Subsets::new(&[0, 0], 0), Err(Error::EmptyBaseSet)));
    assert!(matches!(Subsets::range(0, 0), Err(Error::EmptyBaseSet)));
    assert!(matches!(
        Subsets::range(5, 6),
        Err(Error::SubsetTooLarge { k: 6, n: 5 })
    ));
    assert!(matches!(
        Subsets::new(&[0b1011], 4),
        Err(Error::SubsetTooLarge { k: 4, n: 3 })
    ));
    assert!(matches!(Subsets::range(4097, 1), Err(Error::TooLong { .. })));
    assert!(matches!(Subsets::new(&[1; 129], 1), Err(Error::TooLong { .. })));
    let wide = Subsets::range(40 * 32, 3).unwrap();
    assert!(matches!(
        wide.clone().with_method(Method::Threadwise),
        Err(Error::UnfitMethod { words: 40, .. })
    ));
    assert!(matches!(
        wide.with_method(Method::LanePerWord),
        Err(Error::UnfitMethod { .. })
    ));
    let grid = Subsets::grid(32, 32, 512).unwrap();
    assert_eq!(grid.algorithm(), Algorithm::Mend);
    assert!(matches!(
        grid.clone().with_method(Method::Threadwise),
        Err(Error::UnfitAlgorithm { .. })
    ));
    let halving = grid.with_algorithm(Algorithm::Halving).unwrap();
    assert!(halving.with_method(Method::Threadwise).is_ok());
    let small = Subsets::range(6, 3).unwrap();
    assert!(matches!(
        small
            .with_method(Method::Threadwise)
            .unwrap()
            .with_algorithm(Algorithm::Mend),
        Err(Error::UnfitAlgorithm { .. })
    ));
    let board = Subsets::grid(15, 15, 141).unwrap();
    for backend in backends("subsets bad input") {
        let too_many = MAX_COUNT as usize + 1;
        assert!(matches!(
            board.bits(&backend, 1, too_many),
            Err(Error::TooLong { .. })
        ));
        assert!(matches!(
            board.positions(&backend, 1, too_many),
            Err(Error::TooLong { .. })
        ));
        if let Backend::Device(d) = &backend {
            let mut short = d.zeros::<u32>(8 * 3 - 1).unwrap();
            let refused = board.bits_into(d, 1, 3, &mut short);
            assert!(matches!(refused, Err(Error::LengthMismatch { .. })));
            let mut short = d.zeros::<u16>(141 * 3 + 1).unwrap();
            let refused = board.positions_into(d, 1, 3, &mut short);
            assert!(matches!(refused, Err(Error::LengthMismatch { .. })));
            assert!(board.bits(&backend, 1, 0).unwrap().is_empty());
        }
    }
}
