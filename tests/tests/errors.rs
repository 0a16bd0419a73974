//! Bad input gives a typed error before anything is launched.

use warpkit::checks::warp_histogram_ballot;
use warpkit::{Backend, Error};
use warpkit_tests::*;

#[test]
fn mismatched_lengths_are_refused() {
    let Some(gpu) = gpu_or_skip("mismatched_lengths_are_refused") else {
        return;
    };
    let input = gpu.upload(&[1u32, 2, 3]).unwrap();
    let mut short = gpu.filled(2, u32::poison()).unwrap();
    let e = gpu.exclusive_scan_into(&input, &mut short).unwrap_err();
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
        gpu.download(&short).unwrap(),
        [u32::poison(); 2],
        "nothing was written"
    );
    let mut two = gpu.zeros::<u32>(2).unwrap();
    assert!(matches!(
        gpu.sum_into(&input, &mut two),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        gpu.copy(&input, &mut two),
        Err(Error::LengthMismatch { .. })
    ));
    let (mut counts, mut ranks) = (gpu.zeros(32).unwrap(), gpu.zeros(3).unwrap());
    assert!(matches!(
        warp_histogram_ballot(&gpu, &input, 6, &mut counts, &mut ranks),
        Err(Error::TooLong { .. })
    ));
}

#[test]
fn inputs_over_u32_max_elements_are_refused() {
    let Some(gpu) = gpu_or_skip("inputs_over_u32_max_elements_are_refused") else {
        return;
    };
    let n = 1usize << 32;
    let Ok(big) = gpu.zeros::<u8>(n) else {
        eprintln!("SKIPPED: no room for a 4 GiB buffer");
        return;
    };
    // A u8 buffer of 2^32 bytes seen as 2^32 u32 would need 16 GiB: use the byte length to
    // build a u32 buffer of 2^32 elements only where it fits.
    drop(big);
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
fn empty_inputs_are_fine_everywhere() {
    let cpu = Backend::cpu();
    assert!(cpu.exclusive_scan::<u32>(&[]).unwrap().is_empty());
    assert_eq!(cpu.sum::<f64>(&[]).unwrap(), 0.0);
    if let Some(gpu) = gpu_or_skip("empty_inputs_are_fine_everywhere") {
        let g = Backend::Gpu(gpu);
        assert!(g.exclusive_scan::<f32>(&[]).unwrap().is_empty());
        assert_eq!(g.sum::<u64>(&[]).unwrap(), 0);
    }
}
