//! warpkit's random stream: Philox4x32-10 words on a device, and the same words on the host
//! through `rand_core`, for the same key and counter.
//!
//! `cargo run --release -p warpkit --example random`

use warpkit::rand_core::RngCore;
use warpkit::{Device, Philox};

fn main() -> Result<(), warpkit::Error> {
    // A GPU if there is one; otherwise the emulator runs the same kernel on the CPU.
    let device = Device::gpu(0).unwrap_or_else(|_| Device::emulator());
    println!("device: {}", device.describe());
    let (key, counter) = ([7, 0], [0; 4]);
    let mut words = device.zeros::<u32>(1 << 16)?;
    device.philox_fill(&mut words, key, counter)?;
    let on_device = device.download(&words)?;

    let mut host = Philox::new(key, counter);
    let on_host: Vec<u32> = (0..on_device.len()).map(|_| host.next_u32()).collect();
    assert_eq!(
        on_device, on_host,
        "the same key and counter give the same words everywhere"
    );
    println!(
        "first words {:08x} {:08x} {:08x} {:08x}: equal on device and host",
        on_host[0], on_host[1], on_host[2], on_host[3]
    );
    Ok(())
}
