//! Best-matching units: every device gives the CPU backend's indices exactly, in both
//! accumulator types (they sum alike), for dimensions around the kernel's staging step and
//! node and cell counts off its tiles; the f64 result equals a plain f64 search, and the f32
//! result is a nearest cell up to f32 rounding; exact ties (duplicated cells, integer data)
//! go to the lowest index, and so do distances that overflow to infinity; the case (12000 nodes of 12 against 200 × 200) on the GPU;
//! bad shapes and non-finite values refused.
//!
//! Training: batch and online epochs give every device the CPU backend's map to the bit, from
//! fresh data, in both accumulator types; with fixed seeds, points on a line order a 1D map and
//! a uniform square spreads a 2D map with a small topographic error; bad maps, nodes and
//! schedules are refused.

use rand_core::{RngCore, SeedableRng};
use warpkit::som::{Accumulate, Decay, Schedule, Som, best_matching_units};
use warpkit::{Backend, Device, Emulator, EmulatorOptions, Error, Philox};
use warpkit_tests::{devices, fresh_rng, random_vec};

/// The nearest cell to each node by f64 distances (each term rounded once, as the backends
/// round it), ties to the lowest index, with the distances of all cells.
fn nearest_f64(nodes: &[f32], cells: &[f32], dim: usize) -> Vec<(u32, Vec<f64>)> {
    nodes
        .chunks(dim)
        .map(|x| {
            let d: Vec<f64> = cells
                .chunks(dim)
                .map(|w| {
                    x.iter().zip(w).fold(0.0, |s, (&x, &w)| {
                        let t = x as f64 - w as f64;
                        t.mul_add(t, s)
                    })
                })
                .collect();
            let best = (0..d.len()).fold(0, |b, c| if d[c] < d[b] { c } else { b });
            (best as u32, d)
        })
        .collect()
}

fn check(d: &Device, nodes: &[f32], cells: &[f32], dim: usize, label: &str) {
    let want = nearest_f64(nodes, cells, dim);
    for acc in [Accumulate::F32, Accumulate::F64] {
        let label = format!("{} {label} dim={dim} {acc:?}", d.describe());
        let got = best_matching_units(&Backend::Device(d.clone()), nodes, cells, dim, acc).unwrap();
        let cpu = best_matching_units(&Backend::cpu(), nodes, cells, dim, acc).unwrap();
        let diff = got.iter().zip(&cpu).position(|(a, b)| a != b);
        assert!(
            diff.is_none(),
            "{label}: node {diff:?} differs from the CPU backend"
        );
        for (node, (&g, (best, distances))) in got.iter().zip(&want).enumerate() {
            let (g, best) = (g as usize, *best as usize);
            match acc {
                Accumulate::F64 => assert_eq!(g, best, "{label}: node {node}"),
                Accumulate::F32 => assert!(
                    g == best || distances[g] <= distances[best] * (1.0 + 1e-5),
                    "{label}: node {node}: cell {g} at {} against {best} at {}",
                    distances[g],
                    distances[best]
                ),
            }
        }
    }
}

#[test]
fn nearest_cells_on_random_data() {
    let mut rng = fresh_rng("som random");
    for d in devices("som random") {
        let large = matches!(d, Device::Gpu(_));
        for (count, cells, dim) in [
            (1, 1, 1),
            (70, 130, 3),
            (65, 64, 12),
            (100, 300, 33),
            (40, 150, 36),
            (33, 90, 44),
            (130, 70, 64),
            (5, 200, 257),
        ] {
            let nodes: Vec<f32> = random_vec(&mut rng, count * dim);
            let map: Vec<f32> = random_vec(&mut rng, cells * dim);
            check(&d, &nodes, &map, dim, &format!("{count} nodes, {cells} cells"));
        }
        if large {
            // The case: 12000 nodes of 12 against a 200 × 200 map.
            let nodes: Vec<f32> = random_vec(&mut rng, 12_000 * 12);
            let map: Vec<f32> = random_vec(&mut rng, 40_000 * 12);
            check(&d, &nodes, &map, 12, "12000 nodes, 200x200 map");
        }
    }
}

