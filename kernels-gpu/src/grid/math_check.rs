//! Test kernels for the SIMT math: `out[5i .. 5i + 5]` = (ln, exp, sin, cos, sqrt) of `x[i]`.

use crate::launch::LaunchShape;
use crate::policy::checks::per_element;
use crate::simt::global_x;
use crate::simt::math::FastMath;

own_kernel! {
    /// Parameters of the math test kernels: `n` elements of `x`, one a thread, five results
    /// each to `out`.
    pub struct MathCheck<T: FastMath> {
        #[len(n)]
        pub x: *const T,
        pub n: u64,
        #[len(5 * n)]
        pub out: *mut T,
    }
    check |p, shape| *shape == p.plan();
    /// Evaluates the five [`FastMath`] functions at each input.
    fn math_each => math_check_f32<f32>, math_check_f64<f64>;
}

impl<T: FastMath> MathCheck<T> {
    pub const fn plan(&self) -> LaunchShape {
        per_element(self.n, 0)
    }
}

/// Test kernel body: the five [`FastMath`] functions at `x[i]`, to `out[5i ..]`.
///
/// # Safety
/// `x` holds `n` elements and `out` 5 × `n`; any grid.
#[inline(always)]
pub unsafe fn math_each<T: FastMath>(p: MathCheck<T>) {
    let MathCheck { x, n, out } = p;
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
