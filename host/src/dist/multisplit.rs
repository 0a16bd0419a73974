//! Multisplit across the ranks of a group: the buckets are cut over the ranks as
//! [`Partition`] cuts `m` elements (rank `r` owns buckets `range(r)`), each rank splits its
//! keys (and values), sends every rank the keys of that rank's buckets (one all-to-all
//! exchange), and splits what it receives again. Keys of one bucket end on its owner in rank
//! order, then in each rank's input order: the split of all ranks' keys concatenated, stable.
//! [`keys`] and [`pairs`] take host slices; [`keys_on_device`] and [`pairs_on_device`] keep
//! everything in device memory, the exchange included where the group moves device buffers
//! (NCCL's grouped sends and receives).

use super::group::{Group, agree_ok};
use super::plan::Partition;
use crate::error::{Result, check_same_len};
use crate::multisplit::{Bounds, Multisplit, MultisplitKey, Split, SplitFunction};
use crate::runtime::backend::Backend;
use crate::runtime::device::{Device, DeviceBuffer};
use bytemuck::Pod;

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
    let local = agree_ok(group, split.keys(backend, keys))?;
    let (keys, _) = exchange(group, &owners, &local)?;
    Ok(owned(split.keys(backend, &keys)?, &owners, group.rank()))
}

/// As [`keys`], each key with its value (4 or 8 bytes, as [`Multisplit::pairs`] takes), which
/// moves with it.
pub fn pairs<K: MultisplitKey, F: SplitFunction<K>, V: Pod + Send + Sync>(
    group: &(impl Group + ?Sized),
    backend: &Backend,
    split: &Multisplit<'_, K, F>,
    keys: &[K],
    values: &[V],
) -> Result<Split<K, V>> {
    let owners = Partition::new(split.buckets() as u64, group.world())?;
    let local = agree_ok(group, split.pairs(backend, keys, values))?;
    let (keys, values) = exchange(group, &owners, &local)?;
    Ok(owned(
        split.pairs(backend, &keys, &values)?,
        &owners,
        group.rank(),
    ))
}

/// Sends every rank the keys (and values) of `local`, this rank's split, that fall in that
/// rank's buckets, in one all-to-all (a part a rank: its keys, then their values); what every
/// rank sent this one, in rank order.
fn exchange<K: Pod, V: Pod>(
    group: &(impl Group + ?Sized),
    owners: &Partition,
    local: &Split<K, V>,
) -> Result<(Vec<K>, Vec<V>)> {
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
            let range = start(buckets.start)..start(buckets.end);
            let mut part = bytemuck::cast_slice::<K, u8>(&local.keys[range.clone()]).to_vec();
            if size_of::<V>() > 0 {
                part.extend_from_slice(bytemuck::cast_slice(&local.values[range]));
            }
            part
        })
        .collect();
    let (mut keys, mut values) = (Vec::new(), Vec::new());
    for part in group.all_to_all_bytes(&sends)? {
        let (k, v) = part.split_at(part.len() / (size_of::<K>() + size_of::<V>()) * size_of::<K>());
        keys.extend(
            k.chunks_exact(size_of::<K>())
                .map(bytemuck::pod_read_unaligned::<K>),
        );
        if size_of::<V>() > 0 {
            values.extend(
                v.chunks_exact(size_of::<V>())
                    .map(bytemuck::pod_read_unaligned::<V>),
            );
        }
    }
    Ok((keys, values))
}

/// The buckets `rank` owns of `whole`, the split of what it received: all of its keys (every
/// one is in those buckets), with those buckets' offsets and counts.
fn owned<K, V>(whole: Split<K, V>, owners: &Partition, rank: u32) -> Split<K, V> {
    let Bounds { offsets, counts } = owned_bounds(
        Bounds {
            offsets: whole.offsets,
            counts: whole.counts,
        },
        owners,
        rank,
    );
    Split {
        keys: whole.keys,
        values: whole.values,
        offsets,
        counts,
    }
}

