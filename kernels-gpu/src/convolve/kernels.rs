//! The convolution kernels as the host launches them: the table that ties f32 and f64 to their
//! instantiations.

use super::Real;
use super::band::{self, InlineJobs, Job};
use super::seed::{self, SeedArgs};

crate::kernel_table! {
    /// The convolution kernels of one element type (f32 or f64).
    pub trait ConvolveKernels: Real {
        Band: (InlineJobs, *const Job, u32, u64, *mut Self);
        SumSlices: (InlineJobs, *const Job, u32, u64, u32, *const Self);
        /// The band kernels summing in f64 (for f64, the same as `Band` and `SumSlices`).
        BandWide: (InlineJobs, *const Job, u32, u64, *mut f64);
        SumSlicesWide: (InlineJobs, *const Job, u32, u64, u32, *const f64);
        V0: SeedArgs<Self>;
        V1: SeedArgs<Self>;
        V2: SeedArgs<Self>;
        V3: SeedArgs<Self>;
        V4: SeedArgs<Self>;
    }
    f32 {
        Band = band::convolve_band_f32,
        SumSlices = band::convolve_sum_slices_f32,
        BandWide = band::convolve_band_f32_wide,
        SumSlicesWide = band::convolve_sum_slices_f32_wide,
        V0 = seed::convolve_v0_f32,
        V1 = seed::convolve_v1_f32,
        V2 = seed::convolve_v2_f32,
        V3 = seed::convolve_v3_f32,
        V4 = seed::convolve_v4_f32,
    }
    f64 {
        Band = band::convolve_band_f64,
        SumSlices = band::convolve_sum_slices_f64,
        BandWide = band::convolve_band_f64,
        SumSlicesWide = band::convolve_sum_slices_f64,
        V0 = seed::convolve_v0_f64,
        V1 = seed::convolve_v1_f64,
        V2 = seed::convolve_v2_f64,
        V3 = seed::convolve_v3_f64,
        V4 = seed::convolve_v4_f64,
    }
}
