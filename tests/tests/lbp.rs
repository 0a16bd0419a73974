//! Local binary pattern histograms: every device equal to the CPU backend for every
//! neighbourhood and input type, on the shortest signals (2n + 1, 2n + 2 elements), on
//! lengths that cross many tiles (and, on the GPU, a block's packed-count round), for
//! constant, increasing, decreasing and random signals (random with many ties, and f32 with
//! NaNs); the monotone and constant signals also against the bin the definition names, so
//! the reference is checked too. Batches of signals against each signal alone; outputs
//! poisoned first; bad neighbourhoods, short signals and bad offsets refused.

use warpkit::lbp::{Signal, bins, histogram, histograms, histograms_into};
use warpkit::{Backend, Device, Error, Philox};
use warpkit_tests::{cap, devices, fresh_rng};

use rand_core::RngCore;

/// A test signal type, from a small integer (ties come from small ranges) or raw bits.
trait Value: Signal + PartialOrd {
    fn from_int(i: i64) -> Self;
    /// A value of the type's whole range, or a NaN now and then for f32.
    fn wild(rng: &mut Philox) -> Self;
}

impl Value for i32 {
    fn from_int(i: i64) -> i32 {
        i as i32
    }
    fn wild(rng: &mut Philox) -> i32 {
        rng.next_u32() as i32
    }
}

impl Value for u32 {
    fn from_int(i: i64) -> u32 {
        i as u32
    }
    fn wild(rng: &mut Philox) -> u32 {
        rng.next_u32()
    }
}

impl Value for f32 {
    fn from_int(i: i64) -> f32 {
        i as f32
    }
    fn wild(rng: &mut Philox) -> f32 {
        match rng.next_u32() % 64 {
            0 => f32::NAN,
            _ => (rng.next_u32() as i32) as f32 * 1e-3,
        }
    }
}

/// The lengths tested on `d`: the shortest two, a few tiles on the emulator, and on the GPU a
/// million and ten million (more tiles than a block's packed round at n = 8).
fn lengths(d: &Device, n: u32) -> Vec<usize> {
    let short = 2 * n as usize + 1;
    let mut l = vec![short, short + 1];
    match d {
        Device::Gpu(_) => l.extend([1_000_003, 10_000_019].map(cap)),
        _ => l.push(cap(9_001)),
    }
    l.retain(|&len| len >= short);
    l
}

/// The signals of length `len`: name, values, and the one bin every pattern falls in, if
/// the definition says so.
fn signals<T: Value>(rng: &mut Philox, n: u32, len: usize) -> Vec<(&'static str, Vec<T>, Option<usize>)> {
    let half = (1usize << n) - 1;
    let all = bins(n) as usize - 1;
    vec![
        ("constant", vec![T::from_int(7); len], Some(all)),
        // Before the centre smaller (bits clear), after larger (bits set); and the reverse.
        (
            "increasing",
            (0..len as i64).map(T::from_int).collect(),
            Some(half << n),
        ),
        (
            "decreasing",
            (0..len as i64).rev().map(T::from_int).collect(),
            Some(half),
        ),
        (
            "ties",
            (0..len)
                .map(|_| T::from_int((rng.next_u32() % 4) as i64))
                .collect(),
            None,
        ),
        ("random", (0..len).map(|_| T::wild(rng)).collect(), None),
    ]
}

fn equal_to_the_reference<T: Value>() {
    let name = std::any::type_name::<T>();
    let mut rng = fresh_rng(&format!("lbp {name}"));
    for d in devices(&format!("lbp {name}")) {
        for n in 1..=8 {
            for len in lengths(&d, n) {
                for (kind, x, bin) in signals::<T>(&mut rng, n, len) {
                    let label = format!("{} {name} n={n} len={len} {kind}", d.describe());
                    let want = histogram(&Backend::cpu(), &x, n).unwrap();
                    assert_eq!(
                        want.iter().map(|&c| c as usize).sum::<usize>(),
                        len - 2 * n as usize
                    );
                    if let Some(bin) = bin {
                        assert_eq!(want[bin] as usize, len - 2 * n as usize, "{label}: reference");
                    }
                    let got = histogram(&Backend::Device(d.clone()), &x, n).unwrap();
                    let diff = got.iter().zip(&want).position(|(a, b)| a != b);
                    assert!(diff.is_none(), "{label}: bin {diff:?} differs");
                }
            }
        }
    }
}

