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
//!
//! # Coming from CUDA C++ or `cuda_std`
//!
//! | CUDA C++ | here |
//! |---|---|
//! | `threadIdx`, `blockIdx`, `blockDim`, `gridDim` | [`simt::thread_idx`], [`simt::block_idx`], [`simt::block_dim`], [`simt::grid_dim`] ([`simt::Dim3`]) |
//! | `threadIdx.x`, `blockIdx.x`, `blockDim.x`, `gridDim.x` | [`simt::thread_x`], [`simt::block_x`], [`simt::block_dim_x`], [`simt::grid_dim_x`] |
//! | `blockIdx.x * blockDim.x + threadIdx.x` | [`simt::global_x`] (a `u64`: no wrap past 2^32 threads) |
//! | `%laneid`, warp of the thread | [`simt::lane_id`], [`simt::warp_id`] |
//! | `__syncthreads()`, `__syncthreads_or(p)` | [`simt::sync_threads`], [`simt::sync_threads_or`] (`unsafe`: every thread of the block must reach the same one) |
//! | `__syncwarp(mask)`, `__threadfence()` | [`simt::sync_warp`], [`simt::fence_device`] |
//! | `__shfl_sync`, `_up_`, `_down_`, `_xor_` | [`simt::warp::shfl_idx`], [`shfl_up`](simt::warp::shfl_up), [`shfl_down`](simt::warp::shfl_down), [`shfl_xor`](simt::warp::shfl_xor), of any value of 32-bit words |
//! | `__ballot_sync`, `__any_sync`, `__all_sync`, `__match_any_sync`, `__activemask()` | [`simt::warp::ballot`], [`any`](simt::warp::any), [`all`](simt::warp::all), [`match_any_u32`](simt::warp::match_any_u32), [`active_mask`](simt::warp::active_mask) |
//! | `__popc(x)` | `x.count_ones()` (one `popc`) |
//! | `extern __shared__ T s[]` | [`simt::shared::SharedSlice::carve`] (bounds-checked in the emulator) |
//! | `atomicAdd`, `atomicCAS`, ... | [`simt::atomic`] |
//! | `cub::WarpReduce`, `WarpScan`, `BlockReduce`, `BlockScan` | [`warp::reduce()`], [`warp::exclusive_scan`], [`block::reduce()`], [`block::exclusive_scan`], over any [`op::Operator`], warps of 1 to 32 lanes ([`warp::LogicalWarp`]) |
//! | `__global__ void f(...)` and `f<<<grid, block, shared>>>(...)` | [`kernel!`] (a parameter struct, a body, a plan for the [`launch::LaunchShape`]), launched from the host by `warpkit::Device::bind` and `Bindings::launch` |
//! | `cuda_builder` in `build.rs`, `cust`'s `Module` | `warpkit_builder::Builder` in `build.rs` (this crate's `library-only` feature on), `warpkit::Module` and `Device::load` |
//!
//! `cuda_std`'s `thread::thread_idx_x`, `block_idx_x`, `index_1d` and `sync_threads` are
//! [`simt::thread_x`], [`simt::block_x`], [`simt::global_x`] and [`simt::sync_threads`]. Every
//! item above also runs in the emulator, with 32-lane warps, so a kernel of one's own is tested
//! by `cargo test` on any machine (`examples/own-kernels` in the repository). The [`guide`]
//! takes a kernel of one's own from writing to launching.
#![cfg_attr(target_arch = "nvptx64", no_std)]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(abi_ptx, link_llvm_intrinsics, asm_experimental_arch, stdarch_nvptx),
    allow(internal_features)
)]

/// [`kernel!`] for this crate's own families: no PTX entries with the `library-only` feature,
/// which `warpkit-builder` turns on for a crate of one's own kernels, so that its PTX holds its
/// own entries alone (and builds in seconds).
macro_rules! own_kernel {
    ($($family:tt)*) => {
        $crate::kernel! { #![entries_if(not(feature = "library-only"))] $($family)* }
    };
}

pub mod alias;
pub mod area;
pub mod block;
#[cfg(not(target_arch = "nvptx64"))]
pub mod checks;
pub mod convolve;
#[cfg(not(target_arch = "nvptx64"))]
pub mod emu;
pub mod grid;
pub mod guide;
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
