//! A kernel that faults (issue 46): `checks::read_at`, whose lane 5 reads past its buffer. The
//! emulator reports the kernel, the lane and the address and runs on; a GPU reports the
//! illegal address as `Error::DeviceLost`, and every later call on it says the same instead of
//! returning results; so does opening the GPU again, for the rest of the process (the driver's
//! rule for such faults). One test in this binary: nothing else may share the process with it.

use warpkit::checks::read_at;
use warpkit::{Device, Error};
use warpkit_kernels::emu::Misuse;
use warpkit_tests::devices;

#[test]
fn a_kernel_that_reads_out_of_bounds_is_an_error() {
    for d in devices("a kernel that faults") {
        let input = d.upload(&(0..64u32).map(|i| 3 * i).collect::<Vec<_>>()).unwrap();
        let mut out = d.zeros::<u32>(1).unwrap();
        read_at(&d, &input, 7, &mut out).unwrap();
        assert_eq!(d.download(&out).unwrap(), [21]);
        match d {
            Device::Emulator(_) => {
                let Err(Error::Emulator(f)) = read_at(&d, &input, 64, &mut out) else {
                    panic!("the read past the buffer was not reported")
                };
                assert_eq!(f.kernel, "simt_check_read_at", "{f}");
                let Misuse::OutOfBounds { thread, access } = f.misuse else {
                    panic!("expected an out-of-bounds read, got {f}")
                };
                assert_eq!((thread.lane, access.offset()), (5, 256), "{f}");
                // The emulator runs on: the same device, the same buffers.
                read_at(&d, &input, 63, &mut out).unwrap();
                assert_eq!(d.download(&out).unwrap(), [189]);
            }
            _ => {
                // Far past any allocation: an illegal address, seen at the launch or the wait.
                let seen = read_at(&d, &input, 1 << 40, &mut out).and_then(|()| d.download(&out).map(|_| ()));
                assert!(matches!(seen, Err(Error::DeviceLost(_))), "{seen:?}");
                let later = d.upload(&[1u32, 2, 3]).and_then(|b| d.download(&b));
                assert!(matches!(later, Err(Error::DeviceLost(_))), "{later:?}");
                // Opened again while a handle and buffers of the lost device live: the same.
                let again = Device::gpu(0);
                assert!(matches!(again, Err(Error::DeviceLost(_))), "{again:?}");
                // With all of them dropped, still (the process's cached handle stays: a diagnostic
                // build that removed it and reset the primary context got the same error from
                // a new context on the H200; see Gpu::open).
                drop((input, out, d));
                let fresh = Device::gpu(0).map(drop);
                assert!(matches!(fresh, Err(Error::DeviceLost(_))), "{fresh:?}");
            }
        }
    }
}
