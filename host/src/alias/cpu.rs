//! Construction and sampling on the CPU: Vose's sequential sweep, PSA and PSA+ with rayon, all
//! over the very sweep the GPU kernels run (`warpkit_kernels::alias`), so their tables are the
//! same (PSA+ uses the devices' tiles, so its tables equal theirs too).

use super::{AliasWeight, Construction, Stream, quantize_scale};
use crate::error::Result;
use crate::runtime::cpu::{Cpu, SharedWrites};
use crate::runtime::progress::Tracker;
use rayon::prelude::*;
use warpkit_kernels::alias::partition::PARTITION_TILE;
use warpkit_kernels::alias::plus::{BinarySearch, Greedy, TileItems};
use warpkit_kernels::alias::split::{Prefix, heavy_range, search, spill};
use warpkit_kernels::alias::sweep::rows;
use warpkit_kernels::alias::{Entry, Row, Shape, Weight, sample::draw_quad};

/// Items per rayon task in the element-wise passes, and rows per PSA section at least.
const CHUNK: usize = 1 << 16;

/// The table of `weights` (already checked) by `method`, its work counted by `tracker`.
pub(super) fn build<F: AliasWeight>(
    weights: &[F],
    method: Construction,
    tracker: &Tracker,
) -> Result<Vec<Row<F>>> {
    let mut table = vec![Row::default(); weights.len()];
    build_into(weights, method, &mut table, tracker)?;
    Ok(table)
}

/// Units of work in building a table of `n` rows, as [`build_into`] counts them: an item
/// through each of four passes (the sum, quantizing, partitioning or the tiles, the sweep).
pub(super) fn work(n: usize) -> u64 {
    4 * n as u64
}

/// The quantized weights and the shape of the whole table (no light count yet).
fn quantized<F: AliasWeight>(weights: &[F], tracker: &Tracker) -> Result<(Vec<u64>, Shape)> {
    let total = weights
        .par_chunks(CHUNK)
        .map(|c| {
            tracker.add(c.len() as u64);
            c.iter().map(|w| w.to_f64()).sum::<f64>()
        })
        .collect::<Vec<_>>()
        .iter()
        .sum();
    let quantizer = quantize_scale::<F>(weights.len(), total)?;
    let q: Vec<u64> = weights
        .par_iter()
        .map(|w| quantizer.quantize(w.to_f64()))
        .collect();
    let n = weights.len() as u64;
    tracker.add(n);
    let shape = Shape::whole(n, 0, q.par_iter().sum());
    Ok((q, shape))
}

/// The partitioned items of `q` (items `first..`): light ones, then heavy ones, each in index
/// order, and how many are light.
fn partition(shape: &Shape, q: &[u64], first: usize) -> (Vec<Entry>, u64) {
    let entries = q
        .par_iter()
        .enumerate()
        .map(|(i, &q)| Entry::new((first + i) as u32, q));
    let (mut light, heavy): (Vec<Entry>, Vec<Entry>) = entries.partition(|e| shape.is_light(e.q));
    let n_light = light.len() as u64;
    light.extend(heavy);
    (light, n_light)
}

/// Builds into `table` (of `weights.len()` rows), its [`work`] counted by `tracker`, which
/// then reports the call done.
pub(super) fn build_into<F: AliasWeight>(
    weights: &[F],
    method: Construction,
    table: &mut [Row<F>],
    tracker: &Tracker,
) -> Result<()> {
    let built = build_counted(weights, method, table, tracker);
    tracker.finish();
    built
}

/// [`build_into`] but for the final report.
fn build_counted<F: AliasWeight>(
    weights: &[F],
    method: Construction,
    table: &mut [Row<F>],
    tracker: &Tracker,
) -> Result<()> {
    let (q, whole) = quantized(weights, tracker)?;
    let out = F::shared_rows(table);
    if let Construction::PsaPlus { .. } = method {
        return build_plus(&q, &whole, &out, tracker);
    }
    let (entries, n_light) = partition(&whole, &q, 0);
    tracker.add(whole.n);
    let shape = Shape { n_light, ..whole };
    let mut weights_q: Vec<u64> = entries.iter().map(|e| e.q).collect();
    weights_q.push(0);
    let prefix = Cpu.exclusive_scan(&weights_q)?;
    let sections = match method {
        Construction::Sequential => 1,
        _ => sections_for(shape.n),
    };
    psa(
        &shape,
        &entries,
        |t| shape.scaled(prefix[t as usize]),
        sections,
        (&out, tracker),
    );
    Ok(())
}

