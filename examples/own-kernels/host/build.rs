//! Builds the device crate beside this one into a module of machine code and PTX
//! (`OUT_DIR/own_kernels_device.rs`), with the device toolchain warpkit's `scripts/setup.sh`
//! installs. Without it the images checked in under `kernels/` serve, if they were made from the
//! device crate as it is (`WARPKIT_UPDATE_KERNELS=1 cargo build` rewrites them); otherwise the
//! build stops with an error that names what to run.

fn main() {
    // warpkit-kernels is a path dependency here (this workspace): its macros write the
    // multisplit and scan kernels, so its sources count as the device crate's.
    let built = warpkit_builder::Builder::new("../device")
        .depends_on("../../../kernels-gpu")
        .checked_in("kernels")
        .build();
    if let Err(e) = built {
        panic!("\n\n{e}\n\n");
    }
}
