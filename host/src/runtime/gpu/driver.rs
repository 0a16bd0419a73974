//! Finding a CUDA driver without panicking. `cudarc` loads libcuda lazily and panics if it is
//! absent, so look for the library under the names `cudarc` will try before touching it.

use crate::error::{Error, Result};

/// Ok if a CUDA driver library loads on this machine.
pub(crate) fn ensure_driver() -> Result<()> {
    let found = cudarc::get_lib_name_candidates("cuda").into_iter().any(|name| {
        // SAFETY: loading libcuda runs only its initialisers, which have no preconditions;
        // the handle is dropped at once and cudarc loads it again for real.
        unsafe { libloading::Library::new(&name) }.is_ok()
    });
    if found {
        Ok(())
    } else {
        Err(Error::NoDevice(
            "the CUDA driver library (libcuda) is not installed".into(),
        ))
    }
}
