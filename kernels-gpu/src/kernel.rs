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
//! A family whose whole launch contract can be stated in its declaration is *checked*
//! ([`Checked`]): each pointer field carries `#[len(..)]`, the elements the kernel may reach
//! from it, and a `check` clause after the struct tests the other fields and the launch shape.
//! Both are expressions over the fields (by name) and the two names the clause gives the
//! parameters and the shape; a length is converted to `u128` and should add or multiply
//! there (`u128::from(n) + 1`), where it cannot wrap. A pointer field may also carry
//! `#[zeroed(..)]`, the bytes from its start that must be zero when the kernel starts (a
//! counter or flags its blocks meet in): the host zeroes them in stream order when it binds
//! the buffer. The host then launches the family
//! without `unsafe`, after testing every pointer against the buffers it borrowed:
//!
//! ```ignore
//! kernel! {
//!     pub struct CopyBytes {
//!         #[len(bytes)]
//!         pub src: *const u8,
//!         #[len(bytes)]
//!         pub dst: *mut u8,
//!         pub bytes: u64,
//!     }
//!     check |p, shape| shape.is_1d(); // any grid of whole blocks
//!     fn copy_bytes => copy_vec128;
//! }
//! ```
//!
//! Where entries of one family ask different things of the launch (a block shape, shared
//! memory, a bound that depends on the entry's constants), a `check` line after an entry's `fn`
//! line adds its conditions to the family's, for those entries only ([`Kernel::holds`]):
//!
//! ```ignore
//!     fn sample_all::<32, 4> => subset_lanes32_words4;
//!     check |p, shape| p.words <= 128 && shape.is_linear(256, 0);
//! ```
//!
//! Families that share a run of parameters (the keys' bucket function, quantized weights) declare
//! it once as a group, [`kernel_group!`](crate::kernel_group!), and name it in each struct by a
//! field marked `#[group]`. The entries take the group's fields as PTX parameters of their own,
//! as if they were written out in its place, so that pointers among them stay kernel
//! parameters; the body reads them as a field of the struct (`p.buckets.kind`):
//!
//! ```ignore
//! kernel_group! {
//!     /// The `n` weights and their quantizer.
//!     pub struct Quantized<F: Weight> {
//!         #[len(n)]
//!         pub weights: *const F,
//!         pub n: u64,
//!         pub quantizer: Quantizer,
//!     }
//! }
//! kernel! {
//!     pub struct TileCounts<F: Weight> {
//!         #[group]
//!         pub items: Quantized<F>,
//!         #[len(items.n)]
//!         pub sums: *mut u64,
//!     }
//!     ...
//! }
//! ```
//!
//! A family whose blocks wait for each other inside one launch (a persistent kernel that takes
//! many steps, each needing the whole grid's results of the one before, through
//! [`crate::grid::barrier::sync`] or flags of its own) says so with `#![cooperative]` before
//! its struct. The host then launches its entries cooperatively, with every block resident at
//! once, and refuses a grid larger than that ([`Params::COOPERATIVE`]); the host code that
//! plans such a launch caps its grid to the blocks the device holds.
//!
//! Host code generic over an element type picks the instance through a table,
//! [`kernel_table!`](crate::kernel_table!): a trait whose associated types name, for each
//! element type, its instance of every kernel of the area.

