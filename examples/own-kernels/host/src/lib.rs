//! The host side of one's own kernels: buffers bound to a launch, the family's parameter
//! struct built from the addresses the binding gives, and the launch in the shape the family
//! plans. `Bindings::launch` checks every pointer's reach against the bound buffers, the
//! family's check and the device's limits before anything runs, so none of this is `unsafe`.
//!
//! Kernels declared in a user's crate run in warpkit's emulator (`Device::emulator()`), as
//! here in `cargo test`, from the host build of the device crate. On a GPU they run from the
//! module `build.rs` makes with `warpkit-builder` ([`KERNELS`]), which each call loads on its
//! device first (once; later loads do nothing).
//!
//! warpkit's multisplit takes the device crate's bucket functions too ([`split_by_cell`]):
//! `Multisplit::by` launches the kernels `multisplit_kernels!` declared for them; its alias
//! tables take the device crate's weight transform ([`softmax_table`]).

pub use own_kernels_device::{Fibonacci, Morton, Softmax};
use own_kernels_device::{
    Gather, Largest, Neighbours, Reverse, SoftmaxWeights, THREADS, Values, own_gather, own_largest_magnitude,
    own_neighbours, own_reverse, own_softmax_weights,
};
use warpkit::alias::{AliasTable, Construction};
use warpkit::multisplit::{Multisplit, Split};
use warpkit::{Backend, Device, DeviceBuffer, Error, Module, Result};

/// The device crate's kernels as machine code for sm_80 and sm_90 and PTX for newer GPUs.
pub static KERNELS: Module = include!(concat!(env!("OUT_DIR"), "/own_kernels_device.rs"));

/// Loads [`KERNELS`] where `backend` is a device (once per device); nothing to do on the CPU,
/// which runs the bucket functions as host code.
pub fn load_on(backend: &Backend) -> Result<()> {
    match backend {
        Backend::Device(d) => d.load(&KERNELS),
        Backend::Cpu(_) => Ok(()),
    }
}

/// `points` (x in the low 16 bits, y in the high 16) grouped by the Morton index of their cell
/// in a grid of `2^side_bits` cells a side, stably: `4^side_bits` buckets, at most 65536
/// (`Err(TooManyBuckets)` past that).
pub fn split_by_cell(backend: &Backend, points: &[u32], side_bits: u32) -> Result<Split<u32>> {
    load_on(backend)?;
    let m = u32::try_from(1u64 << (2 * side_bits.min(16))).unwrap_or(u32::MAX);
    let morton = Morton {
        bits: 2 * side_bits.min(8),
    };
    Multisplit::by(morton, m)?.keys(backend, points)
}

/// An alias table that draws item `i` with probability `softmax(logits / temperature)_i`, its
/// weights made from the logits by the device crate's [`Softmax`] as the table is built (on a
/// device, fused into the build's first pass; the weights never reach the host). `method` as
/// for `AliasTable::build`; `Err(InvalidWeight)` for a NaN logit, `Err(BadParameter)` for a
/// temperature that is not positive and finite.
pub fn softmax_table(
    backend: &Backend,
    logits: &[f64],
    temperature: f64,
    method: Construction,
) -> Result<AliasTable<f64>> {
    if !(temperature > 0.0 && temperature.is_finite()) {
        return Err(Error::BadParameter {
            what: "softmax temperature",
            value: temperature,
            expected: "positive and finite",
        });
    }
    load_on(backend)?;
    // The largest finite logit (a NaN is left for the table's check to name).
    let max = logits
        .iter()
        .copied()
        .filter(|x| x.is_finite())
        .fold(f64::MIN, f64::max);
    let softmax = Softmax {
        max,
        inv_temperature: 1.0 / temperature,
    };
    AliasTable::build_by(backend, logits, softmax, method)
}

/// `weights[i] = softmax.weight(i, logits[i])` by the device crate's plain kernel (the
/// transform a build by [`softmax_table`] fuses into its first pass).
pub fn softmax_weights(
    device: &Device,
    logits: &DeviceBuffer<f64>,
    softmax: Softmax,
    weights: &mut DeviceBuffer<f64>,
) -> Result<()> {
    device.load(&KERNELS)?;
    let mut b = device.bind();
    let p = SoftmaxWeights {
        logits: b.read(logits)?,
        n: logits.len() as u64,
        softmax,
        weights: b.write(weights)?,
    };
    b.launch::<own_softmax_weights>(p.plan(), p)
}

