//! The launch contract of the band kernels over inline jobs ([`Band`]), checked on the host:
//! the jobs hold addresses, so the binder must find every product's vectors inside the bound
//! buffers, and the jobs must chain so that every block and thread finds a product.

use super::band::Band;
use super::job::{INLINE_JOBS, Job, MOST_ELEMENTS};
use super::{Real, Stored};
use crate::kernel::{Checked, Reach};
use crate::launch::LaunchShape;

/// The tiles and outputs of `jobs` if each starts where the one before ends (so a block or
/// thread that looks up its job finds one of its products) and holds at most
/// [`MOST_ELEMENTS`] of everything.
fn totals(jobs: &[Job]) -> Option<(u64, u64)> {
    let (mut tiles, mut outputs) = (0u64, 0u64);
    for j in jobs {
        let bounded = [j.a_len, j.b_len, j.lo, j.len, j.repeat]
            .iter()
            .all(|&x| x <= MOST_ELEMENTS);
        if !bounded || j.repeat == 0 || j.first_tile != tiles || j.first_out != outputs {
            return None;
        }
        tiles = tiles.checked_add(j.repeat.checked_mul(j.tiles())?)?;
        outputs = outputs.checked_add(j.repeat.checked_mul(j.len)?)?;
    }
    Some((tiles, outputs))
}

/// The bytes every product of a job reaches in one of its vectors: `len` elements of `S` from
/// address `at`, `stride` elements apart, and `repeat` such vectors `step` bytes apart. A span
/// that leaves the address space reaches everything (and is refused).
fn reach<S>(
    field: &'static str,
    (at, stride, len): (u64, i64, u64),
    (step, repeat): (i64, u64),
    writes: bool,
) -> Reach {
    let size = size_of::<S>() as i128;
    let across = i128::from(len.saturating_sub(1)) * i128::from(stride) * size;
    let along = i128::from(repeat.saturating_sub(1)) * i128::from(step);
    let low = i128::from(at) + across.min(0) + along.min(0);
    let high = i128::from(at) + across.max(0) + along.max(0) + size;
    let (addr, bytes) = if len == 0 {
        (0, 0)
    } else if low >= 0 && high <= usize::MAX as i128 {
        (low as usize, (high - low) as u128)
    } else {
        (0, u128::MAX)
    };
    Reach {
        field,
        addr,
        bytes,
        align: align_of::<S>(),
        writes,
        zeroed: 0,
    }
}

impl<S: Stored<F>, F: Real> Band<S, F> {
    /// `f` of the launch's jobs as the kernels read them, or `None` for a count they do not
    /// take.
    fn with_jobs<R>(&self, f: impl FnOnce(&[Job]) -> R) -> Option<R> {
        let all = [self.inline.get(0), self.inline.get(1)];
        const _: () = assert!(INLINE_JOBS == 2);
        all.get(..self.count as usize)
            .filter(|jobs| !jobs.is_empty())
            .map(f)
    }
}

// SAFETY: the kernels reach the partial sums with more than one slice (`slices * outputs`) and
// each product's `a`, `b` and outputs; `reach` covers every product of a job (a vector's hull
// over the job's products, so a job reaching two buffers is refused), and `totals` equal to
// the fields, with the band entry's exact grid, makes every block and thread find a product
// of its job below `repeat`. The jobs checked are the parameters' own words, which the kernels
// read.
unsafe impl<S: Stored<F>, F: Real> Checked for Band<S, F> {
    fn for_each_reach(&self, _shape: &LaunchShape, visit: &mut dyn FnMut(Reach)) {
        let partial_elements = match self.slices {
            0 | 1 => 0,
            s => u128::from(s) * u128::from(self.outputs),
        };
        visit(Reach {
            field: "partial",
            addr: self.partial.addr(),
            bytes: partial_elements * size_of::<F>() as u128,
            align: align_of::<F>(),
            writes: true,
            zeroed: 0,
        });
        self.with_jobs(|jobs| {
            for j in jobs {
                let (a, b) = ((j.a, j.a_stride, j.a_len), (j.b, j.b_stride, j.b_len));
                visit(reach::<S>("a of a job", a, (j.a_step, j.repeat), false));
                visit(reach::<S>("b of a job", b, (j.b_step, j.repeat), false));
                let out = (j.out, j.out_stride, j.len);
                visit(reach::<S>("outputs of a job", out, (j.out_step, j.repeat), true));
            }
        });
    }

    fn check(&self, _shape: &LaunchShape) -> bool {
        // Steps of whole elements, so that every product is as aligned as its reach's start.
        let size = size_of::<S>() as i64;
        let whole = |j: &Job| [j.a_step, j.b_step, j.out_step].iter().all(|s| s % size == 0);
        self.slices >= 1
            && self
                .with_jobs(|jobs| totals(jobs).filter(|_| jobs.iter().all(whole)))
                .flatten()
                .is_some_and(|all| all == (self.tiles, self.outputs))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convolve::band::TILE;
    use crate::convolve::job::InlineJobs;

    fn job(len: u64, repeat: u64) -> Job {
        Job {
            a_len: len,
            b_len: 3,
            len,
            repeat,
            ..Job::default()
        }
    }

    #[test]
    fn chained_jobs_give_their_totals_and_others_none() {
        let tile = u64::from(TILE);
        let mut jobs = [job(tile + 1, 3), job(5, 1)];
        jobs[1].first_tile = 6;
        jobs[1].first_out = 3 * (tile + 1);
        assert_eq!(totals(&jobs), Some((7, 3 * tile + 8)));
        let gap = Job {
            first_tile: 7,
            ..jobs[1]
        };
        assert_eq!(totals(&[jobs[0], gap]), None);
        assert_eq!(totals(&[job(5, 0)]), None);
        assert_eq!(totals(&[job(MOST_ELEMENTS + 1, 1)]), None);
    }

    #[test]
    fn a_reach_covers_every_product_either_way() {
        // Four f32 read backward from 0x1010, three products 8 bytes further each.
        let r = reach::<f32>("a", (0x1010, -1, 4), (8, 3), false);
        assert_eq!((r.addr, r.bytes), (0x1010 - 12, 12 + 16 + 4));
        let r = reach::<f32>("a", (0x1010, 1, 4), (-8, 3), true);
        assert_eq!((r.addr, r.bytes), (0x1010 - 16, 16 + 16));
        assert_eq!(reach::<f32>("a", (4, -1, 3), (0, 1), false).bytes, u128::MAX);
        assert_eq!(reach::<f32>("a", (4, -1, 0), (0, 1), false).bytes, 0);
    }

    #[test]
    fn steps_of_part_of_an_element_are_refused() {
        let band = |step: i64| {
            let mut one = job(5, 2);
            one.a_step = step;
            Band::<f32, f32> {
                inline: InlineJobs::new([one, Job::default()]),
                count: 1,
                tiles: 2,
                outputs: 10,
                slices: 1,
                partial: core::ptr::null_mut(),
            }
        };
        let shape = band(8).plan();
        assert!(band(8).check(&shape));
        assert!(!band(6).check(&shape));
    }
}
