//! The query interface every collider shape implements, in the shape's local frame.
//!
//! Particles are spheres of radius `r`; a particle collides with a shape when its centre
//! is closer than `r` to the shape. Two queries cover everything the solver needs:
//!
//! - [`ShapeQuery::closest`]: signed distance from a point to the surface and the outward
//!   normal there (negative inside; for a point inside, the normal of least penetration);
//! - [`ShapeQuery::raycast`]: the first time a moving point (segment `from → to`) enters
//!   the shape inflated by `r`. This is the swept (continuous) test that stops fast
//!   particles tunnelling through thin walls: the contact plane comes from the entry point,
//!   not from the nearest surface, which for a thin wall may lie on the far side.
//!
//! [`ShapeQuery::support`] (the farthest point in a direction) lets GJK-style queries work
//! on any convex shape.

use crate::dim::{BaseSpace as Space, RealOf, VecOf};
pub use crate::error::ConvexError;
use crate::math::{Real, Vector};
use core::fmt::Debug;

/// Signed distance and outward normal from a point to a shape surface.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Proximity<R, V> {
    /// Signed distance from the query point to the surface (negative inside).
    pub distance: R,
    /// Unit outward normal at the closest surface point.
    pub normal: V,
}

/// Where a moving point first enters an (inflated) shape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit<R, V> {
    /// Fraction of the segment `from → to` at entry, in `[0, 1]`.
    pub fraction: R,
    /// Unit outward normal of the inflated surface at entry.
    pub normal: V,
}

/// Point queries on a shape, in the shape's local frame.
pub trait ShapeQuery<S: Space>: Clone + Debug + PartialEq + Send + Sync + 'static {
    /// Signed distance and normal from `p` to the surface.
    fn closest(&self, p: VecOf<S>) -> Proximity<RealOf<S>, VecOf<S>>;
    /// First entry of the segment `from → to` into the shape inflated by `inflate`, or
    /// `None` when the segment does not enter it (including when `from` is already inside).
    fn raycast(&self, from: VecOf<S>, to: VecOf<S>, inflate: RealOf<S>) -> Option<RayHit<RealOf<S>, VecOf<S>>>;
    /// Farthest point of the shape along `dir` (`dir` need not be unit).
    fn support(&self, dir: VecOf<S>) -> VecOf<S>;
    /// Local bounding box `(min, max)`; `None` for unbounded shapes (half-spaces).
    fn local_aabb(&self) -> Option<(VecOf<S>, VecOf<S>)>;
}

/// A general convex shape built from points: [`super::ConvexPolygon`] in 2D,
/// [`super::ConvexHull`] in 3D.
pub trait ConvexShape<S: Space>: ShapeQuery<S> {
    /// Builds the shape from points in its local frame.
    ///
    /// 2D: the points must already be convex (either winding); collinear or repeated points
    /// and concave input are errors. 3D: the hull of the points is computed; fewer than four
    /// non-coplanar points is an error.
    fn from_points(points: &[VecOf<S>]) -> Result<Self, ConvexError>;
    /// The vertices (2D: counter-clockwise; 3D: hull vertices).
    fn vertices(&self) -> &[VecOf<S>];
    /// Edges as vertex index pairs (for drawing and for edge-based rope wrapping).
    fn edges(&self) -> Vec<(usize, usize)>;
    /// The face planes `(outward unit normal, offset)`: `x` is inside when
    /// `normal·x ≤ offset` for every one, and inside, the signed distance is the largest
    /// `normal·x − offset`.
    fn face_planes(&self) -> impl Iterator<Item = (VecOf<S>, RealOf<S>)> + '_;
}

/// Closest point to `p` on segment `a–b`, and its parameter in `[0, 1]`.
#[inline]
#[must_use]
pub fn closest_on_segment<R: Real, V: Vector<R>>(p: V, a: V, b: V) -> (V, R) {
    let ab = b - a;
    let len2 = ab.length_squared();
    let t = if len2 > R::ZERO { ((p - a).dot(ab) / len2).clamp(R::ZERO, R::ONE) } else { R::ZERO };
    (a + ab * t, t)
}

