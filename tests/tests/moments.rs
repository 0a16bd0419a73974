//! One-pass moments: every device against the CPU backend's two-pass f64 reference (mean and
//! sum of squared deviations within 1e-12 relative, count, min and max exact) for f64 and f32
//! data of edge and large sizes, random, increasing, and 1e9 plus unit noise (where the sum of
//! squares would cancel); constant data has variance 0 exactly; one value has variance 0 and no
//! sample variance; NaN and infinities as IEEE arithmetic says; each column of a matrix
//! against that column alone, for narrow, wide and tall shapes; empty data and shapes that are
//! not the data's refused; overflowing squares, sums past f64's range and signed zeros.

use warpkit::moments::{Sample, Summary, column_summaries, summary};
use warpkit::{Backend, Device, Error};
use warpkit_tests::{TestValue, devices, fresh_rng, max_len, random_vec};

/// The lengths tested: edges, and a large one where the device allows.
const SIZES: [usize; 7] = [1, 2, 3, 31, 1000, 100_003, 10_000_019];

fn backends(d: &Device) -> Backend {
    Backend::Device(d.clone())
}

/// f32 or f64, from f64 by rounding.
trait Round: Sample + TestValue {
    fn round(x: f64) -> Self;
}

impl Round for f32 {
    fn round(x: f64) -> f32 {
        x as f32
    }
}

impl Round for f64 {
    fn round(x: f64) -> f64 {
        x
    }
}

/// The data sets of length `n`: random, increasing, and a large offset plus noise.
fn data_sets<F: Round>(n: usize, offset: f64) -> Vec<(&'static str, Vec<F>)> {
    let mut rng = fresh_rng(&format!("moments {n}"));
    let random: Vec<F> = random_vec(&mut rng, n);
    let noisy = random.iter().map(|x| F::round(offset + x.to_f64())).collect();
    let increasing = (0..n).map(|i| F::round(i as f64)).collect();
    vec![("random", random), ("offset", noisy), ("increasing", increasing)]
}

/// `got` against the reference `want`: count, min and max exact, mean and m2 within 1e-12.
fn assert_close(got: &Summary, want: &Summary, label: &str) {
    assert_eq!(
        (got.count, got.min, got.max),
        (want.count, want.min, want.max),
        "{label}"
    );
    let scale = want.mean.abs() + want.variance().sqrt();
    assert!(
        (got.mean - want.mean).abs() <= 1e-12 * scale,
        "{label}: mean {} against {}",
        got.mean,
        want.mean
    );
    assert!(
        (got.m2 - want.m2).abs() <= 1e-12 * want.m2,
        "{label}: m2 {:e} against {:e}",
        got.m2,
        want.m2
    );
}

fn summaries_match<F: Round>(offset: f64) {
    let name = std::any::type_name::<F>();
    for d in devices(&format!("moments {name}")) {
        for n in SIZES.into_iter().filter(|&n| n <= max_len(&d)) {
            for (kind, data) in data_sets::<F>(n, offset) {
                let want = summary(&Backend::cpu(), &data).unwrap();
                let got = summary(&backends(&d), &data).unwrap();
                assert_close(&got, &want, &format!("{} {name} {kind} n={n}", d.describe()));
            }
        }
    }
}

#[test]
fn summaries_match_the_two_pass_reference() {
    summaries_match::<f64>(1e9);
    // f32 holds 1e3 plus noise to about 6e-5; the sums are f64 either way.
    summaries_match::<f32>(1e3);
}

#[test]
fn the_sum_of_squares_would_cancel_where_these_do_not() {
    // 1e9 plus unit noise: Σx² − n·mean² loses every digit of the variance in f64.
    let mut rng = fresh_rng("moments cancel");
    let noise: Vec<f64> = random_vec(&mut rng, 4096);
    let data: Vec<f64> = noise.iter().map(|x| 1e9 + x).collect();
    // The data's own noise (1e9 + x rounds x to 2^-23), exactly: the subtraction is exact.
    let held: Vec<f64> = data.iter().map(|x| x - 1e9).collect();
    let n = data.len() as f64;
    let mean = held.iter().sum::<f64>() / n;
    let exact = held.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
    let naive = data.iter().map(|x| x * x).sum::<f64>() / n - (data.iter().sum::<f64>() / n).powi(2);
    assert!(
        (naive - exact).abs() > 0.1 * exact,
        "the naive formula should fail here"
    );
    for d in devices("moments cancel") {
        let got = summary(&backends(&d), &data).unwrap().variance();
        assert!(
            (got - exact).abs() <= 1e-12 * exact,
            "{}: {got} against {exact}",
            d.describe()
        );
    }
}

