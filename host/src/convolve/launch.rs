//! Convolution on a device (GPU or emulator): the products of a call as jobs of one band
//! launch (`warpkit_kernels::convolve::band`), split over slices of the inner sum and summed by
//! a second launch when the outputs alone make too few blocks; or one launch of a seed kernel
//! per product. Every launch is checked: jobs name their vectors by offsets into the bound
//! buffers, and the kernels test each job against them.

use super::{Method, Operand, Plan, Real, Work};
use crate::error::{Error, Result};
use crate::runtime::bindings::Bindings;
use crate::runtime::device::{Device, DeviceBuffer};
use warpkit_kernels::convolve::band::{Band, INLINE_JOBS, InlineJobs, JOB_WORDS, Job, slices_for};
use warpkit_kernels::convolve::seed::{Seed, Version};
use warpkit_kernels::convolve::{Real as Sum, Stored};
use warpkit_kernels::kernel::{Checked, Kernel};

/// Runs `work` by the plan's method: each product reading its operands in `inputs` and writing
/// its target in `outputs` (spans the caller has checked against them).
pub(super) fn run<F: Real>(
    d: &Device,
    plan: Plan,
    inputs: &[&DeviceBuffer<F>],
    outputs: &mut [&mut DeviceBuffer<F>],
    work: impl Work,
) -> Result<()> {
    let method = plan.method;
    if method == Method::Band {
        let jobs = Jobs::new(work);
        return if plan.wide {
            jobs.launch::<F, f64, F::BandWide, F::SumSlicesWide>(d, inputs, outputs, u64::MAX)
        } else {
            jobs.launch::<F, F, F::Band, F::SumSlices>(d, inputs, outputs, u64::MAX)
        };
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
        let mut bind = d.bind();
        let s = Seed {
            m: a.span.len as u32,
            n: b.span.len as u32,
            p: bind.read(inputs[a.input])?.wrapping_add(a.span.offset),
            incp: a.span.stride as i64,
            q: bind.read(inputs[b.input])?.wrapping_add(b.span.offset),
            incq: b.span.stride as i64,
            r: bind
                .write(outputs[target.output])?
                .wrapping_add(target.span.offset),
            incr: target.span.stride as i64,
        };
        match method {
            Method::V0 => bind.launch::<F::V0>(s.plan(Version::V0), s),
            Method::V1 => bind.launch::<F::V1>(s.plan(Version::V1), s),
            Method::V2 => bind.launch::<F::V2>(s.plan(Version::V2), s),
            Method::V3 => bind.launch::<F::V3>(s.plan(Version::V3), s),
            Method::V4 => bind.launch::<F::V4>(s.plan(Version::V4), s),
            Method::Band => unreachable!("handled above"),
        }?;
    }
    Ok(())
}

/// An operand's element 0 as an offset in its input, and its stride in elements (negative if
/// reversed).
fn operand(op: &Operand) -> (u64, i64) {
    let span = op.span;
    if op.reversed {
        (span.index(span.len - 1) as u64, -(span.stride as i64))
    } else {
        (span.offset as u64, span.stride as i64)
    }
}

/// The jobs of one band launch, runs of equal products merged.
struct Jobs {
    jobs: Vec<Job>,
    /// Tiles and outputs of all jobs, and the longest `b`.
    tiles: u64,
    outputs: u64,
    longest: u64,
}

impl Jobs {
    /// All of `work` as jobs.
    fn new(work: impl Work) -> Jobs {
        let mut all = Jobs {
            jobs: Vec::new(),
            tiles: 0,
            outputs: 0,
            longest: 0,
        };
        for (product, target) in work {
            let (a, a_stride) = operand(&product.a);
            let (b, b_stride) = operand(&product.b);
            let job = Job {
                a,
                a_stride,
                a_len: product.a.span.len as u64,
                b,
                b_stride,
                b_len: product.b.span.len as u64,
                out: target.span.offset as u64,
                out_stride: target.span.stride as i64,
                lo: product.lo as u64,
                len: product.len as u64,
                first_tile: all.tiles,
                first_out: all.outputs,
                repeat: 1,
                a_step: 0,
                b_step: 0,
                out_step: 0,
                fields: Job::fields(product.a.input as u8, product.b.input as u8, target.output as u8),
            };
            all.tiles += job.tiles();
            all.outputs += job.len;
            all.longest = all.longest.max(job.b_len);
            if !all.jobs.last_mut().is_some_and(|run| extend(run, &job)) {
                all.jobs.push(job);
            }
        }
        all
    }

