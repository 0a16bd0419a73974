//! One's own kernels on every engine present: the emulator always, and each GPU that opens,
//! from the module `build.rs` made. Every engine must give the emulator's outputs.

use own_kernels::{Exchange, KERNELS, exchange, largest_magnitude};
use own_kernels_device::{Values, own_reverse};
use std::io::Write;
use warpkit::{Device, Error};

/// Says on the test's output, past libtest's capture, what did not run for lack of a GPU.
fn skipped(why: &str) {
    let _ = writeln!(std::io::stderr(), "SKIPPED on GPU: {why}");
}

#[test]
fn every_engine_gives_the_emulators_outputs() {
    let engines = Device::present();
    if engines.len() == 1 {
        skipped("none opens here; the emulator alone ran");
    }
    let n = 70_001;
    let values: Vec<f32> = (0..n).map(|i| ((i * 7919) % 10007) as f32 - 5003.0).collect();
    let words: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
    let run = |d: &Device| {
        let largest = largest_magnitude(d, &d.upload(&values).unwrap()).unwrap();
        let input = d.upload(&words).unwrap();
        let moved = [
            Exchange::Neighbours { barrier: true },
            Exchange::Reverse { off_by_one: false },
        ]
        .map(|e| d.download(&exchange(d, &input, e).unwrap()).unwrap());
        (largest, moved)
    };
    let on_emulator = run(&engines[0]);
    assert_eq!(on_emulator.0.map(|(v, _)| v.abs()), Some(5003.0));
    for engine in &engines[1..] {
        assert!(run(engine) == on_emulator, "{engine} differs from the emulator");
    }
}

/// On a GPU a kernel of one's own launches only from a loaded module; the emulator needs none.
#[test]
fn a_kernel_in_no_loaded_module_is_an_error_on_a_gpu() {
    if Device::gpu(0).is_err() {
        skipped("none opens here");
        return;
    }
    // A handle of its own (Device::gpu shares one per GPU in the process, on which the other
    // test may have loaded the module already).
    let ctx = warpkit::cudarc::driver::CudaContext::new(0).unwrap();
    let gpu = Device::gpu_on_stream(ctx.new_stream().unwrap()).unwrap();
    let input = gpu.upload(&[1u32, 2, 3]).unwrap();
    let mut out = gpu.zeros::<u32>(3).unwrap();
    let mut b = gpu.bind();
    let values = Values {
        input: b.read(&input).unwrap(),
        n: 3,
        out: b.write(&mut out).unwrap(),
    };
    let p = own_kernels_device::Reverse {
        values,
        off_by_one: 0,
    };
    let launched = b.launch::<own_reverse>(p.values.plan(), p);
    assert!(
        matches!(
            launched,
            Err(Error::KernelNotLoaded {
                kernel: "own_reverse"
            })
        ),
        "{launched:?}"
    );
    drop(b);
    gpu.load(&KERNELS).unwrap();
    gpu.load(&KERNELS).unwrap(); // again: nothing to do
    assert_eq!(
        gpu.download(&exchange(&gpu, &input, Exchange::Reverse { off_by_one: false }).unwrap())
            .unwrap()
            .len(),
        3
    );
}

