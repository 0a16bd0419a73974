//! Bad input gives a typed error before anything is launched, on every device.

use warpkit::checks::warp_histogram_ballot;
use warpkit::{Backend, Device, Error};
use warpkit_tests::*;

#[test]
fn mismatched_lengths_are_refused() {
    for device in devices("mismatched_lengths_are_refused") {
        let input = device.upload(&[1u32, 2, 3]).unwrap();
        let mut short = device.filled(2, u32::poison()).unwrap();
        let e = device.exclusive_scan_into(&input, &mut short).unwrap_err();
        assert!(
            matches!(
                e,
                Error::LengthMismatch {
                    expected: 3,
                    actual: 2,
                    ..
                }
            ),
            "{e}"
        );
        assert_eq!(
            device.download(&short).unwrap(),
            [u32::poison(); 2],
            "nothing was written"
        );
        let mut two = device.zeros::<u32>(2).unwrap();
        assert!(matches!(
            device.sum_into(&input, &mut two),
            Err(Error::LengthMismatch { .. })
        ));
        assert!(matches!(
            device.copy(&input, &mut two),
            Err(Error::LengthMismatch { .. })
        ));
        let (mut counts, mut ranks) = (device.zeros(32).unwrap(), device.zeros(3).unwrap());
        assert!(matches!(
            warp_histogram_ballot(&device, &input, 6, &mut counts, &mut ranks),
            Err(Error::TooLong { .. })
        ));
    }
}

#[test]
fn buffers_of_another_device_are_refused() {
    let emulator = Device::emulator();
    let Some(gpu) = gpu_or_skip("buffers_of_another_device_are_refused") else {
        return;
    };
    let on_gpu = gpu.upload(&[1u32, 2, 3]).unwrap();
    let mut on_emulator = emulator.zeros::<u32>(3).unwrap();
    assert!(matches!(
        emulator.exclusive_scan_into(&on_gpu, &mut on_emulator),
        Err(Error::WrongDevice { .. })
    ));
    assert!(matches!(
        gpu.download(&on_emulator),
        Err(Error::WrongDevice { .. })
    ));
}

#[test]
fn inputs_over_u32_max_elements_are_refused() {
    let Some(gpu) = gpu_or_skip("inputs_over_u32_max_elements_are_refused") else {
        return;
    };
    let n = 1usize << 32;
    match gpu.zeros::<u32>(n) {
        Ok(input) => {
            let mut out = gpu.zeros::<u32>(1).unwrap();
            assert!(
                matches!(gpu.sum_into(&input, &mut out), Err(Error::TooLong { len, .. }) if len == n as u64)
            );
        }
        Err(e) => eprintln!("SKIPPED: 16 GiB buffer not available ({e})"),
    }
}

#[test]
fn exhausting_device_memory_is_an_error_value() {
    let Some(gpu) = gpu_or_skip("exhausting_device_memory_is_an_error_value") else {
        return;
    };
    let too_much = gpu.limits().total_memory * 2;
    assert!(matches!(gpu.zeros::<u8>(too_much), Err(Error::OutOfMemory)));
    // The device still works afterwards.
    assert_eq!(gpu.sum(&gpu.upload(&[1u64, 2, 3]).unwrap()).unwrap(), 6);
}

#[test]
fn exhausting_emulator_memory_is_an_error_value() {
    let emulator = Device::emulator();
    assert!(matches!(emulator.zeros::<u8>(1 << 60), Err(Error::OutOfMemory)));
    assert!(matches!(
        emulator.zeros::<u64>(usize::MAX / 4),
        Err(Error::OutOfMemory)
    ));
    assert_eq!(emulator.sum(&emulator.upload(&[1u64, 2, 3]).unwrap()).unwrap(), 6);
}

#[test]
fn empty_inputs_are_fine_everywhere() {
    let mut backends = vec![Backend::cpu()];
    backends.extend(
        devices("empty_inputs_are_fine_everywhere")
            .into_iter()
            .map(Backend::Device),
    );
    for b in backends {
        assert!(
            b.exclusive_scan::<f32>(&[]).unwrap().is_empty(),
            "{}",
            b.describe()
        );
        assert_eq!(b.sum::<u64>(&[]).unwrap(), 0, "{}", b.describe());
    }
}

#[test]
fn auto_says_why_it_took_the_cpu() {
    let (backend, why) = Backend::auto_with_reason();
    match (&backend, &why) {
        (Backend::Device(_), None) => println!("auto picked {}", backend.describe()),
        (Backend::Cpu(_), Some(e)) => {
            assert!(Backend::gpu().is_err(), "a GPU opens, yet auto took the CPU: {e}");
            assert!(!e.to_string().is_empty());
            println!("auto took the CPU because: {e}");
        }
        _ => panic!("auto_with_reason gave {} with reason {why:?}", backend.describe()),
    }
}
