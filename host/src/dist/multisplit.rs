//! Multisplit across the ranks of a group: the buckets are cut over the ranks as
//! [`Partition`] cuts `m` elements (rank `r` owns buckets `range(r)`), each rank splits its
//! keys, sends every rank the keys of that rank's buckets (one all-to-all exchange), and
//! splits what it receives again. Keys of one bucket end on its owner in rank order, then in
//! each rank's input order: the split of all ranks' keys concatenated, stable.

use super::group::Group;
use super::plan::Partition;
use crate::error::Result;
use crate::multisplit::{Multisplit, MultisplitKey, Split, SplitFunction};
use crate::runtime::backend::Backend;

/// This rank's buckets of the split of every rank's `keys` (concatenated in rank order) by
/// `split`: its keys, bucket after bucket of the buckets it owns (`Partition::new(m,
/// world).range(rank)`), with those buckets' offsets and counts.
pub fn keys<K: MultisplitKey, F: SplitFunction<K>>(
    group: &(impl Group + ?Sized),
    backend: &Backend,
    split: &Multisplit<'_, K, F>,
    keys: &[K],
) -> Result<Split<K>> {
    let owners = Partition::new(split.buckets() as u64, group.world())?;
    let local = split.keys(backend, keys)?;
    // The keys of rank `d`'s buckets lie together: its first bucket's offset on.
    let start = |bucket: u64| {
        local
            .offsets
            .get(bucket as usize)
            .map_or(local.keys.len(), |&o| o as usize)
    };
    let sends: Vec<Vec<u8>> = (0..group.world())
        .map(|d| {
            let buckets = owners.range(d);
            bytemuck::cast_slice(&local.keys[start(buckets.start)..start(buckets.end)]).to_vec()
        })
        .collect();
    let received: Vec<K> = group
        .all_to_all_bytes(&sends)?
        .iter()
        .flat_map(|part| {
            part.chunks_exact(size_of::<K>())
                .map(bytemuck::pod_read_unaligned)
        })
        .collect();
    let mine = owners.range(group.rank());
    let (first, end) = (mine.start as usize, mine.end as usize);
    let whole = split.keys(backend, &received)?;
    let base = whole.offsets.get(first).copied().unwrap_or(0);
    Ok(Split {
        keys: whole.keys,
        values: Vec::new(),
        offsets: whole.offsets[first..end].iter().map(|o| o - base).collect(),
        counts: whole.counts[first..end].to_vec(),
    })
}
