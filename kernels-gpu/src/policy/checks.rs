//! Tuning of the checks area: the block size (and so the launch) of the test kernels, and the
//! policies of the scan's tuning candidates.

use super::grid::ScanPolicy;
use crate::launch::LaunchShape;

/// Threads per block of the warp- and block-level test kernels.
pub const LEVEL_TEST_BLOCK_THREADS: u32 = 256;

/// The launch of a test kernel: a thread per element of `n`, blocks of
/// [`LEVEL_TEST_BLOCK_THREADS`], with `shared_bytes` of dynamic shared memory.
pub const fn per_element(n: u64, shared_bytes: u32) -> LaunchShape {
    LaunchShape::linear(
        n.div_ceil(LEVEL_TEST_BLOCK_THREADS as u64),
        LEVEL_TEST_BLOCK_THREADS,
        shared_bytes,
    )
}

/// Shared memory of `bytes` for each warp of a block of [`LEVEL_TEST_BLOCK_THREADS`].
pub const fn per_warp(bytes: usize) -> u32 {
    LEVEL_TEST_BLOCK_THREADS / 32 * bytes as u32
}

/// The u32 scan kernels of other policies (and launch bounds) than the default, by entry name,
/// which the tuning bench measures against it. Each kernel is built for its policy here
/// (`crate::grid::scan`).
pub const SCAN_TUNING_U32: [(&str, ScanPolicy); 7] = [
    ("scan_tuning_u32_b256_v8_ticket", ScanPolicy::of(256, 8, true)),
    ("scan_tuning_u32_b256_v8_min5", ScanPolicy::of(256, 8, true)),
    ("scan_tuning_u32_b256_v4_ticket", ScanPolicy::of(256, 4, true)),
    ("scan_tuning_u32_b128_v8_ticket", ScanPolicy::of(128, 8, true)),
    ("scan_tuning_u32_b256_v8_ordered", ScanPolicy::of(256, 8, false)),
    ("scan_tuning_u32_b128_v8_ordered", ScanPolicy::of(128, 8, false)),
    ("scan_tuning_u32_b128_v16_ordered", ScanPolicy::of(128, 16, false)),
];
