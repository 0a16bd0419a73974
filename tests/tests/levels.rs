//! Warp- and block-level primitives (reduce, inclusive/exclusive scan, ballot histogram; argmin
//! and moments for the multi-word operators), each through its test kernel, on every device
//! against CPU references at every test size. Their reduction order is fixed, so the emulator
//! and the GPU must agree bit for bit, floats too.

use warpkit::checks::{
    BLOCK_THREADS, LOGICAL_WARP_WIDTHS, LOGICAL_WARP_WORDS, Level, LevelElement, LevelKernel, MOMENTS_WORDS,
    argmin, logical_warp, moments, moments_scan, run_level, warp_histogram_ballot,
};
use warpkit_tests::*;

fn check_level<T: TestValue + LevelElement>(k: LevelKernel) {
    let block = BLOCK_THREADS as usize;
    on_every_device(
        &format!("{k:?} {}", T::NAME),
        Agreement::Bitwise,
        random_vec::<T>,
        |device, input| {
            let d_in = device.upload(input)?;
            let mut d_out = device.filled(k.output_len(input.len()), T::poison())?;
            run_level(device, k, &d_in, &mut d_out)?;
            device.download(&d_out)
        },
        |input, got, label| match k {
            LevelKernel::WarpReduce => assert_segment_sums(input, got, 32, label),
            LevelKernel::BlockReduce => assert_segment_sums(input, got, block, label),
            LevelKernel::WarpScanInclusive => assert_segmented_scan(input, got, 32, true, label),
            LevelKernel::WarpScanExclusive => assert_segmented_scan(input, got, 32, false, label),
            LevelKernel::BlockScanExclusive => assert_segmented_scan(input, got, block, false, label),
        },
    );
}

macro_rules! level_tests {
    ($($name:ident: $t:ty, $k:ident);*) => {$(
        #[test]
        fn $name() {
            check_level::<$t>(LevelKernel::$k);
        }
    )*};
}
level_tests!(
    warp_reduce_u32: u32, WarpReduce;
    warp_reduce_f64: f64, WarpReduce;
    warp_scan_inclusive_u32: u32, WarpScanInclusive;
    warp_scan_inclusive_f64: f64, WarpScanInclusive;
    warp_scan_exclusive_u32: u32, WarpScanExclusive;
    warp_scan_exclusive_f64: f64, WarpScanExclusive;
    block_reduce_u32: u32, BlockReduce;
    block_reduce_f64: f64, BlockReduce;
    block_scan_exclusive_u32: u32, BlockScanExclusive;
    block_scan_exclusive_f64: f64, BlockScanExclusive
);

#[test]
fn warp_histogram_ballot_counts_and_ranks() {
    for m in [1u32, 2, 3, 7, 16, 31, 32] {
        let bits = 32 - (m - 1).leading_zeros();
        on_every_device(
            &format!("warp histogram m={m}"),
            Agreement::Bitwise,
            |rng, n| {
                let buckets: Vec<u32> = (0..n.min(1 << 24))
                    .map(|_| rand_core::RngCore::next_u32(rng) % m)
                    .collect();
                buckets
            },
            |device, buckets| {
                let n = buckets.len();
                let d_buckets = device.upload(buckets)?;
                let mut counts = device.filled(n.div_ceil(32) * 32, u32::MAX)?;
                let mut ranks = device.filled(n, u32::MAX)?;
                warp_histogram_ballot(device, &d_buckets, bits, &mut counts, &mut ranks)?;
                let mut out = device.download(&counts)?;
                out.extend(device.download(&ranks)?);
                Ok(out)
            },
            |buckets, got, label| {
                let (counts, ranks) = got.split_at(buckets.len().div_ceil(32) * 32);
                for (w, warp) in buckets.chunks(32).enumerate() {
                    let mut expected = [0u32; 32];
                    for (lane, &b) in warp.iter().enumerate() {
                        let i = 32 * w + lane;
                        assert_eq!(ranks[i], expected[b as usize], "{label}: rank of element {i}");
                        expected[b as usize] += 1;
                    }
                    for j in 0..(1usize << bits) {
                        assert_eq!(counts[32 * w + j], expected[j], "{label}: warp {w} bucket {j}");
                    }
                }
            },
        );
    }
}

