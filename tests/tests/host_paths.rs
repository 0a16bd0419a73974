//! Host data to and from devices (issue 24): staged copies across chunk boundaries for element
//! types of several sizes, page-locked buffers, the host calls that write a caller's slice, and
//! their errors before any copy.

use rand_core::RngCore;
use warpkit::alias::{AliasTable, Order, SampleOptions, Sampling};
use warpkit::bytemuck::Pod;
use warpkit::cudarc::driver::CudaContext;
use warpkit::multisplit::{Buckets, Multisplit};
use warpkit::{Backend, Device, Error, Philox};
use warpkit_tests::*;

/// Lengths for elements of `size` bytes under staging buffers of `staging` bytes: around the
/// 64 KiB below which copies go to the driver directly and the boundaries of one stripe's
/// pieces past it (4096-byte buffers: one stripe of one-page pieces), then
/// of many stripes' pieces (64 KiB buffers: 3 MiB spread over all workers in one-page pieces),
/// then of the default buffers (past two 32 MiB buffers, GPU only: the emulator copies
/// directly).
fn lengths(staging: usize, size: usize) -> Vec<usize> {
    let (page, direct) = (4096 / size, (64 << 10) / size);
    match staging {
        4096 => vec![
            0,
            1,
            direct,
            direct + 1,
            direct + page - 1,
            direct + page,
            2 * direct + 7,
        ],
        65536 => vec![cap((3 << 20) / size + 5), cap((1 << 20) / size - 1)],
        _ => vec![cap((64 << 20) / size * 2 + 3)],
    }
}

/// Uploads, downloads (new vector and poisoned slice) and overwrites `data` on `device`.
fn round_trip<T>(device: &Device, data: &[T], poison: T, label: &str)
where
    T: Pod + PartialEq + std::fmt::Debug,
{
    let buffer = device.upload(data).unwrap();
    assert!(
        device.download(&buffer).unwrap() == data,
        "{label}: upload, download"
    );
    let mut out = vec![poison; data.len()];
    device.download_into(&buffer, &mut out).unwrap();
    assert!(out == data, "{label}: download_into");
    let mut over = device.filled(data.len(), poison).unwrap();
    device.copy_from_host(data, &mut over).unwrap();
    assert!(device.download(&over).unwrap() == data, "{label}: copy_from_host");
}

#[test]
fn staged_copies_are_exact_across_piece_and_stripe_boundaries() {
    let mut rng = fresh_rng("staged copies");
    for device in devices("staged copies") {
        let gpu = device.as_gpu().cloned();
        let sizes: &[usize] = if gpu.is_some() {
            &[4096, 65536, 32 << 20]
        } else {
            &[4096, 65536]
        };
        for &staging in sizes {
            if let Some(g) = &gpu {
                g.set_staging_bytes(staging).unwrap();
            }
            let label = format!("{} staging {staging}", device.describe());
            for n in lengths(staging, 1) {
                let data: Vec<u8> = (0..n).map(|_| rng.next_u32() as u8).collect();
                round_trip(&device, &data, 0xA5, &format!("{label} u8 x {n}"));
            }
            for n in lengths(staging, 4) {
                let data: Vec<u32> = random_vec(&mut rng, n);
                round_trip(&device, &data, u32::poison(), &format!("{label} u32 x {n}"));
            }
            for n in lengths(staging, 8) {
                let data: Vec<u64> = random_vec(&mut rng, n);
                round_trip(&device, &data, u64::poison(), &format!("{label} u64 x {n}"));
            }
        }
    }
}

#[test]
fn pinned_buffers_round_trip_whole_and_in_parts() {
    let mut rng = fresh_rng("pinned buffers");
    for device in devices("pinned buffers") {
        let n = cap(3 << 20);
        let mut src = device.pinned::<u32>(n).unwrap();
        assert_eq!(src.len(), n);
        assert!(src.iter().all(|&x| x == 0), "pinned memory starts zeroed");
        assert_eq!(src.is_page_locked(), device.as_gpu().is_some() && n > 0);
        for x in src.iter_mut() {
            *x = rng.next_u32();
        }
        let buffer = device.upload(&src).unwrap();
        let mut dst = device.pinned::<u32>(n).unwrap();
        dst.fill(u32::poison());
        device.download_into(&buffer, &mut dst).unwrap();
        assert!(dst[..] == src[..], "{}: whole", device.describe());
        // A part of a pinned buffer is still pinned; one reaching past it is not.
        let part = &src[n / 3..n / 2];
        let up = device.upload(part).unwrap();
        device.download_into(&up, &mut dst[..part.len()]).unwrap();
        assert!(dst[..part.len()] == *part, "{}: part", device.describe());
        let mut joined: Vec<u32> = src[..].to_vec();
        joined.push(7);
        assert!(device.download(&device.upload(&joined).unwrap()).unwrap() == joined);
    }
}

