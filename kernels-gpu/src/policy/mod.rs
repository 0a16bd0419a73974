//! Tuning policies: block sizes, tile shapes and items per thread, one module per area (as
//! [`crate::area`] names them), apart from the algorithms that use them, so that retuning for
//! another GPU touches no kernel code. The host reads the same constants to size grids and
//! scratch buffers. Constants that fix results or layouts (the alias partition tile, the
//! sampler's sections, the counted ranking's radix, the scan's scratch layout, the reduction's
//! fixed grid) stay with their algorithms.

pub mod alias;
pub mod checks;
pub mod convolve;
pub mod grid;
pub mod lbp;
pub mod moments;
pub mod multisplit;
pub mod som;
pub mod subset;

pub use alias::{ALIAS_ROWS_PER_SECTION, SHARED_SAMPLER_BLOCKS_PER_SM, TILED_ROUND_TILES};
pub use checks::LEVEL_TEST_BLOCK_THREADS;
pub use grid::{
    COPY_BLOCK_THREADS, COPY_UNROLL, PHILOX_BLOCK_THREADS, REDUCE_BLOCK_THREADS, REDUCE_UNROLL, SCAN_POLICY,
    ScanPolicy, vector_len,
};
