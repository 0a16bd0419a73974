//! Alias tables sharded over the ranks of a group: each rank builds the table of its shard of
//! the weights, the shards' totals are all-gathered once, and a sample count is split over the
//! shards by one multinomial draw ([`split_samples`]) that every rank makes alike from an
//! identically seeded generator; each rank then draws its share from its own table, in a
//! stream of its own. Samples stay on the rank that drew them, or are gathered on every rank
//! on request ([`ShardedTable::sample_gathered`]).

use super::group::{Group, all_gather, all_gather_varied};
use super::plan::split_samples;
use crate::alias::{AliasTable, AliasWeight, SampleOptions};
use crate::error::{Error, Result};
use crate::philox::Philox;
use crate::runtime::backend::Backend;
use crate::runtime::device::{Device, DeviceBuffer};
use rand_core::RngCore;

/// This rank's shard of an alias table over the weights of every rank's shard, concatenated in
/// rank order: row `i` of this shard is row `first + i` of the whole.
#[derive(Debug)]
pub struct ShardedTable<F: AliasWeight> {
    /// This shard's table; none for a shard without weights.
    table: Option<AliasTable<F>>,
    rank: u32,
    first: u64,
    /// Every shard's total weight, in rank order.
    totals: Vec<f64>,
}

impl<F: AliasWeight> ShardedTable<F> {
    /// This rank's shard of the table of every rank's `shard` (a rank's shard may be empty):
    /// its table built on `backend`, then one all-gather of every shard's total and length.
    /// Weights a rank's table refuses are that rank's error, and `Err(RankFailed)` on the
    /// others.
    pub fn new(group: &(impl Group + ?Sized), backend: &Backend, shard: &[F]) -> Result<ShardedTable<F>> {
        let local = if shard.is_empty() {
            Ok(None)
        } else {
            AliasTable::new(backend, shard).map(Some)
        };
        let total: f64 = shard.iter().map(|w| w.to_f64()).sum();
        ShardedTable::agreed(group, local, total, shard.len())
    }

    /// As [`ShardedTable::new`], for a shard already in `device`'s memory: the table is built
    /// there and the shard's total is the one its build summed
    /// ([`AliasTable::device_total`]), so the weights never leave the device. For f32 weights
    /// that total may differ in its last bits from `new`'s sum in f64, and with it the split of
    /// a sample count over the shards.
    pub fn from_device(
        group: &(impl Group + ?Sized),
        device: &Device,
        shard: &DeviceBuffer<F>,
    ) -> Result<ShardedTable<F>> {
        let local = if shard.is_empty() {
            Ok(None)
        } else {
            AliasTable::from_device(device, shard).map(Some)
        };
        let total = local
            .as_ref()
            .ok()
            .and_then(|t| t.as_ref()?.device_total())
            .unwrap_or(0.0);
        ShardedTable::agreed(group, local, total, shard.len())
    }

    /// The shard of this rank's `local` table (or its error) once every rank's [built, total,
    /// length] is all-gathered.
    fn agreed(
        group: &(impl Group + ?Sized),
        local: Result<Option<AliasTable<F>>>,
        total: f64,
        len: usize,
    ) -> Result<ShardedTable<F>> {
        let mine = [local.is_ok() as u64, total.to_bits(), len as u64];
        let all = all_gather(group, &[mine])?;
        let table = local?;
        if let Some(rank) = all.iter().position(|r| r[0] == 0) {
            return Err(Error::RankFailed { rank: rank as u32 });
        }
        let rank = group.rank();
        Ok(ShardedTable {
            table,
            rank,
            first: all[..rank as usize].iter().map(|r| r[2]).sum(),
            totals: all.iter().map(|r| f64::from_bits(r[1])).collect(),
        })
    }

    /// Where this shard's rows begin in the whole table.
    pub fn first_row(&self) -> u64 {
        self.first
    }

    /// Every shard's total weight, in rank order.
    pub fn totals(&self) -> &[f64] {
        &self.totals
    }

    /// This rank's share of `s` samples of the whole table, as rows of the whole: the same
    /// split of `s` over the shards on every rank that passes an identically seeded `rng`
    /// (which every rank's call advances alike), then this shard's share drawn from its table
    /// as `options` say, keyed by `rng` and the rank. Over all ranks the samples are `s`
    /// independent draws from the whole table; the same seed and world give the same samples.
    pub fn sample(
        &self,
        rng: &mut (impl RngCore + ?Sized),
        s: u64,
        options: SampleOptions,
    ) -> Result<Vec<u64>> {
        let (mut own, count) = self.share(rng, s)?;
        let Some(table) = &self.table else {
            return Ok(Vec::new());
        };
        let local = table.sample(&mut own, count as usize, options)?;
        Ok(local.into_iter().map(|row| self.first + row as u64).collect())
    }

    /// The samples [`ShardedTable::sample`] draws on this rank, in a new buffer on `device`
    /// (the table's, for a shard built there) without leaving it: rows of this shard, 4 bytes
    /// a sample; [`ShardedTable::first_row`] added to each makes them rows of the whole.
    pub fn sample_on_device(
        &self,
        device: &Device,
        rng: &mut (impl RngCore + ?Sized),
        s: u64,
        options: SampleOptions,
    ) -> Result<DeviceBuffer<u32>> {
        let (mut own, count) = self.share(rng, s)?;
        let mut out = device.workspace(if self.table.is_some() { count as usize } else { 0 })?;
        if let Some(table) = &self.table {
            table.sample_into(&mut own, &mut out, options)?;
        }
        Ok(out)
    }

    /// This rank's stream and its count of `s` samples: the split of `s` over the shards
    /// from `rng`, then two more of its words for the key (the rank in the counter's third
    /// word keeps the ranks' streams 2^64 blocks apart).
    fn share(&self, rng: &mut (impl RngCore + ?Sized), s: u64) -> Result<(Philox, u64)> {
        let counts = split_samples(rng, s, &self.totals)?;
        let key = [rng.next_u32(), rng.next_u32()];
        Ok((Philox::new(key, [0, 0, self.rank, 0]), counts[self.rank as usize]))
    }

    /// Every rank's [`ShardedTable::sample`], in rank order, on every rank (an all-gather): the
    /// `s` samples of the whole, the same for a seed and world. A collective: every rank calls
    /// it with an identically seeded `rng`; a rank whose draw fails returns its error, the
    /// others `Err(RankFailed)`.
    pub fn sample_gathered(
        &self,
        group: &(impl Group + ?Sized),
        rng: &mut (impl RngCore + ?Sized),
        s: u64,
        options: SampleOptions,
    ) -> Result<Vec<u64>> {
        all_gather_varied(group, self.sample(rng, s, options))
    }
}
