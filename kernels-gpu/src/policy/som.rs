//! Tuning of the self-organizing maps: the search's block and staging depth and when it slices
//! the cells, and the block sizes and grid cap of the training kernels. None of these changes a
//! result: the search's distances are summed in dimension order and its ties go to the lowest
//! cell however the cells are sliced, and the batch sums are integers. The search's tile shape
//! (`som::bmu::NODE_TILE`, `CELL_TILE`: 4 nodes by 8 cells a thread) stays with its kernel.

/// Threads of a search block: 16 columns of cells by 16 rows of nodes. The search's thread
/// mapping assumes 16 × 16: with 4 nodes and 8 cells a thread this makes its 64 × 128 tile.
pub const BMU_THREADS: u32 = 256;
/// Dimensions the search stages in shared memory at once.
pub const DIM_STEP: u32 = 32;
/// Waves of resident search blocks the search wants: where the node tiles alone make fewer,
/// it slices the cells (and combines the slices' candidates after), up to twice as many
/// slices where that fills the last wave better (`som::bmu::Slicing::of`). With 2 the
/// article's case took 6 slices (613 µs on the H200); 12 to 24 slices ran 582-599 µs.
pub const BMU_WAVES: u64 = 4;
/// Threads of a block of the combine of the slices' candidates (a thread a node).
pub const COMBINE_THREADS: u32 = 256;

/// Threads of a block of the batch epoch's kernels (grid-stride loops over their work).
pub const BATCH_THREADS: u32 = 256;
/// The most blocks of a batch epoch's kernel: the loops are grid-stride beyond.
pub const BATCH_MAX_BLOCKS: u64 = 65535;
/// Nodes a thread of the magnitude kernel takes in one dimension.
pub const MAGNITUDE_RUN: u32 = 64;

/// Threads of a block of online training.
pub const ONLINE_THREADS: u32 = 256;
