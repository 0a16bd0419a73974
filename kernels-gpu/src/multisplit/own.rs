//! Multisplit by a bucket function of one's own: [`multisplit_kernels!`](crate::multisplit_kernels!)
//! declares the histogram, scatter and bounds kernels of one function and key type in the
//! crate that calls it, and their table ([`SplitKernels`](super::kernels::SplitKernels)), which
//! `warpkit::multisplit::Multisplit::by` launches on a GPU (from the crate's own module, built by
//! `warpkit-builder`) and in the emulator.
//!
//! The function is a [`BucketFn`](super::bucket::BucketFn) whose fields are kernel parameters:
//! a struct declared with [`kernel_group!`](crate::kernel_group!) (one to six fields), so that
//! the kernels take it by value, a PTX parameter a field, and compile its `bucket` into their
//! bodies: the same code as the built-in functions, no call through a pointer.
//!
//! ```ignore
//! use warpkit_kernels::multisplit::bucket::BucketFn;
//!
//! warpkit_kernels::kernel_group! {
//!     /// Points on a 2^10 × 2^10 grid (x in the low 16 bits of the key, y in the high 16) by
//!     /// the Morton order of their cell in a 2^(bits/2) × 2^(bits/2) grid.
//!     pub struct Morton {
//!         pub bits: u32,
//!     }
//! }
//!
//! impl BucketFn<u32> for Morton {
//!     fn bucket(&self, key: u32) -> u32 { /* .. */ }
//! }
//!
//! warpkit_kernels::multisplit_kernels! {
//!     /// Points split by Morton cell.
//!     pub morton_u32: Morton for u32;
//! }
//! ```

/// Declares the multisplit kernels of bucket functions of one's own; see the
/// [module docs](mod@crate::multisplit::own). Each line, `vis name: Function for Key;` (a
/// type's name in scope, and `u32` or `u64`), makes a module `name` holding the 14 kernels (a histogram, the bounds, and
/// a scatter per write method for keys alone and for 32- and 64-bit values), their PTX entries
/// named `name_histogram`, `name_scatter_block_v32`, ..., and implements `BucketParams<Key>`
/// and `SplitKernels<Key>` for `Function`. The name must be unique among the crate's kernels.
#[macro_export]
macro_rules! multisplit_kernels {
    ($($(#[$attr:meta])* $vis:vis $name:ident: $f:ident for $key:ident;)+) => {
        $($crate::multisplit_kernels!(@one [$(#[$attr])*] $vis $name [$f] [$key]);)+
    };
    (@one [$($attr:tt)*] $vis:vis $name:ident [$f:ty] [$key:ty]) => {
        $($attr)*
        #[allow(non_camel_case_types)]
        $vis mod $name {
            #[allow(unused_imports)]
            use super::*;
            // The families and the types of their fields, by the names their declarations use.
            use $crate::multisplit::bounds::Bounds;
            use $crate::multisplit::histogram::Histogram;
            #[cfg(not(target_arch = "nvptx64"))]
            use $crate::multisplit::kernels::SplitKernels;
            use $crate::multisplit::scatter::Scatter;
            #[allow(unused_imports)]
            use $crate::multisplit::table::PassTable;

            // SAFETY: `with` runs the body once with the function itself, whose `bucket` is
            // the caller's `BucketFn` (safe code reads only what the parameters reach).
            unsafe impl $crate::multisplit::pass::BucketParams<$key> for $f {
                #[inline(always)]
                unsafe fn with<W: $crate::multisplit::pass::WithBuckets<$key>>(self, body: W) -> W::Output {
                    // SAFETY: the caller's contract, forwarded.
                    unsafe { body.run(self) }
                }
            }

            $crate::multisplit_histogram_entry!(
                histogram = concat!(stringify!($name), "_histogram"); [$key, $f]
                $crate::multisplit::histogram::histogram::<_, _, { 16 / size_of::<$key>() }>
            );
            $crate::multisplit_bounds_entry!(
                bounds = concat!(stringify!($name), "_bounds"); [$key, $f]
                $crate::multisplit::bounds::bounds
            );
            $crate::multisplit_kernels!(
                @scatters $name [$f] [$key]
                direct_keys DIRECT false u32 "_scatter_direct_keys",
                warp_keys WARP_LEVEL false u32 "_scatter_warp_keys",
                block_keys BLOCK_LEVEL false u32 "_scatter_block_keys",
                counted_keys COUNTED false u32 "_scatter_counted_keys",
                direct_v32 DIRECT true u32 "_scatter_direct_v32",
                direct_v64 DIRECT true u64 "_scatter_direct_v64",
                warp_v32 WARP_LEVEL true u32 "_scatter_warp_v32",
                warp_v64 WARP_LEVEL true u64 "_scatter_warp_v64",
                block_v32 BLOCK_LEVEL true u32 "_scatter_block_v32",
                block_v64 BLOCK_LEVEL true u64 "_scatter_block_v64",
                counted_v32 COUNTED true u32 "_scatter_counted_v32",
                counted_v64 COUNTED true u64 "_scatter_counted_v64"
            );
            // The bounds warpkit's own block-level scatter of keys has (unbounded, with u32 keys,
            // it held 96 registers and split 5 % slower on the H200).
            $crate::launch_bounds!(
                concat!(stringify!($name), "_scatter_block_keys"),
                $crate::launch_bounds::multisplit_block_keys(size_of::<$key>())
            );

            $crate::kernel_table!(@impl SplitKernels [$key] $f {
                Histogram = histogram,
                Bounds = bounds,
                DirectKeys = direct_keys,
                WarpKeys = warp_keys,
                BlockKeys = block_keys,
                CountedKeys = counted_keys,
                Direct32 = direct_v32,
                Direct64 = direct_v64,
                Warp32 = warp_v32,
                Warp64 = warp_v64,
                Block32 = block_v32,
                Block64 = block_v64,
                Counted32 = counted_v32,
                Counted64 = counted_v64,
            });
        }
    };
    (
        @scatters $name:ident [$f:ty] [$key:ty]
        $($entry:ident $write:ident $values:tt $v:ident $suffix:literal),+
    ) => {
        $($crate::multisplit_scatter_entry!(
            $entry = concat!(stringify!($name), $suffix); [$key, $v, $f]
            $crate::multisplit::scatter::scatter::<_, _, _, { $crate::multisplit::scatter::$write }, $values>;
            check |p, shape| p.runs_as(shape, $crate::multisplit::scatter::$write, $values)
        );)+
    };
}