#[test]
fn edge_values() {
    for d in devices("moments edges") {
        let b = backends(&d);
        let one = summary(&b, &[2.5f64]).unwrap();
        assert_eq!((one.count, one.mean, one.variance()), (1, 2.5, 0.0));
        assert_eq!(one.sample_variance(), None);
        let constant = summary(&b, &vec![3.7f32; 1001]).unwrap();
        assert_eq!((constant.m2, constant.mean), (0.0, 3.7f32 as f64));

        let mut data: Vec<f64> = (0..1000).map(|i| i as f64).collect();
        data[500] = f64::INFINITY;
        let s = summary(&b, &data).unwrap();
        assert!(s.mean == f64::INFINITY && s.variance().is_nan() && s.max == f64::INFINITY);
        data[7] = f64::NEG_INFINITY;
        let s = summary(&b, &data).unwrap();
        assert!(s.mean.is_nan() && s.min == f64::NEG_INFINITY);
        data[900] = f64::NAN;
        let s = summary(&b, &data).unwrap();
        assert!(s.mean.is_nan() && s.m2.is_nan() && s.min.is_nan() && s.max.is_nan());
        assert_eq!(s.count, 1000);
        for backend in [&b, &Backend::cpu()] {
            assert!(matches!(
                summary::<f64>(backend, &[]),
                Err(Error::EmptyVector { .. })
            ));
        }
    }
}

/// Values whose squared deviations overflow f64 give an infinite m2 (not inf − inf = NaN), a
/// sum past f64's range still a finite mean, and signed zeros one order (-0 below +0) in the
/// extremes whatever their order, as `Backend::min` and `max` give (issue 46's findings).
#[test]
fn overflow_and_signed_zeros() {
    let mut backends: Vec<Backend> = devices("moments overflow").iter().map(backends).collect();
    backends.push(Backend::cpu());
    for b in &backends {
        let alternating: Vec<f64> = (0..1001)
            .map(|i| if i % 2 == 0 { 1e300 } else { -1e300 })
            .collect();
        let s = summary(b, &alternating).unwrap();
        assert_eq!(s.m2, f64::INFINITY, "{b:?}: alternating ±1e300");
        assert!(
            (s.mean - 1e300 / 1001.0).abs() <= 1e-12 * 1e300 / 1001.0,
            "{b:?}: mean {}",
            s.mean
        );
        assert_eq!((s.min, s.max), (-1e300, 1e300));

        let huge = vec![1.5e308f64; 1001];
        let s = summary(b, &huge).unwrap();
        assert!(
            (s.mean - 1.5e308).abs() <= 1e-15 * 1.5e308,
            "{b:?}: mean {}",
            s.mean
        );
        assert!(
            s.m2.is_finite() && s.std_dev() <= 1e-12 * 1.5e308,
            "{b:?}: m2 {}",
            s.m2
        );

        for zeros in [[-0.0f64, 0.0, -0.0], [0.0, -0.0, 0.0], [-0.0, -0.0, 0.0]] {
            let s = summary(b, &zeros).unwrap();
            let (min, max) = (b.min(&zeros).unwrap(), b.max(&zeros).unwrap());
            assert!(
                s.min == 0.0 && s.min.is_sign_negative() && s.max.is_sign_positive(),
                "{b:?}: {zeros:?}"
            );
            assert_eq!(
                (min.to_bits(), max.to_bits()),
                (s.min.to_bits(), s.max.to_bits()),
                "{b:?}: {zeros:?}"
            );
        }
    }
}

/// A row-major `rows × cols` matrix whose column `j` is `1e3 · j` plus noise.
fn matrix<F: Round>(rows: usize, cols: usize) -> Vec<F> {
    let mut rng = fresh_rng(&format!("moments matrix {rows}x{cols}"));
    let noise: Vec<F> = random_vec(&mut rng, rows * cols);
    noise
        .iter()
        .enumerate()
        .map(|(i, x)| F::round(1e3 * (i % cols) as f64 + x.to_f64()))
        .collect()
}

fn columns_match<F: Round>(d: &Device, rows: usize, cols: usize) {
    let data = matrix::<F>(rows, cols);
    let got = column_summaries(&backends(d), &data, rows, cols).unwrap();
    let cpu = column_summaries(&Backend::cpu(), &data, rows, cols).unwrap();
    assert_eq!((got.len(), cpu.len()), (cols, cols));
    for j in 0..cols {
        let column: Vec<F> = (0..rows).map(|r| data[r * cols + j]).collect();
        let want = summary(&Backend::cpu(), &column).unwrap();
        let label = format!("{} {rows}x{cols} column {j}", d.describe());
        assert_close(&got[j], &want, &label);
        assert_close(&cpu[j], &want, &format!("cpu {label}"));
    }
}

#[test]
fn column_summaries_match_each_column_alone() {
    for d in devices("moments columns") {
        let mut shapes = vec![(1, 1), (1, 70), (70, 1), (37, 33), (1000, 65)];
        if matches!(d, Device::Gpu(_)) {
            shapes.extend([(100_000, 100), (7, 300_000), (1_000_000, 3)]);
        }
        for (rows, cols) in shapes {
            columns_match::<f64>(&d, rows, cols);
        }
        columns_match::<f32>(&d, 300, 40);
        let b = backends(&d);
        assert!(matches!(
            column_summaries(&b, &[1.0f64; 5], 2, 3),
            Err(Error::LengthMismatch { .. })
        ));
        assert!(matches!(
            column_summaries::<f64>(&b, &[], 0, 3),
            Err(Error::EmptyVector { .. })
        ));
    }
}
