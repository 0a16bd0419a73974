//! Launch shapes and device limits, common to both engines: a [`LaunchShape`] is compared with
//! the device's limits before anything reaches a driver or the emulator, so an impossible launch
//! is an `Error::LaunchShape`, not a CUDA fault.

/// What a device allows, read once when it is opened (a GPU) or fixed (the emulator, which
/// mirrors an H100 so that launches it accepts run on the GPU too).
#[derive(Clone, Debug)]
pub struct DeviceLimits {
    pub name: String,
    pub compute_capability: (i32, i32),
    pub multiprocessors: u32,
    pub max_threads_per_block: u32,
    pub max_block_dim: [u32; 3],
    pub max_grid_dim: [u32; 3],
    /// Dynamic shared memory a block may use without opting in.
    pub shared_per_block: u32,
    /// Dynamic shared memory a block may use after opting in (set per kernel by the launcher).
    pub shared_per_block_optin: u32,
    /// Shared memory of one multiprocessor, shared by its resident blocks.
    pub shared_per_multiprocessor: u32,
    /// Shared memory the system keeps per resident block, on top of what the launch asks.
    pub shared_reserved_per_block: u32,
    pub total_memory: usize,
}

impl DeviceLimits {
    /// The H100's launch limits, under another name and processor count.
    pub(crate) fn h100_like(name: String, multiprocessors: u32, total_memory: usize) -> DeviceLimits {
        DeviceLimits {
            name,
            compute_capability: (9, 0),
            multiprocessors,
            max_threads_per_block: 1024,
            max_block_dim: [1024, 1024, 64],
            max_grid_dim: [i32::MAX as u32, 65535, 65535],
            shared_per_block: 48 * 1024,
            shared_per_block_optin: 227 * 1024,
            shared_per_multiprocessor: 228 * 1024,
            shared_reserved_per_block: 1024,
            total_memory,
        }
    }

    /// Dynamic shared memory that lets at most `blocks` blocks reside on a multiprocessor (the
    /// alias paper's trick of limiting residency by reserving shared memory), within what one block
    /// may ask for.
    pub fn shared_for_blocks_per_multiprocessor(&self, blocks: u32) -> u32 {
        (self.shared_per_multiprocessor / blocks.max(1))
            .saturating_sub(self.shared_reserved_per_block)
            .min(self.shared_per_block_optin)
    }
}

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
    pub fn violation(&self, limits: &DeviceLimits) -> Option<String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn h100() -> DeviceLimits {
        DeviceLimits::h100_like("test".into(), 132, 80 << 30)
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
