//! The crate's one error type, below everything else (it imports nothing of the crate). Every
//! check on the caller's input happens before anything is launched, so an `Err` leaves device
//! memory as it was.

#[cfg(feature = "cuda")]
use cudarc::driver::{DriverError, sys::cudaError_enum};

/// Everything that can go wrong in warpkit. New kinds of failure may be added in minor
/// versions, so matches need a wildcard arm.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No CUDA driver or no CUDA device: a normal answer on machines without a GPU.
    #[error("no CUDA device: {0}")]
    NoDevice(String),
    /// The GPU is older than the code warpkit embeds (sm_80).
    #[error("unsupported GPU: compute capability {major}.{minor}; warpkit needs 8.0 or newer")]
    UnsupportedDevice {
        /// The compute capability's major version.
        major: i32,
        /// Its minor version.
        minor: i32,
    },
    /// No embedded image of an area's kernels, or of a [`Module`](crate::Module) of one's own,
    /// loaded on the device (machine code or PTX).
    #[error("loading the {area} kernels failed: {reason}")]
    ModuleLoad {
        /// The area whose module it is (`grid`, `alias`, ...), or the module's name.
        area: &'static str,
        /// The driver's error.
        reason: String,
    },
    /// A kernel of one's own launched on a GPU where no loaded [`Module`](crate::Module) holds
    /// it ([`Device::load`](crate::Device::load) loads one; the emulator needs none).
    #[error(
        "kernel `{kernel}` is in no module loaded on this GPU: load its crate's module with Device::load"
    )]
    KernelNotLoaded {
        /// The kernel's entry point.
        kernel: &'static str,
    },
    /// An allocation did not fit in device memory.
    #[error("out of device memory")]
    OutOfMemory,
    /// The GPU's context failed for good: a kernel faulted (an out-of-bounds or misaligned
    /// global access, a trap or a panic in device code) or the device failed. CUDA keeps the
    /// error: every later call on that GPU in this process returns it (`Device::gpu` gives the
    /// same failed handle), so results never come from a broken context. Restart the process
    /// to use the GPU again; the emulator runs the same kernel with its shared-memory and
    /// collective checks, not global bounds.
    #[error("the GPU can no longer be used in this process (a kernel faulted or the device failed): {0}")]
    #[cfg(feature = "cuda")]
    DeviceLost(DriverError),
    /// Any other CUDA driver failure.
    #[error("CUDA driver error: {0}")]
    #[cfg(feature = "cuda")]
    Driver(DriverError),
    /// The FFT convolution asked of a GPU where the cuFFT library cannot be loaded (it ships
    /// with the CUDA toolkit and in NVIDIA's `nvidia-cufft` wheels; the loader must find
    /// `libcufft.so`, e.g. through `LD_LIBRARY_PATH`). The automatic choice of method
    /// ([`Method::auto_within`]) runs direct sums there instead.
    ///
    /// [`Method::auto_within`]: crate::convolve::Method::auto_within
    #[error(
        "the cuFFT library could not be loaded (is the CUDA toolkit's lib directory on the library path?)"
    )]
    FftUnavailable,
    /// cuFFT failed with this status (other than running out of memory, which is
    /// [`Error::OutOfMemory`]).
    #[error("cuFFT failed: {0}")]
    Fft(String),
    /// An input longer than the primitive indexes.
    #[error("{what} has {len} elements; at most {max} are supported")]
    TooLong {
        /// The input.
        what: &'static str,
        /// Its length.
        len: u64,
        /// The longest taken.
        max: u64,
    },
    /// Two buffers that must have the same length do not.
    #[error("{what}: expected {expected} elements, got {actual}")]
    LengthMismatch {
        /// The buffer of the wrong length.
        what: &'static str,
        /// The length it must have.
        expected: usize,
        /// The length it has.
        actual: usize,
    },
    /// Values that do not cut into whole vectors: a length not a multiple of the dimension.
    #[error("{what}: {len} values are not whole vectors of dimension {dim}")]
    PartialVector {
        /// The input.
        what: &'static str,
        /// Its values.
        len: usize,
        /// The vectors' dimension.
        dim: usize,
    },
    /// A launch shape the device cannot run.
    #[error("launch of {kernel} exceeds the device's limits: {reason}")]
    LaunchShape {
        /// The kernel's entry name.
        kernel: &'static str,
        /// Which limit.
        reason: String,
    },
    /// A launch whose parameters or shape break the kernel's contract (a pointer outside the
    /// buffers bound to it, a length or shape it does not take): a fault in warpkit's own
    /// launch code, refused before the kernel runs.
    #[error("launch of {kernel} refused: {reason}")]
    LaunchContract {
        /// The kernel's entry name.
        kernel: &'static str,
        /// Which part of the contract.
        reason: String,
    },
    /// Memory that does not start on the boundary warpkit's kernels need.
    #[error("{what} does not start on a {align}-byte boundary")]
    Misaligned {
        /// The buffer or field.
        what: &'static str,
        /// The boundary, in bytes.
        align: u64,
    },
    /// A buffer passed to a device other than the one that made it.
    #[error("a buffer of {buffer} was passed to {device}")]
    WrongDevice {
        /// The device that made the buffer.
        buffer: String,
        /// The device it was passed to.
        device: String,
    },
    /// No weights were given.
    #[error("no weights: an alias table needs at least one item")]
    NoWeights,
    /// A weight that is negative, NaN or infinite.
    #[error("weight {index} is negative, NaN or infinite")]
    InvalidWeight {
        /// The weight's index.
        index: usize,
    },
    /// Every weight is zero.
    #[error("all weights are zero")]
    AllWeightsZero,
    /// The weights' total is not finite in their type.
    #[error("the weights' total overflows")]
    WeightOverflow,
    /// Something the chosen backend cannot do at all (multisplit values of other than 4 or 8
    /// bytes; a GPU-only path on another backend). A *method* a backend does not offer is not
    /// an error: the backend runs its own (see the crate's rule for methods).
    #[error("{method} does not run on {backend}")]
    UnsupportedMethod {
        /// What was asked for.
        method: String,
        /// The backend asked.
        backend: String,
    },
    /// An alias table that fails its check (see [`crate::alias::check_table`]).
    #[error("invalid alias table: {0}")]
    Table(#[from] TableDefect),
    /// A multisplit over no buckets (`Buckets::Modulo(0)`).
    #[error("a multisplit needs at least one bucket")]
    NoBuckets,
    /// A multisplit over more buckets than it takes.
    #[error("{m} buckets; at most {max} are supported")]
    TooManyBuckets {
        /// The buckets asked for.
        m: u64,
        /// The most taken.
        max: u32,
    },
    /// Splitters out of order: `splitters[index - 1] > splitters[index]`.
    #[error("splitter {index} is smaller than the one before it")]
    UnsortedSplitters {
        /// The first splitter out of order.
        index: usize,
    },
    /// A bit field that reaches past the key's bits.
    #[error("bits {shift}..{} lie outside a {key_bits}-bit key", shift + bits)]
    BitFieldOutsideKey {
        /// The field's lowest bit.
        shift: u32,
        /// Its width.
        bits: u32,
        /// The key's width.
        key_bits: u32,
    },
    /// A bucket function put a key in a bucket `>= m` (found after the fact; nothing was
    /// written out of bounds).
    #[error("a key was put in bucket {bucket} of {m}")]
    BucketOutOfRange {
        /// A bucket the function returned.
        bucket: u32,
        /// The number of buckets.
        m: u32,
    },
    /// A base set without elements (an empty or all-zero mask, or `0..0`).
    #[error("the base set has no elements")]
    EmptyBaseSet,
    /// Subsets of more elements than the base set has.
    #[error("subsets of {k} elements from a base set of {n}")]
    SubsetTooLarge {
        /// Elements a subset.
        k: u32,
        /// Elements of the base set.
        n: u32,
    },
    /// A subset method forced on a base set wider than it takes.
    #[error("{method} does not take base sets of {words} words")]
    UnfitMethod {
        /// The method forced.
        method: String,
        /// The base set's width in 32-bit words.
        words: usize,
    },
    /// A subset method forced together with an algorithm it does not run: coins then mend
    /// draws a subset a warp.
    #[error("{method} does not run {algorithm} (a warp a subset); force Algorithm::Halving")]
    UnfitAlgorithm {
        /// The method forced (or chosen).
        method: String,
        /// The algorithm forced (or chosen).
        algorithm: String,
    },
    /// A host allocation failed.
    #[error("out of host memory ({bytes} bytes requested)")]
    HostOutOfMemory {
        /// The allocation's size.
        bytes: u64,
    },
    /// The emulator stopped a kernel that misused the SIMT model or trapped.
    #[error("emulated launch failed: {0}")]
    Emulator(warpkit_kernels::emu::Fault),
    /// An input vector or span without elements where the call needs at least one.
    #[error("{what} is empty")]
    EmptyVector {
        /// The input.
        what: &'static str,
    },
    /// A strided span whose stride is 0 (every element would be the same one).
    #[error("{what} has a stride of 0")]
    ZeroStride {
        /// The span.
        what: &'static str,
    },
    /// A span whose last element lies past the end of its buffer.
    #[error("{what} reaches element {end} of a buffer of {len}")]
    SpanOutOfBounds {
        /// The span.
        what: &'static str,
        /// Its last element's index.
        end: u128,
        /// The buffer's length.
        len: usize,
    },
    /// An output that shares elements with an input of the same call.
    #[error("the output shares elements with {what}")]
    Overlap {
        /// The input it overlaps.
        what: &'static str,
    },
    /// Offsets that do not cut the data into non-empty pieces: not starting at 0, not rising
    /// strictly, or not ending at the data's length (batches of pieces).
    #[error("{what}: offset {index} is not within the data or is below the one before it")]
    InvalidOffsets {
        /// The offsets.
        what: &'static str,
        /// The first offending offset's index.
        index: usize,
    },
    /// Ranks of a group that give a collective different amounts (each must give the same).
    #[error("ranks disagree on {what}: rank {rank} gave {actual}, rank 0 {expected}")]
    RanksDisagree {
        /// What the ranks exchange.
        what: &'static str,
        /// The first rank that differs from rank 0.
        rank: u32,
        /// Rank 0's amount.
        expected: usize,
        /// That rank's.
        actual: usize,
    },
    /// A collective that cannot complete: a rank of its group has left it (dropped its
    /// handle, or failed an earlier collective), so the others do not wait for it.
    #[error("rank {rank} has left the group; its collectives cannot complete")]
    RankLeft {
        /// The rank that left.
        rank: u32,
    },
    /// A distributed call that failed on another rank (that rank returns its own error): the
    /// ranks learn it from the call's first collective, so every rank fails, none waits.
    #[error("rank {rank} failed its part of the call")]
    RankFailed {
        /// The first rank that failed.
        rank: u32,
    },
    /// A collective whose ranks did not all arrive within the group's timeout. A group over
    /// NCCL cannot tell which ranks arrived: it gives the time and the group's size only.
    #[error("collective timed out after {waited:?}: {}", arrivals(.arrived, .world))]
    CollectiveTimeout {
        /// How long this rank waited.
        waited: std::time::Duration,
        /// Ranks that had arrived, where the group knows it.
        arrived: Option<u32>,
        /// Ranks of the group.
        world: u32,
    },
    /// The NCCL library cannot be used: not found under the names `cudarc` loads, or an
    /// environment NCCL would run in unsafely (NVLink multicast not turned off).
    #[error("NCCL cannot be used: {0}")]
    NcclUnavailable(String),
    /// An NCCL call that failed, with NCCL's status.
    #[error("NCCL's {call} failed: {status}")]
    Nccl {
        /// The call.
        call: &'static str,
        /// NCCL's result code.
        status: String,
    },
    /// An environment variable a distributed run is configured by, missing or not understood
    /// (`RANK`, `WORLD_SIZE`, `LOCAL_RANK`, `WARPKIT_NCCL_ID`, `WARPKIT_NCCL_ID_FILE`).
    #[error("environment variable {name}: {problem}")]
    Environment {
        /// The variable.
        name: &'static str,
        /// What is wrong with it.
        problem: String,
    },
    /// Starting or watching the processes of a distributed run failed.
    #[error("launching the ranks: {0}")]
    Launch(String),
    /// An integer parameter outside the range the call takes.
    #[error("{what} is {value}; it must lie in {min}..={max}")]
    OutOfRange {
        /// The parameter.
        what: &'static str,
        /// Its value.
        value: u64,
        /// The smallest taken.
        min: u64,
        /// The largest taken.
        max: u64,
    },
    /// A floating-point parameter the call does not take (NaN, infinite, or out of its range).
    #[error("{what} is {value}; it must be {expected}")]
    BadParameter {
        /// The parameter.
        what: &'static str,
        /// Its value.
        value: f64,
        /// What it must be.
        expected: &'static str,
    },
    /// An input value that is NaN or infinite where the call needs finite ones.
    #[error("{what}: value {index} is NaN or infinite")]
    NotFinite {
        /// The input.
        what: &'static str,
        /// The first such value's index.
        index: usize,
    },
    /// An LBP signal shorter than one neighbourhood (`2n + 1` elements).
    #[error("signal {index} has {len} elements; neighbourhood {n} needs at least {}", 2 * n + 1)]
    SignalTooShort {
        /// The signal's index in the batch.
        index: usize,
        /// Its length.
        len: usize,
        /// The neighbourhood.
        n: u32,
    },
    /// A convolution method forced on work it cannot do: one of the seed's kernels asked for
    /// gradients, a window of a product, or f32 summed in f64; the FFT asked for any of those,
    /// a batch, strided spans, or to run without a GPU.
    #[error(
        "{method} cannot {what}: the article's five kernels (v0-v4) compute forward products of one pair in the input's type, and the FFT one forward product of whole vectors on a GPU"
    )]
    MethodCannot {
        /// The method forced.
        method: String,
        /// The work asked of it.
        what: &'static str,
    },
}

