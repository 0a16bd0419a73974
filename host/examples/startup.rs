//! What a new process waits for before its first result: opening GPU 0, then a first exclusive
//! scan of 2^20 u32 (upload, scan, download), timed by wall clock from the start of `main`, then
//! the same scan again for comparison. The bundle's `run.sh startup` runs it in fresh processes
//! with the driver's JIT cache disabled (`CUDA_CACHE_DISABLE=1`, as in containers and CI
//! runners), where PTX would be compiled again by every process.

use std::time::Instant;
use warpkit::Device;

const N: u32 = 1 << 20;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let start = Instant::now();
    let device = Device::gpu(0)?;
    let opened = start.elapsed();

    let sizes: Vec<u32> = (0..N).map(|i| i.wrapping_mul(2_654_435_761) % 1000).collect();
    let scan = || -> warpkit::Result<Vec<u32>> {
        let x = device.upload(&sizes)?;
        device.download(&device.exclusive_scan(&x)?)
    };
    let first = Instant::now();
    let offsets = scan()?;
    let first = first.elapsed();
    let again = Instant::now();
    scan()?;
    let again = again.elapsed();

    let mut running = 0u32;
    for (i, (&s, &o)) in sizes.iter().zip(&offsets).enumerate() {
        if o != running {
            return Err(format!("scan element {i}: {o}, expected {running}").into());
        }
        running = running.wrapping_add(s);
    }
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    println!(
        "{}: open {:.1} ms, first scan of 2^20 u32 {:.1} ms, open + first scan {:.1} ms \
         (a second scan {:.2} ms); kernels embedded as {}",
        device.describe(),
        ms(opened),
        ms(first),
        ms(opened + first),
        ms(again),
        if warpkit::gpu::machine_code_embedded() {
            "machine code"
        } else {
            "PTX only (no ptxas at build time)"
        }
    );
    Ok(())
}
