//! What users print, keep and view: results as text (`Display`), saved with serde (feature
//! `serde`) and read back equal,
//! saved data that does not make a valid object refused with a typed error, alias tables
//! loaded on every device sampling as they did, and SOM nodes and cells as glam vectors
//! (feature `glam`) without copies, and long calls reporting their progress.

use glam::{Vec2, Vec3, Vec4};
use std::sync::Mutex;
use warpkit::alias::{AliasTable, Construction, SampleOptions, SavedTable};
use warpkit::moments::{Summary, summary};
use warpkit::multisplit::{Buckets, Multisplit, Split};
use warpkit::rand_core::{RngCore, SeedableRng};
use warpkit::som::{Accumulate, Schedule, Som, Training, Vector, best_matching_units, flat};
use warpkit::subset::Subsets;
use warpkit::{Backend, Error, Philox, WorkDone};
use warpkit_tests::*;

#[test]
fn results_print_as_text() {
    let backend = Backend::cpu();
    let s = summary(&backend, &[1.0f64, 2.0, 3.0, 6.0]).unwrap();
    assert_eq!(
        s.to_string(),
        "4 values: mean 3, variance 3.5, standard deviation 1.87083, min 1, max 6"
    );
    assert_eq!(
        format!("{s:.2}"),
        "4 values: mean 3, variance 3.5, standard deviation 1.9, min 1, max 6"
    );
    // Small and large figures keep their digits.
    let s = summary(&backend, &[1.5e-9f64, 2.5e-9, 1e12]).unwrap();
    assert_eq!(
        format!("{s:.3}"),
        "3 values: mean 3.33e11, variance 2.22e23, standard deviation 4.71e11, min 1.5e-9, max 1e12"
    );
    let split = Multisplit::new(Buckets::Modulo(3)).unwrap();
    let keys: Vec<u32> = (0..10).collect();
    assert_eq!(
        split.keys(&backend, &keys).unwrap().to_string(),
        "10 keys in 3 buckets of [4, 3, 3]"
    );
    let wide = Multisplit::new(Buckets::Modulo(20)).unwrap();
    let out = wide.pairs(&backend, &keys, &keys).unwrap();
    let text = out.to_string();
    assert!(
        text.starts_with("10 keys and values in 20 buckets of [1, 1, "),
        "{text}"
    );
    assert!(text.ends_with(", 0, … 4 more]"), "{text}");
    let table = AliasTable::new(&backend, &[1.0f32, 3.0]).unwrap();
    assert!(
        table
            .to_string()
            .starts_with("alias table of 2 f32 items by PSA+ (binary split, baseline pack) in host memory")
    );
    assert!(table.to_string().ends_with("in host memory"));
    let map = Som::random(20, 30, 3, &[0.0, 0.5, 1.0], 1).unwrap();
    assert_eq!(map.to_string(), "20 × 30 map of 3-value cells");
    // Subsets: a line each, and as a list of rows.
    let hands = Subsets::range(52, 5).unwrap().positions(&backend, 7, 2).unwrap();
    let lines: Vec<String> = hands
        .iter()
        .map(|h| h.iter().map(u16::to_string).collect::<Vec<_>>().join(" "))
        .collect();
    assert_eq!(hands.to_string(), lines.join("\n"));
    let rows: Vec<&[u16]> = hands.iter().collect();
    assert_eq!(format!("{hands:?}"), format!("{rows:?}"));
    let bits = Subsets::range(8, 8).unwrap().bits(&backend, 7, 1).unwrap();
    assert_eq!(format!("{bits:x}"), "ff");
    let schedule = Schedule::for_map(20, 30, 40);
    assert_eq!(
        schedule.to_string(),
        "40 epochs, radius 15 → 1 cells, rate 0.5 → 0.01, Exponential decay, seed 0, F32 distances"
    );
    // Progress: one line an epoch, in order, the last at the schedule's end.
    let mut lines = Vec::new();
    let nodes: Vec<f32> = (0..90).map(|i| (i % 9) as f32 / 9.0).collect();
    let mut map = Som::random(4, 4, 3, &nodes, 1).unwrap();
    let schedule = Schedule::for_map(4, 4, 5);
    let batch = Training::Batch;
    map.train_with(&backend, &nodes, &schedule, batch, |p| {
        lines.push((p.epoch, p.to_string()))
    })
    .unwrap();
    assert_eq!(lines.iter().map(|l| l.0).collect::<Vec<_>>(), [1, 2, 3, 4, 5]);
    assert!(
        lines[4].1.starts_with("epoch 5 of 5: radius 1.000 cells, ")
            && lines[4].1.ends_with(" s")
            && !lines[4].1.contains("rate"),
        "{}",
        lines[4].1
    );
    // Online training has a rate.
    let mut last = String::new();
    let online = Training::Online;
    let mut other = map.clone();
    other
        .train_with(&backend, &nodes, &schedule, online, |p| last = p.to_string())
        .unwrap();
    assert!(
        last.starts_with("epoch 5 of 5: radius 1.000 cells, rate 0.0100, "),
        "{last}"
    );
    let mut trained = Som::random(4, 4, 3, &nodes, 1).unwrap();
    trained.train_batch(&backend, &nodes, &schedule).unwrap();
    assert_eq!(trained, map, "reporting progress changes the map");
    assert!(backend.to_string().starts_with("CPU ("));
}

