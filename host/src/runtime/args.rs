//! Kernel parameters on a GPU: a kernel's parameter struct (its [`Kernel::Params`]), pushed
//! into a `cudarc` launch one PTX parameter per field, as the struct's
//! [`Params::for_each_field`] lists them. The emulator needs none of this: it calls the kernel's
//! Rust body with the struct itself.
//!
//! [`Kernel::Params`]: warpkit_kernels::kernel::Kernel::Params

use cudarc::driver::{DeviceRepr, LaunchArgs, PushKernelArg};
use warpkit_kernels::kernel::Params;

/// The first byte of one parameter's value. CUDA takes each parameter as the address of its
/// value and copies as many bytes as the kernel's signature says, so a reference to the first
/// byte is all a launch needs.
#[repr(transparent)]
struct Field(u8);

// SAFETY: `Field` is only ever a reference into a parameter struct, whose field at that address
// has the type the kernel's PTX parameter has (the `Params` contract).
unsafe impl DeviceRepr for Field {}

/// Pushes every field of `params` into `launch`, in order.
pub(crate) fn push_params<'a, P: Params>(params: &'a P, launch: &mut LaunchArgs<'a>) {
    params.for_each_field(&mut |addr| {
        // SAFETY: `addr` is a field of `*params` (the `Params` contract), initialized and alive
        // for 'a; a `Field` has alignment 1.
        let field = unsafe { &*addr.cast::<Field>() };
        launch.arg(field);
    });
}
