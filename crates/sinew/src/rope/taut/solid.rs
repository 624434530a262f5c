//! The wrap features of 3D shapes: box and hull edges (sharp), balls and capsules
//! (round), and the test of a span against a shape.
//!
//! A 3D feature is a segment `a–b` with a radius `ρ`:
//! - a **box or hull edge** is sharp (`ρ = 0`). The rope's centre line cannot touch the
//!   edge itself, so the segment is the edge moved out by the rope's radius `r` along the
//!   bisector of its two faces' normals: a rope bent over it keeps its surface on the edge
//!   (the straight spans pass within `r·cos(θ/2)` of it at a turn `θ`, so the rope's
//!   surface can overlap the edge by at most `r(1 − cos θ/2)`, 0.3 r for a quarter turn,
//!   and a particle rope lying round the edge is up to that far from the taut path).
//!   Edges between coplanar faces (a hull's face diagonals) are not features;
//! - a **ball** is the degenerate segment `a = b` with `ρ` the ball's radius plus the
//!   rope's;
//! - a **capsule** is its axis with `ρ` its radius plus the rope's.
//!
//! A contact remembers where on its segment it sits (`t ∈ [0, 1]`, [`super::Wrap`]'s `at`),
//! and slides along it to keep the path shortest (`taut/path3.rs`).

use crate::arena::RawHandle;
use crate::collider::{Collider, ConvexShape, Shape};
use crate::math::{Real, Rotation, Vector};
use crate::space::{RealOf, Space, VecOf};

/// A wrap feature of a 3D collider in the world frame (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Feature3<V, R> {
    /// Segment start (m): an edge already moved out by the rope's radius.
    pub a: V,
    /// Segment end (`a` for a ball).
    pub b: V,
    /// Radius wrapped (m): 0 on an edge.
    pub radius: R,
    /// An edge's outward direction (unit bisector of its faces' normals); zero on a
    /// round shape. A rope bent over the edge presses along `−out`.
    pub out: V,
    /// The collider.
    pub collider: RawHandle,
    /// Which feature of it (edge index of a box or hull; 0 for a ball or capsule).
    pub index: u32,
}

impl<R: Real, V: Vector<R>> Feature3<V, R> {
    /// The point at parameter `t` of the segment.
    #[inline]
    #[must_use]
    pub fn at(&self, t: R) -> V {
        self.a + (self.b - self.a) * t
    }
}

/// The 3D cross product.
#[inline]
#[must_use]
pub(crate) fn cross3<R: Real, V: Vector<R>>(a: V, b: V) -> V {
    let (a, b) = (a.to_array3(), b.to_array3());
    V::from_array3([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])
}

/// Number of features of a collider in 3D (edges of a box: 12; of a hull: its edges,
/// flat ones included, which [`feature_of3`] then refuses).
fn count<S: Space>(c: &Collider<S>) -> u32 {
    match &c.shape {
        Shape::HalfSpace(_) => 0,
        Shape::Ball(_) | Shape::Capsule(_) => 1,
        Shape::Cuboid(_) => 12,
        Shape::Convex(p) => p.edges().len() as u32,
    }
}

/// The wrap features of one collider, in the world frame (none for a half-space).
pub(crate) fn collider_features3<S: Space>(
    handle: RawHandle,
    c: &Collider<S>,
    rope_radius: RealOf<S>,
    out: &mut Vec<Feature3<VecOf<S>, RealOf<S>>>,
) {
    if let Shape::Convex(p) = &c.shape {
        // One pass over the edges (the hull lists them anew on each call).
        for (i, &(a, b)) in p.edges().iter().enumerate() {
            out.extend(hull_edge::<S>(handle, c, p, (a, b), i as u32, rope_radius));
        }
        return;
    }
    out.extend((0..count(c)).filter_map(|i| feature_of3(handle, c, i, rope_radius)));
}