/// Entry fraction of segment `from → to` into a ball of radius `radius` at `center`.
#[must_use]
pub fn raycast_ball<R: Real, V: Vector<R>>(from: V, to: V, center: V, radius: R) -> Option<RayHit<R, V>> {
    let d = to - from;
    let m = from - center;
    let c = m.length_squared() - radius * radius;
    if c <= R::ZERO {
        return None; // starts inside: not an entry
    }
    let a = d.length_squared();
    if a == R::ZERO {
        return None;
    }
    let b = m.dot(d);
    if b >= R::ZERO {
        return None; // moving away
    }
    let disc = b * b - a * c;
    if disc < R::ZERO {
        return None;
    }
    let t = (-b - disc.sqrt()) / a;
    if t < R::ZERO || t > R::ONE {
        return None;
    }
    let normal = (m + d * t).normalize_or_zero();
    Some(RayHit { fraction: t, normal })
}

/// Entry of segment `from → to` into the capsule around `a–b` with `radius`. Works in any
/// dimension: the side surface is found from the distance to the infinite line (a
/// quadratic in the segment parameter), the caps by [`raycast_ball`].
#[must_use]
pub fn raycast_capsule<R: Real, V: Vector<R>>(from: V, to: V, a: V, b: V, radius: R) -> Option<RayHit<R, V>> {
    let axis = b - a;
    let (mut u, len) = axis.normalize_and_length();
    if len == R::ZERO {
        return raycast_ball(from, to, a, radius);
    }
    // A long axis is divided by its length instead: the reciprocal's absolute precision
    // (2⁻³² in fixed point, plus its seed's) times the length tilted a 40 m axis by 10⁻⁶
    // rad and a 40 km one by 2·10⁻⁶ — 9 cm off at the far end, past a 6 cm radius, and
    // a fast particle tunnelled.
    if len > R::from_i32(64) {
        u = axis / len;
    }
    let d = to - from;
    let m = from - a;
    // Components perpendicular to the axis.
    let mp = m - u * m.dot(u);
    let dp = d - u * d.dot(u);
    let c = mp.length_squared() - radius * radius;
    let mut best: Option<RayHit<R, V>> = None;
    let aa = dp.length_squared();
    if c > R::ZERO && aa > R::ZERO {
        let bb = mp.dot(dp);
        let disc = bb * bb - aa * c;
        if bb < R::ZERO && disc >= R::ZERO {
            let t = (-bb - disc.sqrt()) / aa;
            if t >= R::ZERO && t <= R::ONE {
                let s = (m + d * t).dot(u);
                if s >= R::ZERO && s <= len {
                    let normal = (mp + dp * t).normalize_or_zero();
                    best = Some(RayHit { fraction: t, normal });
                }
            }
        }
    }
    for cap in [a, b] {
        if let Some(h) = raycast_ball(from, to, cap, radius) {
            if best.is_none_or(|bh| h.fraction < bh.fraction) {
                // Only count cap hits outside the cylinder's span.
                let s = (from + d * h.fraction - a).dot(u);
                if s <= R::ZERO || s >= len {
                    best = Some(h);
                }
            }
        }
    }
    // Start inside the capsule: no entry.
    let (q, _) = closest_on_segment(from, a, b);
    if (from - q).length_squared() <= radius * radius {
        return None;
    }
    best
}

/// Cyrus–Beck clipping of segment `from → to` against a convex region given as planes
/// `n·x ≤ d + inflate`; returns the entry fraction and the entering plane's normal.
/// Inflating the planes leaves square corners; the shapes that use it (polygons, hulls,
/// boxes) check whether an entry lies in a corner region and, if so, take the entry into
/// the rounded corners or edges instead.
pub fn raycast_planes<R: Real, V: Vector<R>>(
    from: V,
    to: V,
    planes: impl Iterator<Item = (V, R)>,
    inflate: R,
) -> Option<RayHit<R, V>> {
    let d = to - from;
    let mut t_enter = R::ZERO;
    let mut t_exit = R::ONE;
    let mut normal = V::ZERO;
    for (n, off) in planes {
        let dist = n.dot(from) - (off + inflate);
        let denom = n.dot(d);
        if denom < R::ZERO {
            // Moving into this plane's inner side.
            if dist > R::ZERO {
                let t = dist / -denom;
                if normal == V::ZERO || t > t_enter {
                    t_enter = t;
                    normal = n;
                }
            }
        } else if dist > R::ZERO {
            return None; // outside this plane and not moving in: never enters
        } else if denom > R::ZERO {
            let t = -dist / denom;
            if t < t_exit {
                t_exit = t;
            }
        }
    }
    // `normal == ZERO` means `from` was inside every plane: not an entry.
    if normal == V::ZERO || t_enter > t_exit || t_enter > R::ONE {
        return None;
    }
    Some(RayHit { fraction: t_enter, normal })
}
