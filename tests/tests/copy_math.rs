//! The 128-bit copy kernel and the SIMT layer's math functions, on every device.

use warpkit::checks::math;
use warpkit_tests::*;

#[test]
fn copy_is_exact_for_every_size() {
    on_every_device(
        "copy",
        Agreement::Bitwise,
        random_vec::<u32>,
        |device, input| {
            let src = device.upload(input)?;
            let mut dst = device.filled(input.len(), u32::poison())?;
            device.copy(&src, &mut dst)?;
            device.download(&dst)
        },
        |input, got, label| assert!(got == input, "{label}"),
    );
    // Byte-sized elements exercise the unaligned tail.
    let bytes: Vec<u8> = (0..1001u32).map(|i| (i * 7) as u8).collect();
    for device in devices("copy of bytes") {
        let src = device.upload(&bytes).unwrap();
        let mut dst = device.filled(bytes.len(), 0xAAu8).unwrap();
        device.copy(&src, &mut dst).unwrap();
        assert_eq!(device.download(&dst).unwrap(), bytes, "{}", device.describe());
    }
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
fn math_matches_std() {
    let mut rng = fresh_rng("math");
    // Positive arguments in (0, pi]: inside every function's domain and sin/cos's fast range.
    let xs: Vec<f64> = (0..cap(100_003))
        .map(|_| (f64::random(&mut rng) + 1.0001) * 1.5)
        .collect();
    let xs32: Vec<f32> = xs.iter().map(|&x| x as f32).collect();
    let mut f64_results = Vec::new();
    for device in devices("math_matches_std") {
        let label = device.describe();
        let x64 = device.upload(&xs).unwrap();
        let mut out64 = device.filled(5 * xs.len(), f64::NAN).unwrap();
        math(&device, &x64, &mut out64).unwrap();
        let got64 = device.download(&out64).unwrap();
        check_math(&got64, &xs, 1e-15, 1e-15, &format!("{label} f64"));
        f64_results.push(got64);

        let x32 = device.upload(&xs32).unwrap();
        let mut out32 = device.filled(5 * xs.len(), f32::NAN).unwrap();
        math(&device, &x32, &mut out32).unwrap();
        let got: Vec<f64> = device
            .download(&out32)
            .unwrap()
            .into_iter()
            .map(f64::from)
            .collect();
        let exact: Vec<f64> = xs32.iter().map(|&x| x as f64).collect();
        check_math(&got, &exact, 2e-6, 2e-6, &format!("{label} f32"));
    }
    // f64 math is the same libm code on both engines: the same bits.
    if let [emulated, gpu] = &f64_results[..] {
        let same = emulated.iter().zip(gpu).all(|(a, b)| a.to_bits() == b.to_bits());
        assert!(same, "f64 math differs between the emulator and the GPU");
    }
}
