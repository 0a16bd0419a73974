//! Warp- and block-level primitives (reduce, inclusive/exclusive scan, ballot histogram), each
//! through its test kernel, on every device against CPU references at every test size. Their
//! reduction order is fixed, so the emulator and the GPU must agree bit for bit, floats too.

use warpkit::checks::{BLOCK_THREADS, LevelElement, LevelKernel, run_level, warp_histogram_ballot};
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
