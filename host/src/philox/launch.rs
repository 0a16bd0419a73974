//! The Philox stream on a device: `philox_fill_u32` computes four words per counter block, on
//! a grid of at most four times the blocks that fit on the device at once. Writes 4 bytes per
//! word and reads nothing.

use crate::error::Result;
use crate::runtime::device::{Device, DeviceBuffer};
use warpkit_kernels::rng::fill::{PhiloxFill, philox_fill_u32};
use warpkit_kernels::rng::philox::Stream;

impl Device {
    /// Fills `out` with the stream of `key` from `counter`: `out[i]` is word `i % 4` of the
    /// block at `counter + i / 4`, exactly what [`Philox::new(key, counter)`](super::Philox::new)
    /// yields as its `i`-th `next_u32`.
    pub fn philox_fill(&self, out: &mut DeviceBuffer<u32>, key: [u32; 2], counter: [u32; 4]) -> Result<()> {
        if out.is_empty() {
            return Ok(());
        }
        let mut b = self.bind();
        let p = PhiloxFill {
            n: out.len() as u64,
            out: b.write(out)?,
            stream: Stream { key, counter },
        };
        let shape = self.cap_to_resident::<philox_fill_u32>(p.plan(), 4)?;
        b.launch::<philox_fill_u32>(shape, p)
    }
}
