//! What a device's buffers hold: every buffer a device makes is admitted here and leaves when
//! it is dropped, so [`Device::memory_in_use`](super::device::Device::memory_in_use) is the
//! bytes of its live buffers (its caches included) and a test can see that a failed call
//! freed what it took. With the `checks` feature an allocation can be made to fail, so that
//! every allocation of every call is tried as the one that runs out of memory.

use crate::error::{Error, Result};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// A device's count of the bytes its buffers hold and the allocations it has made, shared by
/// its clones.
#[derive(Debug, Default)]
pub(crate) struct Ledger {
    in_use: AtomicU64,
    allocations: AtomicU64,
    /// Allocations to go before the one that fails; 0 when none is to fail.
    fail_in: AtomicU64,
}

/// A buffer's entry in its device's ledger: its bytes leave the count when it is dropped.
#[derive(Debug)]
pub(crate) struct Lease {
    ledger: Arc<Ledger>,
    bytes: u64,
}

impl Drop for Lease {
    fn drop(&mut self) {
        self.ledger.in_use.fetch_sub(self.bytes, Ordering::Relaxed);
    }
}

impl Ledger {
    /// Admits an allocation of `bytes` before it is made (dropping the lease undoes it where
    /// the allocation then fails): `OutOfMemory` where one was made to fail here.
    pub(crate) fn admit(self: &Arc<Ledger>, bytes: u64) -> Result<Lease> {
        self.allocations.fetch_add(1, Ordering::Relaxed);
        let due = self
            .fail_in
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
            .is_ok_and(|n| n == 1);
        if due {
            return Err(Error::OutOfMemory);
        }
        self.in_use.fetch_add(bytes, Ordering::Relaxed);
        Ok(Lease {
            ledger: self.clone(),
            bytes,
        })
    }

    /// Bytes held by live buffers.
    pub(crate) fn in_use(&self) -> u64 {
        self.in_use.load(Ordering::Relaxed)
    }

    /// Allocations made (or refused) so far.
    #[cfg(any(test, feature = "checks"))]
    pub(crate) fn allocations(&self) -> u64 {
        self.allocations.load(Ordering::Relaxed)
    }

    /// Makes the `nth` allocation from now (1 for the next) fail with `OutOfMemory`; 0 makes
    /// none fail.
    #[cfg(any(test, feature = "checks"))]
    pub(crate) fn fail_allocation(&self, nth: u64) {
        self.fail_in.store(nth, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leases_count_bytes_and_the_nth_fails_once() {
        let ledger = Arc::new(Ledger::default());
        let a = ledger.admit(100).unwrap();
        ledger.fail_allocation(2);
        let b = ledger.admit(20).unwrap();
        assert!(matches!(ledger.admit(5), Err(Error::OutOfMemory)));
        let c = ledger.admit(7).unwrap();
        assert_eq!((ledger.in_use(), ledger.allocations()), (127, 4));
        drop((a, b, c));
        assert_eq!(ledger.in_use(), 0);
    }
}
