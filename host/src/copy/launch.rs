//! Device-to-device copy with 128-bit accesses (`copy_vec128`): warpkit's bandwidth yardstick.

use crate::error::{Result, check_same_len};
use crate::runtime::device::{Device, DeviceBuffer};
use warpkit_kernels::grid::copy::{CopyBytes, copy_vec128};

impl Device {
    /// Copies `src` into `dst` (same length) with warpkit's copy kernel.
    pub fn copy<T>(&self, src: &DeviceBuffer<T>, dst: &mut DeviceBuffer<T>) -> Result<()> {
        check_same_len("copy destination", src.len(), dst.len())?;
        let bytes = (src.len() * size_of::<T>()) as u64;
        if bytes == 0 {
            return Ok(());
        }
        let mut b = self.bind();
        let p = CopyBytes {
            src: b.read(src)?.cast(),
            dst: b.write(dst)?.cast(),
            bytes,
        };
        let shape = self.cap_to_resident::<copy_vec128>(p.plan(), 1)?;
        b.launch::<copy_vec128>(shape, p)
    }
}
