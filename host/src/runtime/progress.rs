//! Progress of long calls: the calls that can take seconds (alias tables and multisplits of
//! 10^9 items on the CPU backend) report how much of their work is done to a callback the
//! caller gives ([`crate::alias::AliasTable::build_with`],
//! [`crate::multisplit::Multisplit::with_progress`]).
//!
//! Work is counted in items passed through the call's phases, so the fraction tracks time only
//! as well as the phases are alike; what it promises is that it only grows and ends at 1.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How much of a call's work is done, as progress callbacks receive it.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct WorkDone {
    /// Units of work done (items through the call's phases), at most `total`.
    pub done: u64,
    /// Units of work in the whole call.
    pub total: u64,
    /// Since the call began.
    pub elapsed: Duration,
}

impl WorkDone {
    /// `done / total`, from 0 to 1 (1 for a call with no work).
    pub fn fraction(&self) -> f64 {
        match self.total {
            0 => 1.0,
            t => self.done as f64 / t as f64,
        }
    }
}

/// `42 % done, 1.250 s`.
impl std::fmt::Display for WorkDone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:.0} % done, {:.3} s",
            100.0 * self.fraction(),
            self.elapsed.as_secs_f64()
        )
    }
}

/// A progress callback as calls hold it: called from any of the call's worker threads (hence
/// `Sync`), one report at a time, with `done` growing from one report to the next; the last
/// has `done == total`. On a device the work takes milliseconds and is reported once, done.
#[derive(Clone, Copy)]
pub(crate) struct Report<'a>(pub(crate) &'a (dyn Fn(&WorkDone) + Sync));

impl std::fmt::Debug for Report<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a progress callback")
    }
}

/// Reports a hundredth of the work at a time.
const REPORTS: u64 = 100;

/// Counts one call's work, from any thread, and reports each hundredth of it to the callback.
pub(crate) struct Tracker<'a> {
    report: Option<Report<'a>>,
    total: u64,
    done: AtomicU64,
    /// The `done` of the last report; held while reporting, so reports never overlap or go back.
    reported: Mutex<u64>,
    step: u64,
    start: Instant,
}

impl<'a> Tracker<'a> {
    /// A tracker of `total` units of work for `report` (nothing is reported for `None`).
    pub(crate) fn new(report: Option<Report<'a>>, total: u64) -> Tracker<'a> {
        Tracker {
            report,
            total,
            done: AtomicU64::new(0),
            reported: Mutex::new(0),
            step: total.div_ceil(REPORTS).max(1),
            start: Instant::now(),
        }
    }

    /// A tracker that reports nothing.
    pub(crate) fn silent() -> Tracker<'static> {
        Tracker::new(None, 0)
    }

    /// `units` more done; a report if that crosses a hundredth of the work.
    pub(crate) fn add(&self, units: u64) {
        let Some(Report(report)) = self.report else {
            return;
        };
        let before = self.done.fetch_add(units, Ordering::Relaxed);
        let now = (before + units).min(self.total);
        if now / self.step == before / self.step && now != self.total {
            return;
        }
        let mut reported = self.reported.lock().unwrap_or_else(|e| e.into_inner());
        // Another thread may have added more since: report the latest, if not yet reported.
        let now = self.done.load(Ordering::Relaxed).min(self.total);
        if now > *reported || (now == 0 && self.total == 0) {
            *reported = now;
            report(&WorkDone {
                done: now,
                total: self.total,
                elapsed: self.start.elapsed(),
            });
        }
    }

    /// The call is done: the rest of its work counted, and the final report made.
    pub(crate) fn finish(&self) {
        let done = self.done.load(Ordering::Relaxed);
        if done < self.total || self.total == 0 {
            self.add(self.total - done.min(self.total));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rayon::prelude::*;

    fn reports_of(total: u64, work: impl FnOnce(&Tracker)) -> Vec<WorkDone> {
        let seen = Mutex::new(Vec::new());
        let callback = |w: &WorkDone| seen.lock().unwrap().push(*w);
        let tracker = Tracker::new(Some(Report(&callback)), total);
        work(&tracker);
        tracker.finish();
        seen.into_inner().unwrap()
    }

    #[test]
    fn reports_grow_to_the_total_a_hundredth_at_a_time() {
        let reports = reports_of(1_000_000, |t| (0..1000).into_par_iter().for_each(|_| t.add(1000)));
        assert!(reports.windows(2).all(|w| w[0].done < w[1].done));
        assert!((10..=101).contains(&reports.len()), "{} reports", reports.len());
        let last = reports.last().unwrap();
        assert_eq!((last.done, last.fraction()), (1_000_000, 1.0));
    }

    #[test]
    fn work_counted_short_or_over_still_ends_at_the_total() {
        let short = reports_of(100, |t| t.add(30));
        assert_eq!(short.iter().map(|w| w.done).collect::<Vec<_>>(), [30, 100]);
        let over = reports_of(100, |t| t.add(250));
        assert_eq!(over.iter().map(|w| w.done).collect::<Vec<_>>(), [100]);
        let none = reports_of(0, |_| {});
        assert_eq!((none.len(), none[0].fraction()), (1, 1.0));
    }

    #[test]
    fn reads_as_a_percentage() {
        let w = WorkDone {
            done: 42,
            total: 100,
            elapsed: Duration::from_millis(1250),
        };
        assert_eq!(w.to_string(), "42 % done, 1.250 s");
    }
}
