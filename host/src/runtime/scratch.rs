//! The scratch memory a device keeps between calls (see `Device::scratch_of`): below both
//! engines, which each hold one [`ScratchSlots`], and the [`Device`](super::device::Device)
//! that hands the buffers out.

use super::buffer::DeviceBuffer;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

/// A device's two scratch buffers, kept between calls so that a call allocates nothing: each
/// allocation and free is a driver call, made while the GPU may wait for the call's first
/// launch. They grow to the largest call's need, up to the device's cache limit
/// ([`Device::set_cache_limit`](super::device::Device::set_cache_limit): a buffer larger than
/// it is freed when its call is done), and are freed with the device. Beside them, the count of
/// calls that tag what they leave in the call scratch (see
/// [`Device::next_call_tag`](super::device::Device::next_call_tag)).
pub(crate) struct ScratchSlots {
    pub(super) slots: [Mutex<Option<DeviceBuffer<u8>>>; 2],
    pub(super) calls: AtomicU32,
    /// Bytes a scratch buffer may keep between calls.
    pub(super) limit: AtomicU64,
}

impl Default for ScratchSlots {
    fn default() -> ScratchSlots {
        ScratchSlots {
            slots: Default::default(),
            calls: AtomicU32::new(0),
            limit: AtomicU64::new(u64::MAX),
        }
    }
}

/// A scratch buffer held by a call: its slot's lock, released when the call has queued its
/// work; the buffer stays for the next call unless it is larger than the cache limit (on a
/// GPU it is then freed in stream order, after the work that uses it).
pub(crate) struct ScratchGuard<'a> {
    pub(super) slot: MutexGuard<'a, Option<DeviceBuffer<u8>>>,
    pub(super) limit: u64,
}

impl Deref for ScratchGuard<'_> {
    type Target = Option<DeviceBuffer<u8>>;
    fn deref(&self) -> &Option<DeviceBuffer<u8>> {
        &self.slot
    }
}

impl DerefMut for ScratchGuard<'_> {
    fn deref_mut(&mut self) -> &mut Option<DeviceBuffer<u8>> {
        &mut self.slot
    }
}

impl Drop for ScratchGuard<'_> {
    fn drop(&mut self) {
        if self.slot.as_ref().is_some_and(|b| b.len() as u64 > self.limit) {
            *self.slot = None;
        }
    }
}

impl ScratchSlots {
    /// The limit on what a scratch buffer keeps between calls.
    pub(super) fn limit(&self) -> u64 {
        self.limit.load(Ordering::Relaxed)
    }
}

/// Which scratch buffer: the one a primitive's launches use (the scan's tile status, a
/// reduction's partials), or the one a call holds across the primitives it launches.
#[derive(Clone, Copy)]
pub(crate) enum Scratch {
    Launch = 0,
    Call = 1,
}
