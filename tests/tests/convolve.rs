//! Banded convolution: every method on every device against the CPU backend's f64 sums (f64
//! within 1e-12 relative ℓ2, f32 within 1e-5) into poisoned outputs, at the seed's sizes and
//! edge sizes; tails of geometric distributions to 1e-30 (every output within 1e-10 relative);
//! gradients against the reference and by central differences; strided spans in one buffer;
//! batches of equal and varying lengths; f32 summed in f64 (each output rounded once); K-fold
//! sums; NaN and infinity exactly where their terms are; bad input refused before anything runs.

use warpkit::convolve::{
    Accuracy, Convolution, MAX_LEN, Method, Real, Span, fft_error, fft_len, output_offsets,
};
use warpkit::{Backend, Device, DeviceBuffer, Error};
use warpkit_tests::{TestValue, devices, fresh_rng, len_cap, random_vec};

/// Pairs of lengths `(m, n)`: the issue's sizes, unequal and swapped.
const SIZES: [(usize, usize); 13] = [
    (1, 1),
    (2, 1),
    (2, 2),
    (31, 33),
    (32, 32),
    (33, 2),
    (1000, 1000),
    (7, 1000),
    (2048, 2048),
    (2049, 1300),
    (4096, 4096),
    (65536, 65536),
    (65536, 7),
];

/// The largest `m · n` run on the emulator (its kernels run thread by thread on two CI cores).
const EMULATOR_WORK: usize = 1_100_000;

fn emulated(d: &Device) -> bool {
    matches!(d, Device::Emulator(_))
}

/// Non-negative random values (probability-like, unnormalized).
fn positive<F: Real + TestValue>(label: &str, n: usize) -> Vec<F> {
    let mut rng = fresh_rng(label);
    random_vec::<F>(&mut rng, n)
        .into_iter()
        .map(|x| F::from_f64(x.to_f64().abs()))
        .collect()
}

fn to_f64<F: Real>(v: &[F]) -> Vec<f64> {
    v.iter().map(|&x| x.into()).collect()
}

/// The CPU backend's full convolution of `p` and `q` in f64.
fn reference<F: Real>(p: &[F], q: &[F]) -> Vec<f64> {
    Convolution::new()
        .full(&Backend::cpu(), &to_f64(p), &to_f64(q))
        .unwrap()
}

/// `‖got − want‖₂ / ‖want‖₂`.
fn relative_l2<F: Real>(got: &[F], want: &[f64]) -> f64 {
    assert_eq!(got.len(), want.len());
    let (mut err, mut norm) = (0.0, 0.0);
    for (&g, &w) in got.iter().zip(want) {
        let g: f64 = g.into();
        err += (g - w) * (g - w);
        norm += w * w;
    }
    if norm == 0.0 {
        err.sqrt()
    } else {
        (err / norm).sqrt()
    }
}

/// The tolerance of the issue: 1e-12 for f64, 1e-5 for f32.
fn tolerance<F: Real>() -> f64 {
    if size_of::<F>() == 8 { 1e-12 } else { 1e-5 }
}

/// `p ⊛ q` by `conv` on `d` into a poisoned buffer.
fn full_on<F: Real + TestValue>(d: &Device, conv: &Convolution, p: &[F], q: &[F]) -> Vec<F> {
    let (pd, qd) = (d.upload(p).unwrap(), d.upload(q).unwrap());
    let mut r = d.filled(p.len() + q.len() - 1, F::poison()).unwrap();
    conv.full_into(d, &pd, &qd, &mut r).unwrap();
    d.download(&r).unwrap()
}

fn full_products_match<F: Real + TestValue>() {
    let name = std::any::type_name::<F>();
    let devices = devices("convolve full products");
    let gpu = devices.iter().any(|d| !emulated(d));
    for &(m, n) in &SIZES {
        if (!gpu && m * n > EMULATOR_WORK) || m.max(n) > len_cap() {
            continue; // without a GPU the CPU backend, the reference, is all that would run
        }
        let p = positive::<F>(&format!("p {name} {m}"), m);
        let q = positive::<F>(&format!("q {name} {n}"), n);
        let want = reference(&p, &q);
        let cpu = Convolution::new().full(&Backend::cpu(), &p, &q).unwrap();
        assert!(relative_l2(&cpu, &want) <= tolerance::<F>(), "cpu {name} {m}x{n}");
        for d in &devices {
            for method in Method::DIRECT {
                let seed_method = !matches!(method, Method::Band | Method::Lanes);
                if emulated(d) && m * n > EMULATOR_WORK / if seed_method { 4 } else { 1 } {
                    continue;
                }
                if seed_method && method == Method::V4 && m.max(n) > 8 * 65535 {
                    continue;
                }
                let conv = Convolution::new().with_method(method);
                let got = full_on(d, &conv, &p, &q);
                let err = relative_l2(&got, &want);
                assert!(
                    err <= tolerance::<F>(),
                    "{} {method:?} {name} {m}x{n}: relative error {err:e}",
                    d.describe()
                );
            }
        }
    }
}

#[test]
fn full_products_match_the_f64_reference_on_every_method() {
    full_products_match::<f64>();
    full_products_match::<f32>();
}

