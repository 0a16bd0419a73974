//! The CPU backend: the same primitives with rayon, in plain Rust. It serves machines without
//! a GPU and is the reference the GPU kernels are tested against.
//!
//! Work is split into fixed chunks (independent of the thread count), so float results repeat
//! exactly from run to run and machine to machine.

use crate::MAX_LEN;
use crate::element::Scalar;
use crate::error::{Result, check_len};
use crate::rng::{counter_add, philox4x32_10};
use rayon::prelude::*;

/// Elements per rayon task.
const CHUNK: usize = 1 << 16;

/// The CPU backend (stateless; rayon's global pool runs the work).
#[derive(Clone, Copy, Debug, Default)]
pub struct Cpu;

impl Cpu {
    /// Exclusive prefix sums of `input` (see [`crate::Device::exclusive_scan_into`]).
    pub fn exclusive_scan<T: Scalar>(&self, input: &[T]) -> Result<Vec<T>> {
        check_len("scan input", input.len(), MAX_LEN)?;
        let totals: Vec<T> = input.par_chunks(CHUNK).map(|c| sum_seq(c)).collect();
        let mut offsets = Vec::with_capacity(totals.len());
        let mut running = T::ZERO;
        for &t in &totals {
            offsets.push(running);
            running = running.add(t);
        }
        let mut out = vec![T::ZERO; input.len()];
        out.par_chunks_mut(CHUNK)
            .zip(input.par_chunks(CHUNK))
            .zip(offsets)
            .for_each(|((o, i), start)| {
                let mut running = start;
                for (o, &x) in o.iter_mut().zip(i) {
                    *o = running;
                    running = running.add(x);
                }
            });
        Ok(out)
    }

    /// The sum of `input`.
    pub fn sum<T: Scalar>(&self, input: &[T]) -> Result<T> {
        check_len("reduce input", input.len(), MAX_LEN)?;
        let partials: Vec<T> = input.par_chunks(CHUNK).map(|c| sum_seq(c)).collect();
        Ok(sum_seq(&partials))
    }

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

fn sum_seq<T: Scalar>(xs: &[T]) -> T {
    xs.iter().fold(T::ZERO, |a, &b| a.add(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Philox;
    use rand_core::RngCore;

    #[test]
    fn scan_and_sum_agree_with_a_sequential_loop_across_chunks() {
        let mut rng = Philox::seed_from_u64(1);
        use rand_core::SeedableRng;
        let input: Vec<u32> = (0..3 * CHUNK + 17).map(|_| rng.next_u32()).collect();
        let scan = Cpu.exclusive_scan(&input).unwrap();
        let mut running = 0u32;
        for (i, &x) in input.iter().enumerate() {
            assert_eq!(scan[i], running, "element {i}");
            running = running.wrapping_add(x);
        }
        assert_eq!(Cpu.sum(&input).unwrap(), running);
        assert!(Cpu.exclusive_scan::<f64>(&[]).unwrap().is_empty());
        assert_eq!(Cpu.sum::<f32>(&[]).unwrap(), 0.0);
    }

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
