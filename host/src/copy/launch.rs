//! Device-to-device copy with 128-bit accesses (`copy_vec128`): warpkit's bandwidth yardstick.

use crate::error::{Result, check_same_len};
use crate::runtime::device::{Device, DeviceBuffer};
use warpkit_kernels::grid::copy::{CopyBytes, copy_vec128};

impl Device {
    /// Copies `src` into `dst` (same length) with warpkit's copy kernel.
    pub fn copy<T>(&self, src: &DeviceBuffer<T>, dst: &mut DeviceBuffer<T>) -> Result<()> {
        check_same_len("copy destination", src.len(), dst.len())?;
        self.copy_part(src, 0, dst)
    }

    /// Copies `src[from .. from + dst.len()]` into `dst` (a part past `src`'s end is refused
    /// as the launch's contract).
    pub(crate) fn copy_part<T>(
        &self,
        src: &DeviceBuffer<T>,
        from: usize,
        dst: &mut DeviceBuffer<T>,
    ) -> Result<()> {
        let bytes = (dst.len() * size_of::<T>()) as u64;
        if bytes == 0 {
            return Ok(());
        }
        let mut b = self.bind();
        let p = CopyBytes {
            src: b.read(src)?.wrapping_add(from).cast(),
            dst: b.write(dst)?.cast(),
            bytes,
        };
        let shape = self.cap_to_resident::<copy_vec128>(p.plan(), 1)?;
        b.launch::<copy_vec128>(shape, p)
    }
}
