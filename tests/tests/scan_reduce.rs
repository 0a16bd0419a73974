//! Device-wide exclusive and inclusive scans (and exclusive ones from a first value), sum,
//! minimum and maximum, for u32, u64, i32, i64, f32 and f64 at every test size, on every device (poisoned outputs, fresh random inputs) and on the
//! CPU backend, against references.
//! Integer results must agree bit for bit between devices; float ones need not (the look-back's
//! order depends on timing, the sum's grid on the device).

use warpkit::{Backend, Device, DeviceBuffer};
use warpkit_tests::*;

fn agreement<T: TestValue>() -> Agreement {
    if T::TOLERANCE == 0.0 {
        Agreement::Bitwise
    } else {
        Agreement::ReferenceOnly
    }
}

/// Runs `scan` (exclusive or `inclusive`) at every size on every device, on fresh inputs and
/// poisoned outputs.
fn check_scan<T: TestValue>(
    label: &str,
    inclusive: bool,
    scan: impl Fn(&Device, &DeviceBuffer<T>, &mut DeviceBuffer<T>) -> warpkit::Result<()>,
) {
    on_every_device(
        label,
        agreement::<T>(),
        random_vec::<T>,
        |device, input| {
            let d_in = device.upload(input)?;
            let mut d_out = device.filled(input.len(), T::poison())?;
            scan(device, &d_in, &mut d_out)?;
            device.download(&d_out)
        },
        |input, got, label| assert_segmented_scan(input, got, usize::MAX, inclusive, label),
    );
}

fn device_scan<T: TestValue>() {
    check_scan::<T>(&format!("scan {}", T::NAME), false, |d, i, o| {
        d.exclusive_scan_into(i, o)
    });
    check_scan::<T>(&format!("inclusive scan {}", T::NAME), true, |d, i, o| {
        d.inclusive_scan_into(i, o)
    });
    // From a first value: the input's first element as `first` and the rest scanned after it
    // give the inclusive scan of all but the last element.
    on_every_device(
        &format!("scan {} from a value", T::NAME),
        agreement::<T>(),
        random_vec::<T>,
        |device, input| {
            let Some((&first, rest)) = input.split_first() else {
                return Ok(Vec::new());
            };
            let d_in = device.upload(rest)?;
            let mut d_out = device.filled(rest.len(), T::poison())?;
            device.exclusive_scan_from_into(first, &d_in, &mut d_out)?;
            device.download(&d_out)
        },
        |input, got, label| {
            let all_but_last = &input[..input.len().saturating_sub(1)];
            assert_segmented_scan(all_but_last, got, usize::MAX, true, label)
        },
    );
}

/// The least and greatest of `input` by a sequential fold.
fn min_max<T: TestValue>(input: &[T]) -> [T; 2] {
    let min = input.iter().fold(T::HIGHEST, |a, &b| a.lesser(b));
    let max = input.iter().fold(T::LOWEST, |a, &b| a.greater(b));
    [min, max]
}

fn device_min_max<T: TestValue>() {
    on_every_device(
        &format!("min/max {}", T::NAME),
        Agreement::Bitwise,
        random_vec::<T>,
        |device, input| {
            let d_in = device.upload(input)?;
            if input.is_empty() {
                assert!(matches!(
                    device.min(&d_in),
                    Err(warpkit::Error::EmptyVector { .. })
                ));
                assert!(matches!(
                    device.max(&d_in),
                    Err(warpkit::Error::EmptyVector { .. })
                ));
                return Ok(vec![]);
            }
            let mut d_out = device.filled(2, T::poison())?;
            let mut one = device.filled(1, T::poison())?;
            device.min_into(&d_in, &mut one)?;
            let min = device.download(&one)?[0];
            device.max_into(&d_in, &mut one)?;
            let max = device.download(&one)?[0];
            device.copy_from_host(&[min, max], &mut d_out)?;
            assert!(
                device.min(&d_in)? == min && device.max(&d_in)? == max,
                "repeated min/max"
            );
            device.download(&d_out)
        },
        |input, got, label| {
            if !input.is_empty() {
                assert!(
                    got == min_max(input),
                    "{label}: got {got:?}, expected {:?}",
                    min_max(input)
                );
            }
        },
    );
}

