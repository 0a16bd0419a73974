//! Shared helpers of warpkit's integration tests: the devices every kernel test runs on, fresh
//! random inputs, poison values and comparisons with CPU references computed in f64 (floats) or
//! exactly (integers).
//!
//! A kernel test is written once, as a function of the device, and [`on_every_device`] runs it
//! on the SIMT emulator always and on the GPU when one is present, with the same inputs on
//! both, and checks that both give the same bits where the kernel is deterministic.
//!
//! Environment variables:
//! - `WARPKIT_TEST_DEVICES=gpu` leaves the emulator out of [`devices`] (see there).
//! - `WARPKIT_TEST_SEED=N` replays a failure: every [`fresh_rng`] starts from seed `N`.
//! - `WARPKIT_TEST_MAX_LEN=N` caps the lengths tested at `N` elements, on the GPU, the emulator
//!   and the CPU backend alike: [`max_len`], [`sizes_up_to`] and [`cap`] give at most `N`, and the
//!   tests' fixed large sizes (keys, samples, items) go through [`cap`]; a statistical test that
//!   needs a least number of samples to stay valid keeps that number, and says so. Meant for
//!   runs where every launch is slow, such as under compute-sanitizer (`run.sh sanitize`, see
//!   `scripts/gpu-bundle.sh`). Unset, every size is as before.

pub mod primitives;

use rand_core::{RngCore, SeedableRng};
use std::io::Write;
use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};
use warpkit::{Device, Philox, Scalar};

/// The lengths every kernel is tested at: edge sizes around a warp, odd primes, 2^20 + 7, and
/// 2^28 on the GPU only (only those up to [`len_cap`] where `WARPKIT_TEST_MAX_LEN` is set).
pub const SIZES: [usize; 11] = [
    0,
    1,
    31,
    32,
    33,
    257,
    4099,
    65_537,
    1_000_003,
    (1 << 20) + 7,
    1 << 28,
];

/// The largest length tested on the emulator and the CPU backend (a few seconds of emulation).
pub const CPU_MAX_LEN: usize = (1 << 20) + 7;

/// The most elements any test takes: `WARPKIT_TEST_MAX_LEN` (read once, and announced once on
/// stderr), or `usize::MAX` when it is unset or empty.
pub fn len_cap() -> usize {
    static CAP: OnceLock<usize> = OnceLock::new();
    *CAP.get_or_init(|| match std::env::var("WARPKIT_TEST_MAX_LEN") {
        Ok(v) if !v.trim().is_empty() => {
            let cap = v
                .trim()
                .parse()
                .expect("WARPKIT_TEST_MAX_LEN is a number of elements");
            let _ = writeln!(
                std::io::stderr(),
                "\nWARPKIT_TEST_MAX_LEN: lengths capped at {cap} elements"
            );
            cap
        }
        _ => usize::MAX,
    })
}

/// `n`, or [`len_cap`] where that is smaller: for the tests' fixed sizes.
pub fn cap(n: usize) -> usize {
    n.min(len_cap())
}

/// [`SIZES`] up to `max` (and up to [`len_cap`]).
pub fn sizes_up_to(max: usize) -> impl Iterator<Item = usize> {
    let max = cap(max);
    SIZES.into_iter().filter(move |&n| n <= max)
}

/// The largest length tested on `device` (at most [`len_cap`]).
pub fn max_len(device: &Device) -> usize {
    cap(match device {
        Device::Gpu(_) => usize::MAX,
        _ => CPU_MAX_LEN,
    })
}

/// Whether [`on_every_device`] runs size `n` on `device`: every size up to [`max_len`], but
/// on the emulator only one of the two sizes near 2^20 (2^20 + 7, the larger): emulating both
/// took a third of the test command's time on two cores, and 1 000 003 finds nothing there that
/// 2^20 + 7 and the odd sizes below do not (it still runs on the GPU).
fn runs_at(device: &Device, n: usize) -> bool {
    n <= max_len(device) && (matches!(device, Device::Gpu(_)) || n != 1_000_003)
}

/// The GPU, or `None` after printing that `test` was skipped on it and why. The line goes
/// straight to stderr, past the test harness's capture, so it shows even when the test passes.
pub fn gpu_or_skip(test: &str) -> Option<Device> {
    match Device::gpu(0) {
        Ok(g) => Some(g),
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "\nSKIPPED on GPU: {test}: {e}");
            None
        }
    }
}

