//! K-subsets with rayon: each subset by `warpkit_kernels::subset::draw` for one thread holding
//! all its words (the mask padded with empty words to a power of two, which draw no random
//! words), or by `warpkit_kernels::subset::mend::draw`, so the words equal a device's for the
//! same seed.

use super::{Algorithm, Subsets};
use crate::error::{Error, Result};
use crate::runtime::cpu::CHUNK;
use rayon::prelude::*;
use warpkit_kernels::subset::draw::{Alone, draw};
use warpkit_kernels::subset::mend;

/// Runs `$body` with `$f` bound to the smallest power-of-two word count that holds `$words`.
macro_rules! with_width {
    ($words:expr, |$f:ident| $body:expr) => {
        match ($words as u32).next_power_of_two() {
            1 => {
                const $f: usize = 1;
                $body
            }
            2 => {
                const $f: usize = 2;
                $body
            }
            4 => {
                const $f: usize = 4;
                $body
            }
            8 => {
                const $f: usize = 8;
                $body
            }
            16 => {
                const $f: usize = 16;
                $body
            }
            32 => {
                const $f: usize = 32;
                $body
            }
            64 => {
                const $f: usize = 64;
                $body
            }
            _ => {
                const $f: usize = 128;
                $body
            }
        }
    };
}

/// Subsets `0 .. count` as bit vectors, `words` per subset.
pub(super) fn bits(subsets: &Subsets, seed: u64, count: usize) -> Result<Vec<u32>> {
    let words = subsets.words();
    let mut out = zeroed(count * words)?;
    let per_chunk = CHUNK.div_ceil(words);
    let key = [seed as u32, (seed >> 32) as u32];
    if subsets.algorithm() == Algorithm::Mend {
        out.par_chunks_mut(per_chunk * words)
            .enumerate()
            .for_each(|(c, chunk)| {
                for (i, subset) in chunk.chunks_mut(words).enumerate() {
                    let s = (c * per_chunk + i) as u64;
                    mend::draw(key, s, subsets.mask(), subsets.n, subsets.k, subset);
                }
            });
        return Ok(out);
    }
    with_width!(words, |F| {
        let mut mask = [0u32; F];
        mask[..words].copy_from_slice(subsets.mask());
        out.par_chunks_mut(per_chunk * words)
            .enumerate()
            .for_each(|(c, chunk)| {
                for (i, subset) in chunk.chunks_mut(words).enumerate() {
                    let s = (c * per_chunk + i) as u64;
                    let drawn = draw(&Alone, key, s, 0, mask, subsets.n, subsets.k);
                    subset.copy_from_slice(&drawn[..words]);
                }
            })
    });
    Ok(out)
}

/// Subsets `0 .. count` as sorted positions, `k` per subset.
pub(super) fn positions(subsets: &Subsets, seed: u64, count: usize) -> Result<Vec<u16>> {
    let words = subsets.words();
    let k = subsets.k as usize;
    let vectors = bits(subsets, seed, count)?;
    let mut out = zeroed(count * k)?;
    out.par_chunks_mut(k.max(1))
        .zip(vectors.par_chunks(words))
        .for_each(|(positions, subset)| {
            let set = subset.iter().enumerate().flat_map(|(j, &w)| {
                (0..32)
                    .filter(move |b| w >> b & 1 == 1)
                    .map(move |b| (32 * j + b) as u16)
            });
            for (p, position) in positions.iter_mut().zip(set) {
                *p = position;
            }
        });
    Ok(out)
}

/// `len` zeros, or `HostOutOfMemory` where the allocation fails.
fn zeroed<T: Copy + Default>(len: usize) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| Error::HostOutOfMemory {
        bytes: len as u64 * size_of::<T>() as u64,
    })?;
    v.resize(len, T::default());
    Ok(v)
}
