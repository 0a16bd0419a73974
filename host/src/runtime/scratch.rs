//! The scratch memory a device keeps between calls (see `Device::scratch_of`): below both
//! engines, which each hold one [`ScratchSlots`], and the [`Device`](super::device::Device)
//! that hands the buffers out.

use super::buffer::DeviceBuffer;
use std::sync::Mutex;
use std::sync::atomic::AtomicU32;

/// A device's two scratch buffers, kept between calls so that a call allocates nothing: each
/// allocation and free is a driver call, made while the GPU may wait for the call's first
/// launch. They grow to the largest call's need and are freed with the device. Beside them,
/// the count of calls that tag what they leave in the call scratch (see
/// [`Device::next_call_tag`](super::device::Device::next_call_tag)).
#[derive(Default)]
pub(crate) struct ScratchSlots {
    pub(super) slots: [Mutex<Option<DeviceBuffer<u8>>>; 2],
    pub(super) calls: AtomicU32,
}

/// Which scratch buffer: the one a primitive's launches use (the scan's tile status, a
/// reduction's partials), or the one a call holds across the primitives it launches.
#[derive(Clone, Copy)]
pub(crate) enum Scratch {
    Launch = 0,
    Call = 1,
}
