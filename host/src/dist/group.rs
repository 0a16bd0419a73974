//! Groups of ranks and the collectives the distributed primitives are written against
//! ([`Group`]), with a group of threads in one process ([`LocalGroup`]): the CPU's stand-in
//! for NCCL, so that the distributed primitives and their tests run where there is no GPU.

use crate::element::Scalar;
use crate::error::{Error, Result, check_same_len};
use crate::runtime::device::{Device, DeviceBuffer};
use bytemuck::Pod;
use std::cell::Cell;
use std::marker::PhantomData;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The ranks of a distributed computation, as one rank sees them. Every rank calls the same
/// collectives in the same order; a rank that fails one leaves the group, and the others'
/// collectives then fail too (`Err(RankLeft)`) instead of waiting for it.
pub trait Group {
    /// This rank, below [`Group::world`].
    fn rank(&self) -> u32;

    /// The ranks in the group.
    fn world(&self) -> u32;

    /// Every rank's `bytes`, concatenated in rank order, on every rank. Every rank gives the
    /// same number of bytes: otherwise every rank gets `Err(RanksDisagree)`.
    fn all_gather_bytes(&self, bytes: &[u8]) -> Result<Vec<u8>>;

    /// As [`Group::all_gather_bytes`], for bytes whose number every rank's call gives alike by
    /// construction (the distributed primitives' own small gathers of a fixed type), which a
    /// group may gather without first agreeing on it: NCCL's saves a round of the ranks.
    #[doc(hidden)]
    fn all_gather_alike(&self, bytes: &[u8]) -> Result<Vec<u8>> {
        self.all_gather_bytes(bytes)
    }

    /// `sends[d]` to rank `d`, for every `d` (one part a rank, each any length); what every
    /// rank sent this one, in rank order. Ranks that give different numbers of parts make
    /// every rank's call `Err(RanksDisagree)`, and all giving other than one a rank
    /// `Err(LengthMismatch)`.
    fn all_to_all_bytes(&self, sends: &[Vec<u8>]) -> Result<Vec<Vec<u8>>>;

    /// Every rank's `part` summed element by element into `out`, on every rank: buffers of
    /// this rank's `device`, of one length on every rank (else `Err(RanksDisagree)` on every
    /// rank). Integers wrap; floats are summed in an order the group picks, the same result on
    /// every rank. This default moves the buffers through the host, summing in rank order;
    /// the NCCL group sums on the devices (`ncclAllReduce`).
    fn all_reduce_sum<T: Scalar>(
        &self,
        device: &Device,
        part: &DeviceBuffer<T>,
        out: &mut DeviceBuffer<T>,
    ) -> Result<()>
    where
        Self: Sized,
    {
        let local =
            check_same_len("all-reduce output", part.len(), out.len()).and_then(|()| device.download(part));
        let all = all_gather(self, &agree_ok(self, local)?)?;
        let mut sum = vec![T::ZERO; part.len()];
        for rank in all.chunks_exact(part.len().max(1)) {
            sum.iter_mut().zip(rank).for_each(|(s, &x)| *s = s.add(x));
        }
        device.copy_from_host(&sum, out)
    }

    /// Every rank's `part` in rank order in `out` (`world` times `part`'s length), on every
    /// rank: buffers of this rank's `device`, `part` of one length on every rank (else
    /// `Err(RanksDisagree)` on every rank). This default moves them through the host; the NCCL
    /// group gathers on the devices (`ncclAllGather`).
    fn all_gather_into<T: Scalar>(
        &self,
        device: &Device,
        part: &DeviceBuffer<T>,
        out: &mut DeviceBuffer<T>,
    ) -> Result<()>
    where
        Self: Sized,
    {
        let world = self.world() as usize;
        let local = check_same_len("all-gather output", part.len() * world, out.len())
            .and_then(|()| device.download(part));
        let all = all_gather(self, &agree_ok(self, local)?)?;
        device.copy_from_host(&all, out)
    }

