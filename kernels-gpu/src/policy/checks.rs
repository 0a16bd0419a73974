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
pub const SCAN_TUNING_U32: [(&str, ScanPolicy); 8] = [
    (
        "scan_tuning_u32_b256_v8_ticket",
        ScanPolicy::of(256, 8, true).paced(0, 0),
    ),
    (
        "scan_tuning_u32_b256_v8_w1000_p500",
        ScanPolicy::of(256, 8, true).paced(1000, 500),
    ),
    (
        "scan_tuning_u32_b256_v8_w2000_p250",
        ScanPolicy::of(256, 8, true).paced(2000, 250),
    ),
    (
        "scan_tuning_u32_b256_v8_w2000_p1000",
        ScanPolicy::of(256, 8, true).paced(2000, 1000),
    ),
    (
        "scan_tuning_u32_b256_v8_w3000_p500",
        ScanPolicy::of(256, 8, true).paced(3000, 500),
    ),
    (
        "scan_tuning_u32_b256_v8_w4000_p500",
        ScanPolicy::of(256, 8, true).paced(4000, 500),
    ),
    (
        "scan_tuning_u32_b256_v8_ordered_w2000_p500",
        ScanPolicy::of(256, 8, false).paced(2000, 500),
    ),
    (
        "scan_tuning_u32_b256_v8_w2000_p500",
        ScanPolicy::of(256, 8, true).paced(2000, 500),
    ),
];