// The alias area's (public as `warpkit::alias::TableDefect`), defined here so that the error
// type imports no area.
/// What is wrong with an alias table (see [`crate::alias::check_table`]).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum TableDefect {
    /// Not a row an item.
    #[error("the table has {rows} rows for {items} weights")]
    Length {
        /// Rows of the table.
        rows: usize,
        /// Items weighed.
        items: usize,
    },
    /// A row whose alias is not an item.
    #[error("row {row} has alias {alias}, not an item")]
    Alias {
        /// The row.
        row: usize,
        /// Its alias.
        alias: u32,
    },
    /// A row whose threshold is not a probability.
    #[error("row {row} has threshold {threshold}, outside [0, 1]")]
    Threshold {
        /// The row.
        row: usize,
        /// Its threshold.
        threshold: f64,
    },
    /// An item whose mass in the table is not its share of the weights.
    #[error("item {item} receives {got} rows of mass, expected {expected} (tolerance {tolerance})")]
    Mass {
        /// The item.
        item: usize,
        /// Its mass in the table, in rows.
        got: f64,
        /// `N w_i / W`.
        expected: f64,
        /// The difference allowed.
        tolerance: f64,
    },
}

/// `Result` with warpkit's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(feature = "cuda")]
impl From<DriverError> for Error {
    fn from(e: DriverError) -> Self {
        use cudaError_enum::*;
        match e.0 {
            CUDA_ERROR_OUT_OF_MEMORY => Error::OutOfMemory,
            // The errors the driver documents as leaving the context unusable.
            CUDA_ERROR_ILLEGAL_ADDRESS
            | CUDA_ERROR_ILLEGAL_INSTRUCTION
            | CUDA_ERROR_MISALIGNED_ADDRESS
            | CUDA_ERROR_INVALID_ADDRESS_SPACE
            | CUDA_ERROR_INVALID_PC
            | CUDA_ERROR_LAUNCH_FAILED
            | CUDA_ERROR_HARDWARE_STACK_ERROR
            | CUDA_ERROR_ASSERT
            | CUDA_ERROR_ECC_UNCORRECTABLE
            | CUDA_ERROR_CONTEXT_IS_DESTROYED => Error::DeviceLost(e),
            _ => Error::Driver(e),
        }
    }
}

