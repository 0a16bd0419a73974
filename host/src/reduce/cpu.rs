//! The CPU's sum: each fixed chunk summed in order (rayon), then the chunks' sums in order, so
//! float sums repeat on every machine; minimum and maximum, whose results do not depend on the
//! order. Each reads the input once.

use crate::MAX_LEN;
use crate::error::{Result, check_len, check_not_empty};
use crate::runtime::cpu::{CHUNK, Cpu, sum_seq};
use crate::runtime::element::Scalar;
use rayon::prelude::*;
use warpkit_kernels::op::Operator;

impl Cpu {
    /// The sum of `input`.
    pub fn sum<T: Scalar>(&self, input: &[T]) -> Result<T> {
        check_len("reduce input", input.len(), MAX_LEN)?;
        let partials: Vec<T> = input.par_chunks(CHUNK).map(|c| sum_seq(c)).collect();
        Ok(sum_seq(&partials))
    }

    /// The reduction of `input` by `op`: each fixed chunk in order, then the chunks' results
    /// in order (the identity for no elements).
    pub fn reduce_by<T: Scalar, O: Operator<T> + Sync>(&self, op: O, input: &[T]) -> Result<T> {
        check_len("reduce input", input.len(), MAX_LEN)?;
        let fold = |c: &[T]| c.iter().fold(op.identity(), |a, &x| op.combine(a, x));
        let partials: Vec<T> = input.par_chunks(CHUNK).map(fold).collect();
        Ok(fold(&partials))
    }

    /// The least element (see [`crate::Device::min_into`]); `Err(EmptyVector)` when empty.
    pub fn min<T: Scalar>(&self, input: &[T]) -> Result<T> {
        check_not_empty("min input", input.len())?;
        Ok(input.par_iter().copied().reduce(|| T::HIGHEST, T::lesser))
    }

    /// The greatest element (see [`crate::Device::max_into`]); `Err(EmptyVector)` when empty.
    pub fn max<T: Scalar>(&self, input: &[T]) -> Result<T> {
        check_not_empty("max input", input.len())?;
        Ok(input.par_iter().copied().reduce(|| T::LOWEST, T::greater))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sum_agrees_with_a_sequential_loop_across_chunks() {
        let mut input = vec![0u32; 3 * CHUNK + 17];
        Cpu.philox_fill(&mut input, [1, 0], [0; 4]); // the words of `Philox::seed_from_u64(1)`
        let running = input.iter().fold(0u32, |a, &x| a.wrapping_add(x));
        assert_eq!(Cpu.sum(&input).unwrap(), running);
        assert_eq!(Cpu.sum::<f32>(&[]).unwrap(), 0.0);
    }
}
