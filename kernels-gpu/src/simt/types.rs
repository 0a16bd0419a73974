//! The plain types of the SIMT layer's hardware interface: the launch extents ([`Dim3`]), the
//! shuffle and vote modes, and the value a shuffle reads from a lane outside its mask.
//!
//! A leaf: it imports nothing from [`crate::simt`] or the emulator, so that the SIMT layer and
//! both of its hardware backends (`simt::ptx` on the GPU, `crate::emu::hw` on the host) can
//! name these types without importing each other. Users reach them through [`crate::simt`],
//! [`crate::simt::index`] and [`crate::simt::warp`].

/// A 3D extent or position, as the launch gave it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dim3 {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

impl Dim3 {
    /// Threads (or blocks) in an extent.
    #[inline(always)]
    pub fn volume(self) -> u64 {
        self.x as u64 * self.y as u64 * self.z as u64
    }
}

/// What the emulator returns for a 32-bit word shuffled from a lane outside the mask (a NaN as
/// f32 and, doubled, as f64).
pub const UNDEFINED_LANE_VALUE: u32 = 0x7fff_ffff;

/// Which lane a shuffle reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShflMode {
    /// Lane `b`.
    Idx,
    /// Lane `lane - b`, or the own value below lane `b`.
    Up,
    /// Lane `lane + b`, or the own value above lane `31 - b`.
    Down,
    /// Lane `lane ^ b`.
    Xor,
}

/// Which vote a warp takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VoteMode {
    /// Bit `i` set where lane `i` passed `true`.
    Ballot,
    /// 1 if any lane passed `true`.
    Any,
    /// 1 if every lane passed `true`.
    All,
}
