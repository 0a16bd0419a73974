//! Builds the device crate beside this one into a module of machine code and PTX
//! (`OUT_DIR/own_kernels_device.rs`), with the device toolchain warpkit's `scripts/setup.sh`
//! installs; without it the build stops with an error that names that command.

fn main() {
    let built = warpkit_builder::Builder::new("../device").build();
    if let Err(e) = built {
        panic!("\n\n{e}\n\n");
    }
}