#[test]
fn geometric_tails_keep_their_relative_accuracy() {
    for d in devices("convolve tails") {
        let (m, n) = if emulated(&d) {
            (200, 150)
        } else {
            (65536.min(len_cap()), 65536.min(len_cap()))
        };
        // p_i ∝ ρ^i and q_j ∝ σ^j falling to 1e-30 at their ends.
        let geometric = |len: usize| -> Vec<f64> {
            let rho = 1e-30f64.powf(1.0 / (len - 1).max(1) as f64);
            (0..len).map(|i| (1.0 - rho) * rho.powi(i as i32)).collect()
        };
        let (p, q) = (geometric(m), geometric(n));
        let want = reference(&p, &q);
        let got = full_on(&d, &Convolution::new(), &p, &q);
        for (i, (&g, &w)) in got.iter().zip(&want).enumerate() {
            let rel = ((g - w) / w).abs();
            assert!(rel < 1e-10, "{} output {i}: {g:e} against {w:e}", d.describe());
        }
    }
}

/// `Σ_i g_i (p ⊛ q)_i` in f64.
fn objective(p: &[f64], q: &[f64], g: &[f64]) -> f64 {
    reference(p, q).iter().zip(g).map(|(r, g)| r * g).sum()
}

fn gradients_match<F: Real + TestValue>() {
    let name = std::any::type_name::<F>();
    let sizes = [
        (1, 1),
        (33, 2),
        (2, 40),
        (1000, 7),
        (300, 300),
        (2048, 2048),
        (65536, 7),
        (65536, 65536),
    ];
    let devices = devices("convolve gradients");
    let gpu = devices.iter().any(|d| !emulated(d));
    for (m, n) in sizes {
        if (!gpu && m * n > EMULATOR_WORK) || m.max(n) > len_cap() {
            continue;
        }
        let p = positive::<F>(&format!("grad p {name} {m}"), m);
        let q = positive::<F>(&format!("grad q {name} {n}"), n);
        let mut rng = fresh_rng(&format!("grad g {name}"));
        let g: Vec<F> = random_vec(&mut rng, m + n - 1);
        let (dp_want, dq_want) = Convolution::new()
            .gradients(&Backend::cpu(), &to_f64(&p), &to_f64(&q), &to_f64(&g))
            .unwrap();
        if m * n <= 100_000 {
            // The objective is bilinear, so central differences are exact up to rounding.
            let (pf, qf, gf) = (to_f64(&p), to_f64(&q), to_f64(&g));
            let h = 0.5;
            for i in [0, m / 2, m - 1] {
                let (mut up, mut down) = (pf.clone(), pf.clone());
                up[i] += h;
                down[i] -= h;
                let fd = (objective(&up, &qf, &gf) - objective(&down, &qf, &gf)) / (2.0 * h);
                assert!(
                    (fd - dp_want[i]).abs() <= 1e-9 * (1.0 + fd.abs()),
                    "dp[{i}] {m}x{n}"
                );
            }
            for j in [0, n / 2, n - 1] {
                let (mut up, mut down) = (qf.clone(), qf.clone());
                up[j] += h;
                down[j] -= h;
                let fd = (objective(&pf, &up, &gf) - objective(&pf, &down, &gf)) / (2.0 * h);
                assert!(
                    (fd - dq_want[j]).abs() <= 1e-9 * (1.0 + fd.abs()),
                    "dq[{j}] {m}x{n}"
                );
            }
        }
        for d in &devices {
            if emulated(d) && m * n > EMULATOR_WORK {
                continue;
            }
            let bufs = (
                d.upload(&p).unwrap(),
                d.upload(&q).unwrap(),
                d.upload(&g).unwrap(),
            );
            // The automatic choice, then each kernel that takes gradients.
            for method in [None, Some(Method::Band), Some(Method::Lanes)] {
                let conv = method.map_or(Convolution::new(), |k| Convolution::new().with_method(k));
                let mut dp = d.filled(m, F::poison()).unwrap();
                let mut dq = d.filled(n, F::poison()).unwrap();
                conv.gradients_into(d, (&bufs.0, &bufs.1, &bufs.2), &mut dp, &mut dq)
                    .unwrap();
                let (dp, dq) = (d.download(&dp).unwrap(), d.download(&dq).unwrap());
                // g has both signs: compare against the magnitudes' scale, f32 with its own
                // rounding.
                let tol = tolerance::<F>() * 10.0;
                let dp_err = relative_l2(&dp, &dp_want);
                let dq_err = relative_l2(&dq, &dq_want);
                assert!(
                    dp_err <= tol && dq_err <= tol,
                    "{} {method:?} {name} {m}x{n}: {dp_err:e} {dq_err:e}",
                    d.describe()
                );
            }
        }
    }
}

#[test]
fn gradients_match_the_reference_and_central_differences() {
    gradients_match::<f64>();
    gradients_match::<f32>();
}

/// One f32 rounding of a positive exact sum: half an ulp, 2^-24 relative (the f64 sum's own
/// error is some 1e-11 relative at most here, far below it).
const ONE_ROUNDING: f64 = 6.0e-8;

/// The largest `|got − want| / want` (`want` positive).
fn max_relative(got: &[f32], want: &[f64]) -> f64 {
    assert_eq!(got.len(), want.len());
    got.iter()
        .zip(want)
        .map(|(&g, &w)| ((g as f64 - w) / w).abs())
        .fold(0.0, f64::max)
}

