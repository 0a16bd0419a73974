//! Weights by a transform of one's own: a [`WeightFn`] maps each raw value (a logit, an
//! amplitude, a count) to the weight an alias table is built from, and
//! [`alias_kernels!`](crate::alias_kernels!) declares its kernel in the crate that calls it.
//!
//! The transform runs once an item, fused into the construction's first pass: the kernel
//! writes the weights, sums them in the order the built-in check does (so the table has the
//! same bits as one built from the transformed weights themselves) and reports the first
//! weight the transform made negative, NaN or infinite. The rest of the construction reads the
//! weights it wrote; a transform evaluated again in every pass (four of them) would cost an
//! expensive one (`exp`, `powf`) more than the one extra write.
//!
//! ```ignore
//! use warpkit_kernels::alias::transform::WeightFn;
//! use warpkit_kernels::simt::math::FastMath;
//!
//! warpkit_kernels::kernel_group! {
//!     /// Logits to softmax weights at a temperature: `exp((logit - max) / temperature)`.
//!     pub struct Softmax {
//!         pub max: f64,
//!         pub inv_temperature: f64,
//!     }
//! }
//!
//! impl WeightFn<f64> for Softmax {
//!     fn weight(&self, _index: u64, logit: f64) -> f64 {
//!         ((logit - self.max) * self.inv_temperature).fast_exp()
//!     }
//! }
//!
//! warpkit_kernels::alias_kernels! {
//!     /// Alias tables of softmax weights.
//!     pub softmax_f64: Softmax for f64;
//! }
//! ```

use super::Weight;
use super::partition::checked_partials;
use crate::grid::reduce::Reduce;
use crate::policy::REDUCE_BLOCK_THREADS;

/// A map from raw values to alias weights, by index and value. It runs in every lane of the
/// construction's first pass (device code: no allocation, no panics) and, on the CPU backend,
/// on the host; its fields are the kernel's parameters (declare it with
/// [`kernel_group!`](crate::kernel_group!)). A weight it makes negative, NaN or infinite is
/// reported by index, as a bad weight given directly is.
pub trait WeightFn<F: Weight>: crate::kernel::Group + Send + Sync {
    /// The weight of item `index`, whose raw value is `raw`.
    fn weight(&self, index: u64, raw: F) -> F;
}

own_kernel! {
    #![open(alias_transform_entry)]
    /// Parameters of [`transform`]: the raw values, their transform, and where the weights,
    /// the sum's partials and the first bad weight go.
    pub struct Transform<F: Weight, T: WeightFn<F>> {
        /// The `n` raw values.
        #[len(n)]
        pub raw: *const F,
        pub n: u64,
        #[group]
        pub transform: T,
        /// The `n` weights, written.
        #[len(n)]
        pub weights: *mut F,
        /// One partial sum per block.
        #[len(shape.grid[0])]
        pub partials: *mut F,
        /// The least index of a bad weight; the caller starts it at `u64::MAX`.
        #[len(1u64)]
        pub first_bad: *mut u64,
    }
    check |p, shape| shape.is_linear(REDUCE_BLOCK_THREADS, Reduce::<F>::SHARED_BYTES);
}

/// Writes `weights[i] = transform.weight(i, raw[i])` and the first pass of their checked sum
/// (as [`check_sum`](super::partition::check_sum) over the weights, the same bits), with
/// `V`-element vectors loaded one at a time: a transform is the costly part, and batched loads
/// would hold several of them in registers at once.
///
/// # Safety
/// As for `check_sum`, with `raw` and `weights` holding `n` elements each.
#[inline(always)]
pub unsafe fn transform<F: Weight, T: WeightFn<F>, const V: usize>(p: Transform<F, T>) {
    let Transform {
        raw,
        n,
        transform,
        weights,
        partials,
        first_bad,
    } = p;
    // SAFETY: the contract above; each index below `n` is written once.
    unsafe {
        checked_partials::<F, V, true>(raw, n, partials, first_bad, |i, x| {
            let w = transform.weight(i, x);
            *weights.add(i as usize) = w;
            w
        })
    }
}

/// Declares the kernels of weight transforms of one's own; see the
/// [module docs](mod@crate::alias::transform). Each line, `vis name: Transform for F;` (a
/// type's name in scope, and `f32` or `f64`), makes a module `name` holding the transform's
/// kernel, its PTX entry named `name_transform`, and implements `TransformKernels<F>` for the
/// transform. The name must be unique among the crate's kernels.
#[macro_export]
macro_rules! alias_kernels {
    ($($(#[$attr:meta])* $vis:vis $name:ident: $f:ident for $w:ident;)+) => {
        $(
            $(#[$attr])*
            #[allow(non_camel_case_types)]
            $vis mod $name {
                #[allow(unused_imports)]
                use super::*;
                // The family, by the name its declaration uses.
                #[cfg(not(target_arch = "nvptx64"))]
                use $crate::alias::kernels::TransformKernels;
                use $crate::alias::transform::Transform;

                $crate::alias_transform_entry!(
                    transform = concat!(stringify!($name), "_transform"); [$w, $f]
                    $crate::alias::transform::transform::<_, _, { 16 / size_of::<$w>() }>
                );

                $crate::kernel_table!(@impl TransformKernels [$w] $f {
                    Transform = transform,
                });
            }
        )+
    };
}
