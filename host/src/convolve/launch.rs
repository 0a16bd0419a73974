//! Convolution on a device (GPU or emulator): the products of a call as jobs of one band
//! launch (`warpkit_kernels::convolve::band`), split over slices of the inner sum and summed by
//! a second launch when the outputs alone make too few blocks; or one launch of a seed kernel
//! per product.

use super::{Method, Operand, Plan, Real, Work};
use crate::error::{Error, Result};
use crate::runtime::device::Device;
use warpkit_kernels::convolve::band::{Band, INLINE_JOBS, InlineJobs, JOB_WORDS, Job, SumSlices, slices_for};
use warpkit_kernels::convolve::seed::{Seed, Version};
use warpkit_kernels::kernel::Kernel;

/// Runs `work` by `method`: each product reading `inputs` and writing its target in `outputs`.
///
/// # Safety
/// Every operand's span lies inside its input and every target's inside its output, all
/// device addresses of `d` valid until the work is done; no target shares an element with an
/// operand or another target.
pub(super) unsafe fn run<F: Real>(
    d: &Device,
    plan: Plan,
    inputs: &[*const F],
    outputs: &[*mut F],
    work: impl Work,
) -> Result<()> {
    let method = plan.method;
    if method == Method::Band {
        // SAFETY: forwarded.
        return unsafe { band(d, plan.wide, inputs, outputs, work) };
    }
    let cannot = |what| {
        Err(Error::MethodCannot {
            method: format!("{method:?}"),
            what,
        })
    };
    if plan.wide {
        return cannot("sum f32 in f64");
    }
    for (product, target) in work {
        let (a, b) = (product.a, product.b);
        if product.lo != 0 || product.len != a.span.len + b.span.len - 1 || a.reversed || b.reversed {
            return cannot("compute gradients or windows of a product");
        }
        let (p, incp) = operand(inputs, &a);
        let (q, incq) = operand(inputs, &b);
        let s = Seed {
            m: a.span.len as u32,
            n: b.span.len as u32,
            p: p as *const F,
            incp,
            q: q as *const F,
            incq,
            r: outputs[target.output].wrapping_add(target.span.offset),
            incr: target.span.stride as i64,
        };
        // SAFETY: `m >= n >= 1` (the larger operand is `a`), spans in range and the target
        // apart from the operands (the caller's contract), each launch its version's plan.
        unsafe {
            match method {
                Method::V0 => d.launch_unchecked::<F::V0>(s.plan(Version::V0), s),
                Method::V1 => d.launch_unchecked::<F::V1>(s.plan(Version::V1), s),
                Method::V2 => d.launch_unchecked::<F::V2>(s.plan(Version::V2), s),
                Method::V3 => d.launch_unchecked::<F::V3>(s.plan(Version::V3), s),
                Method::V4 => d.launch_unchecked::<F::V4>(s.plan(Version::V4), s),
                Method::Band => unreachable!("handled above"),
            }?
        }
    }
    Ok(())
}

/// The address of an operand's element 0 and its stride in elements (negative if reversed).
fn operand<F>(inputs: &[*const F], op: &Operand) -> (u64, i64) {
    let span = op.span;
    let base = inputs[op.input];
    if op.reversed {
        (
            base.wrapping_add(span.index(span.len - 1)) as u64,
            -(span.stride as i64),
        )
    } else {
        (base.wrapping_add(span.offset) as u64, span.stride as i64)
    }
}

