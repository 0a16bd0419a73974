//! Device-wide exclusive scan and sum, for u32, u64, f32 and f64 at every test size, on every
//! device (poisoned outputs, fresh random inputs) and on the CPU backend, against references.
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

/// Runs `scan` at every size on every device, on fresh inputs and poisoned outputs.
fn check_scan<T: TestValue>(
    label: &str,
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
        |input, got, label| assert_segmented_scan(input, got, usize::MAX, false, label),
    );
}

fn device_scan<T: TestValue>() {
    check_scan::<T>(&format!("scan {}", T::NAME), |d, i, o| {
        d.exclusive_scan_into(i, o)
    });
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
        let sum = cpu.sum(&input).unwrap();
        assert_total(&input, sum, &format!("cpu sum {} n={n}", T::NAME));
    }
}

macro_rules! per_type {
    ($($t:ty: $scan:ident, $sum:ident, $cpu:ident);*) => {$(
        #[test]
        fn $scan() {
            device_scan::<$t>();
        }
        #[test]
        fn $sum() {
            device_sum::<$t>();
        }
        #[test]
        fn $cpu() {
            cpu_scan_and_sum::<$t>();
        }
    )*};
}
per_type!(
    u32: scan_u32, sum_u32, cpu_scan_sum_u32;
    u64: scan_u64, sum_u64, cpu_scan_sum_u64;
    f32: scan_f32, sum_f32, cpu_scan_sum_f32;
    f64: scan_f64, sum_f64, cpu_scan_sum_f64
);

#[test]
fn scan_tuning_candidates_are_correct() {
    for (candidate, (_, scan)) in warpkit::scan::SCAN_TUNING_U32.iter().enumerate() {
        check_scan::<u32>(&format!("scan tuning candidate {candidate}"), scan);
    }
}
