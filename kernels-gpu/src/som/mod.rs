//! Self-organizing maps (after the Alea.CUDA article series): the best-matching-unit search that every epoch of training
//! begins with ([`bmu`]), the rest of a batch epoch ([`batch`]) and online epochs ([`online`]).
//!
//! The seed launched one kernel a node and reduced on the host. Here one launch finds every
//! node's nearest cell the way a matrix product is tiled: a block takes 64 nodes against 128
//! cells at a time, both staged in shared memory 32 dimensions at a time, and each thread keeps
//! the squared distances of 4 nodes to 8 cells in registers, two floating-point instructions a
//! pair and dimension and three 16-byte shared reads for its 32 pairs ([`bmu`]). Distances are
//! summed directly, `Σ (x − w)²` in dimension order, not expanded as `‖x‖² − 2x·w + ‖w‖²`, which
//! cancels where `x` is near `w` (the case that matters) and could tell equal cells apart.

pub mod batch;
pub mod bmu;
pub mod online;
pub mod posts;

crate::kernel_table! {
    /// The kernels of each accumulator type (f32 or f64) that sums distances, for host code
    /// generic over it.
    pub trait BmuKernels: bmu::Accumulator {
        /// `som_bmu_f32` or `som_bmu_f64` ([`bmu::search`]).
        Search: bmu::Search;
        /// `som_online_f32` or `som_online_f64` ([`online::epoch`]).
        Online: online::Epoch;
    }
    f32 { Search = bmu::som_bmu_f32, Online = online::som_online_f32 }
    f64 { Search = bmu::som_bmu_f64, Online = online::som_online_f64 }
}
