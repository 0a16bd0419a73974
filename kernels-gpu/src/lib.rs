//! warpkit's device code: a small SIMT layer and the kernels built on it.
//!
//! The crate compiles twice. For `nvptx64-nvidia-cuda` it is `no_std` and becomes the PTX that
//! the `warpkit` host crate embeds (its build script drives that build). For the host it is an
//! ordinary rlib holding the same kernels, which [`emu`], the SIMT emulator, runs on the CPU with
//! the GPU's semantics, and the code both sides share: the Philox generator, the element
//! arithmetic and the tuning policies that fix tile shapes.
//!
//! Layout by level of cooperation, as in CUB: [`simt`] (one thread's view of the hardware),
//! [`warp`] (32 lanes), [`block`] (one thread block), [`grid`] (the whole grid). Kernel entry
//! points are declared with [`kernel!`] and named `<area>_<variant>` so ptxas reports and
//! profiles read clearly.
#![cfg_attr(target_arch = "nvptx64", no_std)]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(abi_ptx, link_llvm_intrinsics, asm_experimental_arch, stdarch_nvptx),
    allow(internal_features)
)]

pub mod alias;
pub mod area;
pub mod block;
#[cfg(not(target_arch = "nvptx64"))]
pub mod checks;
pub mod convolve;
#[cfg(not(target_arch = "nvptx64"))]
pub mod emu;
pub mod grid;
pub mod kernel;
pub mod launch;
pub mod launch_bounds;
pub mod lbp;
pub mod moments;
pub mod multisplit;
pub mod num;
pub mod op;
pub mod policy;
pub mod rng;
pub mod simt;
pub mod som;
pub mod subset;
pub mod warp;

/// A panic on the device cannot unwind or print: stop the kernel with `trap`, which the host
/// sees as a launch failure (CUDA_ERROR_LAUNCH_FAILED / ILLEGAL_INSTRUCTION) on its next call.
#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    simt::trap()
}
