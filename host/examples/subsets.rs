//! Random K-subsets: boards of a 15 x 15 grid with 141 stones placed uniformly, and poker
//! hands as sorted card positions.
//!
//! `cargo run --release -p warpkit --example subsets`

use warpkit::Backend;
use warpkit::subset::Subsets;

fn main() -> Result<(), warpkit::Error> {
    let backend = Backend::auto();
    println!("backend: {}", backend.describe());
    let board = Subsets::grid(15, 15, 141)?;
    let boards = board.bits(&backend, 7, 100_000)?; // seed 7; each board its bit vector
    let stones: u32 = boards[0].iter().map(|w| w.count_ones()).sum();
    assert_eq!(stones, 141);
    println!(
        "{} boards of {} words, the first with {stones} stones",
        boards.len(),
        boards.row_len()
    );

    let hands = Subsets::range(52, 5)?.positions(&backend, 7, 3)?;
    for hand in &hands {
        println!("hand: {hand:?}");
    }
    Ok(())
}
