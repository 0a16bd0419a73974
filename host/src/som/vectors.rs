//! glam vectors as SOM nodes and cells (feature `glam`), without copies: a slice of `Vec2`,
//! `Vec3` or `Vec4` is a slice of f32 of dimension 2, 3 or 4 (bytemuck).

use super::Som;
use crate::error::{Result, check_same_len};
use bytemuck::Pod;

/// A vector of `DIM` f32 laid out as `[f32; DIM]`: glam's `Vec2`, `Vec3` and `Vec4`. (`Vec3A`
/// is 16 bytes whose fourth lane means nothing, so it is not one: `Vec3::from(v)` first.)
pub trait Vector: Pod {
    /// Its values.
    const DIM: usize;
}

impl Vector for glam::Vec2 {
    const DIM: usize = 2;
}

impl Vector for glam::Vec3 {
    const DIM: usize = 3;
}

impl Vector for glam::Vec4 {
    const DIM: usize = 4;
}

/// `vectors` as the flat f32 values the SOM calls take (`V::DIM` a node), without a copy.
///
/// ```
/// use warpkit::glam::Vec3;
/// use warpkit::Backend;
/// use warpkit::som::{Schedule, Som, Vector, flat};
///
/// let colours: Vec<Vec3> = (0..300).map(|i| Vec3::splat((i % 10) as f32 / 10.0)).collect();
/// let mut map = Som::random(4, 4, Vec3::DIM, flat(&colours), 7)?;
/// map.train_batch(&Backend::cpu(), flat(&colours), &Schedule::for_map(4, 4, 10))?;
/// let cells: &[Vec3] = map.cells()?; // the map's weights as vectors, again without a copy
/// assert_eq!(cells.len(), 16);
/// # Ok::<(), warpkit::Error>(())
/// ```
pub fn flat<V: Vector>(vectors: &[V]) -> &[f32] {
    bytemuck::cast_slice(vectors)
}

impl Som {
    /// The cells' weight vectors as `V`s, row-major, if the map's dimension is `V::DIM`.
    pub fn cells<V: Vector>(&self) -> Result<&[V]> {
        check_same_len("cell vector dimension", self.dim(), V::DIM)?;
        Ok(bytemuck::cast_slice(self.weights()))
    }
}
