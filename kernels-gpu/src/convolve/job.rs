//! The band kernel's jobs: one banded product, or a run of equal products, in the two forms a
//! launch takes them. Up to [`INLINE_JOBS`] jobs ride in the parameters and hold their vectors'
//! addresses ([`InlineJobs`]): the host's binder checks them before the launch, so the kernel
//! tests nothing (a launch of one product or both gradients, where a microsecond counts). A
//! longer list goes up to device memory as [`Listed`] jobs, which name their vectors by offsets
//! into the launch's fields: the host cannot vouch for device memory, so the kernel tests each
//! listed job against its fields before it uses one.

use core::marker::PhantomData;

/// One banded product: vectors by where their element 0 is (an address in an inline job, an
/// element offset in its field in a [`Listed`] one) and a stride in elements (negative to read
/// one reversed), the output window `lo .. lo + len` of the full convolution, and where the
/// job's tiles and outputs start among all jobs'; or `repeat` products of that shape, the `r`-th
/// with its three vectors `r` steps further on (a batch of equal pairs is one job, so no job
/// list goes up for it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct Job {
    pub a: u64,
    pub a_stride: i64,
    pub a_len: u64,
    pub b: u64,
    pub b_stride: i64,
    pub b_len: u64,
    pub out: u64,
    pub out_stride: i64,
    pub lo: u64,
    pub len: u64,
    /// Tiles of the jobs before this one.
    pub first_tile: u64,
    /// Outputs of the jobs before this one (the job's place in the partial sums).
    pub first_out: u64,
    /// Products in the job, at least 1.
    pub repeat: u64,
    /// From one product's `a`, `b` and `out` to the next one's, in their units: bytes between
    /// addresses, elements between offsets.
    pub a_step: i64,
    pub b_step: i64,
    pub out_step: i64,
}

/// Words of a [`Job`].
pub const JOB_WORDS: usize = size_of::<Job>() / 8;

/// Jobs a launch can take among its parameters (a product, or both gradients), sparing the
/// upload of a job list: a copy from pageable memory cost about 5 µs a call.
pub const INLINE_JOBS: usize = 2;

/// The longest vector, window or output offset a kernel takes from a job (2^40 elements, far
/// past any buffer's): bounds that keep its index arithmetic from wrapping.
pub const MOST_ELEMENTS: u64 = 1 << 40;

/// A job of a list in device memory: its vectors as element offsets in the launch's fields,
/// which `fields` names ([`Listed::fields`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct Listed {
    pub job: Job,
    /// The fields of `a` and `b` (inputs) and of `out` (an output).
    pub fields: u64,
}

/// Jobs as plain data for the host (`bytemuck`), so a job list uploads as a typed buffer.
#[cfg(not(target_arch = "nvptx64"))]
mod pod {
    use super::{JOB_WORDS, Job, Listed};
    // SAFETY: `repr(C)` of 8-byte numbers only, so no padding; `Copy` and `'static`; every bit
    // pattern is a job (the binder checks inline jobs, the kernel listed ones).
    unsafe impl bytemuck::Zeroable for Job {}
    unsafe impl bytemuck::Pod for Job {}
    unsafe impl bytemuck::Zeroable for Listed {}
    unsafe impl bytemuck::Pod for Listed {}
    const _: () = assert!(size_of::<Job>() == 8 * JOB_WORDS && JOB_WORDS == 16);
    const _: () = assert!(size_of::<Listed>() == 8 * JOB_WORDS + 8);
}

impl Job {
    /// The job whose word `k` is `word(k)`, in field order.
    #[inline(always)]
    pub fn from_words(word: impl Fn(usize) -> u64) -> Job {
        Job {
            a: word(0),
            a_stride: word(1) as i64,
            a_len: word(2),
            b: word(3),
            b_stride: word(4) as i64,
            b_len: word(5),
            out: word(6),
            out_stride: word(7) as i64,
            lo: word(8),
            len: word(9),
            first_tile: word(10),
            first_out: word(11),
            repeat: word(12),
            a_step: word(13) as i64,
            b_step: word(14) as i64,
            out_step: word(15) as i64,
        }
    }

    /// Tiles of one product.
    #[inline(always)]
    pub fn tiles(&self) -> u64 {
        self.len.div_ceil(super::band::TILE as u64)
    }

    /// The product whose tiles or outputs (`per` of them a product) take in the `i`-th of
    /// the job's, as a job of its own. A single product is the job itself, without the 64-bit
    /// division (which cost about a microsecond a launch at m = n = 2048).
    #[inline(always)]
    pub fn product_of(&self, i: u64, per: impl Fn(&Job) -> u64) -> Job {
        if self.repeat == 1 {
            *self
        } else {
            self.nth(i / per(self).max(1))
        }
    }

