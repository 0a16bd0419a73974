//! Finding a CUDA driver without panicking: `cudarc` loads libcuda lazily and panics if it is
//! absent, so ask its own probe (the same library names it will load) before touching it.

use crate::error::{Error, Result};

/// Ok if a CUDA driver library loads on this machine.
pub(crate) fn ensure_driver() -> Result<()> {
    // SAFETY: the probe loads the library (running only its initialisers, which have no
    // preconditions) and drops the handle; cudarc loads it again for real.
    if unsafe { cudarc::driver::sys::is_culib_present() } {
        Ok(())
    } else {
        Err(Error::NoDevice(
            "the CUDA driver library (libcuda) is not installed".into(),
        ))
    }
}
