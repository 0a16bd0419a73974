//! Kernel entry points, declared once for both engines.
//!
//! A kernel family is three things in its area: a parameter struct, a body (an ordinary generic
//! `unsafe fn` taking that struct) and a plan that turns the parameters and the device's limits
//! into a launch shape ([`crate::launch`]). [`kernel!`](crate::kernel!) declares the struct and
//! stamps the body over the element types it is launched with:
//!
//! ```ignore
//! kernel! {
//!     /// Parameters of the tile totals.
//!     pub struct TileTotal<F: Weight> {
//!         pub weights: *const F,
//!         pub n: u64,
//!         pub totals: *mut u64,
//!     }
//!     /// Each tile's total (see `tile_total`).
//!     fn tile_total => alias_tile_total_f32<f32>, alias_tile_total_f64<f64>;
//! }
//! ```
//!
//! On nvptx64 each instance is an unmangled `extern "ptx-kernel"` entry (`alias_tile_total_f32`)
//! whose PTX parameters are the struct's fields, one by one: LLVM treats a kernel's pointer
//! parameters as global memory and loads through them with `ld.global`, which it does not for
//! pointers read out of a struct passed whole. On the host each instance is a type of the same
//! name implementing [`Kernel`], whose [`Kernel::Params`] is the struct: the host launches it by
//! [`Kernel::NAME`] on a GPU and by [`Kernel::run`] in the emulator, with the same checked type.
//!
//! Host code generic over an element type picks the instance through a table,
//! [`kernel_table!`](crate::kernel_table!): a trait whose associated types name, for each
//! element type, its instance of every kernel of the area.

/// A kernel entry point as the host sees it.
#[cfg(not(target_arch = "nvptx64"))]
pub trait Kernel {
    /// The PTX entry name (the instance's name).
    const NAME: &'static str;
    /// The area whose GPU module holds the kernel (from its name; see [`crate::area`]). The
    /// host build checks that every kernel of this crate has one; `None` is for kernels that
    /// exist only in the emulator (those that tests declare).
    const AREA: Option<crate::area::Area>;
    /// The parameters: the family's struct.
    type Params: Params;
    /// Runs the kernel body as the current emulated thread.
    ///
    /// # Safety
    /// The kernel's own contract (its body's `# Safety` section) for `params`, and it must run
    /// inside an emulator launch.
    unsafe fn run(params: Self::Params);
}

/// A kernel's parameters as a GPU receives them: one PTX parameter per field.
///
/// # Safety
/// [`Params::for_each_field`] visits, in order, exactly the PTX parameters of the kernels that
/// take this type, each address pointing at a value of that parameter's type and size (raw
/// pointers are 64-bit addresses, plain numbers and `repr(C)` structs of numbers their bytes).
/// [`kernel!`](crate::kernel!) implements it for the structs it declares.
#[cfg(not(target_arch = "nvptx64"))]
pub unsafe trait Params: Copy {
    /// Calls `visit` with the address of each PTX parameter, in order.
    fn for_each_field(&self, visit: &mut dyn FnMut(*const ()));
}