/// How many of a group's ranks arrived at a collective, in words.
fn arrivals(arrived: &Option<u32>, world: &u32) -> String {
    match arrived {
        Some(arrived) => format!("{arrived} of {world} ranks arrived"),
        None => format!("not every rank of {world} arrived"),
    }
}

/// `TooLong` unless `len <= max`.
pub(crate) fn check_len(what: &'static str, len: usize, max: u64) -> Result<()> {
    if len as u64 > max {
        return Err(Error::TooLong {
            what,
            len: len as u64,
            max,
        });
    }
    Ok(())
}

/// `InvalidOffsets` unless `offsets` cut `len` elements into non-empty pieces of at most
/// `max` elements: it starts at 0, rises strictly and ends at `len`; `EmptyVector` for fewer
/// than two offsets (no piece).
pub(crate) fn check_offsets(what: &'static str, len: usize, offsets: &[usize], max: u64) -> Result<()> {
    if offsets.len() < 2 {
        return Err(Error::EmptyVector { what });
    }
    if offsets[0] != 0 {
        return Err(Error::InvalidOffsets { what, index: 0 });
    }
    for (i, w) in offsets.windows(2).enumerate() {
        if w[1] <= w[0] || w[1] > len || (w[1] - w[0]) as u64 > max {
            return Err(Error::InvalidOffsets { what, index: i + 1 });
        }
    }
    if offsets[offsets.len() - 1] != len {
        return Err(Error::InvalidOffsets {
            what,
            index: offsets.len() - 1,
        });
    }
    Ok(())
}