    /// Product `r` as a job of its own (wrapping: the binder has checked every product of an
    /// inline job, and the kernel tests a listed one's before it uses it).
    #[inline(always)]
    pub fn nth(&self, r: u64) -> Job {
        let step = |base: u64, step: i64| base.wrapping_add((r as i64).wrapping_mul(step) as u64);
        Job {
            a: step(self.a, self.a_step),
            b: step(self.b, self.b_step),
            out: step(self.out, self.out_step),
            first_tile: self.first_tile.wrapping_add(r.wrapping_mul(self.tiles())),
            first_out: self.first_out.wrapping_add(r.wrapping_mul(self.len)),
            repeat: 1,
            ..*self
        }
    }
}

impl Listed {
    /// The `fields` word of a job reading input fields `a` and `b` and writing output field
    /// `out`.
    pub const fn fields(a: u8, b: u8, out: u8) -> u64 {
        a as u64 | (b as u64) << 8 | (out as u64) << 16
    }

    /// The input fields of `a` and `b` and the output field of `out`.
    #[inline(always)]
    pub fn field_of(&self) -> (u64, u64, u64) {
        (
            self.fields & 0xff,
            self.fields >> 8 & 0xff,
            self.fields >> 16 & 0xff,
        )
    }
}

/// The words of up to [`INLINE_JOBS`] jobs holding addresses of `S` elements, [`JOB_WORDS`] a
/// job: a kernel parameter laid out as its words alone.
#[derive(Debug)]
#[repr(transparent)]
pub struct InlineJobs<S> {
    pub words: [u64; INLINE_JOBS * JOB_WORDS],
    pub stored: PhantomData<S>,
}

impl<S> Clone for InlineJobs<S> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}

impl<S> Copy for InlineJobs<S> {}

impl<S> InlineJobs<S> {
    /// The words of `jobs` (a launch of fewer jobs leaves the last ones unread).
    #[cfg(not(target_arch = "nvptx64"))]
    pub fn new(jobs: [Job; INLINE_JOBS]) -> InlineJobs<S> {
        InlineJobs {
            words: bytemuck::cast(jobs),
            stored: PhantomData,
        }
    }

    /// Job `i` (`i < INLINE_JOBS`), picked by constant offsets, so the parameters are never
    /// indexed by a register (which would copy them to local memory).
    #[inline(always)]
    pub fn get(&self, i: u32) -> Job {
        let second = i != 0;
        Job::from_words(|k| {
            if second {
                self.words[JOB_WORDS + k]
            } else {
                self.words[k]
            }
        })
    }

    /// The last of the first `count` jobs whose `key` is at most `x` (jobs are sorted by it).
    #[inline(always)]
    pub fn find(&self, count: u32, x: u64, key: impl Fn(&Job) -> u64) -> Job {
        self.get(last_at_most(count, x, |i| key(&self.get(i))))
    }
}

/// The last of the `count >= 1` listed jobs at `list` whose `key` is at most `x` (jobs are
/// sorted by it; for jobs out of order, some job).
///
/// # Safety
/// `list` holds `count` jobs.
#[inline(always)]
pub unsafe fn find_listed(list: *const Listed, count: u32, x: u64, key: impl Fn(&Job) -> u64) -> Listed {
    // SAFETY: `last_at_most` asks only for `i < count`, and returns one.
    let at = |i: u32| unsafe { *list.add(i as usize) };
    at(last_at_most(count, x, |i| key(&at(i).job)))
}

/// The last `i < count` whose `key(i)` is at most `x`, by bisection (keys sorted; 0 if none
/// is, or for `count <= 1`).
#[inline(always)]
fn last_at_most(count: u32, x: u64, key: impl Fn(u32) -> u64) -> u32 {
    let (mut lo, mut hi) = (0, count);
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if key(mid) <= x {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Whether `len` elements from offset `at`, `stride` apart (down for a negative stride), all
/// lie below `cap`. The ends inside mean every element between them is.
#[inline(always)]
pub const fn inside(at: u64, stride: i64, len: u64, cap: u64) -> bool {
    if len == 0 {
        return true;
    }
    if at >= cap {
        return false;
    }
    match (len - 1).checked_mul(stride.unsigned_abs()) {
        Some(reach) if stride >= 0 => reach < cap - at,
        Some(reach) => reach <= at,
        None => false,
    }
}

/// The vector of an inline job whose element 0 is at address `at`.
#[inline(always)]
pub fn vector<S>(at: u64) -> *mut S {
    core::ptr::with_exposed_provenance_mut(at as usize)
}

/// Element `i` of the vector at `base`, `stride` elements apart.
#[inline(always)]
pub fn element<S>(base: *mut S, stride: i64, i: u64) -> *mut S {
    base.wrapping_offset((i as i64 * stride) as isize)
}