#[test]
fn f32_summed_in_f64_is_rounded_once_per_output() {
    for d in devices("convolve f32 summed in f64") {
        let backend = Backend::Device(d.clone());
        let wide = Convolution::new().accumulate_f64();
        let (m, n) = if emulated(&d) {
            (300, 257)
        } else {
            (65536.min(len_cap()), 65535.min(len_cap()))
        };
        let (p, q) = (positive::<f32>("wide p", m), positive::<f32>("wide q", n));
        let want = reference(&p, &q);
        let err = max_relative(&full_on(&d, &wide, &p, &q), &want);
        assert!(err <= ONE_ROUNDING, "{} {m}x{n}: {err:e}", d.describe());
        // Summed in f32 the same product is off by more somewhere: the option does something.
        let band = Convolution::new().with_method(Method::Band);
        let narrow = max_relative(&full_on(&d, &band, &p, &q), &want);
        assert!(narrow > ONE_ROUNDING, "{}: f32 sums {narrow:e}", d.describe());

        // Both gradients (positive g, so every output is a positive sum).
        let g = positive::<f32>("wide g", m + n - 1);
        let (dp, dq) = wide.gradients(&backend, &p, &q, &g).unwrap();
        let (dp_want, dq_want) = Convolution::new()
            .gradients(&Backend::cpu(), &to_f64(&p), &to_f64(&q), &to_f64(&g))
            .unwrap();
        let errs = (max_relative(&dp, &dp_want), max_relative(&dq, &dq_want));
        assert!(
            errs.0 <= ONE_ROUNDING && errs.1 <= ONE_ROUNDING,
            "{} gradients: {errs:?}",
            d.describe()
        );

        // A batch of many short equal pairs: tiles enough that each block sums alone.
        let (pairs, bm, bn) = (if emulated(&d) { 40 } else { 4096 }, 16, 9);
        let (bp, bq) = (
            positive::<f32>("wide batch p", pairs * bm),
            positive::<f32>("wide batch q", pairs * bn),
        );
        let p_off: Vec<usize> = (0..=pairs).map(|i| i * bm).collect();
        let q_off: Vec<usize> = (0..=pairs).map(|i| i * bn).collect();
        let got = wide.batch(&backend, (&bp, &p_off), (&bq, &q_off)).unwrap();
        let out = bm + bn - 1;
        for i in 0..pairs {
            let want = reference(&bp[i * bm..(i + 1) * bm], &bq[i * bn..(i + 1) * bn]);
            let err = max_relative(&got[i * out..(i + 1) * out], &want);
            assert!(err <= ONE_ROUNDING, "{} batch pair {i}: {err:e}", d.describe());
        }

        // The seed's kernels sum in the input's type only.
        assert!(matches!(
            wide.with_method(Method::V3).full(&backend, &p, &q),
            Err(Error::MethodCannot { .. })
        ));
    }
}

#[test]
fn strided_spans_convolve_columns_in_place() {
    // Columns of a row-major matrix of 3 columns: p in column 0, q in column 1, r in column 2.
    let (m, n) = (37, 20);
    let rows = m + n - 1;
    let mut rng = fresh_rng("strided");
    let data: Vec<f64> = random_vec(&mut rng, 3 * rows);
    let (p_span, q_span, r_span) = (Span::new(0, m, 3), Span::new(1, n, 3), Span::new(2, rows, 3));
    let p: Vec<f64> = (0..m).map(|i| data[p_span.index(i)]).collect();
    let q: Vec<f64> = (0..n).map(|i| data[q_span.index(i)]).collect();
    let want = reference(&p, &q);
    let check = |out: &[f64], who: &str| {
        for i in 0..rows {
            assert!(
                (out[r_span.index(i)] - want[i]).abs() <= 1e-12 * (1.0 + want[i].abs()),
                "{who} r[{i}]"
            );
        }
        for i in 0..m {
            assert_eq!(out[p_span.index(i)], p[i], "{who} p untouched");
        }
    };
    let mut host = data.clone();
    Convolution::new()
        .strided(&Backend::cpu(), &mut host, p_span, q_span, r_span)
        .unwrap();
    check(&host, "cpu");
    for d in devices("convolve strided") {
        for method in Method::DIRECT {
            let mut buf = d.upload(&data).unwrap();
            Convolution::new()
                .with_method(method)
                .strided_into(&d, &mut buf, p_span, q_span, r_span)
                .unwrap();
            check(
                &d.download(&buf).unwrap(),
                &format!("{} {method:?}", d.describe()),
            );
        }
        let mut host = data.clone();
        Convolution::new()
            .strided(&Backend::Device(d.clone()), &mut host, p_span, q_span, r_span)
            .unwrap();
        check(&host, "device on host data");
    }
}

/// Runs `conv` over a batch of random f32 pairs of `shapes` on `d` into a poisoned output,
/// checks every output against the f64 reference and the CPU backend, and hands back the
/// device buffers for further calls.
fn batch_matches(d: &Device, conv: &Convolution, shapes: &[(usize, usize)]) -> BatchOnDevice {
    let mut rng = fresh_rng("batch");
    let (mut p_off, mut q_off) = (vec![0], vec![0]);
    for &(m, n) in shapes {
        p_off.push(p_off[p_off.len() - 1] + m);
        q_off.push(q_off[q_off.len() - 1] + n);
    }
    let p: Vec<f32> = random_vec(&mut rng, p_off[shapes.len()]);
    let q: Vec<f32> = random_vec(&mut rng, q_off[shapes.len()]);
    let r_off = output_offsets(&p_off, &q_off).unwrap();
    let (pd, qd) = (d.upload(&p).unwrap(), d.upload(&q).unwrap());
    let mut r = d.filled(r_off[shapes.len()], f32::NAN).unwrap();
    conv.batch_into(d, (&pd, &p_off), (&qd, &q_off), &mut r).unwrap();
    let got = d.download(&r).unwrap();
    let cpu = Convolution::new()
        .batch(&Backend::cpu(), (&p, &p_off), (&q, &q_off))
        .unwrap();
    for i in 0..shapes.len() {
        let want = reference(&p[p_off[i]..p_off[i + 1]], &q[q_off[i]..q_off[i + 1]]);
        let (got, cpu) = (&got[r_off[i]..r_off[i + 1]], &cpu[r_off[i]..r_off[i + 1]]);
        // Random signs: f32 rounding relative to the terms' magnitudes.
        let scale = 1e-5 * (1.0 + want.iter().map(|w| w.abs()).fold(0.0, f64::max)) * 10.0;
        for (j, w) in want.iter().enumerate() {
            assert!(
                (got[j] as f64 - w).abs() <= scale,
                "{} pair {i} output {j}",
                d.describe()
            );
            assert!((cpu[j] as f64 - w).abs() <= scale, "cpu pair {i} output {j}");
        }
    }
    BatchOnDevice {
        pd,
        p_off,
        qd,
        q_off,
        r,
    }
}