#[test]
fn exact_ties_go_to_the_lowest_index() {
    let mut rng = fresh_rng("som ties");
    for d in devices("som ties") {
        // Ten distinct cells repeated 20 times; nodes on the cells themselves and between.
        let dim = 5;
        let distinct: Vec<f32> = random_vec(&mut rng, 10 * dim);
        let map: Vec<f32> = (0..200)
            .flat_map(|c| distinct[(c % 10) * dim..][..dim].to_vec())
            .collect();
        let mut nodes = distinct.clone();
        nodes.extend(random_vec::<f32>(&mut rng, 90 * dim));
        check(&d, &nodes, &map, dim, "repeated cells");
        let got = best_matching_units(
            &Backend::Device(d.clone()),
            &nodes[..10 * dim],
            &map,
            dim,
            Accumulate::F32,
        )
        .unwrap();
        assert_eq!(
            got,
            (0..10).collect::<Vec<u32>>(),
            "{}: a cell's first copy",
            d.describe()
        );
        if matches!(d, Device::Gpu(_)) {
            // 4000 copies of each cell: ties between tiles of one slice and between slices,
            // which the first copy (the index among the distinct cells) must win.
            let map: Vec<f32> = (0..40_000)
                .flat_map(|c| distinct[(c % 10) * dim..][..dim].to_vec())
                .collect();
            let nodes: Vec<f32> = random_vec(&mut rng, 12_000 * dim);
            for acc in [Accumulate::F32, Accumulate::F64] {
                let got = best_matching_units(&Backend::Device(d.clone()), &nodes, &map, dim, acc).unwrap();
                let want = best_matching_units(&Backend::cpu(), &nodes, &distinct, dim, acc).unwrap();
                assert!(got == want, "{acc:?}: copies of a cell in other tiles won a tie");
            }
        }
        // Small integers: many exactly equal distances, exact in f32 too.
        let ints = |n: usize, rng: &mut warpkit::Philox| -> Vec<f32> {
            use rand_core::RngCore;
            (0..n).map(|_| (rng.next_u32() % 3) as f32).collect()
        };
        let (nodes, map) = (ints(300 * 4, &mut rng), ints(150 * 4, &mut rng));
        check(&d, &nodes, &map, 4, "integer data");
        // Distances that overflow f32 are all infinite: the first cell, on every backend.
        let far = vec![-3e38f32; 300];
        for b in [Backend::cpu(), Backend::Device(d.clone())] {
            for acc in [Accumulate::F32, Accumulate::F64] {
                let got = best_matching_units(&b, &[3e38, 1e38], &far, 1, acc).unwrap();
                assert_eq!(got, [0, 0], "{} {acc:?}", d.describe());
            }
        }
    }
}

#[test]
fn bad_input_is_refused() {
    for d in devices("som errors") {
        for b in [Backend::cpu(), Backend::Device(d.clone())] {
            let bmu = |nodes: &[f32], cells: &[f32], dim| {
                best_matching_units(&b, nodes, cells, dim, Accumulate::F32)
            };
            assert!(matches!(
                bmu(&[1.0; 4], &[1.0; 4], 0),
                Err(Error::OutOfRange { .. })
            ));
            assert!(matches!(bmu(&[], &[1.0; 4], 2), Err(Error::EmptyVector { .. })));
            assert!(matches!(bmu(&[1.0; 4], &[], 2), Err(Error::EmptyVector { .. })));
            assert!(matches!(
                bmu(&[1.0; 4], &[1.0; 5], 2),
                Err(Error::PartialVector { .. })
            ));
            assert!(matches!(
                bmu(&[1.0; 3], &[1.0; 4], 2),
                Err(Error::PartialVector { .. })
            ));
            assert!(matches!(
                bmu(&[1.0, f32::NAN], &[1.0; 4], 2),
                Err(Error::NotFinite {
                    what: "nodes",
                    index: 1
                })
            ));
            assert!(matches!(
                bmu(&[1.0; 2], &[1.0, 2.0, f32::INFINITY, 0.0], 2),
                Err(Error::NotFinite {
                    what: "cells",
                    index: 2
                })
            ));
        }
    }
}

/// `n` values uniform in [0, 1).
fn uniform(rng: &mut Philox, n: usize) -> Vec<f32> {
    (0..n)
        .map(|_| (rng.next_u32() >> 8) as f32 / (1 << 24) as f32)
        .collect()
}

/// `start` trained on `backend`, batch or online.
fn trained(start: &Som, backend: &Backend, nodes: &[f32], schedule: &Schedule, online: bool) -> Som {
    let mut map = start.clone();
    match online {
        false => map.train_batch(backend, nodes, schedule),
        true => map.train_online(backend, nodes, schedule),
    }
    .unwrap();
    map
}