/// One feature of a collider by index (what a contact remembers), if it exists.
pub(crate) fn feature_of3<S: Space>(
    handle: RawHandle,
    c: &Collider<S>,
    index: u32,
    rope_radius: RealOf<S>,
) -> Option<Feature3<VecOf<S>, RealOf<S>>> {
    let place = |p: VecOf<S>| c.position + c.rotation.rotate(p);
    let one = RealOf::<S>::ONE;
    let zero = VecOf::<S>::ZERO;
    let (a, b, radius, dir) = match (&c.shape, index) {
        (Shape::Ball(s), 0) => (c.position, c.position, s.radius + rope_radius, zero),
        (Shape::Capsule(k), 0) => (place(k.a), place(k.b), k.radius + rope_radius, zero),
        (Shape::Cuboid(x), i @ 0..=11) => {
            // Edge along `axis`, at the signs `bits` of the two other axes.
            let (axis, bits) = ((i / 4) as usize, i % 4);
            let h = x.half_extents.to_array3();
            let (mut lo, mut hi, mut out) = ([RealOf::<S>::ZERO; 3], [RealOf::<S>::ZERO; 3], [RealOf::<S>::ZERO; 3]);
            let others = [(axis + 1) % 3, (axis + 2) % 3];
            lo[axis] = -h[axis];
            hi[axis] = h[axis];
            for (k, &o) in others.iter().enumerate() {
                let s = if bits & (1 << k) != 0 { one } else { -one };
                lo[o] = h[o] * s;
                hi[o] = h[o] * s;
                out[o] = s;
            }
            let dir = c.rotation.rotate(VecOf::<S>::from_array3(out)).normalize_or_zero();
            let (lo, hi) = (VecOf::<S>::from_array3(lo), VecOf::<S>::from_array3(hi));
            (place(lo) + dir * rope_radius, place(hi) + dir * rope_radius, RealOf::<S>::ZERO, dir)
        }
        (Shape::Convex(p), i) => {
            let edges = p.edges();
            let &e = edges.get(i as usize)?;
            return hull_edge::<S>(handle, c, p, e, i, rope_radius);
        }
        _ => return None,
    };
    Some(Feature3 { a, b, radius, out: dir, collider: handle, index })
}

/// A hull edge as a feature: moved out along the bisector of its two faces' normals;
/// `None` for an edge between coplanar faces.
fn hull_edge<S: Space>(
    handle: RawHandle,
    c: &Collider<S>,
    p: &S::Convex,
    (ia, ib): (usize, usize),
    index: u32,
    rope_radius: RealOf<S>,
) -> Option<Feature3<VecOf<S>, RealOf<S>>> {
    let v = p.vertices();
    let (a, b) = (*v.get(ia)?, *v.get(ib)?);
    let size = a.length().max(b.length()).max(RealOf::<S>::ONE);
    let tol =
        (size * RealOf::<S>::from_ratio(1, 100_000)).max(RealOf::<S>::GEOMETRIC_EPSILON * RealOf::<S>::from_i32(64));
    // The faces through both ends; their two most different normals.
    let (mut n1, mut n2, mut best) = (None::<VecOf<S>>, None::<VecOf<S>>, RealOf::<S>::TWO);
    for (n, d) in p.face_planes() {
        if (n.dot(a) - d).abs() > tol || (n.dot(b) - d).abs() > tol {
            continue;
        }
        match n1 {
            None => n1 = Some(n),
            Some(m) => {
                let dot = m.dot(n);
                if dot < best {
                    best = dot;
                    n2 = Some(n);
                }
            }
        }
    }
    let (n1, n2) = (n1?, n2?);
    if best > RealOf::<S>::ONE - RealOf::<S>::from_ratio(1, 100_000) {
        return None;
    }
    let dir = c.rotation.rotate((n1 + n2).normalize_or_zero());
    let place = |q: VecOf<S>| c.position + c.rotation.rotate(q) + dir * rope_radius;
    Some(Feature3 { a: place(a), b: place(b), radius: RealOf::<S>::ZERO, out: dir, collider: handle, index })
}

/// Whether the segment `p → q` enters the collider's shape inflated by `inflate` (a
/// segment starting inside it counts as entering when it leaves on the far side of its
/// middle, see below).
#[must_use]
pub(crate) fn crosses<S: Space>(c: &Collider<S>, p: VecOf<S>, q: VecOf<S>, inflate: RealOf<S>) -> bool {
    if matches!(c.shape, Shape::HalfSpace(_)) {
        return false;
    }
    let (lp, lq) = (c.rotation.inverse_rotate(p - c.position), c.rotation.inverse_rotate(q - c.position));
    c.shape.raycast(lp, lq, inflate).is_some() || c.shape.raycast(lq, lp, inflate).is_some()
}

/// Whether the point `p` lies inside the collider's shape (negative signed distance).
#[must_use]
pub(crate) fn inside<S: Space>(c: &Collider<S>, p: VecOf<S>) -> bool {
    !matches!(c.shape, Shape::HalfSpace(_)) && c.closest_world(p).distance < RealOf::<S>::ZERO
}