/// The device crate's bucket functions through warpkit's multisplit, on every engine: the CPU
/// backend's split (a stable counting sort running the same `bucket` as host code), for keys
/// alone and with 32- and 64-bit values, by every method, in one pass (m ≤ 256) and in two; and
/// the user's copy of the built-in hash gives the built-in's split.
#[test]
fn own_bucket_functions_split_as_on_the_cpu() {
    use own_kernels::{Fibonacci, load_on, split_by_cell};
    use warpkit::Backend;
    use warpkit::multisplit::{Buckets, Method, Multisplit};

    let n = 9_001u32;
    let points: Vec<u32> = (0..n).map(|i| i.wrapping_mul(2_654_435_761) ^ i >> 3).collect();
    let wide: Vec<u64> = points.iter().map(|&p| (p as u64) << 29 ^ p as u64).collect();
    let (v32, v64): (Vec<u32>, Vec<u64>) = (0..n).map(|i| (i, u64::from(i) << 33 | 5)).unzip();
    let cpu = Backend::cpu();
    for engine in Device::present() {
        let backend = Backend::Device(engine.clone());
        load_on(&backend).unwrap();
        for side_bits in [1, 3, 5] {
            let on_cpu = split_by_cell(&cpu, &points, side_bits).unwrap();
            assert_eq!(
                split_by_cell(&backend, &points, side_bits).unwrap(),
                on_cpu,
                "{engine}"
            );
        }
        for (bits, method) in [
            (5, Method::BlockLevel),
            (7, Method::WarpLevel),
            (10, Method::Direct),
        ] {
            let own = Multisplit::by(Fibonacci { bits }, 1 << bits)
                .unwrap()
                .with_method(method);
            let built_in = Multisplit::new(Buckets::Hash { bits })
                .unwrap()
                .with_method(method);
            let what = format!("{engine}, {bits} bits, {method:?}");
            let keys = own.keys(&backend, &points).unwrap();
            assert_eq!(keys, own.keys(&cpu, &points).unwrap(), "{what}");
            assert_eq!(keys, built_in.keys(&backend, &points).unwrap(), "{what}");
            let pairs = own.pairs(&backend, &points, &v64).unwrap();
            assert_eq!(pairs, own.pairs(&cpu, &points, &v64).unwrap(), "{what}");
            let own = Multisplit::by(Fibonacci { bits }, 1 << bits)
                .unwrap()
                .with_method(method);
            let pairs = own.pairs(&backend, &wide, &v32).unwrap();
            assert_eq!(pairs, own.pairs(&cpu, &wide, &v32).unwrap(), "{what}, u64 keys");
        }
    }
}

/// A bucket function of one's own that puts keys past the `m` it was given is reported, as a
/// built-in one is, never obeyed; a split into no buckets or too many is refused before.
#[test]
fn own_bucket_functions_past_their_buckets_are_errors() {
    use own_kernels::Fibonacci;
    use warpkit::Backend;
    use warpkit::multisplit::Multisplit;

    let keys: Vec<u32> = (0..5_000).collect();
    for engine in Device::present() {
        let backend = Backend::Device(engine.clone());
        own_kernels::load_on(&backend).unwrap();
        let split = Multisplit::by(Fibonacci { bits: 5 }, 20).unwrap();
        let got = split.keys(&backend, &keys);
        assert!(
            matches!(got, Err(Error::BucketOutOfRange { m: 20, bucket }) if bucket >= 20),
            "{engine}: {got:?}"
        );
    }
    assert!(matches!(
        Multisplit::<u32, _>::by(Fibonacci { bits: 5 }, 0),
        Err(Error::NoBuckets)
    ));
    let too_many = Multisplit::<u32, _>::by(Fibonacci { bits: 5 }, 1 << 17);
    assert!(matches!(too_many, Err(Error::TooManyBuckets { .. })));
}

/// A gather through the checked host call: the CPU's result on every engine, and an index past
/// the input refused before anything launches.
#[test]
fn gathers_check_their_indices_first() {
    use own_kernels::gather;
    let values: Vec<u32> = (0..5_000).map(|i| i * 3 + 1).collect();
    let indices: Vec<u32> = (0..7_001u32)
        .map(|i| i.wrapping_mul(2_654_435_761) % 5_000)
        .collect();
    let want: Vec<u32> = indices.iter().map(|&i| values[i as usize]).collect();
    for engine in Device::present() {
        let input = engine.upload(&values).unwrap();
        let got = engine
            .download(&gather(&engine, &input, &indices).unwrap())
            .unwrap();
        assert_eq!(got, want, "{engine}");
        let bad = gather(&engine, &input, &[0, 5_000]);
        assert!(
            matches!(
                bad,
                Err(Error::OutOfRange {
                    value: 5_000,
                    max: 4_999,
                    ..
                })
            ),
            "{engine}: {bad:?}"
        );
    }
}

