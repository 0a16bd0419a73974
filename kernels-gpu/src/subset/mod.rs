//! Random K-subsets of an N-element base set (after Borsos, "Generating small random grids with a given number of occupied sites"), as bit vectors: the paper's bit-parallel
//! algorithm ([`draw`]: select a random half of the candidates, count it with popc, keep it if
//! it fits, otherwise shrink the candidates to it), run by teams of 1 to 32 lanes per subset
//! ([`sample`]). Random words come from Philox keyed by the seed and counted by the subset's
//! index and word, so the host's CPU backend, calling [`draw::draw`] itself, gives the same
//! subsets. Wide base sets draw faster by [`mend`]: coins of about the right density, then
//! single elements flipped until the count is right.

pub mod draw;
pub mod mend;
pub mod sample;

/// The widest base set, in 32-bit words (4096 elements).
pub const MAX_WORDS: u32 = 128;
