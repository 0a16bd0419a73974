//! The checks area's tables: test kernels apply one primitive (a warp or block
//! reduce or scan, a SIMT collective, a math function) to every element of an array, a thread
//! each, so that the host's tests compare each level with a CPU reference on every device. The
//! kernels live beside the primitives they check; host code generic over the element type picks
//! them through the tables here.

use crate::block::reduce::BlockReduce;
use crate::block::scan::BlockScan;
use crate::grid::math_check::{self, MathCheck};
use crate::num::Element;
use crate::simt::math::FastMath;
use crate::warp::reduce::WarpReduce;
use crate::warp::scan::WarpScan;
use crate::{block, warp};

crate::kernel_table! {
    /// The warp- and block-level test kernels of one element type (u32 or f64).
    pub trait LevelKernels: Element {
        WarpReduce: WarpReduce<Self>;
        WarpScanInclusive: WarpScan<Self>;
        WarpScanExclusive: WarpScan<Self>;
        BlockReduce: BlockReduce<Self>;
        BlockScanExclusive: BlockScan<Self>;
    }
    u32 {
        WarpReduce = warp::reduce::warp_reduce_u32,
        WarpScanInclusive = warp::scan::warp_scan_inclusive_u32,
        WarpScanExclusive = warp::scan::warp_scan_exclusive_u32,
        BlockReduce = block::reduce::block_reduce_u32,
        BlockScanExclusive = block::scan::block_scan_exclusive_u32,
    }
    f64 {
        WarpReduce = warp::reduce::warp_reduce_f64,
        WarpScanInclusive = warp::scan::warp_scan_inclusive_f64,
        WarpScanExclusive = warp::scan::warp_scan_exclusive_f64,
        BlockReduce = block::reduce::block_reduce_f64,
        BlockScanExclusive = block::scan::block_scan_exclusive_f64,
    }
}

crate::kernel_table! {
    /// The math test kernel of one element type (f32 or f64).
    pub trait MathKernels: FastMath {
        Math: MathCheck<Self>;
    }
    f32 {
        Math = math_check::math_check_f32,
    }
    f64 {
        Math = math_check::math_check_f64,
    }
}
