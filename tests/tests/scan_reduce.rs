//! Device-wide exclusive scan and sum, for u32, u64, f32 and f64 at every test size, on the
//! GPU (poisoned outputs, fresh random inputs) and on the CPU backend, against references.

use warpkit::{Backend, DeviceBuffer, Gpu};
use warpkit_tests::*;

/// Runs `scan` at every size on fresh inputs and poisoned outputs, against the reference.
fn check_gpu_scan<T: TestValue>(
    gpu: &Gpu,
    label: &str,
    scan: impl Fn(&DeviceBuffer<T>, &mut DeviceBuffer<T>) -> warpkit::Result<()>,
) {
    let mut rng = fresh_rng(label);
    for n in sizes(true) {
        let input = random_vec::<T>(&mut rng, n);
        let d_in = gpu.upload(&input).unwrap();
        let mut d_out = gpu.filled(n, T::poison()).unwrap();
        scan(&d_in, &mut d_out).unwrap();
        let got = gpu.download(&d_out).unwrap();
        assert_segmented_scan(&input, &got, usize::MAX, false, &format!("{label} n={n}"));
    }
}

fn gpu_scan<T: TestValue>(gpu: &Gpu) {
    check_gpu_scan::<T>(gpu, &format!("gpu scan {}", T::NAME), |i, o| {
        gpu.exclusive_scan_into(i, o)
    });
}

fn gpu_sum<T: TestValue>(gpu: &Gpu) {
    let mut rng = fresh_rng(&format!("gpu sum {}", T::NAME));
    for n in sizes(true) {
        let input = random_vec::<T>(&mut rng, n);
        let d_in = gpu.upload(&input).unwrap();
        let mut d_out = gpu.filled(1, T::poison()).unwrap();
        gpu.sum_into(&d_in, &mut d_out).unwrap();
        let got = gpu.download(&d_out).unwrap();
        assert_total(&input, got[0], &format!("sum {} n={n}", T::NAME));
        if n > 0 {
            assert!(
                gpu.sum(&d_in).unwrap() == got[0],
                "sum {} n={n}: repeated run differs",
                T::NAME
            );
        }
    }
}

fn cpu_scan_and_sum<T: TestValue>() {
    let mut rng = fresh_rng(&format!("cpu scan/sum {}", T::NAME));
    let cpu = Backend::cpu();
    for n in sizes(false) {
        let input = random_vec::<T>(&mut rng, n);
        let scan = cpu.exclusive_scan(&input).unwrap();
        assert_segmented_scan(
            &input,
            &scan,
            usize::MAX,
            false,
            &format!("cpu scan {} n={n}", T::NAME),
        );
        let sum = cpu.sum(&input).unwrap();
        assert_total(&input, sum, &format!("cpu sum {} n={n}", T::NAME));
    }
}

macro_rules! per_type {
    ($($t:ty: $gs:ident, $gr:ident, $cpu:ident);*) => {$(
        #[test]
        fn $gs() {
            if let Some(gpu) = gpu_or_skip(stringify!($gs)) {
                gpu_scan::<$t>(&gpu);
            }
        }
        #[test]
        fn $gr() {
            if let Some(gpu) = gpu_or_skip(stringify!($gr)) {
                gpu_sum::<$t>(&gpu);
            }
        }
        #[test]
        fn $cpu() {
            cpu_scan_and_sum::<$t>();
        }
    )*};
}
per_type!(
    u32: gpu_scan_u32, gpu_sum_u32, cpu_scan_sum_u32;
    u64: gpu_scan_u64, gpu_sum_u64, cpu_scan_sum_u64;
    f32: gpu_scan_f32, gpu_sum_f32, cpu_scan_sum_f32;
    f64: gpu_scan_f64, gpu_sum_f64, cpu_scan_sum_f64
);

#[test]
fn gpu_scan_tuning_candidates_are_correct() {
    let Some(gpu) = gpu_or_skip("gpu_scan_tuning_candidates_are_correct") else {
        return;
    };
    for candidate in 0..warpkit::scan::SCAN_TUNING_U32.len() {
        check_gpu_scan::<u32>(&gpu, &format!("scan tuning candidate {candidate}"), |i, o| {
            gpu.exclusive_scan_tuning(candidate, i, o)
        });
    }
}
