//! Half-space: everything on one side of a line (2D) or plane (3D).
//!
//! The solid is `n·x < offset`; free space is `n·x ≥ offset`. A ground at height `h`
//! with y up is `normal = (0, 1)`, `offset = h`.

use super::shape::{Proximity, RayHit, ShapeQuery};
use crate::dim::{BaseSpace as Space, RealOf, VecOf};
use crate::math::{Real, Vector};

/// The solid half-space `normal·x < offset` (local frame).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HalfSpace<V, R> {
    /// Unit outward normal (pointing into free space).
    pub normal: V,
    /// Plane offset along the normal.
    pub offset: R,
}

impl<S: Space> ShapeQuery<S> for HalfSpace<VecOf<S>, RealOf<S>> {
    #[inline]
    fn closest(&self, p: VecOf<S>) -> Proximity<RealOf<S>, VecOf<S>> {
        Proximity { distance: self.normal.dot(p) - self.offset, normal: self.normal }
    }
    #[inline]
    fn raycast(&self, from: VecOf<S>, to: VecOf<S>, inflate: RealOf<S>) -> Option<RayHit<RealOf<S>, VecOf<S>>> {
        let d0 = self.normal.dot(from) - self.offset - inflate;
        let d1 = self.normal.dot(to) - self.offset - inflate;
        if d0 <= RealOf::<S>::ZERO || d1 >= RealOf::<S>::ZERO {
            return None;
        }
        Some(RayHit { fraction: d0 / (d0 - d1), normal: self.normal })
    }
    #[inline]
    fn support(&self, dir: VecOf<S>) -> VecOf<S> {
        // Unbounded: the deepest point "below" the plane is undefined; return the plane
        // point closest to the origin (callers treat half-spaces specially).
        let _ = dir;
        self.normal * self.offset
    }
    fn local_aabb(&self) -> Option<(VecOf<S>, VecOf<S>)> {
        None
    }
}