    /// Sends rank `d` the `sends[d]` elements of `data` (this rank's buffer on `device`) that
    /// follow those for the ranks before it, and returns what every rank sent this one,
    /// concatenated in rank order in a new buffer on `device`, with the count from each rank.
    /// The counts are agreed first, in one all-gather: `sends` must hold a count a rank summing
    /// to `data`'s length, and `data` must be `device`'s; a rank whose are not gets its error
    /// (`LengthMismatch`, `WrongDevice`), the others `Err(RankFailed)`, none waiting. So is a
    /// rank that cannot make room for what it receives, before anything moves. This default moves the elements through the host; the NCCL group
    /// sends them between the devices (grouped `ncclSend` and `ncclRecv`).
    fn all_to_all_device<T: Pod>(
        &self,
        device: &Device,
        data: &DeviceBuffer<T>,
        sends: &[usize],
    ) -> Result<(DeviceBuffer<T>, Vec<usize>)>
    where
        Self: Sized,
    {
        let counts = agree_sends(self, data.len(), device.check_owner(data).map(|()| sends))?;
        let me = self.rank() as usize;
        let received: Vec<usize> = counts.iter().map(|row| row[me] as usize).collect();
        let local = device
            .download(data)
            .and_then(|host| Ok((host, device.workspace::<T>(received.iter().sum())?)));
        let (host, mut out) = agree_ok(self, local)?;
        let mut rest: &[T] = &host;
        let parts: Vec<Vec<u8>> = sends
            .iter()
            .map(|&count| {
                let (part, after) = rest.split_at(count);
                rest = after;
                bytemuck::cast_slice(part).to_vec()
            })
            .collect();
        let got = self.all_to_all_bytes(&parts)?.concat();
        let elements: Vec<T> = got
            .chunks_exact(size_of::<T>())
            .map(bytemuck::pod_read_unaligned)
            .collect();
        device.copy_from_host(&elements, &mut out)?;
        Ok((out, received))
    }
}

/// What every rank of an all-to-all sends every rank, agreed before anything moves: this
/// rank's `sends` (a count a rank, summing to its `len` elements, or the error of its own
/// checks) all-gathered with whether they were that, so that a rank whose were not gets its
/// error (`Err(LengthMismatch)` for the counts) and the others `Err(RankFailed)` instead of
/// waiting. `counts[s][d]` is what rank `s` sends rank `d`.
pub(super) fn agree_sends(
    group: &(impl Group + ?Sized),
    len: usize,
    sends: Result<&[usize]>,
) -> Result<Vec<Vec<u64>>> {
    let world = group.world() as usize;
    let mine = sends.and_then(|sends| {
        check_parts_sent(group.world(), sends.len())?;
        check_same_len("elements sent", len, sends.iter().sum())?;
        Ok(sends.iter().map(|&c| c as u64).collect::<Vec<_>>())
    });
    let mut row = vec![mine.is_ok() as u64];
    row.extend(mine.as_deref().unwrap_or(&vec![0; world]));
    // `world + 1` words on every rank.
    let all: Vec<u64> = group
        .all_gather_alike(bytemuck::cast_slice(&row))?
        .chunks_exact(8)
        .map(bytemuck::pod_read_unaligned)
        .collect();
    mine?;
    let rows: Vec<&[u64]> = all.chunks_exact(world + 1).collect();
    if let Some(rank) = rows.iter().position(|r| r[0] == 0) {
        return Err(Error::RankFailed { rank: rank as u32 });
    }
    Ok(rows.iter().map(|r| r[1..].to_vec()).collect())
}

/// Every rank's `values` (the same number on every rank), concatenated in rank order.
pub fn all_gather<T: Pod>(group: &(impl Group + ?Sized), values: &[T]) -> Result<Vec<T>> {
    let bytes = group.all_gather_bytes(bytemuck::cast_slice(values))?;
    Ok(bytes
        .chunks_exact(size_of::<T>())
        .map(bytemuck::pod_read_unaligned)
        .collect())
}

/// Every rank's `value` where it has one, in rank order (ranks with `None` left out).
pub fn all_gather_present<T: Pod>(group: &(impl Group + ?Sized), value: Option<T>) -> Result<Vec<T>> {
    // Public: the ranks' byte counts are agreed, so a rank that gathers another type fails all.
    outcomes(Ok(value), |bytes| group.all_gather_bytes(bytes))
}

/// Every rank's outcome of its own work before a collective, in one all-gather, so that no
/// rank waits in a collective for one that failed before it: the values of the ranks that
/// have one (`Ok(Some)`), in rank order; this rank's error where its own work failed; or
/// `Err(RankFailed)` naming the first rank whose work did.
pub(super) fn gather_outcomes<T: Pod>(
    group: &(impl Group + ?Sized),
    local: Result<Option<T>>,
) -> Result<Vec<T>> {
    outcomes(local, |bytes| group.all_gather_alike(bytes))
}