#[test]
fn histograms_equal_the_reference_i32() {
    equal_to_the_reference::<i32>();
}

#[test]
fn histograms_equal_the_reference_u32() {
    equal_to_the_reference::<u32>();
}

#[test]
fn histograms_equal_the_reference_f32() {
    equal_to_the_reference::<f32>();
}

#[test]
fn a_nan_sets_no_bit_and_has_pattern_zero() {
    let x = [1.0f32, f32::NAN, 0.5, 2.0, 0.0];
    // n = 1, centres 1..4: NaN (0), 0.5 (left NaN: clear; right 2.0: set), 2.0 (neither).
    for d in devices("lbp nan") {
        let got = histogram(&Backend::Device(d.clone()), &x, 1).unwrap();
        assert_eq!(got, [2, 0, 1, 0], "{}", d.describe());
    }
}

#[test]
fn batches_equal_each_signal_alone() {
    let mut rng = fresh_rng("lbp batch");
    for d in devices("lbp batch") {
        let tile_scale = if matches!(d, Device::Gpu(_)) {
            300_000
        } else {
            5_000
        };
        for n in [1, 2, 5, 6, 8] {
            let short = 2 * n as usize + 1;
            let mut lens = vec![short, short + 1, tile_scale, 3, 2 * tile_scale + 1];
            lens.extend((0..200).map(|_| short + (rng.next_u32() % 70) as usize));
            lens.retain(|&l| l >= short);
            let mut offsets = vec![0];
            for l in &lens {
                offsets.push(offsets[offsets.len() - 1] + l);
            }
            let data: Vec<i32> = (0..offsets[lens.len()])
                .map(|_| (rng.next_u32() % 16) as i32)
                .collect();
            let got = histograms(&Backend::Device(d.clone()), &data, &offsets, n).unwrap();
            let b = bins(n) as usize;
            assert_eq!(got.len(), lens.len() * b);
            for (s, w) in offsets.windows(2).enumerate() {
                let alone = histogram(&Backend::cpu(), &data[w[0]..w[1]], n).unwrap();
                assert_eq!(
                    &got[s * b..(s + 1) * b],
                    &alone[..],
                    "{} n={n} signal {s}",
                    d.describe()
                );
            }

            // Into a poisoned buffer: every count overwritten.
            let input = d.upload(&data).unwrap();
            let mut out = d.filled(lens.len() * b, 0xDEAD_BEEFu32).unwrap();
            histograms_into(&d, &input, &offsets, n, &mut out).unwrap();
            assert_eq!(d.download(&out).unwrap(), got, "{} n={n} into", d.describe());
        }
    }
}

#[test]
fn bad_input_is_refused() {
    let x = [1i32; 20];
    for d in devices("lbp errors") {
        for b in [Backend::cpu(), Backend::Device(d.clone())] {
            for n in [0, 9] {
                assert!(matches!(histogram(&b, &x, n), Err(Error::OutOfRange { .. })));
            }
            assert!(matches!(
                histogram(&b, &x[..8], 4),
                Err(Error::SignalTooShort {
                    index: 0,
                    len: 8,
                    n: 4
                })
            ));
            assert!(matches!(
                histogram::<i32>(&b, &[], 1),
                Err(Error::SignalTooShort { .. })
            ));
            assert!(matches!(
                histograms(&b, &x, &[0, 10, 12, 20], 1),
                Err(Error::SignalTooShort {
                    index: 1,
                    len: 2,
                    n: 1
                })
            ));
            for offsets in [&[1, 20][..], &[0, 12, 10, 20], &[0, 10, 19], &[0, 10, 21]] {
                assert!(
                    matches!(histograms(&b, &x, offsets, 1), Err(Error::InvalidOffsets { .. })),
                    "{offsets:?}"
                );
            }
            assert!(matches!(
                histograms(&b, &x, &[0], 1),
                Err(Error::EmptyVector { .. })
            ));
        }
        let input = d.upload(&x).unwrap();
        let mut out = d.zeros::<u32>(bins(2) as usize + 1).unwrap();
        assert!(matches!(
            histograms_into(&d, &input, &[0, 20], 2, &mut out),
            Err(Error::LengthMismatch { .. })
        ));
    }
}