/// A kernel entry point as the host sees it.
///
/// # Safety
/// [`Kernel::NAME`] is a PTX entry that takes [`Kernel::Params`]' fields and runs the body
/// [`Kernel::run`] runs; [`Kernel::holds`] is false for every launch the body's contract rules
/// out beyond its family's [`Checked`] conditions (where the family is checked).
/// [`kernel!`](crate::kernel!) implements it.
#[cfg(not(target_arch = "nvptx64"))]
pub unsafe trait Kernel {
    /// The PTX entry name (the instance's name).
    const NAME: &'static str;
    /// The area whose GPU module holds one of this crate's kernels (from its name; see
    /// [`crate::area`]; the host build checks that every one has one). `None` for a kernel of
    /// one's own, whatever its name: a GPU finds it in a loaded `warpkit::Module`.
    const AREA: Option<crate::area::Area>;
    /// The parameters: the family's struct.
    type Params: Params;
    /// Runs the kernel body as the current emulated thread.
    ///
    /// # Safety
    /// The kernel's own contract (its body's `# Safety` section) for `params`, and it must run
    /// inside an emulator launch.
    unsafe fn run(params: Self::Params);
    /// Whether this entry's own conditions hold for `params` and `shape`: the check clause
    /// after its `fn` line, where its body asks more of a launch than the family's check (a
    /// block shape, shared memory, a bound that depends on the entry's constants); `true`
    /// without one.
    fn holds(params: &Self::Params, shape: &crate::launch::LaunchShape) -> bool;
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
    /// Whether the family's blocks wait for each other ([`crate::grid::barrier`], say):
    /// `#![cooperative]` in its declaration. The host then launches them cooperatively, every
    /// block resident at once, and refuses a grid larger than the device holds.
    const COOPERATIVE: bool = false;
    /// Calls `visit` with the address of each PTX parameter, in order.
    fn for_each_field(&self, visit: &mut dyn FnMut(*const ()));
}

/// One pointer field of a checked launch: where it points and how far the kernel may reach.
#[cfg(not(target_arch = "nvptx64"))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reach {
    /// The field's name. Reaches of one name are parts of one field (the outputs of a job
    /// list), which may overlap each other as a field's own elements do.
    pub field: &'static str,
    /// The address it holds.
    pub addr: usize,
    /// The bytes from `addr` the kernel may read or write (`u128`: a product of two 64-bit
    /// lengths does not wrap).
    pub bytes: u128,
    /// The alignment its element type needs.
    pub align: usize,
    /// Whether the kernel writes through it.
    pub writes: bool,
    /// The bytes from `addr` that must be zero when the kernel starts (`#[zeroed(..)]` on the
    /// field: a counter or flags the kernel's blocks meet in).
    pub zeroed: u128,
}

/// A kernel family whose launch contract is all checkable, declared by
/// [`kernel!`](crate::kernel!) with `#[len]` on every pointer field and a `check` clause.
///
/// # Safety
/// A launch is sound when every reach [`Checked::for_each_reach`] gives lies inside one live
/// allocation (or is empty) with its first [`Reach::zeroed`] bytes zero, no reach that writes
/// overlaps a reach of another field, and [`Checked::check`] holds for the launch shape: the
/// body then touches no other memory, and ends. [`kernel!`](crate::kernel!) implements it from
/// `#[len]` on every pointer field; a family whose kernels take addresses from other fields
/// (jobs holding them) implements it by hand, with a reach for each.
#[cfg(not(target_arch = "nvptx64"))]
pub unsafe trait Checked: Params {
    /// Calls `visit` with each pointer field's reach in a launch of `shape`.
    fn for_each_reach(&self, shape: &crate::launch::LaunchShape, visit: &mut dyn FnMut(Reach));
    /// Whether the other fields and `shape` meet the contract.
    fn check(&self, shape: &crate::launch::LaunchShape) -> bool;
}

/// A parameter type that holds no address: the fields of a checked family without `#[len]`.
///
/// # Safety
/// No kernel uses any part of a value of the type as an address.
#[cfg(not(target_arch = "nvptx64"))]
pub unsafe trait Plain {}

#[cfg(not(target_arch = "nvptx64"))]
macro_rules! plain {
    ($($t:ty),+) => {
        // SAFETY: numbers.
        $(unsafe impl Plain for $t {})+
    };
}
#[cfg(not(target_arch = "nvptx64"))]
plain!(u8, u16, u32, u64, i32, i64, f32, f64, bool);

// SAFETY: arrays of values that hold no address hold none.
#[cfg(not(target_arch = "nvptx64"))]
unsafe impl<T: Plain, const N: usize> Plain for [T; N] {}

/// Compiles only for [`Plain`] types: what a checked family's fields without `#[len]` pass.
#[cfg(not(target_arch = "nvptx64"))]
#[doc(hidden)]
pub const fn assert_plain<T: Plain>() {}