/// Trains `start` on every backend, batch or online, and checks that each device's map is the
/// CPU backend's; returns the CPU backend's.
fn train_everywhere(start: &Som, nodes: &[f32], schedule: &Schedule, online: bool, label: &str) -> Som {
    let train = |b: &Backend| trained(start, b, nodes, schedule, online);
    let cpu = train(&Backend::cpu());
    for d in devices(label) {
        let got = train(&Backend::Device(d.clone()));
        let diff = got
            .weights()
            .iter()
            .zip(cpu.weights())
            .position(|(a, b)| a.to_bits() != b.to_bits());
        assert!(
            diff.is_none(),
            "{label} online={online} on {}: weight {diff:?} differs from the CPU backend's",
            d.describe()
        );
    }
    cpu
}

#[test]
fn training_gives_every_backend_the_same_map() {
    let mut rng = fresh_rng("som training");
    for (rows, cols, dim, count) in [(1, 1, 3, 5), (5, 7, 3, 150), (6, 4, 33, 90)] {
        let nodes = random_vec::<f32>(&mut rng, count * dim);
        let start = Som::random(rows, cols, dim, &nodes, rng.next_u64()).unwrap();
        for (accumulate, decay) in [
            (Accumulate::F32, Decay::Exponential),
            (Accumulate::F64, Decay::Linear),
        ] {
            let schedule = Schedule {
                seed: rng.next_u64(),
                accumulate,
                decay,
                ..Schedule::for_map(rows, cols, 3)
            };
            let label = format!("som training {rows}x{cols} dim={dim} {accumulate:?}");
            for online in [false, true] {
                let trained = train_everywhere(&start, &nodes, &schedule, online, &label);
                assert_ne!(trained.weights(), start.weights(), "{label}: the map moved");
            }
        }
    }
    // Online maps of several blocks (1600 cells: 7 blocks of 256, staged in shared memory, with
    // distances in f32 and in f64, whose candidates blocks exchange as one word and as two),
    // 2500 cells (10 blocks: more than an emulator of 2 workers holds at once, so there, below,
    // and on the GPU at 600 x 600 the cells stay in global memory, more than 256 a block):
    // candidates combined across blocks, with cells copied into other blocks for ties.
    let mut sizes = vec![
        (40, 40, 150, Accumulate::F32),
        (40, 40, 150, Accumulate::F64),
        (50, 50, 20, Accumulate::F32),
    ];
    if warpkit_tests::gpu_or_skip("som online 600x600").is_some() {
        sizes.push((600, 600, 60, Accumulate::F32));
    }
    for (rows, cols, count, accumulate) in sizes {
        let nodes = random_vec::<f32>(&mut rng, count * 2);
        let mut weights = Som::random(rows, cols, 2, &nodes, rng.next_u64())
            .unwrap()
            .weights()
            .to_vec();
        let copied = weights[..40].to_vec();
        weights[2 * rows * cols - 40..].copy_from_slice(&copied);
        let start = Som::from_weights(rows, cols, 2, weights).unwrap();
        let schedule = Schedule {
            seed: rng.next_u64(),
            accumulate,
            ..Schedule::for_map(rows, cols, 2)
        };
        let cpu = train_everywhere(
            &start,
            &nodes,
            &schedule,
            true,
            &format!("som online {rows}x{cols} {accumulate:?}"),
        );
        if rows == 50 {
            let two = EmulatorOptions {
                workers: 2,
                ..EmulatorOptions::default()
            };
            let emulator = Backend::Device(Device::Emulator(Emulator::with_options(two)));
            let got = trained(&start, &emulator, &nodes, &schedule, true);
            assert!(
                got == cpu,
                "som online 50x50, 2 workers: differs from the CPU backend's"
            );
        }
    }
    // The seed's case, one batch and one online epoch (12000 exchanges of candidates), on the GPU.
    if let Some(g) = warpkit_tests::gpu_or_skip("som training 200x200") {
        let nodes = random_vec::<f32>(&mut rng, 12_000 * 12);
        let start = Som::random(200, 200, 12, &nodes, 1).unwrap();
        let schedule = Schedule::for_map(200, 200, 1);
        for online in [false, true] {
            let train = |b: &Backend| trained(&start, b, &nodes, &schedule, online);
            assert!(
                train(&Backend::Device(g.clone())) == train(&Backend::cpu()),
                "200x200 online={online}: the GPU's map differs from the CPU backend's"
            );
        }
    }
}

