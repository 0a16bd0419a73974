//! Device-to-device copy with 128-bit accesses ([`Device::copy`], `launch.rs`): warpkit's
//! bandwidth yardstick. Moves 2 bytes per byte copied; there is no CPU side.
//!
//! [`Device::copy`]: crate::Device::copy

mod launch;