/// `EmptyVector` for an input of no elements.
pub(crate) fn check_not_empty(what: &'static str, len: usize) -> Result<()> {
    if len == 0 {
        return Err(Error::EmptyVector { what });
    }
    Ok(())
}

/// `PartialVector` unless `len` values are whole vectors of `dim` (not 0).
pub(crate) fn check_whole_vectors(what: &'static str, len: usize, dim: usize) -> Result<()> {
    if !len.is_multiple_of(dim) {
        return Err(Error::PartialVector { what, len, dim });
    }
    Ok(())
}

/// `LengthMismatch` unless `actual == expected`.
pub(crate) fn check_same_len(what: &'static str, expected: usize, actual: usize) -> Result<()> {
    if expected != actual {
        return Err(Error::LengthMismatch {
            what,
            expected,
            actual,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn length_checks_name_the_input() {
        assert!(check_len("input", 10, 10).is_ok());
        let e = check_len("input", 11, 10).unwrap_err();
        assert!(matches!(
            e,
            Error::TooLong {
                what: "input",
                len: 11,
                max: 10
            }
        ));
        assert!(e.to_string().contains("at most 10"));
        assert!(matches!(
            check_same_len("output", 3, 4),
            Err(Error::LengthMismatch {
                expected: 3,
                actual: 4,
                ..
            })
        ));
    }

    #[test]
    #[cfg(feature = "cuda")]
    fn out_of_memory_and_lost_devices_are_their_own_variants() {
        let oom = DriverError(cudaError_enum::CUDA_ERROR_OUT_OF_MEMORY);
        assert!(matches!(Error::from(oom), Error::OutOfMemory));
        let fault = DriverError(cudaError_enum::CUDA_ERROR_ILLEGAL_ADDRESS);
        assert!(matches!(Error::from(fault), Error::DeviceLost(_)));
        let other = DriverError(cudaError_enum::CUDA_ERROR_INVALID_VALUE);
        assert!(matches!(Error::from(other), Error::Driver(_)));
    }
}