/// Points on a line order a 1D map: after training, its weights rise or fall along it. Fixed
/// seeds; 500 points against 16 cells, a case where ordering is the rule (a random start mixes
/// the cells and the shrinking Gaussian sorts them).
#[test]
fn points_on_a_line_order_a_1d_map() {
    let mut rng = Philox::seed_from_u64(11);
    let points = uniform(&mut rng, 500);
    let start = Som::random(1, 16, 1, &points, 5).unwrap();
    for online in [false, true] {
        let schedule = Schedule::for_map(1, 16, 12);
        let map = train_everywhere(&start, &points, &schedule, online, "som line");
        let w = map.weights();
        let monotone = w.windows(2).all(|p| p[0] < p[1]) || w.windows(2).all(|p| p[0] > p[1]);
        assert!(monotone, "online={online}: weights {w:?} are not in order");
        // Spread over the line, not collapsed: the ends near its ends.
        let (low, high) = (w[0].min(w[15]), w[0].max(w[15]));
        assert!(low < 0.1 && high > 0.9, "online={online}: ends {low} and {high}");
    }
}

/// A uniform square spreads a 2D map: a low topographic error and cells over the whole square.
#[test]
fn a_uniform_square_spreads_a_2d_map() {
    let mut rng = Philox::seed_from_u64(12);
    let points = uniform(&mut rng, 2 * 1000);
    let start = Som::random(6, 6, 2, &points, 6).unwrap();
    let before = start.topographic_error(&points).unwrap();
    for online in [false, true] {
        let schedule = Schedule::for_map(6, 6, 15);
        let map = train_everywhere(&start, &points, &schedule, online, "som square");
        let error = map.topographic_error(&points).unwrap();
        println!("online={online}: topographic error {before} before, {error} after");
        assert!(error < 0.05, "online={online}: topographic error {error}");
        for k in 0..2 {
            let values = map.weights().iter().skip(k).step_by(2);
            let (low, high) = values.fold((1.0f32, 0.0f32), |(l, h), &v| (l.min(v), h.max(v)));
            assert!(
                low < 0.2 && high > 0.8,
                "online={online}: dimension {k} spans {low}..{high}"
            );
        }
    }
}

#[test]
fn bad_training_input_is_refused() {
    let nodes = [0.5f32; 8];
    assert!(matches!(
        Som::random(0, 3, 2, &nodes, 0),
        Err(Error::OutOfRange { .. })
    ));
    assert!(matches!(
        Som::random(3, 3, 0, &nodes, 0),
        Err(Error::OutOfRange { .. })
    ));
    assert!(matches!(
        Som::random(3, 3, 3, &nodes, 0),
        Err(Error::PartialVector { .. })
    ));
    assert!(matches!(
        Som::random(3, 3, 2, &[], 0),
        Err(Error::EmptyVector { .. })
    ));
    assert!(matches!(
        Som::from_weights(2, 2, 2, vec![0.0; 7]),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        Som::from_weights(1, 1, 2, vec![0.0, f32::NAN]),
        Err(Error::NotFinite { .. })
    ));
    let good = Schedule::for_map(3, 3, 2);
    let bad = [
        Schedule { epochs: 0, ..good },
        Schedule {
            radius: (0.0, 1.0),
            ..good
        },
        Schedule {
            radius: (1.0, 0.001),
            ..good
        },
        Schedule {
            radius: (2.0, f64::NAN),
            ..good
        },
        Schedule {
            rate: (1.5, 0.1),
            ..good
        },
        Schedule {
            rate: (0.5, 0.0),
            ..good
        },
    ];
    for d in devices("som training errors") {
        for b in [Backend::cpu(), Backend::Device(d.clone())] {
            let mut map = Som::random(3, 3, 2, &nodes, 0).unwrap();
            for s in &bad {
                assert!(map.train_batch(&b, &nodes, s).is_err(), "{s:?}");
                assert!(map.train_online(&b, &nodes, s).is_err(), "{s:?}");
            }
            assert!(matches!(
                map.train_batch(&b, &nodes[..7], &good),
                Err(Error::PartialVector { .. })
            ));
            assert!(matches!(
                map.train_online(&b, &[], &good),
                Err(Error::EmptyVector { .. })
            ));
            let mut nan = nodes;
            nan[3] = f32::NAN;
            assert!(matches!(
                map.train_batch(&b, &nan, &good),
                Err(Error::NotFinite { index: 3, .. })
            ));
            assert_eq!(
                map,
                Som::random(3, 3, 2, &nodes, 0).unwrap(),
                "refused calls leave the map"
            );
        }
    }
}
