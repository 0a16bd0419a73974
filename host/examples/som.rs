//! The classic self-organizing map: 4000 random colours, a 40 × 40 map of RGB cells trained in
//! batch epochs (progress printed as it goes), written as a picture, `pictures/som.png`, where
//! similar colours end up side by side. Nodes and cells are `glam::Vec3`s, passed without a
//! copy.
//!
//! `cargo run --release -p warpkit --features glam --example som`

use warpkit::glam::Vec3;
use warpkit::rand_core::{RngCore, SeedableRng};
use warpkit::som::{Accumulate, Schedule, Som, Training, Vector, flat};
use warpkit::{Backend, Philox};

const SIDE: usize = 40;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let backend = Backend::auto();
    println!("backend: {backend}");
    let mut rng = Philox::seed_from_u64(2026);
    let mut unit = || (rng.next_u32() >> 8) as f32 / (1 << 24) as f32;
    let colours: Vec<Vec3> = (0..4000).map(|_| Vec3::new(unit(), unit(), unit())).collect();

    let mut map = Som::random(SIDE, SIDE, Vec3::DIM, flat(&colours), 7)?;
    let schedule = Schedule::for_map(SIDE, SIDE, 40);
    println!("{map}, {schedule}");
    map.train_with(&backend, flat(&colours), &schedule, Training::Batch, |progress| {
        if progress.epoch % 10 == 0 {
            println!("{progress}");
        }
    })?;
    let error = map.topographic_error(flat(&colours))?;
    let cells: &[Vec3] = map.cells()?;

    // Ordered: neighbouring cells are far closer in colour than two colours picked at random
    // (about 0.66 apart on average in the unit cube).
    let across = |i: usize| cells[i].distance(cells[i + 1]);
    let neighbours = (0..cells.len() - 1).filter(|i| (i + 1) % SIDE != 0).map(across);
    let mean_step = neighbours.sum::<f32>() / (SIDE * (SIDE - 1)) as f32;
    println!("topographic error {error:.3}; neighbouring cells {mean_step:.3} apart in colour");
    assert!(mean_step < 0.15, "the map did not order: {mean_step}");

    let best = map.best_matching_units(&backend, flat(&colours), Accumulate::F32)?;
    let used = best.iter().collect::<std::collections::HashSet<_>>().len();
    println!("{used} of {} cells are some colour's best match", cells.len());
    println!("drawn: {}", draw(cells)?);
    Ok(())
}

/// The map as a picture, each cell a 12 × 12 square of its colour: `pictures/som.png`.
fn draw(cells: &[Vec3]) -> Result<String, Box<dyn std::error::Error>> {
    const PIXELS: u32 = 12;
    std::fs::create_dir_all("pictures")?;
    let path = "pictures/som.png";
    let side = SIDE as u32 * PIXELS;
    let picture = image::RgbImage::from_fn(side, side, |x, y| {
        let cell = cells[(y / PIXELS) as usize * SIDE + (x / PIXELS) as usize];
        let channel = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
        image::Rgb([channel(cell.x), channel(cell.y), channel(cell.z)])
    });
    picture.save(path)?;
    Ok(path.into())
}
