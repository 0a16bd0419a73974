//! Kernel arguments on a GPU: a kernel's argument tuple (its [`Kernel::Args`]), pushed into a
//! `cudarc` launch one parameter at a time. The emulator needs none of this: it calls the
//! kernel's Rust function with the tuple itself. Without the `cuda` feature the traits stay,
//! empty, so that launches are bounded alike in every build.
//!
//! [`Kernel::Args`]: warpkit_kernels::kernel::Kernel::Args

#[cfg(feature = "cuda")]
use cudarc::driver::{LaunchArgs, PushKernelArg};

/// A parameter type kernels take: plain numbers and raw pointers to device memory.
pub trait Param: Copy {
    /// Pushes a reference to this parameter's bytes, which CUDA copies at launch.
    #[cfg(feature = "cuda")]
    fn push<'a>(&'a self, launch: &mut LaunchArgs<'a>);
}

macro_rules! number_param {
    ($($t:ty),*) => {$(
        impl Param for $t {
            #[cfg(feature = "cuda")]
            fn push<'a>(&'a self, launch: &mut LaunchArgs<'a>) {
                launch.arg(self);
            }
        }
    )*};
}
number_param!(u32, u64, i32, i64, f32, f64);

/// Small arrays by value (the convolution kernels' inline jobs).
impl<const N: usize> Param for [u64; N] {
    #[cfg(feature = "cuda")]
    fn push<'a>(&'a self, launch: &mut LaunchArgs<'a>) {
        launch.arg(self);
    }
}

macro_rules! pointer_param {
    ($($p:ty),*) => {$(
        impl<T> Param for $p {
            #[cfg(feature = "cuda")]
            fn push<'a>(&'a self, launch: &mut LaunchArgs<'a>) {
                // SAFETY: a thin raw pointer has the size and alignment of u64 on the 64-bit
                // hosts CUDA runs on; its bits are the device address the kernel receives.
                let addr = unsafe { &*(self as *const $p).cast::<u64>() };
                launch.arg(addr);
            }
        }
    )*};
}
pointer_param!(*const T, *mut T);

/// A kernel's whole argument tuple.
pub trait Args: Copy {
    #[cfg(feature = "cuda")]
    fn push_all<'a>(&'a self, launch: &mut LaunchArgs<'a>);
}

macro_rules! tuple_args {
    ($(($($name:ident),+))*) => {$(
        impl<$($name: Param),+> Args for ($($name,)+) {
            #[cfg(feature = "cuda")]
            #[allow(non_snake_case)]
            fn push_all<'a>(&'a self, launch: &mut LaunchArgs<'a>) {
                let ($($name,)+) = self;
                $($name.push(launch);)+
            }
        }
    )*};
}
tuple_args! {
    (A) (A, B) (A, B, C) (A, B, C, D) (A, B, C, D, E) (A, B, C, D, E, F) (A, B, C, D, E, F, G)
    (A, B, C, D, E, F, G, H) (A, B, C, D, E, F, G, H, I) (A, B, C, D, E, F, G, H, I, J)
    (A, B, C, D, E, F, G, H, I, J, K) (A, B, C, D, E, F, G, H, I, J, K, L)
}
