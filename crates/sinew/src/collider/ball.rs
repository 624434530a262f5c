//! Ball: a circle in 2D, a sphere in 3D, centred on the collider's position.

use super::shape::{Proximity, RayHit, ShapeQuery, raycast_ball};
use crate::dim::{BaseSpace as Space, RealOf, VecOf};
use crate::math::{Real, Vector};

/// A circle (2D) or sphere (3D) of `radius` around the local origin.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ball<R> {
    /// Radius (m), > 0.
    pub radius: R,
}

impl<S: Space> ShapeQuery<S> for Ball<RealOf<S>> {
    #[inline]
    fn closest(&self, p: VecOf<S>) -> Proximity<RealOf<S>, VecOf<S>> {
        let (n, len) = p.normalize_and_length();
        // At the exact centre any direction is as good as another; pick one deterministically.
        let normal = if len == RealOf::<S>::ZERO { VecOf::<S>::ZERO.any_orthogonal() } else { n };
        Proximity { distance: len - self.radius, normal }
    }
    #[inline]
    fn raycast(&self, from: VecOf<S>, to: VecOf<S>, inflate: RealOf<S>) -> Option<RayHit<RealOf<S>, VecOf<S>>> {
        raycast_ball(from, to, VecOf::<S>::ZERO, self.radius + inflate)
    }
    #[inline]
    fn support(&self, dir: VecOf<S>) -> VecOf<S> {
        dir.normalize_or_zero() * self.radius
    }
    fn local_aabb(&self) -> Option<(VecOf<S>, VecOf<S>)> {
        let e = VecOf::<S>::splat(self.radius);
        Some((-e, e))
    }
}
