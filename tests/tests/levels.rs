//! Warp- and block-level primitives (reduce, inclusive/exclusive scan, ballot histogram) on the
//! GPU, each through its test kernel, against CPU references at every test size.

use warpkit::Gpu;
use warpkit::checks::{LevelElement, LevelKernel, run_level, warp_histogram_ballot};
use warpkit_tests::*;

fn check_level<T: TestValue + LevelElement>(gpu: &Gpu, k: LevelKernel) {
    let mut rng = fresh_rng(&format!("{k:?} {}", T::NAME));
    let block = LevelKernel::BLOCK_THREADS as usize;
    for n in sizes(true) {
        let input = random_vec::<T>(&mut rng, n);
        let d_in = gpu.upload(&input).unwrap();
        let mut d_out = gpu.filled(k.output_len(n), T::poison()).unwrap();
        run_level(gpu, k, &d_in, &mut d_out).unwrap();
        let got = gpu.download(&d_out).unwrap();
        let label = format!("{k:?} {} n={n}", T::NAME);
        println!("{label}: ran");
        match k {
            LevelKernel::WarpReduce => assert_segment_sums(&input, &got, 32, &label),
            LevelKernel::BlockReduce => assert_segment_sums(&input, &got, block, &label),
            LevelKernel::WarpScanInclusive => assert_segmented_scan(&input, &got, 32, true, &label),
            LevelKernel::WarpScanExclusive => assert_segmented_scan(&input, &got, 32, false, &label),
            LevelKernel::BlockScanExclusive => assert_segmented_scan(&input, &got, block, false, &label),
        }
    }
}

macro_rules! level_tests {
    ($($name:ident: $t:ty, $k:ident);*) => {$(
        #[test]
        fn $name() {
            if let Some(gpu) = gpu_or_skip(stringify!($name)) {
                check_level::<$t>(&gpu, LevelKernel::$k);
            }
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
    let Some(gpu) = gpu_or_skip("warp_histogram_ballot_counts_and_ranks") else {
        return;
    };
    let mut rng = fresh_rng("warp histogram");
    for m in [1u32, 2, 3, 7, 16, 31, 32] {
        let bits = 32 - (m - 1).leading_zeros();
        for n in sizes(true).into_iter().filter(|&n| n <= 1 << 24) {
            let buckets: Vec<u32> = (0..n)
                .map(|_| rand_core::RngCore::next_u32(&mut rng) % m)
                .collect();
            let d_buckets = gpu.upload(&buckets).unwrap();
            let mut counts = gpu.filled(n.div_ceil(32) * 32, u32::MAX).unwrap();
            let mut ranks = gpu.filled(n, u32::MAX).unwrap();
            warp_histogram_ballot(&gpu, &d_buckets, bits, &mut counts, &mut ranks).unwrap();
            let (counts, ranks) = (gpu.download(&counts).unwrap(), gpu.download(&ranks).unwrap());
            for (w, warp) in buckets.chunks(32).enumerate() {
                let mut expected = [0u32; 32];
                for (lane, &b) in warp.iter().enumerate() {
                    assert_eq!(
                        ranks[32 * w + lane],
                        expected[b as usize],
                        "m={m} n={n} rank of element {}",
                        32 * w + lane
                    );
                    expected[b as usize] += 1;
                }
                for j in 0..(1usize << bits) {
                    assert_eq!(counts[32 * w + j], expected[j], "m={m} n={n} warp {w} bucket {j}");
                }
            }
        }
    }
}