/// The emulator and, when present, the GPU (see [`gpu_or_skip`]). `WARPKIT_TEST_DEVICES=gpu`
/// leaves the emulator out (it runs in CI; the GPU machine's minutes are few), and says so.
pub fn devices(test: &str) -> Vec<Device> {
    let gpu_only = std::env::var("WARPKIT_TEST_DEVICES").is_ok_and(|v| v == "gpu");
    let mut d = Vec::new();
    if gpu_only {
        let _ = writeln!(
            std::io::stderr(),
            "\nSKIPPED on the emulator: {test}: WARPKIT_TEST_DEVICES=gpu"
        );
    } else {
        d.push(Device::emulator());
    }
    d.extend(gpu_or_skip(test));
    d
}

/// Whether the devices must agree bit for bit.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Agreement {
    /// Integer kernels and float kernels with a fixed reduction order.
    Bitwise,
    /// Float kernels whose order depends on the device (grid size) or on timing (look-back).
    ReferenceOnly,
}

/// Runs a kernel test on every device at every size it takes ([`runs_at`]): `input` makes the input of a
/// size (once, shared by the devices), `run` computes the output on a device, `check` compares
/// it with the CPU reference, and under [`Agreement::Bitwise`] the devices' outputs must be
/// identical.
pub fn on_every_device<I, T: TestValue>(
    test: &str,
    agreement: Agreement,
    mut input: impl FnMut(&mut Philox, usize) -> I,
    run: impl Fn(&Device, &I) -> warpkit::Result<Vec<T>>,
    check: impl Fn(&I, &[T], &str),
) {
    let devices = devices(test);
    let mut rng = fresh_rng(test);
    for n in SIZES {
        let on: Vec<&Device> = devices.iter().filter(|d| runs_at(d, n)).collect();
        if on.is_empty() {
            continue;
        }
        let x = input(&mut rng, n);
        let mut first: Option<(String, Vec<u64>)> = None;
        for device in on {
            let label = format!("{test} n={n} on {}", device.describe());
            let got = run(device, &x).unwrap_or_else(|e| panic!("{label}: {e}"));
            check(&x, &got, &label);
            println!("{label}: checked");
            let bits: Vec<u64> = got.iter().map(|v| v.to_bits64()).collect();
            match &first {
                Some((other, expected)) if agreement == Agreement::Bitwise => {
                    let diff = bits.iter().zip(expected).position(|(a, b)| a != b);
                    assert!(diff.is_none(), "{label}: element {diff:?} differs from {other}");
                }
                Some(_) => {}
                None => first = Some((label, bits)),
            }
        }
    }
}

/// A generator with a fresh seed, printed so that a failure can be replayed with
/// `WARPKIT_TEST_SEED`.
pub fn fresh_rng(label: &str) -> Philox {
    let seed = match std::env::var("WARPKIT_TEST_SEED") {
        Ok(s) => s.parse().expect("WARPKIT_TEST_SEED is a u64"),
        Err(_) => {
            let t = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos() as u64;
            t ^ label.bytes().fold(0u64, |h, b| h.rotate_left(5) ^ b as u64)
        }
    };
    println!("{label}: seed {seed}");
    Philox::seed_from_u64(seed)
}

/// What the tests need of an element type beyond [`Scalar`].
pub trait TestValue: Scalar {
    /// A random value: any bits for integers, uniform in [-1, 1) for floats.
    fn random(rng: &mut Philox) -> Self;
    /// A value no correct kernel writes here (NaN for floats), stored before each run.
    fn poison() -> Self;
    fn to_f64(self) -> f64;
    /// Relative tolerance against the f64 reference, scaled by the sum of magnitudes; 0 means
    /// exact (integers, compared with wrapping arithmetic).
    const TOLERANCE: f64;
}