/// [`gather_outcomes`] by `gather`, an all-gather of the group.
fn outcomes<T: Pod>(
    local: Result<Option<T>>,
    gather: impl FnOnce(&[u8]) -> Result<Vec<u8>>,
) -> Result<Vec<T>> {
    // 0 failed, 1 nothing, 2 a value.
    let (tag, value) = match &local {
        Err(_) => (0u8, T::zeroed()),
        Ok(None) => (1, T::zeroed()),
        Ok(Some(v)) => (2, *v),
    };
    let mut bytes = vec![tag];
    bytes.extend_from_slice(bytemuck::bytes_of(&value));
    let gathered = gather(&bytes)?;
    local?;
    let rows: Vec<&[u8]> = gathered.chunks_exact(bytes.len()).collect();
    if let Some(rank) = rows.iter().position(|r| r[0] == 0) {
        return Err(Error::RankFailed { rank: rank as u32 });
    }
    Ok(rows
        .iter()
        .filter(|r| r[0] == 2)
        .map(|r| bytemuck::pod_read_unaligned(&r[1..]))
        .collect())
}

/// `local`, once every rank has said in one all-gather that its own work before the next
/// collective succeeded ([`gather_outcomes`]): this rank's error, or `Err(RankFailed)`.
pub(super) fn agree_ok<R>(group: &(impl Group + ?Sized), local: Result<R>) -> Result<R> {
    let (outcome, value) = match local {
        Ok(value) => (Ok(None), Some(value)),
        Err(e) => (Err(e), None),
    };
    gather_outcomes::<u8>(group, outcome)?;
    value.ok_or(Error::RankFailed { rank: group.rank() })
}

/// Every rank's `values`, any number on each, concatenated in rank order on every rank, where
/// every rank's own call gave values: otherwise `Err(RankFailed)` (the first failed rank) on
/// the others and its own error on a failed rank, so that no rank waits for one that has
/// stopped. Two all-gathers: the lengths, then the values padded to the longest.
pub fn all_gather_varied<T: Pod>(group: &(impl Group + ?Sized), values: Result<Vec<T>>) -> Result<Vec<T>> {
    let mine = [
        values.is_ok() as u64,
        values.as_ref().map_or(0, |v| v.len() as u64),
    ];
    let all = all_gather(group, &[mine])?;
    let mut values = values?;
    if let Some(rank) = all.iter().position(|r| r[0] == 0) {
        return Err(Error::RankFailed { rank: rank as u32 });
    }
    let longest = all.iter().map(|r| r[1] as usize).max().unwrap_or(0);
    values.resize(longest, T::zeroed());
    let gathered = all_gather(group, &values)?;
    Ok(all
        .iter()
        .zip(gathered.chunks(longest.max(1)))
        .flat_map(|(r, part)| part[..r[1] as usize].iter().copied())
        .collect())
}

/// One rank of a group of threads in this process: [`LocalGroup::new`] makes a handle a rank,
/// and each thread takes one (a handle moves between threads but is not shared: a rank's
/// collectives come one at a time). A rank that drops its handle leaves the group.
#[derive(Debug)]
pub struct LocalGroup {
    rank: u32,
    shared: Arc<Shared>,
    not_shared: PhantomData<Cell<()>>,
}

#[derive(Debug)]
struct Shared {
    world: u32,
    timeout: Duration,
    state: Mutex<Round>,
    turn: Condvar,
}

/// What each rank gives a collective: its parts (one for an all-gather, one a rank for an
/// all-to-all).
type Parts = Vec<Vec<u8>>;

/// The collective in progress and the last one's result.
#[derive(Debug, Default)]
struct Round {
    /// Each rank's parts in the collective in progress, where it has arrived.
    given: Vec<Option<Parts>>,
    arrived: u32,
    /// Collectives completed: a waiting rank's is complete once this passes its ticket.
    completed: u64,
    /// The last completed collective's parts, every rank's in rank order.
    result: Arc<Vec<Parts>>,
    /// The first rank to leave.
    left: Option<u32>,
}

impl LocalGroup {
    /// How long a collective waits for the other ranks unless told otherwise.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

