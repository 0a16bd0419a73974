//! A block's dynamic shared memory and its race detector.
//!
//! Every 4-byte word has a shadow: the last write and the reads since it, each with the thread,
//! the block's barrier epoch and the number of `sync_warp`s its warp had completed. Two
//! accesses to a word by different threads, at least one a write, race unless a barrier lies
//! between them (different epochs) or they are lanes of one warp and a `sync_warp` whose mask
//! names both completed between them. Accesses smaller than a word count for the whole word.
//! Reads are kept as a set of lanes and the latest read's sync count: a write after several
//! reads needs one `sync_warp` after the latest naming all of them (sound; it may report lanes
//! that separate syncs did order). Atomic updates are kept the same way, apart from the reads:
//! they need that order from plain reads and writes (before and after), not from each other.

use super::{Access, AccessKind, Misuse, SHARED_POISON, ThreadId};
use std::cell::RefCell;

/// One access as the shadow keeps it.
#[derive(Clone, Copy)]
struct Stamp {
    access: Access,
    epoch: u32,
    /// `sync_warp`s of the thread's warp completed before the access.
    syncs: u32,
}

/// The reads (or the atomic updates) of a word since its last write, in one epoch.
#[derive(Clone, Copy)]
struct Reads {
    first: Stamp,
    /// A reader other than `first`'s thread, if any.
    other: Option<Stamp>,
    /// The warp of every reader, or `None` when several warps read.
    warp: Option<u32>,
    /// Lanes that read, when `warp` is one warp.
    lanes: u32,
    /// The most warp syncs any reader had seen (the latest read's).
    syncs: u32,
}

#[derive(Clone, Copy, Default)]
struct Shadow {
    write: Option<Stamp>,
    reads: Option<Reads>,
    atomics: Option<Reads>,
}

/// Dynamic shared memory of one block, poisoned, with a shadow word per 4 bytes.
pub(crate) struct SharedMemory {
    words: Box<[u128]>,
    len: u32,
    shadow: RefCell<Vec<Shadow>>,
}

impl SharedMemory {
    pub fn new(bytes: u32) -> SharedMemory {
        let poison = u128::from_ne_bytes([SHARED_POISON; 16]);
        SharedMemory {
            words: vec![poison; bytes.div_ceil(16) as usize].into_boxed_slice(),
            len: bytes,
            // Made on the first checked access: blocks that only reserve shared memory (to
            // limit how many run per multiprocessor) pay nothing for it.
            shadow: RefCell::new(Vec::new()),
        }
    }

    /// Bytes the launch gave.
    pub fn len(&self) -> u32 {
        self.len
    }

    /// The start of the buffer; threads read and write it through raw pointers, as on the GPU.
    pub fn base(&self) -> *mut u8 {
        self.words.as_ptr().cast_mut().cast()
    }

    /// Checks an access of `bytes` bytes at `offset` against the shadow and records it.
    /// `syncs` are the masks of the `sync_warp`s the thread's warp completed in `epoch`.
    pub fn access(
        &self,
        offset: u32,
        bytes: u32,
        now: Access,
        epoch: u32,
        syncs: &[u32],
    ) -> Result<(), Misuse> {
        let stamp = Stamp {
            access: now,
            epoch,
            syncs: syncs.len() as u32,
        };
        let me = now.thread;
        // Whether an earlier access by `other` (at `other_syncs`) is ordered before this one.
        let ordered = |other: ThreadId, other_epoch: u32, other_syncs: u32, lanes: u32| {
            if other_epoch != epoch || other == me {
                return true;
            }
            let both = lanes | 1 << me.lane;
            other.warp == me.warp && syncs[other_syncs as usize..].iter().any(|&m| m & both == both)
        };
        let race = |earlier: Stamp, word: u32| Misuse::SharedRace {
            byte_offset: word * 4,
            earlier: earlier.access,
            later: now,
        };
        let mut shadow = self.shadow.borrow_mut();
        if shadow.is_empty() {
            shadow.resize(self.len.div_ceil(4) as usize, Shadow::default());
        }
        let first = offset / 4;
        let last = (offset + bytes.max(1) - 1) / 4;
        // The earliest of `set` that nothing orders before this access, if any.
        let unordered = |set: &Option<Reads>| {
            let r = set.filter(|r| r.epoch() == epoch)?;
            let only_me = r.warp == Some(me.warp) && r.lanes == 1 << me.lane;
            let all = r.lanes | 1 << me.lane;
            let synced = r.warp == Some(me.warp) && syncs[r.syncs as usize..].iter().any(|&m| m & all == all);
            (!only_me && !synced).then(|| r.other.filter(|_| r.first.access.thread == me).unwrap_or(r.first))
        };
        for word in first..=last {
            let s = &mut shadow[word as usize];
            if let Some(w) = s.write
                && !ordered(w.access.thread, w.epoch, w.syncs, 1 << w.access.thread.lane)
            {
                return Err(race(w, word));
            }
            // Plain accesses wait for the atomics; writes and atomics for the reads.
            let earlier = match now.kind {
                AccessKind::Read => unordered(&s.atomics),
                AccessKind::Write => unordered(&s.reads).or_else(|| unordered(&s.atomics)),
                AccessKind::Atomic => unordered(&s.reads),
            };
            if let Some(earlier) = earlier {
                return Err(race(earlier, word));
            }
            match now.kind {
                AccessKind::Write => {
                    *s = Shadow {
                        write: Some(stamp),
                        ..Shadow::default()
                    }
                }
                AccessKind::Read => s.reads = Some(Reads::record(s.reads, stamp, epoch)),
                AccessKind::Atomic => s.atomics = Some(Reads::record(s.atomics, stamp, epoch)),
            }
        }
        Ok(())
    }
}

