//! Cuboid: an oriented box (a rectangle in 2D), centred on the collider's position.
//!
//! In the local frame the box is `|x_i| ≤ h_i`. Outside, the closest point is the
//! component-wise clamp of the query point; inside, the nearest face is the axis with the
//! largest `|x_i| − h_i` (least penetration).

use super::shape::{Proximity, RayHit, ShapeQuery, raycast_planes};
use crate::math::{Real, Vector};
use crate::space::{RealOf, Space, VecOf};

/// A box with half extents `half_extents` (all > 0) around the local origin.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cuboid<V> {
    /// Half extents along the local axes (m).
    pub half_extents: V,
}

impl<S: Space> ShapeQuery<S> for Cuboid<VecOf<S>> {
    #[inline]
    fn closest(&self, p: VecOf<S>) -> Proximity<RealOf<S>, VecOf<S>> {
        let h = self.half_extents;
        let clamped = p.max_elem(-h).min_elem(h);
        let delta = p - clamped;
        let (n, len) = delta.normalize_and_length();
        if len > RealOf::<S>::ZERO {
            return Proximity { distance: len, normal: n };
        }
        // Inside (or on the surface): least-penetration axis. Ties go to the lowest axis so
        // the choice is deterministic.
        let mut best_axis = 0;
        let mut best = p.get(0).abs() - h.get(0);
        for i in 1..VecOf::<S>::DIM {
            let d = p.get(i).abs() - h.get(i);
            if d > best {
                best = d;
                best_axis = i;
            }
        }
        let mut normal = VecOf::<S>::ZERO;
        let sign = if p.get(best_axis) < RealOf::<S>::ZERO { -RealOf::<S>::ONE } else { RealOf::<S>::ONE };
        normal.set(best_axis, sign);
        Proximity { distance: best, normal }
    }
    #[inline]
    fn raycast(&self, from: VecOf<S>, to: VecOf<S>, inflate: RealOf<S>) -> Option<RayHit<RealOf<S>, VecOf<S>>> {
        let h = self.half_extents;
        let planes = (0..VecOf::<S>::DIM).flat_map(move |i| {
            let mut n = VecOf::<S>::ZERO;
            n.set(i, RealOf::<S>::ONE);
            [(n, h.get(i)), (-n, h.get(i))]
        });
        raycast_planes(from, to, planes, inflate)
    }
    #[inline]
    fn support(&self, dir: VecOf<S>) -> VecOf<S> {
        let mut s = self.half_extents;
        for i in 0..VecOf::<S>::DIM {
            if dir.get(i) < RealOf::<S>::ZERO {
                s.set(i, -s.get(i));
            }
        }
        s
    }
    fn local_aabb(&self) -> Option<(VecOf<S>, VecOf<S>)> {
        Some((-self.half_extents, self.half_extents))
    }
}
