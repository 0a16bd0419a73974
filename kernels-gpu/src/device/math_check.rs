//! Test kernels for the SIMT math: `out[5i .. 5i + 5]` = (ln, exp, sin, cos, sqrt) of `x[i]`.

use crate::simt::global_x;
use crate::simt::math::FastMath;

macro_rules! math_kernels {
    ($($name:ident: $t:ty),*) => {$(
        $crate::kernel! {
        /// Evaluates the five [`FastMath`] functions at each input.
        ///
        /// # Safety
        /// `x` holds `n` elements and `out` 5 × `n`.
        pub unsafe fn $name(x: *const $t, n: u64, out: *mut $t) {
            let i = global_x();
            if i < n {
                // SAFETY: `i < n` bounds both accesses.
                unsafe {
                    let v = *x.add(i as usize);
                    let o = out.add(5 * i as usize);
                    *o = v.fast_ln();
                    *o.add(1) = v.fast_exp();
                    *o.add(2) = v.fast_sin();
                    *o.add(3) = v.fast_cos();
                    *o.add(4) = v.sqrt();
                }
            }
        }
        }
    )*};
}
math_kernels!(math_check_f32: f32, math_check_f64: f64);
