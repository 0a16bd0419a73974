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