/// `value` through JSON and back.
fn round_trip<T: serde::Serialize + serde::de::DeserializeOwned>(value: &T) -> T {
    serde_json::from_str(&serde_json::to_string(value).unwrap()).unwrap()
}

#[test]
fn results_read_back_equal() {
    let mut rng = fresh_rng("saving results");
    let backend = Backend::cpu();
    let nodes: Vec<f32> = random_vec(&mut rng, 300 * 3);
    let nodes: Vec<f32> = nodes.iter().map(|x| x.fract().abs()).collect();
    let mut map = Som::random(5, 6, 3, &nodes, rng.next_u64()).unwrap();
    let schedule = Schedule {
        seed: rng.next_u64(),
        accumulate: Accumulate::F64,
        ..Schedule::for_map(5, 6, 4)
    };
    map.train_batch(&backend, &nodes, &schedule).unwrap();
    assert_eq!(round_trip(&map), map);
    assert_eq!(round_trip(&schedule), schedule);

    let data: Vec<f64> = random_vec(&mut rng, 1000);
    let s = summary(&backend, &data).unwrap();
    assert_eq!(round_trip::<Summary>(&s), s);

    let keys: Vec<u32> = random_vec(&mut rng, 1000);
    let values: Vec<u64> = random_vec(&mut rng, 1000);
    let split = Multisplit::new(Buckets::Modulo(7)).unwrap();
    let out = split.pairs(&backend, &keys, &values).unwrap();
    assert_eq!(round_trip::<Split<u32, u64>>(&out), out);
}

#[test]
fn saved_data_that_is_not_valid_is_refused() {
    // A map whose weights do not fill its shape, or hold a NaN.
    let short = r#"{"rows":2,"cols":2,"dim":2,"weights":[0,0,0,0,0,0,0]}"#;
    let err = serde_json::from_str::<Som>(short).unwrap_err().to_string();
    assert!(err.contains("expected 8 elements, got 7"), "{err}");
    let empty = r#"{"rows":0,"cols":2,"dim":2,"weights":[]}"#;
    assert!(serde_json::from_str::<Som>(empty).is_err());
    // Tables: rows and aliases of different lengths, an alias past the items, a threshold
    // outside [0, 1], no rows.
    let cpu = Backend::cpu();
    let bad = [
        (vec![1.0f64, 1.0], vec![0u32]),
        (vec![1.0, 0.5], vec![0, 2]),
        (vec![1.5, 1.0], vec![0, 1]),
        (vec![], vec![]),
    ];
    for (thresholds, aliases) in bad {
        let saved = SavedTable { thresholds, aliases };
        let refused = AliasTable::load(&cpu, &saved).unwrap_err();
        assert!(
            matches!(
                refused,
                Error::LengthMismatch { .. } | Error::Table(_) | Error::NoWeights
            ),
            "{saved:?}: {refused}"
        );
    }
}

/// A table saved from one backend and loaded on every device samples what the original does,
/// and its rows are the saved ones.
#[test]
fn alias_tables_load_on_every_device() {
    let mut rng = fresh_rng("saved alias tables");
    let weights: Vec<f64> = random_vec::<f64>(&mut rng, 5000)
        .iter()
        .map(|w| w.abs())
        .collect();
    let original = AliasTable::new(&Backend::cpu(), &weights).unwrap();
    let saved: SavedTable<f64> = round_trip(&original.save().unwrap());
    let seed = rng.next_u64();
    let draws = |t: &AliasTable<f64>| {
        t.sample(&mut Philox::seed_from_u64(seed), 10_000, SampleOptions::default())
            .unwrap()
    };
    let mut backends = vec![Backend::cpu()];
    backends.extend(devices("saved alias tables").into_iter().map(Backend::Device));
    for backend in &backends {
        let loaded = AliasTable::load(backend, &saved).unwrap();
        assert!(loaded.save().unwrap() == saved, "{backend}: rows differ");
        let same = loaded.probabilities().unwrap() == original.probabilities().unwrap();
        assert!(same, "{backend}: probabilities differ");
        if matches!(backend, Backend::Cpu(_)) {
            assert!(draws(&loaded) == draws(&original), "{backend}: samples differ");
        }
    }
    // f32 rows pack threshold and alias into one word on a device.
    let small = AliasTable::new(&Backend::cpu(), &[1.0f32, 2.0, 3.0, 0.0]).unwrap();
    let saved = small.save().unwrap();
    for backend in &backends {
        let loaded = AliasTable::load(backend, &saved).unwrap();
        assert!(loaded.save().unwrap() == saved, "{backend}: f32 rows differ");
    }
}

