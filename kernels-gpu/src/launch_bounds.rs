//! Launch bounds: the block size a kernel is launched with at most and the blocks per SM ptxas
//! must leave room for, which caps its registers (65536 / (threads × blocks) a thread).
//!
//! Rust has no attribute for PTX's `.maxntid` and `.minnctapersm` directives, so the host's
//! build script includes this file and writes them into the PTX of every entry a prefix below
//! claims, before `ptxas` assembles it (a crate of one's own asks for them with
//! [`launch_bounds!`](crate::launch_bounds!), which `warpkit-builder` reads from its PTX). A
//! kernel launched with more threads than its bound fails to launch, so each kernel's module
//! checks its policy against its bound at compile time.

use crate::area::by_prefix;

/// Bounds of one kernel: block size at most, and blocks per SM ptxas must fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchBounds {
    pub max_threads: u32,
    pub min_blocks_per_sm: u32,
}

/// The device-wide scans' bound: two blocks of 512 per SM, 64 registers a thread at most (H200,
/// 2^28 u32, paced: 650.7 µs against 668.6 in four blocks of 256; before pacing, in blocks of
/// 256, 72 registers unbounded ran 3 blocks at 2.01 TB/s, four 2.21, five spilled at 1.80).
pub const SCAN: LaunchBounds = LaunchBounds {
    max_threads: 512,
    min_blocks_per_sm: 2,
};

/// The band kernel over listed jobs summing f32: nine blocks of 128 per SM, 56 registers a
/// thread (H200, 4096 products of 192-320: 72 registers unbounded, 73.3 µs against 65.3 for
/// the same loop over jobs in 56).
pub const BAND_LISTED_F32: LaunchBounds = LaunchBounds {
    max_threads: 128,
    min_blocks_per_sm: 9,
};

/// The band kernel over listed jobs summing f64: six blocks of 128 per SM (96 registers
/// unbounded, 74 in the same loop before).
pub const BAND_LISTED_F64: LaunchBounds = LaunchBounds {
    max_threads: 128,
    min_blocks_per_sm: 6,
};

/// The lane kernel of the convolutions: blocks of up to 16 warps (its policy's most) must
/// launch.
pub const LANES: LaunchBounds = LaunchBounds {
    max_threads: 512,
    min_blocks_per_sm: 1,
};

/// The block-level multisplit scatter of u32 keys alone: four blocks of 256 per SM, 64
/// registers a thread, which ptxas (sm_90) fits without spilling since the ranking's ballot
/// path, never run by this kernel, is left out of it (`rank`'s `ballots`). Before that it
/// spilled 1.5 KB a thread at four blocks and 160 bytes at three, the bound then measured (H200,
/// 2^28 keys into 256 buckets: 96 registers unbounded, 2 blocks, 2.087 ms a split; three blocks
/// 1.976 ms); four blocks without the spill split 2^28 keys into 256 buckets 8 % faster than
/// three with it (H100, 2026-12-07). The others run unbounded: bounded to 80, u64 keys spilled
/// and pairs spilled a few bytes and split 19 % slower (with the ballot path).
pub const MULTISPLIT_BLOCK_KEYS: LaunchBounds = LaunchBounds {
    max_threads: 256,
    min_blocks_per_sm: 4,
};

/// The direct multisplit scatter of u32 keys alone: five blocks of 256 per SM, 48 registers a
/// thread. ptxas chose 48 unbounded until a change of control flow elsewhere in the scatter
/// (2026-12-02) gave it 56, which split 2^28 keys in two 3.6 % slower on the H200.
pub const MULTISPLIT_DIRECT_KEYS: LaunchBounds = LaunchBounds {
    max_threads: 256,
    min_blocks_per_sm: 5,
};

/// The bounds of a block-level multisplit scatter of keys alone of `key_bytes` bytes, for a
/// crate's own (`multisplit_kernels!`): [`MULTISPLIT_BLOCK_KEYS`] for 4-byte keys, else only
/// the block size.
pub const fn multisplit_block_keys(key_bytes: usize) -> LaunchBounds {
    if key_bytes == 4 {
        MULTISPLIT_BLOCK_KEYS
    } else {
        LaunchBounds {
            max_threads: MULTISPLIT_BLOCK_KEYS.max_threads,
            min_blocks_per_sm: 1,
        }
    }
}

/// The tiled alias sampler's ranking: blocks of 1024 threads must launch (64 registers a
/// thread; 92 unbounded).
pub const ALIAS_TILE_RANKS: LaunchBounds = LaunchBounds {
    max_threads: 1024,
    min_blocks_per_sm: 1,
};

/// The coins-then-mend sampler of a word a lane (32 × 32 grids): eight blocks of 256 per SM,
/// 32 registers a thread (34 unbounded held it to six blocks, 75 % occupancy, and ncu found it
/// issuing on 52 % of cycles, H200 2026-12-03; ptxas fits 32 without spills, 584 SASS
/// instructions against 576). Measured on an H100 (2026-12-05): 32 × 32 grids at k = 512
/// 2.416 → 2.433 G/s, k = 128 unchanged; the stalls were not for want of warps.
pub const SUBSET_MEND_WORDS1: LaunchBounds = LaunchBounds {
    max_threads: 256,
    min_blocks_per_sm: 8,
};

/// Entry-name prefixes and their bounds; the first that matches wins. Entries no prefix claims
/// get ptxas's defaults.
pub const PREFIXES: &[(&str, LaunchBounds)] = &[
    ("alias_tile_ranks", ALIAS_TILE_RANKS),
    ("convolve_band_listed_f32_wide", BAND_LISTED_F64),
    ("convolve_band_listed_f32", BAND_LISTED_F32),
    ("convolve_band_listed_f64", BAND_LISTED_F64),
    ("convolve_lanes_", LANES),
    ("multisplit_scatter_block_u32_keys", MULTISPLIT_BLOCK_KEYS),
    ("multisplit_scatter_direct_u32_keys", MULTISPLIT_DIRECT_KEYS),
    ("scan_exclusive_", SCAN),
    ("scan_inclusive_", SCAN),
    ("subset_mend_words1", SUBSET_MEND_WORDS1),
    // The tuning candidates: blocks of 256, four an SM.
    (
        "scan_tuning_u32_",
        LaunchBounds {
            max_threads: 256,
            min_blocks_per_sm: 4,
        },
    ),
];

/// The bounds of the kernel entry `name`, if it has any.
pub const fn of(name: &str) -> Option<LaunchBounds> {
    by_prefix(name, PREFIXES)
}