/// PSA sections for `n` rows: several per rayon thread, of at least [`CHUNK`] rows.
fn sections_for(n: u64) -> u64 {
    let rows = n
        .div_ceil(rayon::current_num_threads() as u64 * 8)
        .max(CHUNK as u64);
    n.div_ceil(rows)
}

/// PSA over the partitioned `entries` with prefix sums `prefix` (scaled units): `sections`
/// sections of equal rows, one rayon task each, each counting its rows done to `tracker`.
fn psa<F: Weight>(
    shape: &Shape,
    entries: &[Entry],
    prefix: impl Prefix + Sync,
    sections: u64,
    (out, tracker): (&SharedWrites<Row<F>>, &Tracker),
) {
    let rows_per_section = shape.n.div_ceil(sections);
    let split_at = |k: u64| {
        let (lo, hi) = heavy_range(shape, k);
        search(shape, &prefix, k, lo, hi)
    };
    let light = |i: u64| entries[i as usize];
    let heavy = |j: u64| entries[(shape.n_light + j) as usize];
    (0..sections).into_par_iter().for_each(|s| {
        let (first, end) = (
            (s * rows_per_section).min(shape.n),
            ((s + 1) * rows_per_section).min(shape.n),
        );
        let (from, to) = (split_at(first), split_at(end));
        rows(
            shape,
            from,
            to,
            spill(shape, &prefix, from),
            light,
            heavy,
            |item, row, _| out.write(item as usize, row),
        );
        tracker.add(end - first);
    });
}

/// One PSA+ tile on the CPU: its items partitioned, with local prefix sums.
struct Tile {
    entries: Vec<Entry>,
    /// `items + 1` exclusive sums.
    prefix: Vec<u64>,
    light: u64,
}

impl Tile {
    /// The tile of quantized weights `q`, items `first..`, in the table `whole`.
    fn new(whole: &Shape, q: &[u64], first: usize) -> Tile {
        let (entries, light) = partition(whole, q, first);
        let mut prefix = vec![0];
        prefix.extend(entries.iter().scan(0, |sum, e| {
            *sum += e.q;
            Some(*sum)
        }));
        Tile {
            entries,
            prefix,
            light,
        }
    }
}

impl TileItems for Tile {
    fn items(&self) -> u64 {
        self.entries.len() as u64
    }
    fn light(&self) -> u64 {
        self.light
    }
    fn entry(&self, slot: u64) -> Entry {
        self.entries[slot as usize]
    }
    fn prefix(&self, slot: u64) -> u64 {
        self.prefix[slot as usize]
    }
}

/// What one tile leaves for the PSA step: its light and its heavy leftovers.
type TileLeftovers = [Vec<Entry>; 2];

/// PSA+: each tile's greedy rows (the devices' tiles and rule), then PSA over the leftovers.
fn build_plus<F: Weight>(
    q: &[u64],
    whole: &Shape,
    out: &SharedWrites<Row<F>>,
    tracker: &Tracker,
) -> Result<()> {
    let tiles: Vec<TileLeftovers> = q
        .par_chunks(PARTITION_TILE as usize)
        .enumerate()
        .map(|(b, q)| {
            let tile = Tile::new(whole, q, b * PARTITION_TILE as usize);
            let greedy = Greedy::of(&tile, whole, &BinarySearch);
            // Greedy rows are the tile's own items', which no other tile or the PSA step writes.
            greedy.write_rows(&tile, whole, 0, greedy.rows(), |item, row, _| {
                out.write(item as usize, row)
            });
            tracker.add(q.len() as u64);
            let (light_left, heavy_left) = greedy.leftovers(&tile);
            let left = |from: u64, count: u64| {
                (from..from + count)
                    .map(|s| greedy.leftover(&tile, s).0)
                    .collect()
            };
            [left(0, light_left), left(light_left, heavy_left)]
        })
        .collect();
    let (mut entries, mut q_sums, mut rem_sums) = (vec![], vec![], vec![]);
    for kind in 0..2 {
        for tile in &tiles {
            for &e in &tile[kind] {
                entries.push(e);
                q_sums.push(e.q);
                rem_sums.push(e.rem as u64);
            }
        }
    }
    if entries.is_empty() {
        return Ok(());
    }
    let n_light = tiles.iter().map(|t| t[0].len() as u64).sum();
    let shape = Shape {
        n: entries.len() as u64,
        n_light,
        ..*whole
    };
    q_sums.push(0);
    rem_sums.push(0);
    let (q_prefix, rem_prefix) = (Cpu.exclusive_scan(&q_sums)?, Cpu.exclusive_scan(&rem_sums)?);
    let prefix = |t: u64| shape.scaled(q_prefix[t as usize]) + rem_prefix[t as usize] as u128;
    psa(&shape, &entries, prefix, sections_for(shape.n), (out, tracker));
    Ok(())
}

