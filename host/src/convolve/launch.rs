//! Convolution on a device (GPU or emulator): the products of a call as jobs of one band
//! launch (`warpkit_kernels::convolve::band`), split over slices of the inner sum and summed by
//! a second launch when the outputs alone make too few blocks; or one launch of a seed kernel
//! per product. Every launch is checked: up to two jobs ride in the parameters holding the
//! addresses the bindings give the call's buffers (the band family's check finds each job's
//! vectors inside them); more go up as a list naming their vectors by offsets into the bound
//! buffers, and the kernels test each listed job against them.

use super::{LANES_UP_TO, Method, Operand, Plan, Real, Work, comparable};
use crate::error::{Error, Result};
use crate::runtime::bindings::Bindings;
use crate::runtime::device::{Device, DeviceBuffer};
use warpkit_kernels::convolve::band::{Band, BandList, slices_for, sums_shape};
#[cfg(feature = "checks")]
use warpkit_kernels::convolve::job::JOB_WORDS;
use warpkit_kernels::convolve::job::{INLINE_JOBS, InlineJobs, Job, Listed};
use warpkit_kernels::convolve::seed::{Seed, Version};
use warpkit_kernels::convolve::{Real as Sum, Stored};
use warpkit_kernels::kernel::Kernel;
use warpkit_kernels::policy::convolve::{WARP_SUMS_FROM, WARP_SUMS_WARPS};

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
    let cannot = |what| {
        Err(Error::MethodCannot {
            method: format!("{method:?}"),
            what,
        })
    };
    if matches!(method, Method::Band | Method::Lanes) {
        let jobs = Jobs::new(work);
        let inline = jobs.jobs.len() <= INLINE_JOBS;
        if method == Method::Lanes && !inline {
            return cannot("run more than two products of different shapes in one call");
        }
        let short = !plan.forced && inline && jobs.terms <= u128::from(LANES_UP_TO);
        let lanes = method == Method::Lanes || short;
        let all = usize::MAX;
        return if plan.wide {
            jobs.launch::<F, f64, (
                F::BandWide,
                F::SumSlicesWide,
                F::BandListedWide,
                F::SumSlicesListedWide,
                F::LaneSumsWide,
                F::WarpSumsWide,
            )>(d, inputs, outputs, all, lanes)
        } else {
            jobs.launch::<F, F, (
                F::Band,
                F::SumSlices,
                F::BandListed,
                F::SumSlicesListed,
                F::LaneSums,
                F::WarpSums,
            )>(d, inputs, outputs, all, lanes)
        };
    }
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
            Method::Band | Method::Lanes | Method::Fft => {
                unreachable!("run apart, by the band and FFT paths")
            }
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

/// A job of a call with its offsets and steps turned into bytes from the addresses of the
/// call's inputs and outputs (from 0 for one the call has not got: the launch's check refuses
/// it), for elements of `S`: the form an inline job takes.
fn inline_job<S>(listed: &Listed, inputs: &[u64], outputs: &[u64]) -> Job {
    let size = size_of::<S>() as u64;
    let address = |buffers: &[u64], k: u64, offset: u64| {
        let base = buffers.get(k as usize).copied().unwrap_or(0);
        base.wrapping_add(offset.wrapping_mul(size))
    };
    let bytes = |step: i64| step.wrapping_mul(size as i64);
    let (a, b, out) = listed.field_of();
    let j = listed.job;
    Job {
        a: address(inputs, a, j.a),
        b: address(inputs, b, j.b),
        out: address(outputs, out, j.out),
        a_step: bytes(j.a_step),
        b_step: bytes(j.b_step),
        out_step: bytes(j.out_step),
        ..j
    }
}

