//! Cuboid: an oriented box (a rectangle in 2D), centred on the collider's position.
//!
//! In the local frame the box is `|x_i| ≤ h_i`. Outside, the closest point is the
//! component-wise clamp of the query point; inside, the nearest face is the axis with the
//! largest `|x_i| − h_i` (least penetration).

use super::shape::{Proximity, RayHit, ShapeQuery, raycast_capsule, raycast_planes};
use crate::dim::{BaseSpace as Space, RealOf, VecOf};
use crate::math::{Real, Vector};

/// A box with half extents `half_extents` (all > 0) around the local origin.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cuboid<V> {
    /// Half extents along the local axes (m).
    pub half_extents: V,
}

impl<V: Copy> Cuboid<V> {
    /// The face planes `(outward unit normal, offset)`, `+x, −x, +y, −y(, +z, −z)`: inside
    /// is `normal·x ≤ offset` for every one.
    pub fn face_planes<R: Real>(&self) -> impl Iterator<Item = (V, R)> + use<V, R>
    where
        V: Vector<R>,
    {
        let h = self.half_extents;
        (0..V::DIM).flat_map(move |i| {
            let mut n = V::ZERO;
            n.set(i, R::ONE);
            [(n, h.get(i)), (-n, h.get(i))]
        })
    }

    /// First entry of `from → to` into the capsules of radius `inflate` around the box's
    /// edges (4 in 2D, 12 in 3D): along each axis, one edge per sign combination of the
    /// other axes.
    fn raycast_edges<R: Real>(&self, from: V, to: V, inflate: R) -> Option<RayHit<R, V>>
    where
        V: Vector<R>,
    {
        let h = self.half_extents;
        let dim = V::DIM;
        let mut best: Option<RayHit<R, V>> = None;
        for axis in 0..dim {
            for signs in 0..(1u32 << (dim - 1)) {
                let (mut a, mut b) = (V::ZERO, V::ZERO);
                let mut bit = 0;
                for i in 0..dim {
                    if i == axis {
                        a.set(i, -h.get(i));
                        b.set(i, h.get(i));
                    } else {
                        let c = if signs & (1 << bit) != 0 { h.get(i) } else { -h.get(i) };
                        a.set(i, c);
                        b.set(i, c);
                        bit += 1;
                    }
                }
                if let Some(hit) = raycast_capsule(from, to, a, b, inflate)
                    && best.is_none_or(|b| hit.fraction < b.fraction)
                {
                    best = Some(hit);
                }
            }
        }
        best
    }
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
    /// Entry into the box grown by `inflate` with exactly rounded edges and corners (a
    /// negative `inflate` is treated as 0): the entry through the grown faces, unless it
    /// lies in an edge or corner region — farther than `inflate` from the box — where the
    /// entry is on the rounded part instead: the first hit on the capsules of radius
    /// `inflate` around the box's edges (their end caps are the corner balls).
    fn raycast(&self, from: VecOf<S>, to: VecOf<S>, inflate: RealOf<S>) -> Option<RayHit<RealOf<S>, VecOf<S>>> {
        let zero = RealOf::<S>::ZERO;
        let inflate = inflate.max(zero);
        let h = self.half_extents;
        let square = raycast_planes(from, to, self.face_planes(), inflate);
        if inflate == zero {
            return square;
        }
        let slack = inflate * RealOf::<S>::from_ratio(1, 1024) + RealOf::<S>::GEOMETRIC_EPSILON;
        // Beyond the box along two axes or more: an edge or corner region, the only
        // place where the grown box and the rounded one differ (checked without a
        // distance query elsewhere — most hits are on faces).
        let corner = |p: VecOf<S>| (0..VecOf::<S>::DIM).filter(|&i| p.get(i).abs() > h.get(i)).count() >= 2;
        let rounded = |p: VecOf<S>| ShapeQuery::<S>::closest(self, p).distance <= inflate + slack;
        match square {
            Some(hit) => {
                let q = from + (to - from) * hit.fraction;
                if !corner(q) || rounded(q) { Some(hit) } else { self.raycast_edges(from, to, inflate) }
            }
            None => {
                // `from` may sit in a square corner of the grown box but outside the
                // rounded one.
                let inside_square = (0..VecOf::<S>::DIM).all(|i| from.get(i).abs() <= h.get(i) + inflate);
                if inside_square && corner(from) && !rounded(from) {
                    self.raycast_edges(from, to, inflate)
                } else {
                    None
                }
            }
        }
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
