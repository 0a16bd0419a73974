//! Checked launches: a [`LaunchShape`] is compared with the device's limits before anything
//! reaches the driver, so an impossible launch is an `Error::LaunchShape`, not a CUDA fault.

use super::Gpu;
use crate::error::{Error, Result};
use cudarc::driver::sys::CUfunction_attribute as FnAttr;
use cudarc::driver::{CudaFunction, LaunchConfig};

/// Grid, block and dynamic shared memory of one launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchShape {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared_bytes: u32,
}

impl LaunchShape {
    /// A 1D grid of `blocks` blocks of `threads` threads.
    pub fn linear(blocks: u64, threads: u32, shared_bytes: u32) -> LaunchShape {
        let blocks = u32::try_from(blocks).unwrap_or(u32::MAX);
        LaunchShape {
            grid: [blocks, 1, 1],
            block: [threads, 1, 1],
            shared_bytes,
        }
    }

    /// Why the device cannot run this shape, if it cannot.
    pub fn violation(&self, limits: &super::DeviceLimits) -> Option<String> {
        let threads: u64 = self.block.iter().map(|&d| d as u64).product();
        if self.grid.contains(&0) || self.block.contains(&0) {
            return Some(format!("empty grid {:?} or block {:?}", self.grid, self.block));
        }
        if threads > limits.max_threads_per_block as u64 {
            return Some(format!(
                "{threads} threads per block, the device allows {}",
                limits.max_threads_per_block
            ));
        }
        for axis in 0..3 {
            if self.block[axis] > limits.max_block_dim[axis] {
                return Some(format!(
                    "block {:?} over the maximum {:?}",
                    self.block, limits.max_block_dim
                ));
            }
            if self.grid[axis] > limits.max_grid_dim[axis] {
                return Some(format!(
                    "grid {:?} over the maximum {:?}",
                    self.grid, limits.max_grid_dim
                ));
            }
        }
        if self.shared_bytes > limits.shared_per_block_optin {
            return Some(format!(
                "{} bytes of shared memory, the device allows {}",
                self.shared_bytes, limits.shared_per_block_optin
            ));
        }
        None
    }
}

impl Gpu {
    /// The kernel `name` and a launch configuration for `shape`, after checking the shape
    /// against the device and raising the kernel's shared-memory limit where it needs more than
    /// the default.
    pub(crate) fn prepare(
        &self,
        name: &'static str,
        shape: LaunchShape,
    ) -> Result<(CudaFunction, LaunchConfig)> {
        if let Some(reason) = shape.violation(self.limits()) {
            return Err(Error::LaunchShape { kernel: name, reason });
        }
        let f = self.function(name).clone();
        if shape.shared_bytes > self.limits().shared_per_block {
            f.set_attribute(
                FnAttr::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                shape.shared_bytes as i32,
            )?;
        }
        let config = LaunchConfig {
            grid_dim: (shape.grid[0], shape.grid[1], shape.grid[2]),
            block_dim: (shape.block[0], shape.block[1], shape.block[2]),
            shared_mem_bytes: shape.shared_bytes,
        };
        Ok((f, config))
    }

    /// Blocks of `threads` threads (with `shared_bytes` each) that fill every multiprocessor
    /// once: the grid of a persistent, grid-stride kernel.
    pub(crate) fn resident_blocks(&self, name: &'static str, threads: u32, shared_bytes: u32) -> Result<u64> {
        let per_sm = self
            .function(name)
            .occupancy_max_active_blocks_per_multiprocessor(threads, shared_bytes as usize, None)?;
        Ok(per_sm.max(1) as u64 * self.limits().multiprocessors as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::DeviceLimits;

    fn h100() -> DeviceLimits {
        DeviceLimits {
            name: "test".into(),
            compute_capability: (9, 0),
            multiprocessors: 132,
            max_threads_per_block: 1024,
            max_block_dim: [1024, 1024, 64],
            max_grid_dim: [i32::MAX as u32, 65535, 65535],
            shared_per_block: 48 * 1024,
            shared_per_block_optin: 227 * 1024,
            total_memory: 80 << 30,
        }
    }

    #[test]
    fn shapes_over_the_limits_are_refused() {
        let l = h100();
        assert_eq!(LaunchShape::linear(1 << 20, 256, 80).violation(&l), None);
        assert!(
            LaunchShape::linear(1, 2048, 0)
                .violation(&l)
                .unwrap()
                .contains("threads per block")
        );
        assert!(
            LaunchShape::linear(0, 256, 0)
                .violation(&l)
                .unwrap()
                .contains("empty")
        );
        assert!(
            LaunchShape::linear(1 << 32, 256, 0)
                .violation(&l)
                .unwrap()
                .contains("grid")
        );
        assert!(
            LaunchShape::linear(1, 256, 228 * 1024)
                .violation(&l)
                .unwrap()
                .contains("shared")
        );
        let tall = LaunchShape {
            grid: [1, 1, 1],
            block: [1, 1, 128],
            shared_bytes: 0,
        };
        assert!(tall.violation(&l).unwrap().contains("block"));
    }
}
