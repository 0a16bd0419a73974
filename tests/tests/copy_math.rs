//! The 128-bit copy kernel and the SIMT layer's math functions on the GPU.

use warpkit::checks::math;
use warpkit_tests::*;

#[test]
fn gpu_copy_is_exact_for_every_size() {
    let Some(gpu) = gpu_or_skip("gpu_copy_is_exact_for_every_size") else {
        return;
    };
    let mut rng = fresh_rng("copy");
    for n in sizes(true) {
        let input = random_vec::<u32>(&mut rng, n);
        let src = gpu.upload(&input).unwrap();
        let mut dst = gpu.filled(n, u32::poison()).unwrap();
        gpu.copy(&src, &mut dst).unwrap();
        assert!(gpu.download(&dst).unwrap() == input, "copy n={n}");
    }
    // Byte-sized elements exercise the unaligned tail.
    let bytes: Vec<u8> = (0..1001u32).map(|i| (i * 7) as u8).collect();
    let src = gpu.upload(&bytes).unwrap();
    let mut dst = gpu.filled(bytes.len(), 0xAAu8).unwrap();
    gpu.copy(&src, &mut dst).unwrap();
    assert_eq!(gpu.download(&dst).unwrap(), bytes);
}

/// Checks the five functions at `xs` against std's f64 results.
fn check_math(got: &[f64], xs: &[f64], ln_exp_rel: f64, trig_abs: f64, label: &str) {
    for (i, &x) in xs.iter().enumerate() {
        let g = &got[5 * i..5 * i + 5];
        let close = |v: f64, r: f64, tol: f64| (v - r).abs() <= tol;
        assert!(
            close(g[0], x.ln(), ln_exp_rel * x.ln().abs().max(1.0)),
            "{label} ln({x}) = {}",
            g[0]
        );
        assert!(
            close(g[1], x.exp(), ln_exp_rel * x.exp()),
            "{label} exp({x}) = {}",
            g[1]
        );
        assert!(close(g[2], x.sin(), trig_abs), "{label} sin({x}) = {}", g[2]);
        assert!(close(g[3], x.cos(), trig_abs), "{label} cos({x}) = {}", g[3]);
        assert!(
            close(g[4], x.sqrt(), ln_exp_rel * x.sqrt()),
            "{label} sqrt({x}) = {}",
            g[4]
        );
    }
}

#[test]
fn gpu_math_matches_std() {
    let Some(gpu) = gpu_or_skip("gpu_math_matches_std") else {
        return;
    };
    let mut rng = fresh_rng("math");
    // Positive arguments in (0, pi]: inside every function's domain and sin/cos's fast range.
    let xs: Vec<f64> = (0..100_003)
        .map(|_| (f64::random(&mut rng) + 1.0001) * 1.5)
        .collect();
    let x64 = gpu.upload(&xs).unwrap();
    let mut out64 = gpu.filled(5 * xs.len(), f64::NAN).unwrap();
    math(&gpu, &x64, &mut out64).unwrap();
    check_math(&gpu.download(&out64).unwrap(), &xs, 1e-15, 1e-15, "f64");

    let xs32: Vec<f32> = xs.iter().map(|&x| x as f32).collect();
    let x32 = gpu.upload(&xs32).unwrap();
    let mut out32 = gpu.filled(5 * xs.len(), f32::NAN).unwrap();
    math(&gpu, &x32, &mut out32).unwrap();
    let got: Vec<f64> = gpu.download(&out32).unwrap().into_iter().map(f64::from).collect();
    let exact: Vec<f64> = xs32.iter().map(|&x| x as f64).collect();
    check_math(&got, &exact, 2e-6, 2e-6, "f32");
}