/// A batch's vectors, offsets and output on a device.
struct BatchOnDevice {
    pd: DeviceBuffer<f32>,
    p_off: Vec<usize>,
    qd: DeviceBuffer<f32>,
    q_off: Vec<usize>,
    r: DeviceBuffer<f32>,
}

#[test]
fn batches_of_equal_and_varying_lengths() {
    for d in devices("convolve batches") {
        // Runs of equal pairs (which go to the device as one job each), with the larger
        // vector on either side and the step between pairs changing inside a run of one shape.
        let mut shapes = [vec![(9, 4); 5], vec![(4, 9); 3], vec![(9, 4), (4, 9), (9, 4)]].concat();
        if emulated(&d) {
            shapes.extend((0..12).map(|i| (1 + 17 * i % 60, 1 + 5 * i % 23)));
        } else {
            shapes.extend([(256, 256); 4096]);
            shapes.extend((0..500).map(|i| (1 + 37 * i % 3000, 1 + 11 * i % 700)));
            shapes.extend([(3000, 1); 70]);
        }
        let mut b = batch_matches(&d, &Convolution::new(), &shapes);
        // The lane kernel takes at most two shapes a call.
        let lanes = Convolution::new().with_method(Method::Lanes);
        assert!(matches!(
            lanes.batch_into(&d, (&b.pd, &b.p_off), (&b.qd, &b.q_off), &mut b.r),
            Err(Error::MethodCannot { .. })
        ));
    }
}

/// The warp kernel (an output a warp, for whole products of comparable lengths whose outputs
/// average 256 terms or more: the policy's `WARP_SUMS_FROM`, which these sizes pass by 13 % and
/// more) on the paths one job of unit strides does not take: strided spans, a run of equal
/// products stepped through a batch, and two shapes in one launch. A mutant that ignores `b`'s
/// stride in the warp kernel fails this test alone.
#[test]
fn the_warp_kernel_takes_strides_runs_and_two_shapes() {
    let lanes = Convolution::new().with_method(Method::Lanes);
    let (m, n) = (300, 280);
    let rows = m + n - 1;
    let mut rng = fresh_rng("warp strided");
    let data: Vec<f64> = random_vec(&mut rng, 3 * rows);
    let (p_span, q_span, r_span) = (Span::new(2, m, 3), Span::new(0, n, 3), Span::new(1, rows, 3));
    let p: Vec<f64> = (0..m).map(|i| data[p_span.index(i)]).collect();
    let q: Vec<f64> = (0..n).map(|i| data[q_span.index(i)]).collect();
    let want = reference(&p, &q);
    for d in devices("convolve warp kernel") {
        let mut buf = d.upload(&data).unwrap();
        lanes.strided_into(&d, &mut buf, p_span, q_span, r_span).unwrap();
        let out = d.download(&buf).unwrap();
        for i in 0..rows {
            let scale = 1e-12 * (1.0 + want[i].abs()) * n as f64;
            assert!(
                (out[r_span.index(i)] - want[i]).abs() <= scale,
                "{} r[{i}]",
                d.describe()
            );
        }
        for i in 0..m {
            assert_eq!(out[p_span.index(i)], p[i], "p untouched");
        }
        for i in 0..n {
            assert_eq!(out[q_span.index(i)], q[i], "q untouched");
        }
        batch_matches(&d, &lanes, &[(300, 300), (300, 300), (300, 300), (260, 400)]);
    }
}

#[test]
fn k_fold_sums_by_squaring_equal_repeated_convolution() {
    let die = [0.1, 0.2, 0.3, 0.15, 0.15, 0.1];
    let mut backends = vec![Backend::cpu()];
    backends.extend(devices("convolve power").into_iter().map(Backend::Device));
    for backend in &backends {
        let conv = Convolution::new();
        assert_eq!(conv.power(backend, &die, 0).unwrap(), [1.0]);
        let mut want = vec![1.0];
        for k in 1..=13u32 {
            want = reference(&want, &die);
            let got = conv.power(backend, &die, k).unwrap();
            assert_eq!(got.len(), 5 * k as usize + 1);
            assert!(relative_l2(&got, &want) < 1e-13, "{} k = {k}", backend.describe());
        }
    }
}

/// Each output's class: NaN, infinite, or neither.
fn classes<F: Real>(got: &[F]) -> Vec<(bool, bool)> {
    got.iter()
        .map(|&x| {
            let x: f64 = x.into();
            (x.is_nan(), x.is_infinite())
        })
        .collect()
}