/// What a child process of this test does: the fault named by `FAULT_CHILD`.
const FAULT_CHILD: &str = "OWN_KERNELS_FAULT_CHILD";

/// A kernel of one's own that faults on a GPU (a gather reading 8 GiB past its input; a block
/// reading past its shared memory, which traps) ends its call, or the next, in
/// `Err(DeviceLost)`, never a hang or garbage; every later call on that GPU in the process
/// returns the same error, and so does `Device::gpu` while the handle lives. Each fault runs in
/// a child process of its own.
#[test]
fn a_kernel_that_faults_on_a_gpu_is_an_error_value() {
    if let Ok(fault) = std::env::var(FAULT_CHILD) {
        return fault_on_gpu(&fault);
    }
    if Device::gpu(0).is_err() {
        skipped("none opens here (the emulator's report of a gather past its input is in tests/emulator.rs)");
        return;
    }
    for fault in ["gather", "trap"] {
        let child = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "a_kernel_that_faults_on_a_gpu_is_an_error_value",
                "--nocapture",
            ])
            .env(FAULT_CHILD, fault)
            .output()
            .unwrap();
        let log =
            String::from_utf8_lossy(&child.stdout).into_owned() + &String::from_utf8_lossy(&child.stderr);
        assert!(child.status.success(), "the {fault} child failed:\n{log}");
        assert!(log.contains("lost as expected"), "the {fault} child:\n{log}");
    }
}

/// The child's side of [`a_kernel_that_faults_on_a_gpu_is_an_error_value`].
fn fault_on_gpu(fault: &str) {
    let gpu = Device::gpu(0).unwrap();
    gpu.load(&KERNELS).unwrap();
    let input = gpu.upload(&[7u32; 1024]).unwrap();
    let first = match fault {
        "gather" => {
            let indices = gpu.upload(&[0u32, 1 << 31]).unwrap();
            let mut out = gpu.zeros::<u32>(2).unwrap();
            // SAFETY: none: the index 2^31 is past the input on purpose, on a GPU, where the
            // read faults (this process is the test's child, and ends after).
            unsafe { own_kernels::launch_gather(&gpu, &input, &indices, &mut out) }
                .and_then(|()| gpu.download(&out).map(drop))
        }
        _ => exchange(&gpu, &input, Exchange::Reverse { off_by_one: true })
            .and_then(|out| gpu.download(&out).map(drop)),
    };
    assert!(matches!(first, Err(Error::DeviceLost(_))), "{fault}: {first:?}");
    let later = gpu.upload(&[1u32, 2, 3]).and_then(|b| gpu.download(&b));
    assert!(
        matches!(later, Err(Error::DeviceLost(_))),
        "{fault}, a later call: {later:?}"
    );
    // Opened again while this handle and its buffers live: the same error, from the opening.
    let again = Device::gpu(0).and_then(|g| g.upload(&[1u32]).map(drop));
    assert!(
        matches!(again, Err(Error::DeviceLost(_))),
        "{fault}, the GPU opened again: {again:?}"
    );
    println!("{fault}: lost as expected: {first:?}");
}

