//! The Philox stream on a device: `philox_fill_u32` computes four words per counter block, on
//! a grid of at most four times the blocks that fit on the device at once. Writes 4 bytes per
//! word and reads nothing.

use crate::error::Result;
use crate::runtime::device::{Device, DeviceBuffer, LaunchShape};
use warpkit_kernels::policy::PHILOX_BLOCK_THREADS;
use warpkit_kernels::rng::fill::philox_fill_u32;

impl Device {
    /// Fills `out` with the stream of `key` from `counter`: `out[i]` is word `i % 4` of the
    /// block at `counter + i / 4`, exactly what [`Philox::new(key, counter)`](super::Philox::new)
    /// yields as its `i`-th `next_u32`.
    pub fn philox_fill(&self, out: &mut DeviceBuffer<u32>, key: [u32; 2], counter: [u32; 4]) -> Result<()> {
        let n = out.len() as u64;
        let dst = self.ptr_mut(out)?;
        if n == 0 {
            return Ok(());
        }
        let resident = self.resident_blocks::<philox_fill_u32>(PHILOX_BLOCK_THREADS, 0)?;
        let blocks = n
            .div_ceil(4)
            .div_ceil(PHILOX_BLOCK_THREADS as u64)
            .min(resident * 4);
        let shape = LaunchShape::linear(blocks, PHILOX_BLOCK_THREADS, 0);
        let [c0, c1, c2, c3] = counter;
        // SAFETY: `philox_fill_u32` writes `n` words, the buffer's length.
        unsafe { self.launch::<philox_fill_u32>(shape, (dst, n, key[0], key[1], c0, c1, c2, c3)) }
    }
}