/// A pointer field's element size and direction.
#[cfg(not(target_arch = "nvptx64"))]
#[doc(hidden)]
pub trait Pointer: Copy {
    /// Bytes per element.
    const ELEMENT_BYTES: usize;
    /// The element's alignment.
    const ALIGN: usize;
    /// Whether the kernel may write through it.
    const WRITES: bool;
    /// The address.
    fn address(self) -> usize;
}

#[cfg(not(target_arch = "nvptx64"))]
macro_rules! pointer {
    ($($ptr:ty => $writes:expr),+) => {
        $(impl<T> Pointer for $ptr {
            const ELEMENT_BYTES: usize = size_of::<T>();
            const ALIGN: usize = align_of::<T>();
            const WRITES: bool = $writes;
            fn address(self) -> usize {
                self.addr()
            }
        })+
    };
}
#[cfg(not(target_arch = "nvptx64"))]
pointer!(*const T => false, *mut T => true);

/// A run of kernel parameters that several families share, declared once by
/// [`kernel_group!`](crate::kernel_group!) and named in a family's struct by a field marked
/// `#[group]`: the family's entries take the group's fields one by one, in the six slots of
/// [`Padded`] (those past its last field are `()`, which no PTX parameter carries), and
/// [`Group::from_fields`] puts them back together.
///
/// # Safety
/// `Fields` is the tuple of the group's fields' types, in order; on the host,
/// [`Group::for_each_field`] visits those fields in that order, and [`Group::for_each_reach`]
/// gives a reach for each pointer among them, as [`Checked`] asks of a family.
pub unsafe trait Group: Copy {
    /// The fields' types, in order.
    type Fields: Padded;
    /// The group from its fields, as an entry received them.
    fn from_fields(fields: <Self::Fields as Padded>::Slots) -> Self;
    /// Calls `visit` with the address of each field, in order.
    #[cfg(not(target_arch = "nvptx64"))]
    fn for_each_field(&self, visit: &mut dyn FnMut(*const ()));
    /// Calls `visit` with each pointer field's reach (`#[len]` in the declaration).
    #[cfg(not(target_arch = "nvptx64"))]
    fn for_each_reach(&self, visit: &mut dyn FnMut(Reach));
}

/// A tuple of one to six types as the six slots of a [`Group`]'s PTX parameters, padded with
/// `()`.
#[doc(hidden)]
pub trait Padded {
    /// The six slots as a tuple.
    type Slots;
    type P0;
    type P1;
    type P2;
    type P3;
    type P4;
    type P5;
}

macro_rules! padded {
    ($(($($t:ident),+) => [$($pad:ty),*];)+) => {
        $(impl<$($t),+> Padded for ($($t,)+) {
            padded!(@slots [$($t,)+ $($pad,)*] P0 P1 P2 P3 P4 P5);
        })+
    };
    (@slots [$($t:ty,)+] $($slot:ident)+) => {
        type Slots = ($($t,)+);
        $(type $slot = $t;)+
    };
}

padded! {
    (A) => [(), (), (), (), ()];
    (A, B) => [(), (), (), ()];
    (A, B, C) => [(), (), ()];
    (A, B, C, D) => [(), ()];
    (A, B, C, D, E) => [()];
    (A, B, C, D, E, F) => [];
}

