//! Kernel entry points, declared once for both engines.
//!
//! [`kernel!`](crate::kernel!) turns `pub unsafe fn name(args) { body }` into an unmangled
//! `extern "ptx-kernel"` function on nvptx64 (the PTX entry `name`), and on the host into a
//! plain `unsafe fn` of the same name plus a type of the same name implementing [`Kernel`]. The
//! host crate launches a kernel through that type: by [`Kernel::NAME`] on a GPU, by
//! [`Kernel::run`] on the emulator, with one argument tuple type checked at compile time for
//! both.
//!
//! Kernels generic over an element type are instantiated once per type under names ending in the
//! type (`alias_pack_shared_f32`, `_f64`). [`kernel_table!`](crate::kernel_table!) writes each
//! area's list of them once: a trait whose associated types name, for each element type, its
//! instantiation of every kernel, so that host code generic over the type launches the right
//! entry.

/// A kernel entry point as the host sees it.
#[cfg(not(target_arch = "nvptx64"))]
pub trait Kernel {
    /// The PTX entry name (the function's name).
    const NAME: &'static str;
    /// The area whose GPU module holds the kernel (from its name; see [`crate::area`]). The
    /// host build checks that every kernel of this crate has one; `None` is for kernels that
    /// exist only in the emulator (those that tests declare).
    const AREA: Option<crate::area::Area>;
    /// The parameters, in order: raw pointers to device memory and plain numbers.
    type Args: Copy;
    /// Runs the kernel body as the current emulated thread.
    ///
    /// # Safety
    /// The kernel's own contract (its `# Safety` section) for `args`, and it must run inside an
    /// emulator launch.
    unsafe fn run(args: Self::Args);
}

/// Declares kernel entry points; see the [module docs](mod@crate::kernel).
#[macro_export]
macro_rules! kernel {
    ($(
        $(#[$attr:meta])*
        pub unsafe fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $body:block
    )*) => {$(
        #[cfg(target_arch = "nvptx64")]
        $(#[$attr])*
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name($($arg: $ty),*) $body

        #[cfg(not(target_arch = "nvptx64"))]
        $(#[$attr])*
        pub unsafe fn $name($($arg: $ty),*) $body

        #[cfg(not(target_arch = "nvptx64"))]
        #[allow(non_camel_case_types)]
        #[doc = concat!("Launch handle of the kernel [`", stringify!($name), "`](fn@", stringify!($name), ").")]
        pub struct $name {}

        #[cfg(not(target_arch = "nvptx64"))]
        impl $crate::kernel::Kernel for $name {
            const NAME: &'static str = stringify!($name);
            const AREA: Option<$crate::area::Area> = $crate::area::Area::of(stringify!($name));
            type Args = ($($ty,)*);
            unsafe fn run(args: Self::Args) {
                let ($($arg,)*) = args;
                // SAFETY: forwarded to the caller's contract.
                unsafe { $name($($arg),*) }
            }
        }
    )*};
}

/// Declares a kernel table; see the [module docs](mod@crate::kernel). The header names the
/// element types' common trait (which the argument tuples may need) and the two types. Each line
/// is one kernel:
/// its name in the table, its argument tuple (in terms of `Self`, the element type) and its
/// entry for each of the two element types, in the order the header lists them.
#[macro_export]
macro_rules! kernel_table {
    (
        $(#[$attr:meta])*
        pub trait $table:ident: $bound:path; for $a:ty, $b:ty {
            $($(#[$kattr:meta])* $kernel:ident($args:ty) = $for_a:path, $for_b:path;)*
        }
    ) => {
        #[cfg(not(target_arch = "nvptx64"))]
        $(#[$attr])*
        pub trait $table: $bound {
            $($(#[$kattr])* type $kernel: $crate::kernel::Kernel<Args = $args>;)*
        }

        #[cfg(not(target_arch = "nvptx64"))]
        impl $table for $a {
            $(type $kernel = $for_a;)*
        }

        #[cfg(not(target_arch = "nvptx64"))]
        impl $table for $b {
            $(type $kernel = $for_b;)*
        }
    };
}