    /// The band launch `B` over these jobs, elements kept as `S` and summed in `F`, and with
    /// more than one slice its slice sums `K`; the kernels told that each output holds at
    /// most `told` elements (a test's guard past them).
    fn launch<S: Real + Stored<F>, F: Sum, B, K>(
        &self,
        d: &Device,
        inputs: &[&DeviceBuffer<S>],
        outputs: &mut [&mut DeviceBuffer<S>],
        told: u64,
    ) -> Result<()>
    where
        B: Kernel<Params = Band<S, F>>,
        K: Kernel<Params = Band<S, F>>,
        Band<S, F>: Checked,
    {
        let mut inline: InlineJobs = [0; INLINE_JOBS * JOB_WORDS];
        let list = if self.jobs.len() <= INLINE_JOBS {
            let words: &[u64] = bytemuck::cast_slice(&self.jobs);
            inline[..words.len()].copy_from_slice(words);
            None
        } else {
            Some(d.upload(&self.jobs)?)
        };
        // The slices' partial sums live in the device's launch scratch, kept between calls.
        let slices = slices_for(self.tiles, self.longest, &d.limits().launch);
        let partial_bytes = match slices {
            1 => 0,
            _ => (slices as u64 * self.outputs) as usize * size_of::<F>(),
        };
        let mut scratch = d.scratch(partial_bytes)?;
        let mut bind = d.bind();
        let how = (inline, list.as_ref(), slices, told);
        let p = self.params::<S, F>(&mut bind, how, (inputs, outputs), scratch.as_mut())?;
        // Bound first, so a call with nothing to do still refuses another device's buffers.
        if self.outputs == 0 {
            return Ok(());
        }
        bind.launch::<B>(p.plan(self.tiles), p)?;
        if slices > 1 {
            let mut bind = d.bind();
            let p = self.params::<S, F>(&mut bind, how, (inputs, outputs), scratch.as_mut())?;
            bind.launch::<K>(p.plan_sums(&d.limits().launch), p)?;
        }
        Ok(())
    }

    /// The parameters of a launch over these jobs (`inline`, or in `list`) with `slices`
    /// slices, binding the call's buffers as its fields (inputs read, outputs written, at most
    /// `told` elements of each output) and, with more than one slice, the partial sums in
    /// `scratch`.
    fn params<'a, S: Real + Stored<F>, F: Sum>(
        &self,
        bind: &mut Bindings<'a>,
        (inline, list, slices, told): (InlineJobs, Option<&'a DeviceBuffer<Job>>, u32, u64),
        (inputs, outputs): (&[&'a DeviceBuffer<S>], &'a mut [&mut DeviceBuffer<S>]),
        scratch: Option<&'a mut DeviceBuffer<u8>>,
    ) -> Result<Band<S, F>> {
        let mut input = |k: usize| -> Result<(*const S, u64)> {
            let buffer = inputs.get(k).copied();
            Ok((bind.read_or_null(buffer)?, buffer.map_or(0, |b| b.len() as u64)))
        };
        let (in0, in1, in2) = (input(0)?, input(1)?, input(2)?);
        let mut fields = outputs.iter_mut();
        let mut output = || -> Result<(*mut S, u64)> {
            match fields.next() {
                Some(out) => {
                    let len = (out.len() as u64).min(told);
                    Ok((bind.write(out)?, len))
                }
                None => Ok((std::ptr::null_mut(), 0)),
            }
        };
        let (out0, out1) = (output()?, output()?);
        let partial = match (slices, scratch) {
            (2.., Some(s)) => bind.write(s)?.cast::<F>(),
            _ => std::ptr::null_mut(),
        };
        Ok(Band {
            inline,
            list: bind.read_or_null(list)?,
            count: self.jobs.len() as u32,
            outputs: self.outputs,
            in0: in0.0,
            in0_len: in0.1,
            in1: in1.0,
            in1_len: in1.1,
            in2: in2.0,
            in2_len: in2.1,
            out0: out0.0,
            out0_len: out0.1,
            out1: out1.0,
            out1_len: out1.1,
            slices,
            partial,
        })
    }
}

/// One band launch over jobs of any contents, `words` ([`JOB_WORDS`] a job) in place of those a
/// call builds: `f32` elements read from `inputs` and written to the first `told` elements of
/// each of `outputs`, one slice or (`sliced`) several. How the kernels meet jobs they did not
/// make: whatever the words, no store may land at or past `told` (so that the safe launch is
/// sound); the elements past it are the caller's guard.
#[cfg(feature = "checks")]
pub fn band_with_jobs(
    d: &Device,
    (inputs, outputs): (&[&DeviceBuffer<f32>], &mut [&mut DeviceBuffer<f32>]),
    told: usize,
    words: &[u64],
    sliced: bool,
) -> Result<()> {
    use warpkit_kernels::convolve::band::CHUNK;
    use warpkit_kernels::convolve::kernels::ConvolveKernels;
    let jobs: Vec<Job> = words
        .chunks_exact(JOB_WORDS)
        .map(|w| Job::from_words(|k| w[k]))
        .collect();
    let all = Jobs {
        tiles: 4 * jobs.len() as u64,
        outputs: told as u64,
        // Several chunks of `b` make several slices (a few: the emulator runs every block).
        longest: if sliced { 8 * CHUNK as u64 } else { 1 },
        jobs,
    };
    all.launch::<f32, f32, <f32 as ConvolveKernels>::Band, <f32 as ConvolveKernels>::SumSlices>(
        d,
        inputs,
        outputs,
        told as u64,
    )
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
            j.fields,
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
