//! The convolution kernels as the host launches them: the table that ties f32 and f64 to their
//! instances.

use super::band::{self, Band, BandList};
use super::fft::{self, Pad, Spectra};
use super::seed::{self, Seed};
use super::{Real, Stored};

/// An element type the kernels sum in itself and in f64: f32 and f64.
pub trait Widens: Real + Stored<f64> {}

impl Widens for f32 {}

impl Widens for f64 {}

crate::kernel_table! {
    /// The convolution kernels of one element type (f32 or f64).
    pub trait ConvolveKernels: Widens {
        Band: Band<Self, Self>;
        SumSlices: Band<Self, Self>;
        /// The band kernels summing in f64 (for f64, the same as `Band` and `SumSlices`).
        BandWide: Band<Self, f64>;
        SumSlicesWide: Band<Self, f64>;
        /// The band kernels over listed jobs, in the same order.
        BandListed: BandList<Self, Self>;
        SumSlicesListed: BandList<Self, Self>;
        BandListedWide: BandList<Self, f64>;
        SumSlicesListedWide: BandList<Self, f64>;
        /// The lane kernel, summing in the type and in f64.
        LaneSums: Band<Self, Self>;
        LaneSumsWide: Band<Self, f64>;
        /// The warp kernel, summing in the type and in f64.
        WarpSums: Band<Self, Self>;
        WarpSumsWide: Band<Self, f64>;
        V0: Seed<Self>;
        V1: Seed<Self>;
        V2: Seed<Self>;
        V3: Seed<Self>;
        V4: Seed<Self>;
        /// The FFT method's padding and spectra product.
        FftPad: Pad<Self>;
        FftProduct: Spectra<Self>;
    }
    f32 {
        Band = band::convolve_band_f32,
        SumSlices = band::convolve_sum_slices_f32,
        BandWide = band::convolve_band_f32_wide,
        SumSlicesWide = band::convolve_sum_slices_f32_wide,
        BandListed = band::convolve_band_listed_f32,
        SumSlicesListed = band::convolve_sum_slices_listed_f32,
        BandListedWide = band::convolve_band_listed_f32_wide,
        SumSlicesListedWide = band::convolve_sum_slices_listed_f32_wide,
        LaneSums = band::convolve_lanes_f32,
        LaneSumsWide = band::convolve_lanes_f32_wide,
        WarpSums = band::convolve_warp_sums_f32,
        WarpSumsWide = band::convolve_warp_sums_f32_wide,
        V0 = seed::convolve_v0_f32,
        V1 = seed::convolve_v1_f32,
        V2 = seed::convolve_v2_f32,
        V3 = seed::convolve_v3_f32,
        V4 = seed::convolve_v4_f32,
        FftPad = fft::convolve_fft_pad_f32,
        FftProduct = fft::convolve_fft_product_f32,
    }
    f64 {
        Band = band::convolve_band_f64,
        SumSlices = band::convolve_sum_slices_f64,
        BandWide = band::convolve_band_f64,
        SumSlicesWide = band::convolve_sum_slices_f64,
        BandListed = band::convolve_band_listed_f64,
        SumSlicesListed = band::convolve_sum_slices_listed_f64,
        BandListedWide = band::convolve_band_listed_f64,
        SumSlicesListedWide = band::convolve_sum_slices_listed_f64,
        LaneSums = band::convolve_lanes_f64,
        LaneSumsWide = band::convolve_lanes_f64,
        WarpSums = band::convolve_warp_sums_f64,
        WarpSumsWide = band::convolve_warp_sums_f64,
        V0 = seed::convolve_v0_f64,
        V1 = seed::convolve_v1_f64,
        V2 = seed::convolve_v2_f64,
        V3 = seed::convolve_v3_f64,
        V4 = seed::convolve_v4_f64,
        FftPad = fft::convolve_fft_pad_f64,
        FftProduct = fft::convolve_fft_product_f64,
    }
}
