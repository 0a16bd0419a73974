//! warpkit's device code: a small SIMT layer and the kernels built on it.
//!
//! The crate compiles twice. For `nvptx64-nvidia-cuda` it is `no_std` and becomes the PTX that
//! the `warpkit` host crate embeds (its build script drives that build); for the host it is an
//! ordinary rlib that shares the code both sides need: the Philox generator, the element
//! arithmetic and the tuning policies that fix tile shapes.
//!
//! Layout by level of cooperation, as in CUB: [`simt`] (one thread's view of the hardware),
//! `warp` (32 lanes), `block` (one thread block), `device` (the whole grid), each kernel entry
//! point named `<area>_<variant>` so ptxas reports and profiles read clearly.
#![cfg_attr(target_arch = "nvptx64", no_std)]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(abi_ptx, link_llvm_intrinsics, asm_experimental_arch, stdarch_nvptx),
    allow(internal_features)
)]

pub mod num;
pub mod policy;
pub mod rng;

#[cfg(target_arch = "nvptx64")]
pub mod block;
#[cfg(target_arch = "nvptx64")]
pub mod device;
#[cfg(target_arch = "nvptx64")]
pub mod simt;
#[cfg(target_arch = "nvptx64")]
pub mod warp;

/// A panic on the device cannot unwind or print: stop the kernel with `trap`, which the host
/// sees as a launch failure (CUDA_ERROR_LAUNCH_FAILED / ILLEGAL_INSTRUCTION) on its next call.
#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // SAFETY: `trap` takes no arguments and only ends the kernel.
    unsafe { core::arch::nvptx::trap() }
}