#[test]
fn nan_and_infinity_appear_exactly_where_their_terms_are() {
    for (m, n) in [(300, 40), (40, 300), (1500, 600)] {
        let mut p: Vec<f32> = positive("special p", m);
        let mut q: Vec<f32> = positive("special q", n);
        p[3] = f32::INFINITY;
        p[m - 2] = f32::NAN;
        q[n / 2] = f32::INFINITY;
        q[n - 1] = 0.5;
        let want = classes(&Convolution::new().full(&Backend::cpu(), &p, &q).unwrap());
        for d in devices("convolve specials") {
            if emulated(&d) && m * n > EMULATOR_WORK {
                continue;
            }
            for method in Method::DIRECT {
                let got = classes(&full_on(&d, &Convolution::new().with_method(method), &p, &q));
                assert_eq!(got, want, "{} {method:?} {m}x{n}", d.describe());
            }
        }
    }
}

#[test]
fn bad_input_is_refused_before_anything_runs() {
    let conv = Convolution::new();
    let cpu = Backend::cpu();
    let one = [1.0f64];
    assert!(matches!(
        conv.full(&cpu, &[], &one),
        Err(Error::EmptyVector { what: "p" })
    ));
    assert!(matches!(
        conv.full(&cpu, &one, &[]),
        Err(Error::EmptyVector { what: "q" })
    ));
    assert!(matches!(
        conv.gradients(&cpu, &one, &one, &[1.0, 2.0]),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        conv.with_method(Method::V3).gradients(&cpu, &one, &one, &one),
        Err(Error::MethodCannot { .. })
    ));
    let mut data = vec![0.0f64; 20];
    let strided = |data: &mut Vec<f64>, p: Span, q: Span, r: Span| conv.strided(&cpu, data, p, q, r);
    assert!(matches!(
        strided(
            &mut data,
            Span::new(0, 3, 0),
            Span::new(3, 2, 1),
            Span::new(10, 4, 1)
        ),
        Err(Error::ZeroStride { what: "p" })
    ));
    assert!(matches!(
        strided(
            &mut data,
            Span::new(0, 3, 1),
            Span::new(3, 2, 1),
            Span::new(18, 4, 1)
        ),
        Err(Error::SpanOutOfBounds { what: "r", .. })
    ));
    assert!(matches!(
        strided(
            &mut data,
            Span::new(0, 3, 2),
            Span::new(10, 2, 1),
            Span::new(4, 4, 1)
        ),
        Err(Error::Overlap { what: "p" })
    ));
    assert!(matches!(
        strided(
            &mut data,
            Span::new(0, 3, 1),
            Span::new(3, 2, 1),
            Span::new(10, 5, 1)
        ),
        Err(Error::LengthMismatch { .. })
    ));
    // Interleaved but disjoint spans are fine.
    strided(
        &mut data,
        Span::new(0, 3, 2),
        Span::new(1, 2, 2),
        Span::new(6, 4, 2),
    )
    .unwrap();
    assert!(matches!(
        conv.batch(&cpu, (&[1.0f64, 2.0], &[0, 2]), (&[1.0], &[0, 1, 1])),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        conv.batch(&cpu, (&[1.0f64, 2.0], &[0, 0, 2]), (&[1.0, 1.0], &[0, 1, 2])),
        Err(Error::InvalidOffsets {
            what: "p offsets",
            index: 1
        })
    ));
    assert!(matches!(
        conv.power(&cpu, &[0.5f64, 0.5], u32::MAX),
        Err(Error::TooLong { .. })
    ));
    assert!(MAX_LEN < usize::MAX as u64);
    for d in devices("convolve bad input") {
        let p = d.upload(&[1.0f32, 2.0]).unwrap();
        let mut short = d.zeros::<f32>(2).unwrap();
        assert!(matches!(
            conv.full_into(&d, &p, &p, &mut short),
            Err(Error::LengthMismatch { .. })
        ));
        let other = Device::emulator();
        let foreign = other.upload(&[1.0f32]).unwrap();
        if !emulated(&d) {
            let mut r = d.zeros::<f32>(2).unwrap();
            assert!(matches!(
                conv.full_into(&d, &p, &foreign, &mut r),
                Err(Error::WrongDevice { .. })
            ));
        }
    }
}

