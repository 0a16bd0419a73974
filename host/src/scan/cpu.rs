//! The CPU's exclusive and inclusive scans: each fixed chunk's total, the running offsets of the chunks, then
//! each chunk scanned from its offset (rayon, two reads and one write per element).

use crate::MAX_LEN;
use crate::error::{Result, check_len, check_same_len};
use crate::runtime::cpu::{CHUNK, Cpu, filled_by, sum_seq};
use crate::runtime::element::Scalar;
use rayon::prelude::*;

impl Cpu {
    /// Exclusive prefix sums of `input` (see [`crate::Device::exclusive_scan_into`]).
    pub fn exclusive_scan<T: Scalar>(&self, input: &[T]) -> Result<Vec<T>> {
        filled_by(input.len(), |out| self.exclusive_scan_into(input, out))
    }

    /// As [`Cpu::exclusive_scan`], into `out` of the input's length.
    pub fn exclusive_scan_into<T: Scalar>(&self, input: &[T], out: &mut [T]) -> Result<()> {
        scan_into(input, out, false)
    }

    /// Inclusive prefix sums of `input` into `out` of its length (see
    /// [`crate::Device::inclusive_scan_into`]).
    pub fn inclusive_scan_into<T: Scalar>(&self, input: &[T], out: &mut [T]) -> Result<()> {
        scan_into(input, out, true)
    }
}

/// The exclusive or inclusive scan of `input` into `out`.
fn scan_into<T: Scalar>(input: &[T], out: &mut [T], inclusive: bool) -> Result<()> {
    check_len("scan input", input.len(), MAX_LEN)?;
    check_same_len("scan output", input.len(), out.len())?;
    let totals: Vec<T> = input.par_chunks(CHUNK).map(|c| sum_seq(c)).collect();
    let mut offsets = Vec::with_capacity(totals.len());
    let mut running = T::ZERO;
    for &t in &totals {
        offsets.push(running);
        running = running.add(t);
    }
    out.par_chunks_mut(CHUNK)
        .zip(input.par_chunks(CHUNK))
        .zip(offsets)
        .for_each(|((o, i), start)| {
            let mut running = start;
            for (o, &x) in o.iter_mut().zip(i) {
                let before = running;
                running = running.add(x);
                *o = if inclusive { running } else { before };
            }
        });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Philox;
    use rand_core::{RngCore, SeedableRng};

    #[test]
    fn scan_agrees_with_a_sequential_loop_across_chunks() {
        let mut rng = Philox::seed_from_u64(1);
        let input: Vec<u32> = (0..3 * CHUNK + 17).map(|_| rng.next_u32()).collect();
        let scan = Cpu.exclusive_scan(&input).unwrap();
        let mut running = 0u32;
        for (i, &x) in input.iter().enumerate() {
            assert_eq!(scan[i], running, "element {i}");
            running = running.wrapping_add(x);
        }
        assert!(Cpu.exclusive_scan::<f64>(&[]).unwrap().is_empty());
    }
}