/// Values with many ties (integers below 64, as f32), so the argmin's tie rule is exercised.
fn tied_values(rng: &mut warpkit::Philox, n: usize) -> Vec<f32> {
    (0..n)
        .map(|_| (rand_core::RngCore::next_u32(rng) % 64) as f32)
        .collect()
}

#[test]
fn argmin_takes_the_smallest_value_and_then_the_smallest_index() {
    for level in [Level::Warp, Level::Block] {
        on_every_device(
            &format!("argmin {level:?}"),
            Agreement::Bitwise,
            tied_values,
            |device, input| {
                let d_in = device.upload(input)?;
                let mut out = device.filled(2 * input.len().div_ceil(level.segment()), u32::MAX)?;
                argmin(device, level, &d_in, &mut out)?;
                device.download(&out)
            },
            |input, got, label| {
                for (s, segment) in input.chunks(level.segment()).enumerate() {
                    let (at, min) = segment
                        .iter()
                        .enumerate()
                        .fold(
                            (0, f32::INFINITY),
                            |(j, m), (k, &x)| if x < m { (k, x) } else { (j, m) },
                        );
                    let want = [min.to_bits(), (s * level.segment() + at) as u32];
                    assert_eq!(got[2 * s..2 * s + 2], want, "{label}: segment {s}");
                }
            },
        );
    }
}

/// The affine map `x ↦ a·x + b` (wrapping) of the logical-warp kernels, and their composition
/// (first map on the left).
fn affine_map(x: u32) -> (u32, u32) {
    (x | 1, x)
}

fn compose((a1, b1): (u32, u32), (a2, b2): (u32, u32)) -> (u32, u32) {
    (a2.wrapping_mul(a1), a2.wrapping_mul(b1).wrapping_add(b2))
}

/// The words the logical-warp kernels write for element `i` of `group` (the elements of its
/// logical warp that exist, the first at index `start`), as `warp::logical::CHECK_WORDS` lists
/// them.
fn logical_warp_reference(group: &[u32], start: usize, i: usize) -> [u32; LOGICAL_WARP_WORDS] {
    let k = i - start;
    let sum = group.iter().fold(0u32, |a, &x| a.wrapping_add(x));
    let fold = |maps: &[u32]| maps.iter().fold((1, 0), |m, &x| compose(m, affine_map(x)));
    let (total, inclusive, exclusive) = (fold(group), fold(&group[..=k]), fold(&group[..k]));
    // Smallest value, then smallest index: `min_by` keeps the first of equal values.
    let (at, value) = group
        .iter()
        .map(|&x| (x >> 26) as f32)
        .enumerate()
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap();
    [
        sum,
        total.0,
        total.1,
        inclusive.0,
        inclusive.1,
        exclusive.0,
        exclusive.1,
        total.0,
        total.1,
        value.to_bits(),
        (start + at) as u32,
    ]
}

/// Reduce (by a sum and by the non-commutative affine composition), both scans and argmin over
/// logical warps of every width, each lane's results against the CPU's. Small sizes only (every
/// width is a launch on the emulator): partial groups, a partial warp and several blocks.
#[test]
fn logical_warps_reduce_scan_and_argmin_within_each_group() {
    for device in devices("logical warps") {
        let mut rng = fresh_rng("logical warps");
        for n in [1usize, 7, 32, 45, 300, 1000] {
            let input = random_vec::<u32>(&mut rng, n);
            let d_in = device.upload(&input).unwrap();
            for width in LOGICAL_WARP_WIDTHS {
                let label = format!("logical warps of {width} n={n} on {}", device.describe());
                let mut d_out = device.filled(LOGICAL_WARP_WORDS * n, u32::MAX).unwrap();
                logical_warp(&device, width, &d_in, &mut d_out).unwrap_or_else(|e| panic!("{label}: {e}"));
                let got = device.download(&d_out).unwrap();
                for (g, group) in input.chunks(width as usize).enumerate() {
                    let start = g * width as usize;
                    for i in start..start + group.len() {
                        let want = logical_warp_reference(group, start, i);
                        let got = &got[LOGICAL_WARP_WORDS * i..LOGICAL_WARP_WORDS * (i + 1)];
                        assert_eq!(got, want, "{label}: element {i}");
                    }
                }
            }
            println!("logical warps n={n} on {}: checked", device.describe());
        }
    }
}