/// The band kernel and its slice sums meet jobs they did not make (words of zeros, `n − 1`,
/// all ones, random, and jobs at the edges of their buffers: offsets at the last element,
/// strides ±1, whole-buffer lengths, repeats stepping past the end, missing buffers) on every
/// device, inline and listed, with one slice and several: each launch is refused with
/// `LaunchContract` or runs, and no store lands past the `n` elements each output is said to
/// hold (a guard of poison after them stays).
#[test]
fn no_job_sends_the_band_kernel_out_of_bounds() {
    use warpkit::checks::{CONVOLVE_JOB_WORDS as WORDS, convolve_band_with_jobs};
    use warpkit_tests::HostileWords;
    const GUARD: usize = 4096;
    const KINDS: [&str; 5] = ["edges", "a forward", "outputs forward", "no input", "steps of 2"];
    let n = 1000;
    let mut rng = fresh_rng("convolve band with any jobs");
    let words = HostileWords::new(&mut rng, n);
    let inputs: Vec<Vec<f32>> = (0..3).map(|_| random_vec(&mut rng, n)).collect();
    // Word `k` of job `j` of `count` at the edges with hazard `h`, in the field order of
    // `warpkit_kernels::convolve::job::Listed`.
    // Each job reads whole inputs reversed from their last element and writes a whole output
    // backward, 2 or 3 products a job one element apart (inside). The last job carries the
    // hazard: 1 reads `a` forward from there (past the end), 2 writes forward, 3 reads an
    // input that does not exist, 4 steps two elements a product (the last one past the end).
    let edge = |h: usize, count: usize, j: usize, k: usize| -> u64 {
        let hazard = if j + 1 == count { h } else { 0 };
        let (n, j) = (n as u64, j as u64);
        let repeat = 2 + j % 2;
        let stride = |forward: bool| if forward { 1 } else { u64::MAX };
        match k {
            0 | 3 | 6 => n - repeat,
            1 => stride(hazard == 1),
            4 => stride(false),
            7 => stride(hazard == 2),
            2 | 5 | 9 => n - repeat + 1, // lengths of a, b and the outputs
            8 => j % 2 * 3,              // lo
            10 | 11 => 0,                // first tile and output: the helper chains them
            12 => repeat,
            13..=15 => 1 + (hazard == 4) as u64,
            _ => {
                let a = if hazard == 3 { 3 } else { j % 3 };
                a | ((j + 1) % 3) << 8 | (j % 2) << 16
            }
        }
    };
    // Edge jobs with each hazard, then the hostile words.
    let kinds = 5 + HostileWords::KINDS.len();
    for device in devices("convolve band with any jobs") {
        let ins: Vec<_> = inputs.iter().map(|v| device.upload(v).unwrap()).collect();
        let ins: Vec<_> = ins.iter().collect();
        // Launches that ran and that were refused, by kind.
        let (mut ran, mut refused) = ([0; 9], [0; 9]);
        for kind in 0..kinds {
            for count in [1, 2, 5] {
                for sliced in [false, true] {
                    let job_words: Vec<u64> = (0..count * WORDS)
                        .map(|i| match kind {
                            h @ 0..5 => edge(h, count, i / WORDS, i % WORDS),
                            t => words.word(t - 5, i),
                        })
                        .collect();
                    let mut outs: Vec<_> = (0..2)
                        .map(|_| device.filled(n + GUARD, f32::poison()).unwrap())
                        .collect();
                    let mut outs: Vec<_> = outs.iter_mut().collect();
                    match convolve_band_with_jobs(&device, (&ins, &mut outs), n, &job_words, sliced) {
                        Ok(()) => ran[kind] += 1,
                        Err(Error::LaunchContract { .. }) => refused[kind] += 1,
                        Err(e) => panic!("jobs of kind {kind}: {e}"),
                    }
                    for (o, out) in outs.iter().enumerate() {
                        let out = device.download(out).unwrap();
                        assert!(
                            out[n..].iter().all(|x| x.to_bits() == f32::poison().to_bits()),
                            "jobs {}, {count} of them, sliced {sliced}, on {}: a store past n in output {o}",
                            KINDS.iter().chain(&HostileWords::KINDS).nth(kind).unwrap(),
                            device.describe()
                        );
                    }
                }
            }
        }
        // Inline (one or two jobs), edge jobs run without a hazard and are refused with one;
        // listed (five), the kernels test them and run (skipping a job with a hazard).
        // Hostile words are refused, do nothing (all zeros: no products), or run listed.
        assert_eq!(ran[..5], [6, 2, 2, 2, 2], "edge jobs that ran, by hazard");
        assert_eq!(refused[..5], [0, 4, 4, 4, 4], "edge jobs refused, by hazard");
    }
}

/// Input families for the FFT's error bound: non-negative random values, one spike each
/// (all the mass on one output), geometric tails falling to 1e-30, and signed random values.
fn fft_families<F: Real + TestValue>(label: &str, m: usize, n: usize) -> Vec<(&'static str, Vec<F>, Vec<F>)> {
    let spike = |len: usize, at: usize| {
        let mut v = vec![F::from_f64(0.0); len];
        v[at % len] = F::from_f64(1.0);
        v
    };
    let geometric = |len: usize| -> Vec<F> {
        let rho = 1e-30f64.powf(1.0 / (len - 1).max(1) as f64);
        (0..len)
            .map(|i| F::from_f64((1.0 - rho) * rho.powi(i as i32)))
            .collect()
    };
    let mut rng = fresh_rng(&format!("fft signed {label}"));
    vec![
        (
            "positive",
            positive(&format!("fft p {label}"), m),
            positive(&format!("fft q {label}"), n),
        ),
        ("spikes", spike(m, m / 3 + 1), spike(n, 2 * n / 3)),
        ("geometric", geometric(m), geometric(n)),
        ("signed", random_vec(&mut rng, m), random_vec(&mut rng, n)),
    ]
}

/// The largest `|got − want|` over `Σ|p|·Σ|q|`.
fn error_of_mass<F: Real>(got: &[F], want: &[f64], p: &[F], q: &[F]) -> f64 {
    let mass = |v: &[F]| v.iter().map(|&x| Into::<f64>::into(x).abs()).sum::<f64>();
    let worst = got
        .iter()
        .zip(want)
        .map(|(&g, &w)| (Into::<f64>::into(g) - w).abs())
        .fold(0.0f64, |a, e| {
            if e.is_nan() || a.is_nan() {
                f64::NAN
            } else {
                a.max(e)
            }
        });
    worst / (mass(p) * mass(q))
}

