//! Capsule: all points within `radius` of the segment `a–b` (a stadium in 2D).

use super::shape::{Proximity, RayHit, ShapeQuery, closest_on_segment, raycast_capsule};
use crate::dim::{BaseSpace as Space, RealOf, VecOf};
use crate::math::{Real, Vector};

/// A capsule around the local segment `a–b`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Capsule<V, R> {
    /// First end of the core segment.
    pub a: V,
    /// Second end of the core segment.
    pub b: V,
    /// Radius (m), > 0.
    pub radius: R,
}

impl<S: Space> ShapeQuery<S> for Capsule<VecOf<S>, RealOf<S>> {
    #[inline]
    fn closest(&self, p: VecOf<S>) -> Proximity<RealOf<S>, VecOf<S>> {
        let (q, _) = closest_on_segment(p, self.a, self.b);
        let (n, len) = (p - q).normalize_and_length();
        let normal = if len == RealOf::<S>::ZERO { (self.b - self.a).any_orthogonal() } else { n };
        Proximity { distance: len - self.radius, normal }
    }
    #[inline]
    fn raycast(&self, from: VecOf<S>, to: VecOf<S>, inflate: RealOf<S>) -> Option<RayHit<RealOf<S>, VecOf<S>>> {
        raycast_capsule(from, to, self.a, self.b, self.radius + inflate)
    }
    #[inline]
    fn support(&self, dir: VecOf<S>) -> VecOf<S> {
        let end = if dir.dot(self.b - self.a) > RealOf::<S>::ZERO { self.b } else { self.a };
        end + dir.normalize_or_zero() * self.radius
    }
    fn local_aabb(&self) -> Option<(VecOf<S>, VecOf<S>)> {
        let e = VecOf::<S>::splat(self.radius);
        Some((self.a.min_elem(self.b) - e, self.a.max_elem(self.b) + e))
    }
}