/// The reports of one call: `done` growing, the last at the total, and (on the CPU, whose
/// calls report as they go) more than a handful of them.
fn check_reports(what: &str, backend: &Backend, reports: Mutex<Vec<WorkDone>>) {
    let reports = reports.into_inner().unwrap();
    let done: Vec<u64> = reports.iter().map(|w| w.done).collect();
    assert!(
        done.windows(2).all(|d| d[0] < d[1]),
        "{what} on {backend}: {done:?}"
    );
    let last = reports
        .last()
        .unwrap_or_else(|| panic!("{what} on {backend}: no report"));
    assert_eq!(last.fraction(), 1.0, "{what} on {backend}");
    if matches!(backend, Backend::Cpu(_)) {
        assert!(
            reports.len() >= 10,
            "{what} on {backend}: {} reports",
            reports.len()
        );
    }
}

/// Alias builds and multisplits report progress on every backend, and build and split as
/// they do without it.
#[test]
fn long_calls_report_progress_and_give_the_same_results() {
    let mut rng = fresh_rng("progress of long calls");
    let n = 300_000;
    let weights: Vec<f32> = random_vec::<f32>(&mut rng, n).iter().map(|w| w.abs()).collect();
    let keys: Vec<u32> = (0..n).map(|_| rng.next_u32()).collect();
    let mut backends = vec![Backend::cpu()];
    backends.extend(devices("progress of long calls").into_iter().map(Backend::Device));
    for backend in &backends {
        for method in [Construction::PSA_BASELINE, Construction::PSA_PLUS_BASELINE] {
            let reports = Mutex::new(Vec::new());
            let reported =
                AliasTable::build_with(backend, &weights, method, |w| reports.lock().unwrap().push(*w))
                    .unwrap();
            check_reports("alias build", backend, reports);
            let plain = AliasTable::build(backend, &weights, method).unwrap();
            assert!(
                reported.rows().unwrap() == plain.rows().unwrap(),
                "{backend}: {method:?}"
            );
        }
        let reports = Mutex::new(Vec::new());
        let report = |w: &WorkDone| reports.lock().unwrap().push(*w);
        let split = Multisplit::new(Buckets::Modulo(5)).unwrap();
        let reported = split.with_progress(&report).keys(backend, &keys).unwrap();
        check_reports("multisplit", backend, reports);
        assert_eq!(reported, split.keys(backend, &keys).unwrap(), "{backend}");
    }
}

#[test]
fn glam_vectors_are_nodes_and_cells_without_copies() {
    let backend = Backend::cpu();
    let nodes: Vec<Vec3> = (0..200)
        .map(|i| Vec3::new((i % 10) as f32, (i % 7) as f32, (i % 3) as f32) / 10.0)
        .collect();
    let values = flat(&nodes);
    assert_eq!(values.as_ptr(), nodes.as_ptr().cast::<f32>());
    assert_eq!(
        (values.len(), values[3..6].to_vec()),
        (600, nodes[1].to_array().to_vec())
    );
    let mut map = Som::random(3, 4, Vec3::DIM, values, 5).unwrap();
    map.train_batch(&backend, values, &Schedule::for_map(3, 4, 5))
        .unwrap();
    let cells: &[Vec3] = map.cells().unwrap();
    assert_eq!(cells.as_ptr().cast::<f32>(), map.weights().as_ptr());
    assert_eq!(cells.len(), 12);
    // The units of glam nodes are those of the flat values.
    let by_vectors = best_matching_units(&backend, values, flat(cells), 3, Accumulate::F32);
    let by_values = best_matching_units(&backend, values, map.weights(), 3, Accumulate::F32);
    assert_eq!(by_vectors.unwrap(), by_values.unwrap());
    // Another dimension is refused; Vec2 and Vec4 are 2 and 4 values.
    assert!(matches!(map.cells::<Vec4>(), Err(Error::LengthMismatch { .. })));
    assert_eq!(flat(&[Vec2::ONE, Vec2::ZERO]), [1.0, 1.0, 0.0, 0.0]);
    assert_eq!(flat(&[Vec4::ONE]).len(), Vec4::DIM);
}