fn fft_keeps_its_bound<F: Real + TestValue>(d: &Device) {
    let name = std::any::type_name::<F>();
    // Lengths whose transforms are powers of two (131072), 7-smooth (2049 + 1300 − 1 = 3348
    // → 3360) and tiny; each family runs through the same plan and graph with new inputs.
    let sizes = [
        (1, 1),
        (3, 2),
        (1000, 1000),
        (2049, 1300),
        (65536, 65536),
        (65536, 7),
        (300_000, 4097),
        // A transform too long for a graph (its workspace, 16 bytes an element in f32, past
        // 64 MiB): queued step by step.
        (4_400_000, 5),
    ];
    let unit = if size_of::<F>() == 8 {
        f64::EPSILON / 2.0
    } else {
        f32::EPSILON as f64 / 2.0
    };
    let mut beyond = Vec::new();
    for (m, n) in sizes {
        if m.max(n) > len_cap() {
            continue;
        }
        let len = fft_len(m + n - 1);
        let bound = fft_error::<F>(len);
        for (family, p, q) in fft_families::<F>(&format!("{name} {m}"), m, n) {
            let want = reference(&p, &q);
            let conv = Convolution::new().with_method(Method::Fft);
            let got = full_on(d, &conv, &p, &q);
            let err = error_of_mass(&got, &want, &p, &q);
            eprintln!(
                "fft {name} {m}x{n} (length {len}) {family}: error {err:.3e} of the mass = {:.3} u, bound {:.3} u",
                err / unit,
                bound / unit
            );
            if err.is_nan() || err > bound {
                beyond.push(format!("{m}x{n} {family}: {err:e}, bound {bound:e}"));
            }
        }
    }
    assert!(
        beyond.is_empty(),
        "{} fft {name} beyond the bound: {beyond:?}",
        d.describe()
    );
}

/// The FFT method on a GPU: every output within its stated bound of the mass, on inputs that
/// stress it (spikes, tails, signs) at power-of-two and 7-smooth transform lengths, into
/// poisoned outputs; and the automatic method takes it under a loose enough contract.
#[test]
fn the_fft_keeps_its_error_bound_of_the_mass() {
    let gpus: Vec<Device> = devices("convolve fft")
        .into_iter()
        .filter(|d| !emulated(d))
        .collect();
    if gpus.is_empty() {
        eprintln!("SKIPPED: the FFT method runs on a GPU only (cuFFT); no GPU here");
    }
    for d in &gpus {
        fft_keeps_its_bound::<f32>(d);
        fft_keeps_its_bound::<f64>(d);
        // The issue's case: 65536 f32 to 1e-6 of the mass goes to the FFT, and keeps it.
        let m = 65536.min(len_cap());
        let p = positive::<f32>("fft auto p", m);
        let q = positive::<f32>("fft auto q", m);
        let conv = Convolution::new().with_accuracy(Accuracy::OfMass(1e-6));
        let got = full_on(d, &conv, &p, &q);
        let err = error_of_mass(&got, &reference(&p, &q), &p, &q);
        assert!(err <= 1e-6, "auto under 1e-6 of the mass: {err:e}");
    }
}

/// Which method the contract admits: never the FFT per output; the FFT for long pairs under a
/// loose enough tolerance of the mass, not for short ones or tight tolerances; on the emulator
/// (no cuFFT) a loose contract runs a direct method and a forced FFT is refused; a tolerance
/// that is not positive and finite is refused on every backend.
#[test]
fn the_contract_decides_where_the_fft_runs() {
    let loose = Accuracy::OfMass(1e-6);
    assert_eq!(
        Method::auto_within::<f32>(65536, 65536, 1, Accuracy::PerOutput),
        Method::Band
    );
    assert_eq!(Method::auto_within::<f32>(65536, 65536, 1, loose), Method::Fft);
    assert_eq!(Method::auto_within::<f32>(16384, 16384, 1, loose), Method::Fft);
    // Direct sums by size: an output a warp for one product of comparable lengths up to
    // 2^24 terms, the band kernel past that, for lopsided products and for batches.
    assert_eq!(Method::auto_within::<f32>(4096, 4096, 1, loose), Method::Lanes);
    assert_eq!(Method::auto(4097, 4096, 1), Method::Band);
    assert_eq!(Method::auto(5792, 2896, 1), Method::Lanes);
    assert_eq!(Method::auto(5793, 2896, 1), Method::Band);
    assert_eq!(Method::auto(8192, 8192, 1), Method::Band);
    assert_eq!(Method::auto(8192, 2048, 1), Method::Band);
    assert_eq!(Method::auto(2048, 2048, 4), Method::Band);
    assert_eq!(Method::auto_within::<f32>(65536, 65536, 4, loose), Method::Band);
    assert_eq!(
        Method::auto_within::<f32>(65536, 65536, 1, Accuracy::OfMass(1e-9)),
        Method::Band
    );
    assert_eq!(
        Method::auto_within::<f64>(65536, 65536, 1, Accuracy::OfMass(1e-12)),
        Method::Fft
    );
    assert_eq!(Method::auto_within::<f32>(64, 64, 1, loose), Method::Lanes);
    assert_eq!(Method::auto_within::<f32>(65536, 7, 1, loose), Method::Lanes);
    assert_eq!(Method::auto_within::<f32>(2048, 2048, 1, loose), Method::Lanes);
    assert_eq!(Method::auto_within::<f32>(65536, 1024, 1, loose), Method::Band);
    assert!(fft_error::<f32>(fft_len(131071)) <= 1e-6);
    assert_eq!(fft_len(3348), 3360);
    assert_eq!(fft_len(131071), 131072);
    assert_eq!(fft_len(1), 1);
    for n in [1_000_000_007usize, 3 << 40, 17] {
        let len = fft_len(n);
        let mut x = len;
        for f in [2, 3, 5, 7] {
            while x.is_multiple_of(f) {
                x /= f;
            }
        }
        assert!(len >= n && x == 1 && len < 2 * n, "{n} → {len}");
    }
    assert_eq!(Method::auto_within::<f32>(0, 0, 1, loose), Method::auto(0, 0, 1));
    let cpu = Backend::cpu();
    for bad in [0.0, -1e-6, f64::NAN, f64::INFINITY] {
        let conv = Convolution::new().with_accuracy(Accuracy::OfMass(bad));
        assert!(matches!(
            conv.full(&cpu, &[1.0f64], &[1.0]),
            Err(Error::BadParameter { .. })
        ));
        let e = Device::emulator();
        let (x, mut r) = (e.upload(&[1.0f32]).unwrap(), e.zeros::<f32>(1).unwrap());
        assert!(matches!(
            conv.full_into(&e, &x, &x, &mut r),
            Err(Error::BadParameter { .. })
        ));
    }
    for d in devices("convolve fft contract") {
        let (m, n) = if emulated(&d) { (300, 200) } else { (5000, 3000) };
        let p = positive::<f32>("contract p", m);
        let q = positive::<f32>("contract q", n);
        let want = reference(&p, &q);
        let got = full_on(&d, &Convolution::new().with_accuracy(loose), &p, &q);
        assert!(error_of_mass(&got, &want, &p, &q) <= 1e-6, "{}", d.describe());
        let forced = Convolution::new().with_method(Method::Fft);
        let (pd, qd) = (d.upload(&p).unwrap(), d.upload(&q).unwrap());
        let (mut dp, mut dq) = (d.zeros::<f32>(m).unwrap(), d.zeros::<f32>(n).unwrap());
        let g = d.zeros::<f32>(m + n - 1).unwrap();
        assert!(matches!(
            forced.gradients_into(&d, (&pd, &qd, &g), &mut dp, &mut dq),
            Err(Error::MethodCannot { .. })
        ));
        let mut r = d.zeros::<f32>(m + n - 1).unwrap();
        assert!(matches!(
            forced.accumulate_f64().full_into(&d, &pd, &qd, &mut r),
            Err(Error::MethodCannot { .. })
        ));
        let mut data = d.zeros::<f32>(40).unwrap();
        let strided = forced.strided_into(
            &d,
            &mut data,
            Span::new(0, 4, 2),
            Span::new(1, 4, 2),
            Span::new(10, 7, 1),
        );
        assert!(matches!(strided, Err(Error::MethodCannot { .. })), "{strided:?}");
        let full = forced.full_into(&d, &pd, &qd, &mut r);
        if emulated(&d) {
            assert!(matches!(full, Err(Error::MethodCannot { .. })), "{full:?}");
        } else {
            full.unwrap();
        }
        let two = |len: usize| [0, len / 2, len];
        assert!(matches!(
            forced.batch(&Backend::Device(d.clone()), (&p, &two(m)), (&q, &two(n))),
            Err(Error::MethodCannot { .. })
        ));
    }
}

