//! A guide to kernels of one's own: write, build, test, launch, and what the emulator catches.
//!
//! `examples/own-kernels/` in warpkit's repository is all of this in two crates a user would
//! copy: `device/` (on this crate) and `host/` (on `warpkit`, with `warpkit-builder` in its
//! `build.rs`).
//!
//! # 1. Set up
//!
//! Kernels compile with rustc's own `nvptx64-nvidia-cuda` target on a pinned nightly, which
//! warpkit's `scripts/setup.sh` installs (with `ptxas` when a CUDA toolkit is found). A host
//! crate whose images are checked in ([`warpkit-builder`'s
//! `checked_in`](https://docs.rs/warpkit-builder)) builds on stable without it; only the
//! machine that changes the kernels needs the set-up.
//!
//! # 2. Write the device crate
//!
//! A library crate that depends on `warpkit-kernels`, `no_std` on the GPU:
//!
//! ```text
//! #![cfg_attr(target_arch = "nvptx64", no_std)]
//! #![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]
//! ```
//!
//! A kernel family is a parameter struct, a body and a plan. Every pointer field says how far
//! the kernel reaches through it (`#[len]`), and a `check` line what else a launch must meet:
//! the host then checks each launch against the buffers it was given, with no `unsafe`.
//!
//! ```
//! use warpkit_kernels::launch::LaunchShape;
//! use warpkit_kernels::simt::global_x;
//!
//! warpkit_kernels::kernel! {
//!     /// `out[i] = a · x[i] + y[i]` for the `n` elements.
//!     pub struct Axpy {
//!         pub a: f32,
//!         #[len(n)]
//!         pub x: *const f32,
//!         #[len(n)]
//!         pub y: *const f32,
//!         pub n: u64,
//!         #[len(n)]
//!         pub out: *mut f32,
//!     }
//!     check |p, shape| shape.is_1d() && shape.grid[0] as u64 * shape.block[0] as u64 >= n;
//!     /// The one entry, `my_axpy` in the PTX.
//!     fn axpy => my_axpy;
//! }
//!
//! impl Axpy {
//!     /// A thread an element, blocks of 256.
//!     pub const fn plan(&self) -> LaunchShape {
//!         LaunchShape::linear(self.n.div_ceil(256), 256, 0)
//!     }
//! }
//!
//! /// The body.
//! ///
//! /// # Safety
//! /// `x`, `y` and `out` hold `n` elements.
//! pub unsafe fn axpy(p: Axpy) {
//!     let i = global_x();
//!     if i < p.n {
//!         // SAFETY: `i < n` (the contract).
//!         unsafe { *p.out.add(i as usize) = p.a * *p.x.add(i as usize) + *p.y.add(i as usize) };
//!     }
//! }
//! ```
//!
//! Bodies use the SIMT layer ([`crate::simt`]: indices, barriers, shuffles, ballots, shared
//! memory, atomics) and the warp and block primitives ([`crate::warp`], [`crate::block`]) over
//! any [`Operator`](crate::op::Operator) of one's own. Fields that several families share are
//! one [`kernel_group!`](crate::kernel_group!). A family whose contract no declaration can
//! state (a gather's indices) leaves out `#[len]` and `check`: its launch is `unsafe`
//! (`Bindings::launch_unchecked`). The crate root's table maps CUDA C++ and `cuda_std` names.
//!
//! # 3. Give warpkit's primitives functions of one's own
//!
//! warpkit's multisplit takes a bucket function of one's own, and its device-wide reduction
//! and scans an operator of one's own, through kernels declared in the device crate:
//!
//! ```
//! use warpkit_kernels::multisplit::bucket::BucketFn;
//! use warpkit_kernels::op::Operator;
//!
//! warpkit_kernels::kernel_group! {
//!     /// Keys by their low `bits` bits, reversed.
//!     pub struct LowBitsReversed {
//!         pub bits: u32,
//!     }
//! }
//!
//! impl BucketFn<u32> for LowBitsReversed {
//!     fn bucket(&self, key: u32) -> u32 {
//!         key.reverse_bits().checked_shr(32 - self.bits).unwrap_or(0)
//!     }
//! }
//!
//! warpkit_kernels::multisplit_kernels! {
//!     /// Its 14 multisplit kernels for u32 keys.
//!     pub low_bits_reversed_u32: LowBitsReversed for u32;
//! }
//!
//! /// Bitwise or.
//! #[derive(Clone, Copy, Default)]
//! pub struct Or;
//!
//! impl Operator<u64> for Or {
//!     const COMMUTATIVE: bool = true;
//!     fn identity(self) -> u64 {
//!         0
//!     }
//!     fn combine(self, a: u64, b: u64) -> u64 {
//!         a | b
//!     }
//! }
//!
//! warpkit_kernels::operator_kernels! {
//!     /// Its reduction and scans of u64.
//!     pub or_u64: Or for u64;
//! }
//! # fn main() {}
//! ```
//!
//! The host then calls `Multisplit::by(LowBitsReversed { bits: 5 }, 32)` and
//! `backend.reduce_by(Or, &values)` (or `exclusive_scan_by`, `inclusive_scan_by`), on every
//! backend: the CPU runs the same `bucket` and `combine` as host code. On an H200 the example's
//! copy of the built-in hash splits as fast as the built-in one.
//!
//! # 4. Build
//!
//! The host crate's `build.rs` compiles the device crate with `warpkit-builder`: one PTX
//! (sm_80), machine code for sm_80 and sm_90 by `ptxas`, all compressed into a
//! `warpkit::Module` the host includes (the example's device crate builds in about 50 s on two
//! cores). `checked_in("kernels")` also keeps the images in the host crate
//! (`WARPKIT_UPDATE_KERNELS=1` writes them), refused once older than the device crate's
//! sources; `depends_on(dir)` counts a path dependency's sources too. The build turns on this
//! crate's `library-only` feature, so that the PTX holds one's own entries alone. A `ptxas`
//! that rejects the PTX, or a missing toolchain, is an error naming what to do; a kernel that
//! spills registers is a warning.
//!
//! ```text
//! // host/build.rs
//! warpkit_builder::Builder::new("../device").checked_in("kernels").build()?;
//! // host/src/lib.rs
//! pub static KERNELS: warpkit::Module = include!(concat!(env!("OUT_DIR"), "/my_device.rs"));
//! ```
//!
//! # 5. Launch
//!
//! ```text
//! device.load(&KERNELS)?;                    // once per device; nothing to do in the emulator
//! let mut b = device.bind();
//! let p = Axpy { a: 2.0, x: b.read(&x)?, y: b.read(&y)?, n, out: b.write(&mut out)? };
//! b.launch::<my_axpy>(p.plan(), p)?;         // checked: reaches, overlaps, alignment, limits
//! ```
//!
//! The parameters are the declared struct, so their types are checked at compile time; the
//! shape comes from the plan or is given by hand. Errors are values: `LaunchContract` (a reach
//! outside the bound buffers, the `check` line false), `LaunchShape` (past the device's
//! limits), `WrongDevice` (a buffer of another device), `KernelNotLoaded` (no loaded module
//! holds the kernel), `DeviceLost` (a kernel faulted on a GPU: every later call in the process
//! returns it).
//!
//! # 6. Test without a GPU
//!
//! Built for the host, the same kernels run in the emulator ([`crate::emu`],
//! `warpkit::Device::emulator()`) under plain `cargo test`: 32-lane warps, every thread a
//! coroutine, shared memory poisoned. It reports, as `warpkit::Error::Emulator` naming the
//! kernel, block, warp and lanes: races on shared memory between barriers, shared accesses out
//! of range (with the source line), barriers that not every thread reaches, collectives whose
//! lanes cannot all meet, traps and panics, blocks that only spin, and (on Linux) global
//! accesses up to a page past a buffer's end, with the thread, the address and the buffer
//! ([`Misuse::OutOfBounds`](crate::emu::Misuse::OutOfBounds); see [`crate::emu::memory`]). It
//! does not check global races, accesses inside a buffer's rounding to 16 bytes or farther than a page away, timing, or
//! coalescing; compute-sanitizer on a GPU covers those. `warpkit::Device::present()` gives the emulator and every GPU that opens, for a test
//! that runs on each and compares their outputs.