#[test]
fn host_calls_write_the_callers_slices() {
    let mut rng = fresh_rng("host calls into slices");
    for device in devices("host calls into slices") {
        let backend = Backend::Device(device.clone());
        let label = device.describe();
        let n = cap(max_len(&device).min(3 << 20) + 5);
        let input: Vec<u32> = (0..n).map(|_| rng.next_u32() % 1000).collect();
        let want = Backend::cpu().exclusive_scan(&input).unwrap();
        let mut out = vec![u32::poison(); n];
        backend.exclusive_scan_into(&input, &mut out).unwrap();
        assert!(out == want, "{label}: scan slice to slice");
        let mut pinned_in = device.pinned::<u32>(n).unwrap();
        pinned_in.copy_from_slice(&input);
        let mut pinned_out = device.pinned::<u32>(n).unwrap();
        backend.exclusive_scan_into(&pinned_in, &mut pinned_out).unwrap();
        assert!(pinned_out[..] == want[..], "{label}: scan pinned to pinned");
        assert_eq!(backend.sum(&pinned_in).unwrap(), backend.sum(&input).unwrap());

        // `sample_into` host memory (a `Vec`, a pinned buffer) gives what `sample` gives for the
        // same seed and options.
        let weights: Vec<f64> = (1..=1000).map(|i| 1.0 / i as f64).collect();
        let table = AliasTable::new(&backend, &weights).unwrap();
        let s = cap(1 << 20) + 3;
        let sampled = table
            .sample(&mut Philox::new([1, 2], [0; 4]), s, SampleOptions::default())
            .unwrap();
        let mut filled = vec![u32::poison(); s];
        table
            .sample_into(
                &mut Philox::new([1, 2], [0; 4]),
                &mut filled,
                SampleOptions::default(),
            )
            .unwrap();
        assert!(filled == sampled, "{label}: sample_into = sample");
        let mut pinned = device.pinned::<u32>(s).unwrap();
        let grouped = SampleOptions::default()
            .method(Sampling::auto(weights.len(), s, Order::AsDrawn))
            .order(Order::AsDrawn);
        let ordered = table
            .sample(&mut Philox::new([3, 4], [0; 4]), s, grouped)
            .unwrap();
        table
            .sample_into(&mut Philox::new([3, 4], [0; 4]), &mut pinned, grouped)
            .unwrap();
        assert!(
            pinned[..] == ordered[..],
            "{label}: fill_ordered into pinned memory"
        );
    }
}

/// A `cudarc` slice filled on a stream of the caller's passes into warpkit without a copy,
/// and warpkit's output comes back as a `cudarc` slice on that stream.
#[test]
fn cudarc_slices_pass_in_and_out_without_copies() {
    let Some(device) = gpu_or_skip("cudarc interop") else {
        return;
    };
    // The caller's own context object (warpkit's never leaves it) on the same device.
    let theirs = CudaContext::new(0).unwrap().new_stream().unwrap();
    let input: Vec<u32> = random_vec(&mut fresh_rng("cudarc interop"), cap(1 << 20) + 3);
    let slice = theirs.clone_htod(&input).unwrap();
    let address = |s: &warpkit::cudarc::driver::CudaSlice<u32>| {
        use warpkit::cudarc::driver::DevicePtr;
        s.device_ptr(&theirs).0
    };
    let addr = address(&slice);
    let adopted = device.adopt(slice).unwrap();
    assert_eq!(adopted.len(), input.len());
    let mut out = device.filled(input.len(), u32::poison()).unwrap();
    device.exclusive_scan_into(&adopted, &mut out).unwrap();
    let back = out.into_cuda_slice(&theirs).unwrap();
    let got = theirs.clone_dtoh(&back).unwrap();
    assert!(
        got == Backend::cpu().exclusive_scan(&input).unwrap(),
        "scan of an adopted slice"
    );
    let same = adopted.into_cuda_slice(&theirs).unwrap();
    assert_eq!(address(&same), addr, "the same memory, not a copy");
    // The emulator takes no cudarc slices and gives none.
    let emulator = Device::emulator();
    assert!(matches!(emulator.adopt(same), Err(Error::WrongDevice { .. })));
    let mine = emulator.upload(&[1u32]).unwrap();
    assert!(matches!(
        mine.into_cuda_slice(&theirs),
        Err(Error::WrongDevice { .. })
    ));
}