/// `out.len()` samples of `stream` from `table` into `out`, the same as every other backend
/// draws.
pub(super) fn sample<F: Weight>(table: &[Row<F>], stream: Stream, out: &mut [u32]) {
    let (n, key, counter) = (table.len() as u64, stream.key, stream.counter);
    out.par_chunks_mut(CHUNK).enumerate().for_each(|(c, chunk)| {
        let first = (c * CHUNK / 4) as u64;
        for (p, o) in chunk.chunks_mut(4).enumerate() {
            // SAFETY: the table's rows are `0..n` (`n > 0`: there are samples only of a table).
            let four = unsafe { draw_quad(table.as_ptr(), n as u32, key, counter, first + p as u64) };
            o.copy_from_slice(&four[..o.len()]);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tiles of `q` (of a table with quantized total `total`), as PSA+ makes them.
    fn tiles(q: &[u64]) -> (Shape, Vec<Tile>) {
        let whole = Shape::whole(q.len() as u64, 0, q.iter().sum());
        let tiles = q
            .chunks(PARTITION_TILE as usize)
            .enumerate()
            .map(|(b, q)| Tile::new(&whole, q, b * PARTITION_TILE as usize))
            .collect();
        (whole, tiles)
    }

    /// The greedy sweeps take exactly one row's weight per row written, so what the tiles
    /// leave weighs exactly one row per leftover; their sums and prefix sums agree with the
    /// leftovers themselves; and on uniform weights most items are packed greedily (the paper
    /// reports about 90 % with its tiles).
    #[test]
    fn greedy_tiles_leave_one_row_of_weight_per_leftover() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let q: Vec<u64> = (0..100_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 34) + 1
            })
            .collect();
        let (whole, tiles) = tiles(&q);
        let (mut left, mut left_weight, mut greedy_rows) = (0u64, 0u128, 0u64);
        for tile in &tiles {
            let greedy = Greedy::of(tile, &whole, &BinarySearch);
            let (light, heavy) = greedy.leftovers(tile);
            let sums = greedy.sums(tile);
            assert_eq!((sums[0], sums[1]), (light, heavy));
            let mut totals = [[0u64; 2]; 2];
            for s in 0..light + heavy {
                let (e, before) = greedy.leftover(tile, s);
                let kind = (s >= light) as usize;
                assert_eq!(before, totals[kind], "prefix of leftover {s}");
                assert_eq!(
                    whole.weight(e) <= whole.total as u128,
                    kind == 0,
                    "class of leftover {s}"
                );
                totals[kind] = [totals[kind][0] + e.q, totals[kind][1] + e.rem as u64];
                left_weight += whole.weight(e);
            }
            assert_eq!([sums[2], sums[4]], totals[0]);
            assert_eq!([sums[3], sums[5]], totals[1]);
            left += light + heavy;
            greedy_rows += greedy.rows();
            assert_eq!(greedy.rows() + light + heavy, tile.items());
        }
        assert_eq!(left_weight, left as u128 * whole.total as u128);
        let packed = greedy_rows as f64 / q.len() as f64;
        println!("greedy rows: {:.1} % of the items", 100.0 * packed);
        assert!(packed > 0.5, "only {packed} packed greedily");
    }
}