    /// Handles of a group of `world` ranks (at least 1), handle `r` of rank `r`, whose
    /// collectives wait at most `timeout` for the other ranks (then `Err(CollectiveTimeout)`,
    /// and this rank leaves the group).
    pub fn new(world: u32, timeout: Duration) -> Result<Vec<LocalGroup>> {
        super::plan::check_world(world)?;
        let shared = Arc::new(Shared {
            world,
            timeout,
            state: Mutex::new(Round {
                given: vec![None; world as usize],
                ..Round::default()
            }),
            turn: Condvar::new(),
        });
        Ok((0..world)
            .map(|rank| LocalGroup {
                rank,
                shared: shared.clone(),
                not_shared: PhantomData,
            })
            .collect())
    }

    /// The group's state; a thread that panicked holding it left it consistent (every update
    /// is complete before anything can panic), so a poisoned lock is taken as it is.
    fn state(&self) -> MutexGuard<'_, Round> {
        self.shared.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Gives this rank's `parts` to the collective in progress and waits for every rank's:
    /// all of them, in rank order (the same on every rank).
    fn exchange(&self, parts: Parts) -> Result<Arc<Vec<Parts>>> {
        let shared = &self.shared;
        let mut round = self.state();
        if let Some(rank) = round.left {
            return Err(Error::RankLeft { rank });
        }
        let ticket = round.completed;
        round.given[self.rank as usize] = Some(parts);
        round.arrived += 1;
        if round.arrived == shared.world {
            round.result = Arc::new(
                round
                    .given
                    .iter_mut()
                    .map(|g| g.take().unwrap_or_default())
                    .collect(),
            );
            round.arrived = 0;
            round.completed += 1;
            shared.turn.notify_all();
        } else {
            let start = Instant::now();
            round = shared
                .turn
                .wait_timeout_while(round, shared.timeout, |r| {
                    r.completed == ticket && r.left.is_none()
                })
                .unwrap_or_else(|e| e.into_inner())
                .0;
            if round.completed == ticket {
                let error = match round.left {
                    Some(rank) => Error::RankLeft { rank },
                    None => Error::CollectiveTimeout {
                        waited: start.elapsed(),
                        arrived: Some(round.arrived),
                        world: shared.world,
                    },
                };
                // This rank leaves too, so that no rank waits for it.
                round.left.get_or_insert(self.rank);
                shared.turn.notify_all();
                return Err(error);
            }
        }
        // Later collectives cannot complete before this rank arrives at them, so the result
        // is still this one's.
        Ok(round.result.clone())
    }
}

/// `Err(RanksDisagree)` for the first rank whose amount (`amounts`, in rank order) differs
/// from rank 0's.
pub(super) fn agree(what: &'static str, amounts: &[usize]) -> Result<()> {
    match amounts.iter().position(|&a| a != amounts[0]) {
        Some(rank) => Err(Error::RanksDisagree {
            what,
            rank: rank as u32,
            expected: amounts[0],
            actual: amounts[rank],
        }),
        None => Ok(()),
    }
}

/// What an all-to-all's ranks agreed to send, `parts` each, must be a part a rank.
pub(super) fn check_parts_sent(world: u32, parts: usize) -> Result<()> {
    if parts == world as usize {
        Ok(())
    } else {
        Err(Error::LengthMismatch {
            what: "parts sent (one a rank)",
            expected: world as usize,
            actual: parts,
        })
    }
}

impl Group for LocalGroup {
    fn rank(&self) -> u32 {
        self.rank
    }

    fn world(&self) -> u32 {
        self.shared.world
    }

    fn all_gather_bytes(&self, bytes: &[u8]) -> Result<Vec<u8>> {
        let all = self.exchange(vec![bytes.to_vec()])?;
        agree(
            "bytes gathered",
            &all.iter().map(|p| p[0].len()).collect::<Vec<_>>(),
        )?;
        Ok(all.iter().flat_map(|p| p[0].iter().copied()).collect())
    }

    fn all_to_all_bytes(&self, sends: &[Vec<u8>]) -> Result<Vec<Vec<u8>>> {
        let all = self.exchange(sends.to_vec())?;
        agree(
            "parts sent (one a rank)",
            &all.iter().map(Vec::len).collect::<Vec<_>>(),
        )?;
        check_parts_sent(self.shared.world, all[0].len())?;
        Ok(all.iter().map(|p| p[self.rank as usize].clone()).collect())
    }
}

impl Drop for LocalGroup {
    fn drop(&mut self) {
        let mut round = self.state();
        round.left.get_or_insert(self.rank);
        self.shared.turn.notify_all();
    }
}