/// Values around 1000 with spread 1: the sum of squares would lose most digits to cancellation,
/// Chan's combine keeps them.
fn offset_values(rng: &mut warpkit::Philox, n: usize) -> Vec<f64> {
    random_vec::<f64>(rng, n)
        .into_iter()
        .map(|x| 1000.0 + x)
        .collect()
}

/// Count, mean and m2 from the kernels' words (count, mean low/high, m2 low/high).
fn decode_moments(w: &[u32]) -> (u32, f64, f64) {
    let f = |lo: u32, hi: u32| f64::from_bits(lo as u64 | (hi as u64) << 32);
    (w[0], f(w[1], w[2]), f(w[3], w[4]))
}

/// Checks moments against the two-pass values of `xs` (relative 1e-12 for the mean, 1e-10 of
/// the spread's scale for m2).
fn assert_moments(got: &[u32], xs: &[f64], what: &str) {
    let (count, mean, m2) = decode_moments(got);
    assert_eq!(count as usize, xs.len(), "{what}: count");
    if xs.is_empty() {
        assert_eq!((mean, m2), (0.0, 0.0), "{what}: the identity");
        return;
    }
    let want_mean = xs.iter().sum::<f64>() / xs.len() as f64;
    let want_m2: f64 = xs.iter().map(|x| (x - want_mean).powi(2)).sum();
    assert!(
        (mean - want_mean).abs() <= 1e-12 * want_mean.abs(),
        "{what}: mean {mean} vs {want_mean}"
    );
    assert!(
        (m2 - want_m2).abs() <= 1e-10 * (want_m2 + xs.len() as f64),
        "{what}: m2 {m2} vs {want_m2}"
    );
}

#[test]
fn moments_of_each_warp_and_block_match_two_pass() {
    for level in [Level::Warp, Level::Block] {
        on_every_device(
            &format!("moments {level:?}"),
            Agreement::Bitwise,
            offset_values,
            |device, input| {
                let d_in = device.upload(input)?;
                let words = MOMENTS_WORDS * input.len().div_ceil(level.segment());
                let mut out = device.filled(words, u32::MAX)?;
                moments(device, level, &d_in, &mut out)?;
                device.download(&out)
            },
            |input, got, label| {
                for (s, segment) in input.chunks(level.segment()).enumerate() {
                    let w = &got[MOMENTS_WORDS * s..MOMENTS_WORDS * (s + 1)];
                    assert_moments(w, segment, &format!("{label}: segment {s}"));
                }
            },
        );
    }
}

#[test]
fn moments_scan_gives_the_moments_before_each_element() {
    on_every_device(
        "moments exclusive scan",
        Agreement::Bitwise,
        offset_values,
        |device, input| {
            let d_in = device.upload(input)?;
            let mut out = device.filled(MOMENTS_WORDS * input.len(), u32::MAX)?;
            moments_scan(device, &d_in, &mut out)?;
            device.download(&out)
        },
        |input, got, label| {
            let block = BLOCK_THREADS as usize;
            // Two-pass at a few positions of each block (all of them would be quadratic).
            for i in (0..input.len()).filter(|i| i % block < 3 || i % 97 == 0 || i % block == block - 1) {
                let start = i - i % block;
                let w = &got[MOMENTS_WORDS * i..MOMENTS_WORDS * (i + 1)];
                assert_moments(w, &input[start..i], &format!("{label}: element {i}"));
            }
        },
    );
}