/// The value of largest magnitude in `values` (on `device`) and its index, the lowest on ties;
/// `None` for no values.
pub fn largest_magnitude(device: &Device, values: &DeviceBuffer<f32>) -> Result<Option<(f32, u32)>> {
    let n = values.len();
    if n == 0 {
        return Ok(None);
    }
    device.load(&KERNELS)?;
    let blocks = n.div_ceil(THREADS as usize);
    let (mut best, mut at) = (device.zeros::<f32>(blocks)?, device.zeros::<u32>(blocks)?);
    let mut b = device.bind();
    let p = Largest {
        input: b.read(values)?,
        n: n as u64,
        values: b.write(&mut best)?,
        indices: b.write(&mut at)?,
    };
    b.launch::<own_largest_magnitude>(p.plan(), p)?;
    // The blocks' winners, combined on the host in block order (so ties keep the lowest index).
    let (best, at) = (device.download(&best)?, device.download(&at)?);
    let winner = best
        .into_iter()
        .zip(at)
        .reduce(|a, b| if b.0.abs() > a.0.abs() { b } else { a });
    Ok(winner)
}

/// `input[indices[i]]` for each index, into a new buffer; `Err(OutOfRange)` for an index past
/// `input`, checked on the host before the launch (the kernel trusts its indices).
pub fn gather(device: &Device, input: &DeviceBuffer<u32>, indices: &[u32]) -> Result<DeviceBuffer<u32>> {
    if let Some(&bad) = indices.iter().find(|&&i| i as usize >= input.len()) {
        return Err(Error::OutOfRange {
            what: "gather index",
            value: bad.into(),
            min: 0,
            max: input.len().saturating_sub(1) as u64,
        });
    }
    device.load(&KERNELS)?;
    let indices = device.upload(indices)?;
    let mut out = device.zeros::<u32>(indices.len())?;
    // SAFETY: every index was checked above.
    unsafe { launch_gather(device, input, &indices, &mut out)? };
    Ok(out)
}

/// The gather launch itself: what [`gather`] runs once its indices are checked.
///
/// # Safety
/// Every index is below `input.len()` (else on a GPU the kernel faults, and the emulator
/// reports the read past the buffer).
pub unsafe fn launch_gather(
    device: &Device,
    input: &DeviceBuffer<u32>,
    indices: &DeviceBuffer<u32>,
    out: &mut DeviceBuffer<u32>,
) -> Result<()> {
    if indices.len() != out.len() {
        return Err(Error::LengthMismatch {
            what: "gather output",
            expected: indices.len(),
            actual: out.len(),
        });
    }
    let mut b = device.bind();
    let p = Gather {
        input: b.read(input)?,
        len: input.len() as u64,
        indices: b.read(indices)?,
        n: indices.len() as u64,
        out: b.write(out)?,
    };
    // SAFETY: the buffers are bound, `out` as long as the indices; every index is below `len`
    // (the caller's contract).
    unsafe { b.launch_unchecked::<own_gather>(p.plan(), p) }
}

/// A value a thread moved within its block of [`THREADS`] through shared memory, each with a
/// planted bug it may switch on.
#[derive(Clone, Copy, Debug)]
pub enum Exchange {
    /// Each value's right-hand neighbour (the block's first for its last); `barrier: false`
    /// leaves out the barrier between the writes and the reads, which the emulator reports as
    /// a race.
    Neighbours { barrier: bool },
    /// The block's values reversed (the last block's as if full); `off_by_one` shifts the reads
    /// one slot up, past the block's shared memory for its first thread, which the emulator
    /// reports with that thread.
    Reverse { off_by_one: bool },
}

/// `input` moved as `exchange` says, into a new buffer.
pub fn exchange(device: &Device, input: &DeviceBuffer<u32>, exchange: Exchange) -> Result<DeviceBuffer<u32>> {
    device.load(&KERNELS)?;
    let mut out = device.zeros::<u32>(input.len())?;
    let mut b = device.bind();
    let values = Values {
        input: b.read(input)?,
        n: input.len() as u64,
        out: b.write(&mut out)?,
    };
    match exchange {
        Exchange::Neighbours { barrier } => {
            let p = Neighbours {
                values,
                barrier: barrier as u32,
            };
            b.launch::<own_neighbours>(p.values.plan(), p)?;
        }
        Exchange::Reverse { off_by_one } => {
            let p = Reverse {
                values,
                off_by_one: off_by_one as u32,
            };
            b.launch::<own_reverse>(p.values.plan(), p)?;
        }
    }
    drop(b);
    Ok(out)
}