/// The band kernels of one element type `S` summed in `F`, as a tuple: over inline jobs, their
/// slice sums, over listed jobs, theirs, and the lane and warp kernels (over inline jobs).
trait BandKernels<S: Stored<F>, F: Sum> {
    type Inline: Kernel<Params = Band<S, F>>;
    type InlineSums: Kernel<Params = Band<S, F>>;
    type Listed: Kernel<Params = BandList<S, F>>;
    type ListedSums: Kernel<Params = BandList<S, F>>;
    type Lanes: Kernel<Params = Band<S, F>>;
    type Warps: Kernel<Params = Band<S, F>>;
}

impl<S: Stored<F>, F: Sum, B, K, L, LK, N, W> BandKernels<S, F> for (B, K, L, LK, N, W)
where
    B: Kernel<Params = Band<S, F>>,
    K: Kernel<Params = Band<S, F>>,
    L: Kernel<Params = BandList<S, F>>,
    LK: Kernel<Params = BandList<S, F>>,
    N: Kernel<Params = Band<S, F>>,
    W: Kernel<Params = Band<S, F>>,
{
    type Inline = B;
    type InlineSums = K;
    type Listed = L;
    type ListedSums = LK;
    type Lanes = N;
    type Warps = W;
}

/// The jobs of one band launch, runs of equal products merged, as a list names them.
struct Jobs {
    jobs: Vec<Listed>,
    /// Tiles and outputs of all jobs, and the longest `b`.
    tiles: u64,
    outputs: u64,
    longest: u64,
    /// Multiply-adds of all jobs, about (an output of a window as many as the shorter vector).
    terms: u128,
    /// Whether every job is a whole forward product of vectors within a factor of two of each
    /// other in length, whose outputs' terms rise and fall along it (the warp kernel's case:
    /// the lane kernel's busiest block holds up its launch there).
    triangular: bool,
}

