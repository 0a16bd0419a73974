//! The SIMT layer's collectives and atomics through their check kernels, on every device,
//! against CPU references: votes, match, the active mask in a divergent branch, shuffles within
//! half-warp masks, `sync_warp` ordering shared memory, a block-wide vote at a barrier
//! (`sync_threads_or`), and every atomic under contention.

use rand_core::RngCore;
use warpkit::checks::{BLOCK_THREADS, CAS_CONTENDERS, COLLECTIVE_OUTPUTS, simt_atomics, simt_collectives};
use warpkit_tests::*;

/// The warp's lanes' values, 0 past the end of the input (as the kernel reads them).
fn lanes_of(input: &[u32], warp: usize) -> [u32; 32] {
    std::array::from_fn(|l| input.get(32 * warp + l).copied().unwrap_or(0))
}

fn mask_where(f: impl Fn(usize) -> bool) -> u32 {
    (0..32).filter(|&l| f(l)).fold(0, |m, l| m | 1 << l)
}

#[test]
fn collectives_match_the_reference() {
    on_every_device(
        "simt collectives",
        Agreement::Bitwise,
        |rng, n| random_vec::<u32>(rng, n.min(1 << 24)),
        |device, input| {
            let d_in = device.upload(input)?;
            let mut out = device.filled(COLLECTIVE_OUTPUTS * input.len(), u32::poison())?;
            simt_collectives(device, &d_in, &mut out)?;
            device.download(&out)
        },
        |input, got, label| {
            let block = BLOCK_THREADS as usize;
            for (i, result) in got.chunks(COLLECTIVE_OUTPUTS).enumerate() {
                let (w, l) = (i / 32, i % 32);
                let v = lanes_of(input, w);
                let b = i / block * block;
                let block_any = input[b..input.len().min(b + block)].iter().any(|x| x % 1000 == 7);
                let expected = [
                    mask_where(|j| v[j] & 1 != 0),
                    v.iter().any(|x| x % 64 == 0) as u32,
                    v.iter().all(|x| x % 64 != 0) as u32,
                    mask_where(|j| v[j] % 4 == v[l] % 4),
                    mask_where(|j| v[j] % 3 == v[l] % 3),
                    v[l ^ 1],
                    if l % 3 == 0 { mask_where(|j| j % 3 == 0) } else { 0 },
                    v[(l + 1) % 32],
                    block_any as u32,
                ];
                assert_eq!(result, expected, "{label}: element {i}");
            }
        },
    );
}

#[test]
fn atomics_match_the_reference() {
    on_every_device(
        "simt atomics",
        Agreement::ReferenceOnly,
        |rng, n| (0..n.min(1 << 24)).map(|_| rng.next_u32()).collect::<Vec<u32>>(),
        |device, input| {
            let d_in = device.upload(input)?;
            let mut init = [0u64; 13];
            init[1] = u32::MAX as u64;
            init[4] = u64::MAX;
            let mut counters = device.upload(&init)?;
            let mut olds = device.filled(input.len(), u32::poison())?;
            simt_atomics(device, &d_in, &mut counters, &mut olds)?;
            let mut out = device.download(&counters)?;
            out.extend(device.download(&olds)?.into_iter().map(u64::from));
            Ok(out)
        },
        |input, got, label| {
            let n = input.len() as u64;
            let (c, olds) = got.split_at(13);
            let low = |slot: usize| c[slot] as u32;
            let keyed = input
                .iter()
                .enumerate()
                .map(|(i, &v)| (v as u64) << 20 | i as u64);
            let sum: u64 = input.iter().map(|&v| v as u64).sum();
            assert_eq!(low(0), n as u32, "{label}: add_u32");
            assert_eq!(
                low(1),
                input.iter().copied().min().unwrap_or(u32::MAX),
                "{label}: min_u32"
            );
            assert_eq!(
                low(2),
                input.iter().copied().max().unwrap_or(0),
                "{label}: max_u32"
            );
            assert_eq!(c[3], sum, "{label}: add_u64");
            assert_eq!(c[4], keyed.clone().min().unwrap_or(u64::MAX), "{label}: min_u64");
            assert_eq!(c[5], keyed.max().unwrap_or(0), "{label}: max_u64");
            let odd = input.iter().filter(|&&v| v % 2 == 1).count();
            assert_eq!(f32::from_bits(low(6)), odd as f32, "{label}: add_f32");
            let high: u64 = input.iter().map(|&v| (v >> 8) as u64).sum();
            assert_eq!(f64::from_bits(c[7]), high as f64, "{label}: add_f64");
            let contenders = &input[..input.len().min(CAS_CONTENDERS as usize)];
            let contended: u64 = contenders.iter().map(|&v| v as u64).sum();
            assert_eq!(low(8), contenders.len() as u32, "{label}: CAS loop u32");
            assert_eq!(c[9], contended, "{label}: CAS loop u64");
            // The exchanges form one chain: the old values and the final one are 0..=n.
            let mut chain: Vec<u64> = olds.to_vec();
            chain.push(low(10) as u64);
            chain.sort_unstable();
            assert!(chain.iter().copied().eq(0..=n), "{label}: exchange_u32 chain");
            assert_eq!(c[11], n, "{label}: shared-memory add_u32");
            assert!(n == 0 || (1..=n).contains(&c[12]), "{label}: exchange_u64");
        },
    );
}