/// The FFT method's own kernels on every device, against the host, in grids smaller than
/// their work (grid-stride loops) into poisoned buffers: the padding of two vectors into two
/// signals, and the spectra's scaled product (f64 products of the f32 inputs within 2 ulp).
#[test]
fn the_fft_padding_and_product_kernels_match_the_host() {
    use warpkit_kernels::convolve::fft::{self, Pad, Spectra};
    for d in devices("convolve fft kernels") {
        let (m, n, len) = (700usize, 300usize, 1100usize);
        let p = positive::<f32>("pad p", m);
        let q: Vec<f32> = random_vec(&mut fresh_rng("pad q"), n);
        let (pd, qd) = (d.upload(&p).unwrap(), d.upload(&q).unwrap());
        let mut padded = d.filled(2 * len, f32::NAN).unwrap();
        let mut b = d.bind();
        let params = Pad {
            p: b.read(&pd).unwrap(),
            m: m as u64,
            q: b.read(&qd).unwrap(),
            n: n as u64,
            padded: b.write(&mut padded).unwrap(),
            len: len as u64,
        };
        b.launch::<fft::convolve_fft_pad_f32>(fft::shape(len as u64, 2), params)
            .unwrap();
        let got = d.download(&padded).unwrap();
        for i in 0..len {
            let (x, y) = (p.get(i).copied().unwrap_or(0.0), q.get(i).copied().unwrap_or(0.0));
            assert_eq!(
                (got[i].to_bits(), got[len + i].to_bits()),
                (x.to_bits(), y.to_bits()),
                "{} element {i}",
                d.describe()
            );
        }

        let bins = 1025usize;
        let spectra: Vec<f32> = random_vec(&mut fresh_rng("spectra"), 4 * bins);
        let mut sd = d.upload(&spectra).unwrap();
        let scale = 1.0f32 / 2048.0;
        let mut b = d.bind();
        let params = Spectra {
            spectra: b.write(&mut sd).unwrap(),
            bins: bins as u64,
            scale: u64::from(scale.to_bits()),
        };
        b.launch::<fft::convolve_fft_product_f32>(fft::shape(bins as u64, 3), params)
            .unwrap();
        let got = d.download(&sd).unwrap();
        for k in 0..bins {
            let (xr, xi) = (
                spectra[2 * k] as f64 * scale as f64,
                spectra[2 * k + 1] as f64 * scale as f64,
            );
            let (yr, yi) = (spectra[2 * (bins + k)] as f64, spectra[2 * (bins + k) + 1] as f64);
            let (re, im) = (xr * yr - xi * yi, xr * yi + xi * yr);
            let size = (xr.abs() + xi.abs()) * (yr.abs() + yi.abs());
            for (g, w) in [(got[2 * k], re), (got[2 * k + 1], im)] {
                assert!(
                    (g as f64 - w).abs() <= 2.0 * f32::EPSILON as f64 * size,
                    "{} bin {k}: {g} against {w}",
                    d.describe()
                );
            }
        }
        assert_eq!(
            got[2 * bins..],
            spectra[2 * bins..],
            "the second spectrum is read only"
        );
    }
}