/// Integers: any bits, poisoned with a marker pattern, compared exactly (wrapping).
macro_rules! int_test_value {
    ($($t:ty: $next:ident as $bits:ty, $poison:expr);*) => {$(
        impl TestValue for $t {
            fn random(rng: &mut Philox) -> Self {
                rng.$next() as $t
            }
            fn poison() -> Self {
                $poison as $bits as $t
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
            const TOLERANCE: f64 = 0.0;
        }
    )*};
}
int_test_value!(
    u32: next_u32 as u32, 0xDEAD_BEEFu32;
    u64: next_u64 as u64, 0xDEAD_BEEF_DEAD_BEEFu64;
    i32: next_u32 as u32, 0xDEAD_BEEFu32;
    i64: next_u64 as u64, 0xDEAD_BEEF_DEAD_BEEFu64
);

impl TestValue for f32 {
    fn random(rng: &mut Philox) -> Self {
        (rng.next_u32() >> 8) as f32 * (2.0 / (1u32 << 24) as f32) - 1.0
    }
    fn poison() -> Self {
        f32::NAN
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    // Worst-case rounding of a 2^28-element tiled sum is ~4e-3 of the magnitude sum; random
    // rounding stays far below this.
    const TOLERANCE: f64 = 1e-4;
}

impl TestValue for f64 {
    fn random(rng: &mut Philox) -> Self {
        (rng.next_u64() >> 11) as f64 * (2.0 / (1u64 << 53) as f64) - 1.0
    }
    fn poison() -> Self {
        f64::NAN
    }
    fn to_f64(self) -> f64 {
        self
    }
    const TOLERANCE: f64 = 1e-12;
}

/// `n` fresh random values.
pub fn random_vec<T: TestValue>(rng: &mut Philox, n: usize) -> Vec<T> {
    (0..n).map(|_| T::random(rng)).collect()
}

/// Checks `got` element by element against a running sum that restarts every `segment`
/// elements (`usize::MAX`: one segment), exclusive or inclusive.
pub fn assert_segmented_scan<T: TestValue>(
    input: &[T],
    got: &[T],
    segment: usize,
    inclusive: bool,
    label: &str,
) {
    assert_eq!(input.len(), got.len(), "{label}: output length");
    let (mut exact, mut approx, mut magnitude) = (T::ZERO, 0.0f64, 0.0f64);
    for (i, (&x, &g)) in input.iter().zip(got).enumerate() {
        if i % segment == 0 {
            (exact, approx, magnitude) = (T::ZERO, 0.0, 0.0);
        }
        if inclusive {
            (exact, approx, magnitude) = (exact.add(x), approx + x.to_f64(), magnitude + x.to_f64().abs());
        }
        check_value(g, exact, approx, magnitude, || {
            format!("{label}: element {i} of {}", input.len())
        });
        if !inclusive {
            (exact, approx, magnitude) = (exact.add(x), approx + x.to_f64(), magnitude + x.to_f64().abs());
        }
    }
}

/// Checks `got` = the sum of all of `input` (zero when it is empty).
pub fn assert_total<T: TestValue>(input: &[T], got: T, label: &str) {
    let exact = input.iter().fold(T::ZERO, |a, &b| a.add(b));
    let approx = input.iter().map(|x| x.to_f64()).sum();
    let magnitude = input.iter().map(|x| x.to_f64().abs()).sum();
    check_value(got, exact, approx, magnitude, || label.to_string());
}

/// Checks `got[s]` = sum of segment `s` (of `segment` elements) of `input`.
pub fn assert_segment_sums<T: TestValue>(input: &[T], got: &[T], segment: usize, label: &str) {
    assert_eq!(input.len().div_ceil(segment), got.len(), "{label}: output length");
    for (s, (chunk, &g)) in input.chunks(segment).zip(got).enumerate() {
        assert_total(chunk, g, &format!("{label}: segment {s}"));
    }
}

fn check_value<T: TestValue>(got: T, exact: T, approx: f64, magnitude: f64, at: impl Fn() -> String) {
    if T::TOLERANCE == 0.0 {
        assert!(got == exact, "{}: got {got:?}, expected {exact:?}", at());
    } else {
        let err = (got.to_f64() - approx).abs();
        let tol = T::TOLERANCE * magnitude + 1e-30;
        assert!(
            err <= tol,
            "{}: got {got:?}, expected {approx} (error {err:e} over {tol:e})",
            at()
        );
    }
}

/// The chi-square critical value of `dof` degrees of freedom at significance 1e-6
/// (Wilson-Hilferty; z = 4.753).
pub fn chi_square_critical(dof: f64) -> f64 {
    let a = 2.0 / (9.0 * dof);
    dof * (1.0 - a + 4.753 * a.sqrt()).powi(3)
}

/// Words a kernel may meet in a buffer that its checked launch cannot vouch for (tables,
/// scans, splits another kernel would have written): zeros, `n - 1`, all ones, and noise.
pub struct HostileWords {
    n: usize,
    noise: Vec<u64>,
}

impl HostileWords {
    /// The kinds, by name, in the order [`HostileWords::word`] takes them.
    pub const KINDS: [&'static str; 4] = ["zeros", "n - 1", "all ones", "random"];

    /// The words of buffers about `n` items, noise from `rng`.
    pub fn new(rng: &mut Philox, n: usize) -> HostileWords {
        let noise = (0..1 << 16).map(|_| rng.next_u64()).collect();
        HostileWords { n, noise }
    }

    /// Word `i` of kind `kind` (narrower words take the low bits: all ones stays all ones).
    pub fn word(&self, kind: usize, i: usize) -> u64 {
        match kind {
            0 => 0,
            1 => self.n as u64 - 1,
            2 => u64::MAX,
            _ => self.noise[i % self.noise.len()],
        }
    }
}
