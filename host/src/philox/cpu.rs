//! The Philox stream with rayon: each fixed chunk of the output computes its own counter blocks,
//! so the words do not depend on the thread count.

use super::{counter_add, philox4x32_10};
use crate::runtime::cpu::{CHUNK, Cpu};
use rayon::prelude::*;

impl Cpu {
    /// Words `0 .. out.len()` of the Philox stream of `key` from `counter` (see
    /// [`crate::Device::philox_fill`]).
    pub fn philox_fill(&self, out: &mut [u32], key: [u32; 2], counter: [u32; 4]) {
        out.par_chunks_mut(CHUNK).enumerate().for_each(|(c, chunk)| {
            let first_block = (c * CHUNK / 4) as u64;
            for (b, words) in chunk.chunks_mut(4).enumerate() {
                let block = philox4x32_10(counter_add(counter, first_block + b as u64), key);
                words.copy_from_slice(&block[..words.len()]);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Philox;
    use rand_core::RngCore;

    #[test]
    fn philox_fill_continues_the_host_stream() {
        use rand_core::SeedableRng;
        let mut rng = Philox::seed_from_u64(0x1234_5678_9abc);
        let mut out = vec![0u32; CHUNK + 7];
        Cpu.philox_fill(&mut out, rng.key(), rng.next_counter());
        let expected: Vec<u32> = (0..out.len()).map(|_| rng.next_u32()).collect();
        assert_eq!(out, expected);
    }
}
