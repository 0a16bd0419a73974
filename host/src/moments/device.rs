//! Moments on a device: a persistent grid writes one partial summary a block
//! (`moments_partials_*`), one block combines them in order (`moments_combine`).

use super::Sample;
use crate::error::Result;
use crate::runtime::device::{Device, DeviceBuffer, LaunchShape};
use warpkit_kernels::moments::{SHARED_BYTES, Summary as Partial, moments_combine};
use warpkit_kernels::policy::{REDUCE_BLOCK_THREADS, REDUCE_UNROLL, vector_len};

/// The summary words of `data` into `out` (`data` not empty, at most `MAX_LEN` elements; `out`
/// `SUMMARY_WORDS` long: checked by the caller).
pub(super) fn summary_into<F: Sample>(
    d: &Device,
    data: &DeviceBuffer<F>,
    out: &mut DeviceBuffer<f64>,
) -> Result<()> {
    let n = data.len() as u64;
    let src = d.ptr(data)?;
    let resident = d.resident_blocks::<F::Partials>(REDUCE_BLOCK_THREADS, SHARED_BYTES)?;
    let per_block = (REDUCE_BLOCK_THREADS * REDUCE_UNROLL * vector_len(size_of::<F>())) as u64;
    let blocks = n.div_ceil(per_block).clamp(1, resident);
    let out_ptr = d.ptr_mut(out)?;
    let mut scratch = d.scratch(blocks as usize * size_of::<Partial>())?;
    let partials = d
        .ptr_mut(scratch.as_mut().expect("scratch allocated"))?
        .cast::<Partial>();
    // SAFETY: `n` elements at `src`; a partial per block in the scratch (256-byte aligned,
    // held until both launches are queued); blocks of REDUCE_BLOCK_THREADS with SHARED_BYTES;
    // then one such block over the `blocks` partials into `out`'s SUMMARY_WORDS f64.
    unsafe {
        let wide = LaunchShape::linear(blocks, REDUCE_BLOCK_THREADS, SHARED_BYTES);
        d.launch::<F::Partials>(wide, (src, n, partials))?;
        let single = LaunchShape::linear(1, REDUCE_BLOCK_THREADS, SHARED_BYTES);
        d.launch::<moments_combine>(single, (partials.cast_const(), blocks, out_ptr))?;
    }
    Ok(())
}