impl Reads {
    fn epoch(&self) -> u32 {
        self.first.epoch
    }

    /// `set` with the access `stamp` (in `epoch`) added; a set of an earlier epoch starts over.
    fn record(set: Option<Reads>, stamp: Stamp, epoch: u32) -> Reads {
        let me = stamp.access.thread;
        match set {
            Some(mut r) if r.epoch() == epoch => {
                if r.warp != Some(me.warp) {
                    r.warp = None;
                }
                r.lanes |= 1 << me.lane;
                // A sync must follow the latest access to order them all before a write.
                r.syncs = r.syncs.max(stamp.syncs);
                if r.other.is_none() && r.first.access.thread != me {
                    r.other = Some(stamp);
                }
                r
            }
            _ => Reads {
                first: stamp,
                other: None,
                warp: Some(me.warp),
                lanes: 1 << me.lane,
                syncs: stamp.syncs,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn access(rank: u32, write: bool) -> Access {
        with_kind(
            rank,
            if write {
                AccessKind::Write
            } else {
                AccessKind::Read
            },
        )
    }

    fn with_kind(rank: u32, kind: AccessKind) -> Access {
        Access {
            thread: ThreadId::new(rank),
            kind,
            site: core::panic::Location::caller(),
        }
    }

    #[test]
    fn atomics_race_with_plain_accesses_only() {
        let m = SharedMemory::new(16);
        for lane in 0..4 {
            m.access(0, 4, with_kind(lane, AccessKind::Atomic), 1, &[])
                .unwrap();
        }
        let e = m.access(0, 4, access(5, false), 1, &[]).unwrap_err();
        assert!(matches!(e, Misuse::SharedRace { .. }), "a read before a sync");
        assert!(
            m.access(0, 4, access(5, false), 1, &[u32::MAX]).is_ok(),
            "after one"
        );
        let e = m
            .access(0, 4, with_kind(6, AccessKind::Atomic), 1, &[u32::MAX])
            .unwrap_err();
        assert!(
            matches!(e, Misuse::SharedRace { .. }),
            "an atomic after lane 5's read"
        );
        let m = SharedMemory::new(16);
        m.access(0, 4, access(1, true), 1, &[]).unwrap();
        let e = m
            .access(0, 4, with_kind(2, AccessKind::Atomic), 1, &[])
            .unwrap_err();
        assert!(matches!(e, Misuse::SharedRace { .. }), "an atomic after a write");
        assert!(
            m.access(0, 4, with_kind(2, AccessKind::Atomic), 2, &[]).is_ok(),
            "after a barrier"
        );
    }

    #[test]
    fn a_barrier_orders_a_write_before_other_threads_reads() {
        let m = SharedMemory::new(64);
        m.access(0, 4, access(0, true), 1, &[]).unwrap();
        assert!(m.access(0, 4, access(0, false), 1, &[]).is_ok(), "own write");
        let e = m.access(0, 4, access(40, false), 1, &[]).unwrap_err();
        assert!(matches!(e, Misuse::SharedRace { byte_offset: 0, .. }));
        assert!(
            m.access(0, 4, access(40, false), 2, &[]).is_ok(),
            "after a barrier"
        );
    }

    #[test]
    fn reads_by_other_threads_race_with_a_later_write() {
        let m = SharedMemory::new(64);
        m.access(8, 8, access(3, false), 1, &[]).unwrap();
        m.access(8, 8, access(70, false), 1, &[]).unwrap();
        let e = m.access(12, 4, access(3, true), 1, &[]).unwrap_err();
        let Misuse::SharedRace {
            byte_offset, earlier, ..
        } = e
        else {
            panic!("{e}")
        };
        assert_eq!((byte_offset, earlier.thread.rank), (12, 70));
    }

    #[test]
    fn a_write_after_other_lanes_reads_needs_a_sync_even_by_the_first_reader() {
        let m = SharedMemory::new(16);
        for lane in 0..4 {
            m.access(0, 4, access(lane, false), 1, &[]).unwrap();
        }
        let e = m.access(0, 4, access(0, true), 1, &[]).unwrap_err();
        assert!(
            matches!(e, Misuse::SharedRace { .. }),
            "lanes 1-3 read without a sync"
        );
        // A sync after an early read does not order a later one.
        let m = SharedMemory::new(16);
        m.access(0, 4, access(0, false), 1, &[]).unwrap();
        m.access(0, 4, access(1, false), 1, &[u32::MAX]).unwrap();
        let e = m.access(0, 4, access(2, true), 1, &[u32::MAX]).unwrap_err();
        assert!(
            matches!(e, Misuse::SharedRace { .. }),
            "lane 1 read after the sync"
        );
        assert!(m.access(0, 4, access(2, true), 1, &[u32::MAX, u32::MAX]).is_ok());
    }

    #[test]
    fn sync_warp_orders_lanes_of_one_warp_only() {
        let m = SharedMemory::new(64);
        m.access(0, 4, access(1, true), 1, &[]).unwrap();
        assert!(m.access(0, 4, access(2, false), 1, &[0b110]).is_ok());
        let e = m.access(0, 4, access(5, false), 1, &[0b110]).unwrap_err();
        assert!(
            matches!(e, Misuse::SharedRace { .. }),
            "lane 5 was not in the sync"
        );
        let m = SharedMemory::new(64);
        m.access(4, 4, access(33, true), 1, &[]).unwrap();
        assert!(m.access(4, 4, access(34, false), 1, &[u32::MAX]).is_ok());
    }
}
