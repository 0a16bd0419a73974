//! Counter-based random numbers shared by the device and the host.
//!
//! One function, [`philox::philox4x32_10`], defines warpkit's random stream; the host generator
//! (`warpkit::Philox`) and the device fill kernel both call it, so a key and a counter give the
//! same words everywhere.

pub mod permute;
pub mod philox;

pub mod fill;