fn device_sum<T: TestValue>() {
    on_every_device(
        &format!("sum {}", T::NAME),
        agreement::<T>(),
        random_vec::<T>,
        |device, input| {
            let d_in = device.upload(input)?;
            let mut d_out = device.filled(1, T::poison())?;
            device.sum_into(&d_in, &mut d_out)?;
            let got = device.download(&d_out)?;
            let again = device.sum(&d_in)?;
            assert!(
                again == got[0],
                "repeated sum differs: {again:?} then {:?}",
                got[0]
            );
            Ok(got)
        },
        |input, got, label| assert_total(input, got[0], label),
    );
}

fn cpu_scan_and_sum<T: TestValue>() {
    let mut rng = fresh_rng(&format!("cpu scan/sum {}", T::NAME));
    let cpu = Backend::cpu();
    for n in sizes_up_to(CPU_MAX_LEN) {
        let input = random_vec::<T>(&mut rng, n);
        let scan = cpu.exclusive_scan(&input).unwrap();
        assert_segmented_scan(
            &input,
            &scan,
            usize::MAX,
            false,
            &format!("cpu scan {} n={n}", T::NAME),
        );
        let inclusive = cpu.inclusive_scan(&input).unwrap();
        assert_segmented_scan(
            &input,
            &inclusive,
            usize::MAX,
            true,
            &format!("cpu inclusive scan {} n={n}", T::NAME),
        );
        let sum = cpu.sum(&input).unwrap();
        assert_total(&input, sum, &format!("cpu sum {} n={n}", T::NAME));
        if n > 0 {
            let got = [cpu.min(&input).unwrap(), cpu.max(&input).unwrap()];
            assert!(got == min_max(&input), "cpu min/max {} n={n}", T::NAME);
        }
    }
}

macro_rules! per_type {
    ($($t:ty: $scan:ident, $sum:ident, $min_max:ident, $cpu:ident);*) => {$(
        #[test]
        fn $scan() {
            device_scan::<$t>();
        }
        #[test]
        fn $sum() {
            device_sum::<$t>();
        }
        #[test]
        fn $min_max() {
            device_min_max::<$t>();
        }
        #[test]
        fn $cpu() {
            cpu_scan_and_sum::<$t>();
        }
    )*};
}
per_type!(
    u32: scan_u32, sum_u32, min_max_u32, cpu_scan_sum_u32;
    u64: scan_u64, sum_u64, min_max_u64, cpu_scan_sum_u64;
    f32: scan_f32, sum_f32, min_max_f32, cpu_scan_sum_f32;
    f64: scan_f64, sum_f64, min_max_f64, cpu_scan_sum_f64;
    i32: scan_i32, sum_i32, min_max_i32, cpu_scan_sum_i32;
    i64: scan_i64, sum_i64, min_max_i64, cpu_scan_sum_i64
);

/// NaN anywhere makes the minimum and maximum NaN, and -0 ranks below +0, on every backend.
#[test]
fn min_max_propagate_nan_and_order_signed_zeros() {
    let n = cap(100_003);
    let mut backends: Vec<Backend> = devices("min/max NaN").into_iter().map(Backend::Device).collect();
    backends.push(Backend::cpu());
    for backend in backends {
        let label = backend.describe();
        let mut data = vec![0.0f64; n];
        data[n / 2] = -0.0;
        assert_eq!(
            backend.min(&data).unwrap().to_bits(),
            (-0.0f64).to_bits(),
            "{label}"
        );
        assert_eq!(backend.max(&data).unwrap().to_bits(), 0.0f64.to_bits(), "{label}");
        data[n - 7] = f64::NAN;
        assert!(backend.min(&data).unwrap().is_nan(), "{label}");
        assert!(backend.max(&data).unwrap().is_nan(), "{label}");
        let ints: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761) | 1).collect();
        assert_eq!(
            backend.min(&ints).unwrap(),
            *ints.iter().min().unwrap(),
            "{label}"
        );
        assert_eq!(
            backend.max(&ints).unwrap(),
            *ints.iter().max().unwrap(),
            "{label}"
        );
        assert!(matches!(
            backend.min::<f32>(&[]),
            Err(warpkit::Error::EmptyVector { .. })
        ));
        let inclusive = backend.inclusive_scan(&[3u32, 1, 4]).unwrap();
        assert_eq!(inclusive, [3, 4, 8], "{label}");
    }
}

#[test]
fn scan_tuning_candidates_are_correct() {
    for (kernel, _, scan) in &warpkit::scan::SCAN_TUNING_U32 {
        check_scan::<u32>(kernel, false, scan);
    }
}
