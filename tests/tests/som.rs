//! Best-matching units: every device gives the CPU backend's indices exactly, in both
//! accumulator types (they sum alike), for dimensions around the kernel's staging step and
//! node and cell counts off its tiles; the f64 result equals a plain f64 search, and the f32
//! result is a nearest cell up to f32 rounding; exact ties (duplicated cells, integer data)
//! go to the lowest index, and so do distances that overflow to infinity; the case (12000 nodes of 12 against 200 × 200) on the GPU;
//! bad shapes and non-finite values refused.

use warpkit::som::{Accumulate, best_matching_units};
use warpkit::{Backend, Device, Error};
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
                Err(Error::LengthMismatch { .. })
            ));
            assert!(matches!(
                bmu(&[1.0; 3], &[1.0; 4], 2),
                Err(Error::LengthMismatch { .. })
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
