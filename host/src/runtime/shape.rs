//! Launch shapes and device limits, common to both engines: a [`LaunchShape`] is compared with
//! the device's limits before anything reaches a driver or the emulator, so an impossible launch
//! is an `Error::LaunchShape`, not a CUDA fault.

pub use warpkit_kernels::launch::{LaunchShape, Limits};

/// A device: its name, what it allows a launch ([`Limits`], which plans read) and its memory.
/// Read once when it is opened (a GPU) or fixed (the emulator).
#[derive(Clone, Debug)]
pub struct DeviceLimits {
    /// The device's name, as the driver gives it (`"warpkit emulator"` for the emulator).
    pub name: String,
    /// Its compute capability, (major, minor).
    pub compute_capability: (i32, i32),
    /// What a launch may ask of it.
    pub launch: Limits,
    /// Its memory, in bytes.
    pub total_memory: usize,
}

/// Why a cooperative launch of `shape` cannot have every block resident at once on a device
/// that holds `resident` of its blocks, if it cannot.
pub(crate) fn too_many_together(shape: &LaunchShape, resident: u64) -> Option<String> {
    let blocks: u64 = shape.grid.iter().map(|&d| u64::from(d)).product();
    (blocks > resident).then(|| {
        format!("a cooperative grid of {blocks} blocks, of which the device holds {resident} at once")
    })
}

impl DeviceLimits {
    /// The H100's launch limits, under another name and processor count.
    pub(crate) fn h100_like(name: String, multiprocessors: u32, total_memory: usize) -> DeviceLimits {
        DeviceLimits {
            name,
            compute_capability: (9, 0),
            launch: Limits::h100_like(multiprocessors),
            total_memory,
        }
    }

    /// Why this device cannot run `shape`, if it cannot.
    pub fn refusal(&self, shape: &LaunchShape) -> Option<String> {
        let limits = &self.launch;
        let threads: u64 = shape.block.iter().map(|&d| d as u64).product();
        if shape.grid.contains(&0) || shape.block.contains(&0) {
            return Some(format!("empty grid {:?} or block {:?}", shape.grid, shape.block));
        }
        if threads > limits.max_threads_per_block as u64 {
            return Some(format!(
                "{threads} threads per block, the device allows {}",
                limits.max_threads_per_block
            ));
        }
        for axis in 0..3 {
            if shape.block[axis] > limits.max_block_dim[axis] {
                return Some(format!(
                    "block {:?} over the maximum {:?}",
                    shape.block, limits.max_block_dim
                ));
            }
            if shape.grid[axis] > limits.max_grid_dim[axis] {
                return Some(format!(
                    "grid {:?} over the maximum {:?}",
                    shape.grid, limits.max_grid_dim
                ));
            }
        }
        if shape.shared_bytes > limits.shared_per_block_optin {
            return Some(format!(
                "{} bytes of shared memory, the device allows {}",
                shape.shared_bytes, limits.shared_per_block_optin
            ));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h100() -> DeviceLimits {
        DeviceLimits::h100_like("test".into(), 132, 80 << 30)
    }

    #[test]
    fn shapes_over_the_limits_are_refused() {
        let l = h100();
        assert_eq!(l.refusal(&LaunchShape::linear(1 << 20, 256, 80)), None);
        assert!(
            l.refusal(&LaunchShape::linear(1, 2048, 0))
                .unwrap()
                .contains("threads per block")
        );
        assert!(
            l.refusal(&LaunchShape::linear(0, 256, 0))
                .unwrap()
                .contains("empty")
        );
        assert!(
            l.refusal(&LaunchShape::linear(1 << 32, 256, 0))
                .unwrap()
                .contains("grid")
        );
        assert!(
            l.refusal(&LaunchShape::linear(1, 256, 228 * 1024))
                .unwrap()
                .contains("shared")
        );
        let tall = LaunchShape {
            grid: [1, 1, 1],
            block: [1, 1, 128],
            shared_bytes: 0,
        };
        assert!(l.refusal(&tall).unwrap().contains("block"));
    }
}