/// Declares a [`Group`] of kernel parameters: a struct whose fields may carry doc comments and,
/// on pointers, `#[len(..)]` over the group's own fields (every pointer needs one). Up to six
/// fields, named apart from the fields of the structs that take the group (a reach is known by
/// its field's name). See the [module docs](mod@crate::kernel).
#[macro_export]
macro_rules! kernel_group {
    (
        $(#[$sattr:meta])*
        pub struct $group:ident $(<$($g:ident $(: $bound:path)?),+ $(,)?>)? {
            $(
                $(#[doc = $fdoc:expr])*
                $(#[len($len:expr)])?
                pub $field:ident: $fty:ty
            ),+ $(,)?
        }
    ) => {
        $(#[$sattr])*
        #[repr(C)]
        pub struct $group $(<$($g $(: $bound)?),+>)? {
            $($(#[doc = $fdoc])* pub $field: $fty),+
        }

        impl $(<$($g $(: $bound)?),+>)? Clone for $group $(<$($g),+>)? {
            #[inline(always)]
            fn clone(&self) -> Self {
                *self
            }
        }

        impl $(<$($g $(: $bound)?),+>)? Copy for $group $(<$($g),+>)? {}

        // SAFETY: `Fields` are the fields' types in order; the host visits the fields in that
        // order, and every pointer field has a `#[len]` (the others are `Plain`).
        unsafe impl $(<$($g $(: $bound)?),+>)? $crate::kernel::Group for $group $(<$($g),+>)? {
            type Fields = ($($fty,)+);
            #[inline(always)]
            fn from_fields(fields: <Self::Fields as $crate::kernel::Padded>::Slots) -> Self {
                let ($($field,)+ ..) = fields;
                Self { $($field),+ }
            }
            #[cfg(not(target_arch = "nvptx64"))]
            fn for_each_field(&self, visit: &mut dyn FnMut(*const ())) {
                let Self { $($field),+ } = self;
                $(visit(($field as *const $fty).cast());)+
            }
            #[cfg(not(target_arch = "nvptx64"))]
            #[allow(unused_variables)]
            fn for_each_reach(&self, visit: &mut dyn FnMut($crate::kernel::Reach)) {
                let Self { $($field),+ } = *self;
                $($crate::kernel!(@reach visit $field $fty [$($len)?] [] []);)+
            }
        }
    };
}

/// Launch bounds for the entry named `symbol` (a string literal, or `concat!` of them) of the
/// crate that calls it: a [`LaunchBounds`](crate::launch_bounds::LaunchBounds) expression, the
/// most threads a block it is launched with and the fewest blocks an SM must hold, which caps
/// its registers at `65536 / (threads × blocks)` (CUDA's `__launch_bounds__`). Rust has no
/// attribute for PTX's `.maxntid` and `.minnctapersm`, so this declares a global the
/// `warpkit-builder` finds in the PTX and turns into those directives in the entry, before
/// `ptxas`. A launch of more threads than the bound fails (`Error::Driver`).
///
/// ```ignore
/// warpkit_kernels::launch_bounds!("my_histogram", LaunchBounds { max_threads: 256, min_blocks_per_sm: 4 });
/// ```
#[macro_export]
macro_rules! launch_bounds {
    ($symbol:expr, $bounds:expr $(,)?) => {
        const _: () = {
            let b: $crate::launch_bounds::LaunchBounds = $bounds;
            assert!(
                b.max_threads > 0 && b.min_blocks_per_sm > 0,
                "launch bounds of zero"
            );
        };
        #[cfg(target_arch = "nvptx64")]
        const _: () = {
            #[used]
            #[unsafe(export_name = concat!($symbol, "__launch_bounds"))]
            static BOUNDS: [u32; 2] = {
                let b: $crate::launch_bounds::LaunchBounds = $bounds;
                [b.max_threads, b.min_blocks_per_sm]
            };
        };
    };
}

/// Declares a kernel family: its parameter struct and the instances of its body; see the
/// [module docs](mod@crate::kernel). After the struct, each line names a body (a path to an
/// `unsafe fn(Struct) `, with turbofish for generics the struct does not fix) and its
/// instances, each with the struct's type arguments. The body's `# Safety` section is the
/// launch contract of every instance. A family whose contract is all in `#[len(..)]` on every
/// pointer field and a `check |params, shape| ..;` line after the struct implements
/// [`Checked`]; fields may carry doc comments and, before `pub`, one `#[len]` and one
/// `#[zeroed]`, or `#[group]` on a field whose type is a [`Group`]. A
/// `check |params, shape| ..;` line after a body's line adds that body's own conditions
/// ([`Kernel::holds`]) to the family's. An optional first line `#![entries_if(cfg)]` keeps
/// the PTX entries out of a build where `cfg` does not hold (this crate's own families use it:
/// the `library-only` feature leaves their entries out, so that a crate of one's own kernels
/// that depends on this one compiles its own entries alone); `#![cooperative]` after it marks a
/// family whose blocks wait for each other ([`grid::barrier::sync`](crate::grid::barrier::sync),
/// say).
#[macro_export]
macro_rules! kernel {
    (
        $(#![entries_if($gate:meta)])?
        $(#![open($opener:ident)])?
        $(#![cooperative $($coop:tt)*])?
        $(#[$sattr:meta])*
        pub struct $params:ident $(<$($g:ident $(: $bound:path)?),+ $(,)?>)? {
            $(
                $(#[doc = $fdoc:expr])*
                $(#[len($len:expr)])?
                $(#[zeroed($zeroed:expr)])?
                $(#[group $($gmark:tt)*])?
                pub $field:ident: $fty:ty
            ),+ $(,)?
        }
        $(check |$cp:ident, $cshape:ident| $check:expr ;)?
        $(
            $(#[$kattr:meta])*
            fn $body:expr => $($entry:ident $(<$($t:ty),+>)?),+ ;
            $(check |$ep:ident, $eshape:ident| $echeck:expr ;)?
        )*
    ) => {
        $(#[$sattr])*
        #[repr(C)]
        pub struct $params $(<$($g $(: $bound)?),+>)? {
            $($(#[doc = $fdoc])* pub $field: $fty),+
        }

        $crate::kernel!(
            @checked $params [$($($g $(: $bound)?),+)?] [$($($g),+)?]
            [$([$field $fty [$($len)?] [$($zeroed)?] [$($($gmark)* group)?]])+]
            $([$cp $cshape] $check)?
        );

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
            const COOPERATIVE: bool = $crate::kernel!(@cooperative [$($($coop)* true)?]);
            fn for_each_field(&self, visit: &mut dyn FnMut(*const ())) {
                let Self { $($field),+ } = self;
                $($crate::kernel!(@field visit $field $fty [$($($gmark)* group)?]);)+
            }
        }

        $crate::kernel!(
            @entries $params [$($($g),+)?]
            [$([$field $fty [$($($gmark)* group)?]])+] [$($gate)?]
            $(
                [$(#[$kattr])*] $body => $($entry [$($($t),+)?]),+ ;
                [$([$ep $eshape] $echeck)?]
            )*
        );

        $crate::kernel!(
            @open ($) [$($opener)?] $params [$($($g),+)?] [$([$field $fty [$($($gmark)* group)?]])+]
        );
    };
    (@cooperative []) => {
        false
    };
    (@cooperative [true]) => {
        true
    };
    // `#![open(name)]`: an exported macro `name!` that declares one more entry of the family
    // in the crate that calls it, under a symbol of that crate's choosing (see
    // `multisplit_kernels!`). The family's struct must be in scope there by its name.
    (@open ($d:tt) [] $($rest:tt)*) => {};
    (@open ($d:tt) [$opener:ident] $params:ident [$($g:ident),*] $fields:tt) => {
        #[doc(hidden)]
        #[macro_export]
        macro_rules! $opener {
            (
                $d entry:ident = $d symbol:expr; [$d($d t:ty),*] $d body:expr;
                check |$d ep:ident, $d es:ident| $d echeck:expr
            ) => {
                $crate::kernel!(
                    @entry $params [$($g),*] [$d($d t),*] $fields [] [] $d entry
                    [[$d ep $d es] $d echeck] [$d symbol] $d body
                );
            };
            ($d entry:ident = $d symbol:expr; [$d($d t:ty),*] $d body:expr) => {
                $crate::kernel!(
                    @entry $params [$($g),*] [$d($d t),*] $fields [] [] $d entry [] [$d symbol]
                    $d body
                );
            };
        }
    };
    (@checked $params:ident $decl:tt $generics:tt $fields:tt) => {};
    (
        @checked $params:ident [$($g:ident $(: $bound:path)?),*] [$($gn:ident),*]
        [$([$field:ident $fty:ty [$($len:expr)?] [$($zeroed:expr)?] $group:tt])+]
        [$p:ident $shape:ident] $check:expr
    ) => {
        #[cfg(not(target_arch = "nvptx64"))]
        // SAFETY: every pointer field has a `#[len]` (the other fields are `Plain`), which with
        // the check clause is the family's whole contract: the body's `# Safety` section.
        unsafe impl<$($g $(: $bound)?),*> $crate::kernel::Checked for $params<$($gn),*> {
            #[allow(unused_variables)]
            fn for_each_reach(
                &self,
                shape: &$crate::launch::LaunchShape,
                visit: &mut dyn FnMut($crate::kernel::Reach),
            ) {
                let ($p, $shape) = (self, shape);
                let Self { $($field),+ } = *self;
                $($crate::kernel!(@reach visit $field $fty [$($len)?] [$($zeroed)?] $group);)+
            }
            #[allow(unused_variables)]
            fn check(&self, shape: &$crate::launch::LaunchShape) -> bool {
                let ($p, $shape) = (self, shape);
                let Self { $($field),+ } = *self;
                $check
            }
        }
    };
    (@reach $visit:ident $field:ident $fty:ty [] [] []) => {
        $crate::kernel::assert_plain::<$fty>()
    };
    (@reach $visit:ident $field:ident $fty:ty [] [] [group]) => {
        <$fty as $crate::kernel::Group>::for_each_reach(&$field, $visit)
    };
    (@reach $visit:ident $field:ident $fty:ty [$len:expr] [$($zeroed:expr)?] []) => {
        $visit($crate::kernel::Reach {
            field: stringify!($field),
            addr: <$fty as $crate::kernel::Pointer>::address($field),
            bytes: u128::from($len)
                .saturating_mul(<$fty as $crate::kernel::Pointer>::ELEMENT_BYTES as u128),
            align: <$fty as $crate::kernel::Pointer>::ALIGN,
            writes: <$fty as $crate::kernel::Pointer>::WRITES,
            zeroed: 0 $(+ u128::from($zeroed))?,
        })
    };
    // The PTX entry, its parameters gathered a field at a time: a group's six slots are written
    // by an expansion of their own, so that the names `g0` ... `g5` of two groups differ.
    (
        @ptx $entry:ident $symbol:tt $params:ident [$($g:ident),*] $body:expr;
        [$($param:tt)*] [$($init:tt)*] []
    ) => {
        #[unsafe(export_name = $crate::kernel!(@symbol $symbol $entry))]
        #[allow(improper_ctypes_definitions)] // a group's empty slots (`()`) are no parameter
        pub unsafe extern "ptx-kernel" fn $entry($($param)*) {
            let params: $params<$($g),*> = $params { $($init)* };
            let body = $body;
            // SAFETY: the launch contract is the body's.
            unsafe { body(params) }
        }
    };
    (
        @ptx $entry:ident $symbol:tt $params:ident $gs:tt $body:expr; [$($param:tt)*] [$($init:tt)*]
        [[$field:ident $fty:ty []] $($rest:tt)*]
    ) => {
        $crate::kernel!(
            @ptx $entry $symbol $params $gs $body; [$($param)* $field: $fty,] [$($init)* $field,] [$($rest)*]
        );
    };
    (
        @ptx $entry:ident $symbol:tt $params:ident $gs:tt $body:expr; [$($param:tt)*] [$($init:tt)*]
        [[$field:ident $fty:ty [group]] $($rest:tt)*]
    ) => {
        $crate::kernel!(
            @ptx $entry $symbol $params $gs $body;
            [
                $($param)*
                g0: <<$fty as $crate::kernel::Group>::Fields as $crate::kernel::Padded>::P0,
                g1: <<$fty as $crate::kernel::Group>::Fields as $crate::kernel::Padded>::P1,
                g2: <<$fty as $crate::kernel::Group>::Fields as $crate::kernel::Padded>::P2,
                g3: <<$fty as $crate::kernel::Group>::Fields as $crate::kernel::Padded>::P3,
                g4: <<$fty as $crate::kernel::Group>::Fields as $crate::kernel::Padded>::P4,
                g5: <<$fty as $crate::kernel::Group>::Fields as $crate::kernel::Padded>::P5,
            ]
            [
                $($init)*
                $field: <$fty as $crate::kernel::Group>::from_fields((g0, g1, g2, g3, g4, g5)),
            ]
            [$($rest)*]
        );
    };
    // An entry's symbol: its name, or the one an opened family's caller gave.
    (@symbol [] $entry:ident) => {
        stringify!($entry)
    };
    (@symbol [$symbol:expr] $entry:ident) => {
        $symbol
    };
    // The area module of an entry: this crate's families (the ones with a gate) by their
    // names' prefixes; a family of one's own is in none, whatever its name, and launches on a
    // GPU from a loaded `warpkit::Module`.
    (@area [] $entry:ident) => {
        None
    };
    (@area [$gate:meta] $entry:ident) => {
        $crate::area::Area::of(stringify!($entry))
    };
    (@field $visit:ident $field:ident $fty:ty []) => {
        $visit(($field as *const $fty).cast())
    };
    (@field $visit:ident $field:ident $fty:ty [group]) => {
        $crate::kernel::Group::for_each_field($field, $visit)
    };
    (
        @entries $params:ident $generics:tt $fields:tt $gate:tt
        $($attrs:tt $body:expr => $($entry:ident $types:tt),+ ; $echeck:tt)*
    ) => {
        $($(
            $crate::kernel!(@entry $params $generics $types $fields $gate $attrs $entry $echeck [] $body);
        )+)*
    };
    (
        @entry $params:ident $generics:tt $types:tt $fields:tt $gate:tt $attrs:tt $entry:ident []
        $symbol:tt $body:expr
    ) => {
        $crate::kernel!(
            @entry $params $generics $types $fields $gate $attrs $entry [[p shape] true] $symbol $body
        );
    };
    (
        @entry $params:ident [$($g:ident),*] [$($t:ty),*] [$([$field:ident $fty:ty [$($group:ident)?]])+]
        [$($gate:meta)?] [$(#[$kattr:meta])*] $entry:ident [[$ep:ident $eshape:ident] $echeck:expr]
        [$($symbol:expr)?] $body:expr
    ) => {
        // The entry lives in a module of its own name, where the struct's type parameters are
        // aliases of this instance's types, so that the fields' types name concrete types. A
        // gate (`#![entries_if(..)]`) leaves the entry out of the PTX where it does not hold.
        #[cfg(all(target_arch = "nvptx64" $(, $gate)?))]
        #[allow(non_snake_case, non_camel_case_types, unused_imports)]
        mod $entry {
            use super::*;
            $(type $g = $t;)*
            $crate::kernel!(
                @ptx $entry [$($symbol)?] $params [$($g),*] $body; [] []
                [$([$field $fty [$($group)?]])+]
            );
        }

        #[cfg(not(target_arch = "nvptx64"))]
        #[allow(non_camel_case_types)]
        $(#[$kattr])*
        #[doc = ""]
        #[doc = concat!("Launch handle of the entry `", stringify!($entry), "`.")]
        pub struct $entry {}

        #[cfg(not(target_arch = "nvptx64"))]
        // SAFETY: the entry above is named `NAME`, takes `Params`' fields and runs `$body`, as
        // `run` does; `holds` is the check clause after the entry's `fn` line (or none).
        unsafe impl $crate::kernel::Kernel for $entry {
            const NAME: &'static str = $crate::kernel!(@symbol [$($symbol)?] $entry);
            const AREA: Option<$crate::area::Area> = $crate::kernel!(@area [$($gate)?] $entry);
            type Params = $params<$($t),*>;
            unsafe fn run(params: Self::Params) {
                let body = $body;
                // SAFETY: forwarded to the caller's contract.
                unsafe { body(params) }
            }
            #[allow(unused_variables)]
            fn holds(params: &Self::Params, shape: &$crate::launch::LaunchShape) -> bool {
                let ($ep, $eshape) = (params, shape);
                let &$params { $($field),+ } = params;
                $echeck
            }
        }
    };
}

/// Declares a kernel table; see the [module docs](mod@crate::kernel). The trait lists each
/// kernel by its name in the table and its parameter type (in terms of `Self`, the element
/// type); then each element type names its instance of each kernel. A table may take one type
/// parameter (`pub trait SplitKernels<K: Key>: ..`), which each row then gives
/// (`BuiltIn<u32> where K = u32 { .. }`); a row of one's own is `kernel_table!(@impl ..)`.
#[macro_export]
macro_rules! kernel_table {
    (
        $(#[$attr:meta])*
        pub trait $table:ident $(<$tg:ident: $tb:path>)?: $bound:path {
            $($(#[$kattr:meta])* $kernel:ident: $params:ty;)+
        }
        $($elem:ty $(where $tg2:ident = $targ:ty)? { $($name:ident = $entry:path),+ $(,)? })*
    ) => {
        #[cfg(not(target_arch = "nvptx64"))]
        $(#[$attr])*
        pub trait $table $(<$tg: $tb>)?: $bound {
            $($(#[$kattr])* type $kernel: $crate::kernel::Kernel<Params = $params>;)+
        }

        $($crate::kernel_table!(@impl $table [$($targ)?] $elem { $($name = $entry),+ });)*
    };
    (@impl $table:ident [$($targ:ty)?] $elem:ty { $($name:ident = $entry:path),+ $(,)? }) => {
        #[cfg(not(target_arch = "nvptx64"))]
        impl $table $(<$targ>)? for $elem {
            $(type $name = $entry;)+
        }
    };
}

#[cfg(test)]
mod tests {
    //! A group's fields reach the host's launch as they would written out in its place.

    use super::{Checked, Kernel, Params, Reach};
    use crate::launch::LaunchShape;

    crate::kernel_group! {
        /// Two values and a pointer with its reach, as a group.
        pub struct Span<T> {
            pub start: u32,
            #[len(len)]
            pub data: *const T,
            pub len: u64,
        }
    }

    crate::kernel! {
        /// A family with a group between two plain fields.
        pub struct Grouped {
            pub first: u16,
            #[group]
            pub span: Span<f64>,
            #[len(span.len + 1)]
            pub out: *mut u8,
        }
        check |p, shape| span.start < 4;
        /// Nothing to run: the tests read the declaration.
        fn nothing => grouped_test_entry, scan_of_ones_own;
    }

    /// The body of [`grouped_test_entry`].
    ///
    /// # Safety
    /// None: it touches nothing.
    unsafe fn nothing(_: Grouped) {}

    fn grouped() -> Grouped {
        Grouped {
            first: 7,
            span: Span {
                start: 1,
                data: core::ptr::without_provenance(0x1000),
                len: 5,
            },
            out: core::ptr::without_provenance_mut(0x2000),
        }
    }

    #[test]
    fn a_group_passes_its_fields_in_place_one_by_one() {
        let p = grouped();
        let mut seen = Vec::new();
        p.for_each_field(&mut |addr| seen.push(addr.addr()));
        let expected = [
            (&raw const p.first).addr(),
            (&raw const p.span.start).addr(),
            (&raw const p.span.data).addr(),
            (&raw const p.span.len).addr(),
            (&raw const p.out).addr(),
        ];
        assert_eq!(seen, expected);
    }

    #[test]
    fn a_groups_pointers_have_their_reaches_and_its_fields_their_checks() {
        let mut p = grouped();
        let mut reaches = Vec::new();
        p.for_each_reach(&LaunchShape::linear(1, 32, 0), &mut |r: Reach| reaches.push(r));
        let names: Vec<_> = reaches
            .iter()
            .map(|r| (r.field, r.addr, r.bytes, r.writes))
            .collect();
        assert_eq!(names, [("data", 0x1000, 40, false), ("out", 0x2000, 6, true)]);
        assert!(p.check(&LaunchShape::linear(1, 32, 0)));
        p.span.start = 4;
        assert!(!p.check(&LaunchShape::linear(1, 32, 0)));
        // An entry declared outside this crate's own families lives in no area's module, even
        // with an area's prefix.
        assert_eq!(<grouped_test_entry as Kernel>::AREA, None);
        assert_eq!(<scan_of_ones_own as Kernel>::AREA, None);
    }
}