/// A device on a caller's stream runs warpkit's calls in order with the caller's own work on
/// that stream, and refuses buffers of other handles, whose work no stream orders with it.
#[test]
fn calls_run_on_a_callers_stream() {
    let Some(device) = gpu_or_skip("caller's stream") else {
        return;
    };
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.new_stream().unwrap();
    let on = Device::gpu_on_stream(stream.clone()).unwrap();
    let input: Vec<u32> = random_vec(&mut fresh_rng("caller's stream"), cap(1 << 22) + 5);
    let expected = Backend::cpu().exclusive_scan(&input).unwrap();
    for round in 0..3 {
        // Their copy in, warpkit's scan and their copy out, all queued before any wait.
        let mut slice = stream.alloc_zeros::<u32>(input.len()).unwrap();
        stream.memcpy_htod(&input, &mut slice).unwrap();
        let adopted = on.adopt(slice).unwrap();
        let mut out = on.filled(input.len(), u32::poison()).unwrap();
        on.exclusive_scan_into(&adopted, &mut out).unwrap();
        let back = out.into_cuda_slice(&stream).unwrap();
        let got = stream.clone_dtoh(&back).unwrap();
        assert!(got == expected, "round {round}: scan on the caller's stream");
    }
    let others = device.upload(&input).unwrap();
    let mut out = on.zeros::<u32>(input.len()).unwrap();
    assert!(matches!(
        on.exclusive_scan_into(&others, &mut out),
        Err(Error::WrongDevice { .. })
    ));
    assert!(
        on.download(&on.exclusive_scan(&on.upload(&input).unwrap()).unwrap())
            .unwrap()
            == expected
    );
}

#[test]
fn host_slices_of_the_wrong_length_are_refused_before_any_copy() {
    for device in devices("host path errors") {
        let backend = Backend::Device(device.clone());
        let buffer = device.upload(&[1u32, 2, 3]).unwrap();
        let mut short = [0u32; 2];
        assert!(matches!(
            device.download_into(&buffer, &mut short),
            Err(Error::LengthMismatch { .. })
        ));
        assert_eq!(short, [0, 0], "nothing was copied");
        assert!(matches!(
            backend.exclusive_scan_into(&[1u32, 2, 3], &mut short),
            Err(Error::LengthMismatch { .. })
        ));
        let table = AliasTable::new(&backend, &[1.0f64, 2.0]).unwrap();
        let empty: &mut [u32] = &mut [];
        assert!(
            table
                .sample_into(&mut Philox::new([0, 0], [0; 4]), empty, SampleOptions::default())
                .is_ok()
        );
        match device.as_gpu() {
            Some(g) => {
                for bad in [0, 1, 4095] {
                    assert!(matches!(g.set_staging_bytes(bad), Err(Error::OutOfRange { .. })));
                }
            }
            None => eprintln!(
                "SKIPPED on {}: staging sizes exist on a GPU only",
                device.describe()
            ),
        }
    }
    let mut short = [0u32; 2];
    assert!(matches!(
        Backend::cpu().exclusive_scan_into(&[1u32, 2, 3], &mut short),
        Err(Error::LengthMismatch { .. })
    ));
}

#[test]
fn calls_work_whatever_the_pool_keeps() {
    let Some(device) = gpu_or_skip("pool release threshold") else {
        return;
    };
    let gpu = device.as_gpu().expect("a GPU device");
    let input: Vec<u32> = (0..1 << 20).map(|i| i % 7).collect();
    let expected = warpkit::Backend::cpu().exclusive_scan(&input).unwrap();
    for keep in [0, 1 << 20, u64::MAX] {
        gpu.set_pool_release_threshold(keep).unwrap();
        let d_in = device.upload(&input).unwrap();
        let out = device.exclusive_scan(&d_in).unwrap();
        device.synchronize().unwrap();
        assert_eq!(
            device.download(&out).unwrap(),
            expected,
            "pool keeps {keep} bytes"
        );
    }
}