/// The device crate's operator through warpkit's device-wide reduction and scans, on every
/// engine: the CPU's fold of the same operator, for u32 and u64, over several scan tiles.
#[test]
fn own_operators_reduce_and_scan_as_on_the_cpu() {
    use own_kernels_device::Gcd;
    use warpkit::Backend;

    let n = 40_009u64;
    let wide: Vec<u64> = (0..n)
        .map(|i| 6 * (1 + i.wrapping_mul(0x9e37_79b9_7f4a_7c15) % 1_000_003))
        .collect();
    let narrow: Vec<u32> = wide.iter().map(|&w| (w % 60_000) as u32 * 10).collect();
    let cpu = Backend::cpu();
    for engine in Device::present() {
        let backend = Backend::Device(engine.clone());
        own_kernels::load_on(&backend).unwrap();
        let what = format!("{engine}");
        assert_eq!(
            backend.reduce_by(Gcd, &wide).unwrap(),
            cpu.reduce_by(Gcd, &wide).unwrap(),
            "{what}"
        );
        assert_eq!(
            backend.reduce_by(Gcd, &narrow).unwrap(),
            cpu.reduce_by(Gcd, &narrow).unwrap(),
            "{what}"
        );
        assert_eq!(backend.reduce_by(Gcd, &[] as &[u64]).unwrap(), 0, "{what}");
        let scans = |b: &Backend| {
            (
                b.exclusive_scan_by(Gcd, &wide).unwrap(),
                b.inclusive_scan_by(Gcd, &narrow).unwrap(),
            )
        };
        assert_eq!(
            backend
                .exclusive_scan_by(own_kernels_device::Plus, &narrow)
                .unwrap(),
            backend.exclusive_scan(&narrow).unwrap(),
            "{what}"
        );
        let (on_device, on_cpu) = (scans(&backend), scans(&cpu));
        assert_eq!(on_device, on_cpu, "{what}");
        assert_eq!(on_cpu.0[0], 0);
        assert_eq!(*on_cpu.0.last().unwrap() % 6, 0);
    }
}

/// The device crate's weight transform through warpkit's alias tables, on every engine: the
/// same rows as the CPU builds from the logits by the same method, the probabilities of a
/// softmax computed here in f64, and the transform's bad weights named by index.
#[test]
fn own_weight_transforms_build_the_cpus_tables() {
    use own_kernels::softmax_table;
    use warpkit::Backend;
    use warpkit::alias::Construction;

    let n = 30_011usize;
    let logits: Vec<f64> = (0..n)
        .map(|i| ((i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40) as f64 / 2e5 - 20.0)
        .collect();
    let temperature = 1.7;
    let max = logits.iter().copied().fold(f64::MIN, f64::max);
    let exps: Vec<f64> = logits.iter().map(|l| ((l - max) / temperature).exp()).collect();
    let sum: f64 = exps.iter().sum();
    let cpu = Backend::cpu();
    for method in [Construction::PSA_BASELINE, Construction::PSA_PLUS_BASELINE] {
        let on_cpu = softmax_table(&cpu, &logits, temperature, method).unwrap();
        let p = on_cpu.probabilities().unwrap();
        let worst = p
            .iter()
            .zip(&exps)
            .map(|(p, e)| (p - e / sum).abs() * n as f64)
            .fold(0.0, f64::max);
        assert!(worst < 1e-9, "{method:?}: {worst} rows from softmax");
        for engine in Device::present() {
            let backend = Backend::Device(engine.clone());
            let table = softmax_table(&backend, &logits, temperature, method).unwrap();
            assert_eq!(table.construction(), method, "{engine}");
            assert!(
                table.rows().unwrap() == on_cpu.rows().unwrap(),
                "{engine}, {method:?}"
            );
        }
    }
    let mut bad = logits.clone();
    bad[12_345] = f64::NAN;
    bad[20_000] = f64::INFINITY;
    let backends = Device::present().into_iter().map(Backend::Device).chain([cpu]);
    for backend in backends {
        let built = softmax_table(&backend, &bad, temperature, Construction::auto(&backend));
        assert!(
            matches!(built, Err(Error::InvalidWeight { index: 12_345 })),
            "{backend:?}: {built:?}"
        );
        let cold = softmax_table(&backend, &logits, 0.0, Construction::auto(&backend));
        assert!(matches!(cold, Err(Error::BadParameter { .. })), "{cold:?}");
    }
}