impl Jobs {
    /// All of `work` as jobs.
    fn new(work: impl Work) -> Jobs {
        let mut all = Jobs {
            jobs: Vec::new(),
            tiles: 0,
            outputs: 0,
            longest: 0,
            terms: 0,
            triangular: true,
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
            };
            all.tiles += job.tiles();
            all.outputs += job.len;
            all.longest = all.longest.max(job.b_len);
            all.terms += u128::from(job.len) * u128::from(job.a_len.min(job.b_len));
            all.triangular &=
                job.lo == 0 && job.len + 1 == job.a_len + job.b_len && comparable(job.a_len, job.b_len);
            let fields = Listed::fields(product.a.input as u8, product.b.input as u8, target.output as u8);
            let listed = Listed { job, fields };
            if !all.jobs.last_mut().is_some_and(|run| extend(run, &listed)) {
                all.jobs.push(listed);
            }
        }
        all
    }

    /// The band launch over these jobs by `K`'s kernels, elements `S` summed in `F`, and with
    /// more than one slice its slice sums; or (`lanes`, at most [`INLINE_JOBS`] jobs) the lane
    /// launch, or the warp launch for [`WARP_SUMS_FROM`]'s products. The kernels may write only the first `told` elements of each output (a test's
    /// guard past them).
    fn launch<S: Real + Stored<F>, F: Sum, K: BandKernels<S, F>>(
        &self,
        d: &Device,
        inputs: &[&DeviceBuffer<S>],
        outputs: &mut [&mut DeviceBuffer<S>],
        told: usize,
        lanes: bool,
    ) -> Result<()> {
        // The slices' partial sums live in the device's launch scratch, kept between calls.
        let slices = match lanes {
            true => 1,
            false => slices_for(self.tiles, self.longest, &d.limits().launch),
        };
        let partial_bytes = match slices {
            1 => 0,
            _ => (slices as u64 * self.outputs) as usize * size_of::<F>(),
        };
        let mut scratch = d.scratch(partial_bytes)?;
        let list = match self.jobs.len() {
            0..=INLINE_JOBS => None,
            _ => Some(d.upload(&self.jobs)?),
        };
        let mut bind = d.bind();
        let partial = match (slices, scratch.as_mut()) {
            (2.., Some(s)) => bind.write(s)?.cast::<F>(),
            _ => std::ptr::null_mut(),
        };
        let sums = sums_shape(self.outputs, &d.limits().launch);
        let Some(list) = &list else {
            // Addresses of the inputs and outputs a list's fields would take (no allocation on
            // this path: it is the one small launches take).
            let (mut ins, mut outs) = ([0u64; 3], [0u64; 2]);
            let counts = (inputs.len().min(3), outputs.len().min(2));
            for (at, b) in ins.iter_mut().zip(inputs) {
                *at = bind.read(b)?.expose_provenance() as u64;
            }
            for (at, b) in outs.iter_mut().zip(outputs.iter_mut()) {
                *at = bind.write_first(b, told)?.expose_provenance() as u64;
            }
            let (inputs, outputs) = (&ins[..counts.0], &outs[..counts.1]);
            // Bound first, so a call with nothing to do still refuses another device's buffers.
            if self.outputs == 0 {
                return Ok(());
            }
            let mut jobs = [Job::default(); INLINE_JOBS];
            for (slot, job) in jobs.iter_mut().zip(&self.jobs) {
                *slot = inline_job::<S>(job, inputs, outputs);
            }
            let p = Band {
                inline: InlineJobs::new(jobs),
                count: self.jobs.len() as u32,
                tiles: self.tiles,
                outputs: self.outputs,
                slices,
                partial,
            };
            let warp_blocks = self.outputs.div_ceil(u64::from(WARP_SUMS_WARPS));
            if lanes
                && self.triangular
                && self.terms >= u128::from(self.outputs) * u128::from(WARP_SUMS_FROM)
                && warp_blocks <= u64::from(d.limits().launch.max_grid_dim[0])
            {
                return bind.launch::<K::Warps>(p.warp_sums_plan(), p);
            }
            if lanes {
                return bind.launch::<K::Lanes>(p.lanes_plan(&d.limits().launch), p);
            }
            bind.launch::<K::Inline>(p.plan(), p)?;
            return if slices > 1 {
                bind.launch::<K::InlineSums>(sums, p)
            } else {
                Ok(())
            };
        };
        let p = self.listed(&mut bind, list, (inputs, outputs), (told, slices, partial))?;
        if self.outputs == 0 {
            return Ok(());
        }
        bind.launch::<K::Listed>(p.plan(self.tiles), p)?;
        if slices > 1 {
            bind.launch::<K::ListedSums>(sums, p)?;
        }
        Ok(())
    }

    /// The parameters of a launch over these jobs in `list` with `slices` slices, binding the
    /// call's buffers as its fields (inputs read, outputs written, at most `told` elements of
    /// each output) and the partial sums.
    fn listed<'a, S: Real + Stored<F>, F: Sum>(
        &self,
        bind: &mut Bindings<'a>,
        list: &'a DeviceBuffer<Listed>,
        (inputs, outputs): (&[&'a DeviceBuffer<S>], &'a mut [&mut DeviceBuffer<S>]),
        (told, slices, partial): (usize, u32, *mut F),
    ) -> Result<BandList<S, F>> {
        let mut input = |k: usize| -> Result<(*const S, u64)> {
            let buffer = inputs.get(k).copied();
            Ok((bind.read_or_null(buffer)?, buffer.map_or(0, |b| b.len() as u64)))
        };
        let (in0, in1, in2) = (input(0)?, input(1)?, input(2)?);
        let mut fields = outputs.iter_mut();
        let mut output = || -> Result<(*mut S, u64)> {
            match fields.next() {
                Some(out) => {
                    let len = out.len().min(told) as u64;
                    Ok((bind.write(out)?, len))
                }
                None => Ok((std::ptr::null_mut(), 0)),
            }
        };
        let (out0, out1) = (output()?, output()?);
        Ok(BandList {
            list: bind.read(list)?,
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

/// Words a job takes in [`band_with_jobs`]: a [`Listed`] job's.
#[cfg(feature = "checks")]
pub const WORDS_WITH_FIELDS: usize = JOB_WORDS + 1;
#[cfg(feature = "checks")]
const _: () = assert!(size_of::<Listed>() == 8 * WORDS_WITH_FIELDS);

/// One band launch over jobs of any contents in place of those a call builds,
/// [`WORDS_WITH_FIELDS`] words a job: a [`Listed`] job's, vectors by element offsets into the
/// inputs and outputs its `fields` name. `f32` elements are read from `inputs` and written to
/// the first `told` elements of each of `outputs`, one slice or (`sliced`) several; the jobs
/// are chained (each one's first tile and output where the one before ends) as a call's are,
/// launched over at most four tiles and `4 * told` outputs a job, and go inline (at most [`INLINE_JOBS`], with the addresses of their buffers, address 0 for
/// one the call has not got) or listed as a call's would. How the band kernels meet jobs they
/// did not make: whatever the words, the launch is refused (`Error::LaunchContract`) or
/// stores nothing at or past `told`; the elements past it are the caller's guard.
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
    let (mut tiles, mut outs) = (0u64, 0u64);
    let jobs: Vec<Listed> = words
        .chunks_exact(WORDS_WITH_FIELDS)
        .map(|w| {
            let job = Job {
                first_tile: tiles,
                first_out: outs,
                ..Job::from_words(|k| w[k])
            };
            tiles = tiles.wrapping_add(job.repeat.wrapping_mul(job.tiles()));
            outs = outs.wrapping_add(job.repeat.wrapping_mul(job.len));
            Listed {
                job,
                fields: w[JOB_WORDS],
            }
        })
        .collect();
    // At most four tiles and `4 * told` outputs a job, so that hostile words launch a small
    // grid over small partial sums (the band check refuses inline jobs whose totals this cuts).
    let count = jobs.len() as u64;
    let all = Jobs {
        jobs,
        tiles: tiles.min(4 * count),
        outputs: outs.min(4 * count * told as u64),
        // Several chunks of `b` make several slices (a few: the emulator runs every block).
        longest: if sliced { 8 * CHUNK as u64 } else { 1 },
        terms: 0,
        triangular: false,
    };
    type Kernels = (
        <f32 as ConvolveKernels>::Band,
        <f32 as ConvolveKernels>::SumSlices,
        <f32 as ConvolveKernels>::BandListed,
        <f32 as ConvolveKernels>::SumSlicesListed,
        <f32 as ConvolveKernels>::LaneSums,
        <f32 as ConvolveKernels>::WarpSums,
    );
    all.launch::<f32, f32, Kernels>(d, inputs, outputs, told, false)
}

/// Takes `next` into `run` as its next product if it has the run's shape and buffers and lies
/// a step past its last (the step set by the run's second product).
fn extend(run: &mut Listed, next: &Listed) -> bool {
    let shape = |l: &Listed| {
        let j = &l.job;
        (
            (
                j.a_stride,
                j.a_len,
                j.b_stride,
                j.b_len,
                j.out_stride,
                j.lo,
                j.len,
            ),
            l.fields,
        )
    };
    if shape(run) != shape(next) {
        return false;
    }
    let (job, next) = (&mut run.job, &next.job);
    // From the run's last product to `next`, in elements.
    let step = |from: u64, step: i64, to: u64| {
        let last = from.wrapping_add(((job.repeat - 1) as i64).wrapping_mul(step) as u64);
        to.wrapping_sub(last) as i64
    };
    let steps = (
        step(job.a, job.a_step, next.a),
        step(job.b, job.b_step, next.b),
        step(job.out, job.out_step, next.out),
    );
    if job.repeat > 1 && steps != (job.a_step, job.b_step, job.out_step) {
        return false;
    }
    (job.a_step, job.b_step, job.out_step) = steps;
    job.repeat += 1;
    true
}