/// The offsets and counts of the buckets `rank` owns, of the bounds of all `m` buckets of a
/// split of keys that all fall in them.
fn owned_bounds(whole: Bounds, owners: &Partition, rank: u32) -> Bounds {
    let mine = owners.range(rank);
    let (first, end) = (mine.start as usize, mine.end as usize);
    let base = whole.offsets.get(first).copied().unwrap_or(0);
    Bounds {
        offsets: whole.offsets[first..end].iter().map(|o| o - base).collect(),
        counts: whole.counts[first..end].to_vec(),
    }
}

/// This rank's buckets of the split of every rank's `keys` (concatenated in rank order), as
/// [`keys`] returns them, for keys in this rank's `device` memory: its keys in a new buffer
/// on `device`, bucket after bucket of the buckets it owns, and those buckets' bounds. The
/// local split, the exchange and the split of what arrived run on the device; the group moves
/// the keys (between the devices for NCCL's, through the host for the default).
pub fn keys_on_device<K: MultisplitKey, F: SplitFunction<K>>(
    group: &impl Group,
    device: &Device,
    split: &Multisplit<'_, K, F>,
    keys: &DeviceBuffer<K>,
) -> Result<(DeviceBuffer<K>, Bounds)> {
    let owners = Partition::new(split.buckets() as u64, group.world())?;
    let local = device.workspace(keys.len()).and_then(|mut local| {
        let bounds = split.keys_into(device, keys, &mut local)?;
        Ok((local, counts_by_rank(&owners, &bounds)?))
    });
    let (local, sends) = agree_ok(group, local)?;
    let (arrived, _) = group.all_to_all_device(device, &local, &sends)?;
    drop(local);
    let mut out = device.workspace(arrived.len())?;
    let whole = split.keys_into(device, &arrived, &mut out)?;
    Ok((out, owned_bounds(whole, &owners, group.rank())))
}

/// As [`keys_on_device`], each key with its value (4 or 8 bytes, as [`Multisplit::pairs`]
/// takes), which moves with it: this rank's keys and values, and its buckets' bounds.
pub fn pairs_on_device<K: MultisplitKey, F: SplitFunction<K>, V: Pod>(
    group: &impl Group,
    device: &Device,
    split: &Multisplit<'_, K, F>,
    keys: &DeviceBuffer<K>,
    values: &DeviceBuffer<V>,
) -> Result<(DeviceBuffer<K>, DeviceBuffer<V>, Bounds)> {
    let owners = Partition::new(split.buckets() as u64, group.world())?;
    let local = (|| {
        let mut local = (device.workspace(keys.len())?, device.workspace(values.len())?);
        let bounds = split.pairs_into(device, keys, values, &mut local.0, &mut local.1)?;
        Ok((local, counts_by_rank(&owners, &bounds)?))
    })();
    let (local, sends) = agree_ok(group, local)?;
    let (keys, _) = group.all_to_all_device(device, &local.0, &sends)?;
    let (values, _) = group.all_to_all_device(device, &local.1, &sends)?;
    drop(local);
    let mut out = (device.workspace(keys.len())?, device.workspace(values.len())?);
    let whole = split.pairs_into(device, &keys, &values, &mut out.0, &mut out.1)?;
    Ok((out.0, out.1, owned_bounds(whole, &owners, group.rank())))
}

/// How many keys of a split with these bounds (of all `m` buckets) each rank owns, the
/// buckets cut over the ranks by `owners` (`Err(LengthMismatch)` unless `owners` cuts as many
/// buckets as `bounds` has): what this rank sends each in the exchange.
pub fn counts_by_rank(owners: &Partition, bounds: &Bounds) -> Result<Vec<usize>> {
    check_same_len(
        "buckets of the bounds",
        owners.len() as usize,
        bounds.counts.len(),
    )?;
    Ok((0..owners.world())
        .map(|rank| {
            let buckets = owners.range(rank);
            bounds.counts[buckets.start as usize..buckets.end as usize]
                .iter()
                .map(|&c| c as usize)
                .sum()
        })
        .collect())
}
