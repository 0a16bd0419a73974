//! Warp collectives in the emulator: lanes arrive one by one with their operation, mask and
//! value; the lane that completes a group (every lane of the mask waiting with the same
//! operation and mask) computes every member's result at once, as the hardware's single
//! instruction would.

use super::Site;
use crate::simt::types::{ShflMode, UNDEFINED_LANE_VALUE, VoteMode};
use std::fmt;

/// A warp collective.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Shfl(ShflMode),
    Vote(VoteMode),
    MatchAny,
    ReduxAdd,
    SyncWarp,
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            Op::Shfl(ShflMode::Idx) => "shfl.idx",
            Op::Shfl(ShflMode::Up) => "shfl.up",
            Op::Shfl(ShflMode::Down) => "shfl.down",
            Op::Shfl(ShflMode::Xor) => "shfl.bfly",
            Op::Vote(VoteMode::Ballot) => "vote.ballot",
            Op::Vote(VoteMode::Any) => "vote.any",
            Op::Vote(VoteMode::All) => "vote.all",
            Op::MatchAny => "match.any",
            Op::ReduxAdd => "redux.add",
            Op::SyncWarp => "bar.warp.sync",
        };
        f.write_str(name)
    }
}

/// One lane's call, waiting for the rest of its group.
#[derive(Clone, Copy, Debug)]
pub(super) struct Pending {
    pub op: Op,
    pub mask: u32,
    pub value: u64,
    /// The source lane or offset of a shuffle.
    pub arg: u32,
    pub site: Site,
}

/// The collective state of one warp.
#[derive(Default)]
pub(super) struct Warp {
    pub pending: [Option<Pending>; 32],
    /// Each lane's result of its last completed collective (or `active_mask`).
    pub result: [u64; 32],
    /// Masks of the `sync_warp`s completed since the block's last barrier, in order: the race
    /// detector's evidence that two lanes were ordered.
    pub syncs: Vec<u32>,
}

impl Warp {
    /// Records `lane`'s call and, if it completes its group, computes the results of every
    /// member and returns the members.
    pub fn arrive(&mut self, lane: u32, call: Pending) -> Option<u32> {
        self.pending[lane as usize] = Some(call);
        let members = call.mask;
        let ready = (0..32)
            .filter(|l| members >> l & 1 != 0)
            .all(|l| matches!(self.pending[l], Some(p) if p.op == call.op && p.mask == members));
        if !ready {
            return None;
        }
        let values: [u64; 32] = std::array::from_fn(|l| self.pending[l].map_or(0, |p| p.value));
        for l in (0..32).filter(|l| members >> l & 1 != 0) {
            let arg = self.pending[l].map_or(0, |p| p.arg);
            self.result[l] = result(call.op, members, &values, l as u32, arg);
            self.pending[l] = None;
        }
        if call.op == Op::SyncWarp {
            self.syncs.push(members);
        }
        Some(members)
    }
}

/// Lane `lane`'s result of `op` over `members`, which passed `values`.
fn result(op: Op, members: u32, values: &[u64; 32], lane: u32, arg: u32) -> u64 {
    let in_group = |l: u32| members >> l & 1 != 0;
    let ballot = || {
        (0..32)
            .filter(|&l| in_group(l) && values[l as usize] != 0)
            .fold(0u32, |m, l| m | 1 << l)
    };
    match op {
        Op::Shfl(mode) => {
            // The source lane, or this lane where it falls outside the clamp (PTX `shfl.sync`
            // with c = 0x1f, or 0 for `up`).
            let source = match mode {
                ShflMode::Idx => arg & 31,
                ShflMode::Up => lane.checked_sub(arg).unwrap_or(lane),
                ShflMode::Down => lane.checked_add(arg).filter(|&j| j < 32).unwrap_or(lane),
                ShflMode::Xor => lane ^ (arg & 31),
            };
            if in_group(source) {
                values[source as usize]
            } else {
                UNDEFINED_LANE_VALUE as u64
            }
        }
        Op::Vote(VoteMode::Ballot) => ballot() as u64,
        Op::Vote(VoteMode::Any) => (ballot() != 0) as u64,
        Op::Vote(VoteMode::All) => (ballot() == members) as u64,
        Op::MatchAny => (0..32)
            .filter(|&l| in_group(l) && values[l as usize] == values[lane as usize])
            .fold(0u32, |m, l| m | 1 << l) as u64,
        Op::ReduxAdd => (0..32)
            .filter(|&l| in_group(l))
            .fold(0u32, |sum, l| sum.wrapping_add(values[l as usize] as u32)) as u64,
        Op::SyncWarp => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(op: Op, mask: u32, value: u64, arg: u32) -> Pending {
        Pending {
            op,
            mask,
            value,
            arg,
            site: core::panic::Location::caller(),
        }
    }

    #[test]
    fn the_last_lane_of_the_mask_completes_the_group() {
        let mut w = Warp::default();
        let op = Op::Shfl(ShflMode::Down);
        for lane in 0..3 {
            assert_eq!(w.arrive(lane, call(op, 0xf, 10 + lane as u64, 1)), None);
        }
        assert_eq!(w.arrive(3, call(op, 0xf, 13, 1)), Some(0xf));
        // Lane 3 reads lane 4, outside the mask.
        assert_eq!(w.result[..4], [11, 12, 13, UNDEFINED_LANE_VALUE as u64]);
    }

    #[test]
    fn different_operations_do_not_meet() {
        let mut w = Warp::default();
        assert_eq!(w.arrive(0, call(Op::Vote(VoteMode::Ballot), 0x3, 1, 0)), None);
        assert_eq!(w.arrive(1, call(Op::Vote(VoteMode::Any), 0x3, 1, 0)), None);
    }

    #[test]
    fn votes_match_and_shuffles_follow_ptx() {
        let values: [u64; 32] = std::array::from_fn(|l| (l % 3) as u64);
        let ballot = result(Op::Vote(VoteMode::Ballot), 0xff, &values, 0, 0);
        assert_eq!(ballot, 0b1011_0110);
        assert_eq!(result(Op::Vote(VoteMode::All), 0b110, &values, 1, 0), 1);
        assert_eq!(result(Op::Vote(VoteMode::Any), 0b1001, &values, 0, 0), 0);
        assert_eq!(result(Op::MatchAny, u32::MAX, &values, 4, 0), 0x4924_9249 << 1);
        assert_eq!(result(Op::ReduxAdd, 0b1_1110, &values, 2, 0), 4);
        assert_eq!(result(Op::Shfl(ShflMode::Up), u32::MAX, &values, 1, 2), values[1]);
        assert_eq!(
            result(Op::Shfl(ShflMode::Xor), u32::MAX, &values, 5, 3),
            values[6]
        );
        assert_eq!(
            result(Op::Shfl(ShflMode::Idx), u32::MAX, &values, 9, 33),
            values[1]
        );
    }
}