/// Declares a kernel family: its parameter struct and the instances of its body; see the
/// [module docs](mod@crate::kernel). After the struct, each line names a body (a path to an
/// `unsafe fn(Struct) `, with turbofish for generics the struct does not fix) and its
/// instances, each with the struct's type arguments. The body's `# Safety` section is the
/// launch contract of every instance.
#[macro_export]
macro_rules! kernel {
    (
        $(#[$sattr:meta])*
        pub struct $params:ident $(<$($g:ident $(: $bound:path)?),+ $(,)?>)? {
            $($(#[$fattr:meta])* pub $field:ident: $fty:ty),+ $(,)?
        }
        $(
            $(#[$kattr:meta])*
            fn $body:expr => $($entry:ident $(<$($t:ty),+>)?),+ ;
        )+
    ) => {
        $(#[$sattr])*
        #[repr(C)]
        pub struct $params $(<$($g $(: $bound)?),+>)? {
            $($(#[$fattr])* pub $field: $fty),+
        }

        impl $(<$($g $(: $bound)?),+>)? Clone for $params $(<$($g),+>)? {
            #[inline(always)]
            fn clone(&self) -> Self {
                *self
            }
        }

        impl $(<$($g $(: $bound)?),+>)? Copy for $params $(<$($g),+>)? {}

        #[cfg(not(target_arch = "nvptx64"))]
        // SAFETY: the entries below take the fields one by one, in this order.
        unsafe impl $(<$($g $(: $bound)?),+>)? $crate::kernel::Params for $params $(<$($g),+>)? {
            fn for_each_field(&self, visit: &mut dyn FnMut(*const ())) {
                $(visit((&self.$field as *const $fty).cast());)+
            }
        }

        $crate::kernel!(
            @entries $params [$($($g),+)?] [$($field: $fty),+]
            $([$(#[$kattr])*] $body => $($entry [$($($t),+)?]),+ ;)+
        );
    };
    (
        @entries $params:ident $generics:tt $fields:tt
        $($attrs:tt $body:expr => $($entry:ident $types:tt),+ ;)+
    ) => {
        $($(
            $crate::kernel!(@entry $params $generics $types $fields $attrs $entry $body);
        )+)+
    };
    (
        @entry $params:ident [$($g:ident),*] [$($t:ty),*] [$($field:ident: $fty:ty),+]
        [$(#[$kattr:meta])*] $entry:ident $body:expr
    ) => {
        // The entry lives in a module of its own name, where the struct's type parameters are
        // aliases of this instance's types, so that the fields' types name concrete types.
        #[cfg(target_arch = "nvptx64")]
        #[allow(non_snake_case, non_camel_case_types, unused_imports)]
        mod $entry {
            use super::*;
            $(type $g = $t;)*
            #[unsafe(no_mangle)]
            pub unsafe extern "ptx-kernel" fn $entry($($field: $fty),+) {
                let params: $params<$($g),*> = $params { $($field),+ };
                let body = $body;
                // SAFETY: the launch contract is the body's.
                unsafe { body(params) }
            }
        }

        #[cfg(not(target_arch = "nvptx64"))]
        #[allow(non_camel_case_types)]
        $(#[$kattr])*
        #[doc = ""]
        #[doc = concat!("Launch handle of the entry `", stringify!($entry), "`.")]
        pub struct $entry {}

        #[cfg(not(target_arch = "nvptx64"))]
        impl $crate::kernel::Kernel for $entry {
            const NAME: &'static str = stringify!($entry);
            const AREA: Option<$crate::area::Area> = $crate::area::Area::of(stringify!($entry));
            type Params = $params<$($t),*>;
            unsafe fn run(params: Self::Params) {
                let body = $body;
                // SAFETY: forwarded to the caller's contract.
                unsafe { body(params) }
            }
        }
    };
}

/// Declares a kernel table; see the [module docs](mod@crate::kernel). The trait lists each
/// kernel by its name in the table and its parameter type (in terms of `Self`, the element
/// type); then each element type names its instance of each kernel.
#[macro_export]
macro_rules! kernel_table {
    (
        $(#[$attr:meta])*
        pub trait $table:ident: $bound:path {
            $($(#[$kattr:meta])* $kernel:ident: $params:ty;)+
        }
        $($elem:ty { $($name:ident = $entry:path),+ $(,)? })+
    ) => {
        #[cfg(not(target_arch = "nvptx64"))]
        $(#[$attr])*
        pub trait $table: $bound {
            $($(#[$kattr])* type $kernel: $crate::kernel::Kernel<Params = $params>;)+
        }

        $(
            #[cfg(not(target_arch = "nvptx64"))]
            impl $table for $elem {
                $(type $name = $entry;)+
            }
        )+
    };
}