/// Loading every area ahead of the first call changes no result, and a second load is free.
#[test]
fn kernels_loaded_ahead_give_the_same_results() {
    let Some(device) = gpu_or_skip("loading kernels ahead") else {
        return;
    };
    let gpu = device.as_gpu().expect("a GPU device");
    gpu.load_kernels().unwrap();
    gpu.load_kernels().unwrap();
    let keys: Vec<u32> = (0..100_003u32).map(|i| i.wrapping_mul(0x9e37_79b9)).collect();
    let split = Multisplit::new(Buckets::Modulo(7)).unwrap();
    let on_gpu = split.keys(&Backend::Device(device.clone()), &keys).unwrap();
    let on_cpu = split.keys(&Backend::cpu(), &keys).unwrap();
    assert_eq!((on_gpu.keys, on_gpu.offsets), (on_cpu.keys, on_cpu.offsets));
}

/// Host scans of page-locked memory large enough for the pipeline (copies in and out
/// overlapped, each chunk scanned from zero and shifted by the total before it as it lands)
/// give the CPU's sums exactly for integers, within rounding for floats: at the threshold (two
/// chunks of 16 MiB), with a short last chunk, both kinds of scan; and the same from a rayon
/// worker and from ordinary slices, which take the unpipelined path.
#[test]
fn pipelined_host_scans_carry_across_chunks() {
    let Some(device) = gpu_or_skip("pipelined host scans") else {
        return;
    };
    let backend = Backend::Device(device.clone());
    let cpu = Backend::cpu();
    let mut rng = fresh_rng("pipelined host scans");
    for n in [1 << 23, (1 << 24) + 4099] {
        let input: Vec<u32> = random_vec(&mut rng, n);
        let mut pinned_in = device.pinned::<u32>(n).unwrap();
        pinned_in.copy_from_slice(&input);
        let mut pinned_out = device.pinned::<u32>(n).unwrap();
        pinned_out.fill(u32::poison());
        backend.exclusive_scan_into(&pinned_in, &mut pinned_out).unwrap();
        assert!(
            pinned_out[..] == cpu.exclusive_scan(&input).unwrap()[..],
            "u32 x {n}: exclusive"
        );
        pinned_out.fill(u32::poison());
        backend.inclusive_scan_into(&pinned_in, &mut pinned_out).unwrap();
        assert!(
            pinned_out[..] == cpu.inclusive_scan(&input).unwrap()[..],
            "u32 x {n}: inclusive"
        );
        let mut out = vec![u32::poison(); n];
        backend.exclusive_scan_into(&input, &mut out).unwrap();
        assert!(out == cpu.exclusive_scan(&input).unwrap(), "u32 x {n}: slices");
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        pinned_out.fill(u32::poison());
        pool.install(|| backend.exclusive_scan_into(&pinned_in, &mut pinned_out).unwrap());
        assert!(
            pinned_out[..] == cpu.exclusive_scan(&input).unwrap()[..],
            "u32 x {n}: from a worker"
        );
    }
    let n = (1 << 22) + 77;
    let reals: Vec<f64> = (0..n).map(|_| rng.next_u32() as f64 / 4_294_967_296.0).collect();
    let mut pinned_in = device.pinned::<f64>(n).unwrap();
    pinned_in.copy_from_slice(&reals);
    let mut pinned_out = device.pinned::<f64>(n).unwrap();
    for inclusive in [false, true] {
        pinned_out.fill(f64::NAN);
        if inclusive {
            backend.inclusive_scan_into(&pinned_in, &mut pinned_out).unwrap();
        } else {
            backend.exclusive_scan_into(&pinned_in, &mut pinned_out).unwrap();
        }
        let mut sum = 0.0f64;
        for (i, (&x, &got)) in reals.iter().zip(pinned_out.iter()).enumerate() {
            let before = sum;
            sum += x;
            let want = if inclusive { sum } else { before };
            // Chunks and tiles sum in another order than the loop: rounding of 2^22 terms in
            // [0, 1) stays near sqrt(2^22) ulp (5e-13 relative), a misplaced term is ~1e-7.
            assert!(
                (got - want).abs() <= 1e-11 * want.max(1.0),
                "f64 inclusive={inclusive} at {i}: {got} against {want}"
            );
        }
    }
}