/// All of `work` as jobs of one band launch (and its slice sums), summed in f64 if `wide`.
///
/// # Safety
/// As for [`run`].
unsafe fn band<F: Real>(
    d: &Device,
    wide: bool,
    inputs: &[*const F],
    outputs: &[*mut F],
    work: impl Work,
) -> Result<()> {
    let (mut tiles, mut total, mut longest) = (0u64, 0u64, 0u64);
    let mut jobs: Vec<Job> = Vec::new();
    for (product, target) in work {
        let (a, a_stride) = operand(inputs, &product.a);
        let (b, b_stride) = operand(inputs, &product.b);
        let job = Job {
            a,
            a_stride,
            a_len: product.a.span.len as u64,
            b,
            b_stride,
            b_len: product.b.span.len as u64,
            out: outputs[target.output].wrapping_add(target.span.offset) as u64,
            out_stride: target.span.stride as i64,
            lo: product.lo as u64,
            len: product.len as u64,
            first_tile: tiles,
            first_out: total,
            repeat: 1,
            a_step: 0,
            b_step: 0,
            out_step: 0,
        };
        tiles += job.tiles();
        total += job.len;
        longest = longest.max(job.b_len);
        if !jobs.last_mut().is_some_and(|run| extend(run, &job)) {
            jobs.push(job);
        }
    }
    if total == 0 {
        return Ok(());
    }
    let mut inline: InlineJobs = [0; INLINE_JOBS * JOB_WORDS];
    let list = if jobs.len() <= INLINE_JOBS {
        for (slot, job) in inline.chunks_exact_mut(JOB_WORDS).zip(&jobs) {
            slot.copy_from_slice(&job.words());
        }
        None
    } else {
        // SAFETY: `Job` is `repr(C)` of `JOB_WORDS` 8-byte fields, so no padding: the jobs'
        // memory is `JOB_WORDS` initialized u64 a job, 8-byte aligned.
        let words =
            unsafe { std::slice::from_raw_parts(jobs.as_ptr().cast::<u64>(), jobs.len() * JOB_WORDS) };
        Some(d.upload(words)?)
    };
    let list = match &list {
        Some(l) => d.ptr(l)?.cast::<Job>(),
        None => std::ptr::null(),
    };
    // The slices' partial sums live in the device's launch scratch, kept between calls.
    let slices = slices_for(tiles, longest, &d.limits().launch);
    let sum_bytes = if wide { size_of::<f64>() } else { size_of::<F>() };
    let partial_bytes = if slices > 1 {
        (slices as u64 * total) as usize * sum_bytes
    } else {
        0
    };
    let mut scratch = d.scratch(partial_bytes)?;
    let partial = match slices {
        1 => std::ptr::null_mut(),
        _ => d.ptr_mut(scratch.as_mut().expect("scratch allocated"))?,
    };
    let count = jobs.len() as u32;
    // SAFETY: valid jobs in order (built above from the caller's spans), inline if at most
    // `INLINE_JOBS`; `slices * total` partial sums when sliced (the scratch, held until both
    // launches are queued).
    unsafe {
        if wide {
            let p = Band {
                inline,
                list,
                count,
                outputs: total,
                partial: partial.cast(),
            };
            band_and_sums::<f64, F::BandWide, F::SumSlicesWide>(d, p, tiles, slices)
        } else {
            let p = Band {
                inline,
                list,
                count,
                outputs: total,
                partial: partial.cast(),
            };
            band_and_sums::<F, F::Band, F::SumSlices>(d, p, tiles, slices)
        }
    }
}

/// The band launch `B` of `p` over `tiles` tiles and `slices` slices, then (with more than one)
/// the slice sums `K`.
///
/// # Safety
/// `p` meets the band kernel's contract: valid jobs whose tiles number `tiles`, and with more
/// than one slice `slices * outputs` partial sums, held until both launches are queued.
unsafe fn band_and_sums<S: Real, B: Kernel<Params = Band<S>>, K: Kernel<Params = SumSlices<S>>>(
    d: &Device,
    p: Band<S>,
    tiles: u64,
    slices: u32,
) -> Result<()> {
    // SAFETY: the caller's contract, with the plan of the band kernel for these tiles.
    unsafe { d.launch_unchecked::<B>(p.plan(tiles, slices), p)? };
    if slices > 1 {
        let q = p.slice_sums(slices);
        // SAFETY: after the band launch over the same jobs with `slices` slices.
        unsafe { d.launch_unchecked::<K>(q.plan(&d.limits().launch), q)? };
    }
    Ok(())
}

/// Takes `next` into `run` as its next product if it has the run's shape and lies a step past
/// its last (the step set by the run's second product).
fn extend(run: &mut Job, next: &Job) -> bool {
    let shape = |j: &Job| {
        (
            j.a_stride,
            j.a_len,
            j.b_stride,
            j.b_len,
            j.out_stride,
            j.lo,
            j.len,
        )
    };
    let step = |from: u64, to: u64| to.wrapping_sub(from) as i64;
    let last = run.nth(run.repeat - 1);
    let steps = (
        step(last.a, next.a),
        step(last.b, next.b),
        step(last.out, next.out),
    );
    if shape(run) != shape(next) || (run.repeat > 1 && steps != (run.a_step, run.b_step, run.out_step)) {
        return false;
    }
    (run.a_step, run.b_step, run.out_step) = steps;
    run.repeat += 1;
    true
}
