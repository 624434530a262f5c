//! Plane geometry of the taut path: wrap features as circles, the common tangent of two
//! circles, the path through a list of contacts, and its length with the arcs.
//!
//! Every wrap feature is a circle `(c, r)`: a polygon or box corner rounded by the rope's
//! radius, a ball or a capsule cap inflated by it. An end of the rope is a circle of
//! radius 0. A contact wraps its circle on a side `s = ±1` (`+1`: the rope turns left,
//! counter-clockwise, with the circle on its left); with the signed radius `ρ = s·r` the
//! path touches the circle at `T = c − ρ·n`, `n` the left normal of the travel direction
//! `d`. The span from circle 1 to circle 2 is their common tangent with
//!
//! ```text
//! D·n = ρ₂ − ρ₁        (D = c₂ − c₁, |d| = 1, n ⟂ d)
//! d = a·D̂ + b·D̂⊥,   b = −(ρ₂ − ρ₁)/|D|,   a = √(1 − b²)
//! ```
//!
//! and the path's length is the sum of its spans and of its arcs `r·θ`, where `θ` is the
//! turn at the contact in its wrap direction (kept continuous from substep to substep, so
//! a rope can go round a post more than once).

use crate::arena::RawHandle;
use crate::collider::{Collider, ConvexShape, Shape};
use crate::math::{Real, Rotation, Vector};
use crate::space::{RealOf, Space, VecOf};

/// A wrap feature of a collider: a circle in the world frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Feature<V, R> {
    /// Centre (m).
    pub center: V,
    /// Radius (m): the rope's radius at a corner, the shape's plus the rope's on a round.
    pub radius: R,
    /// The collider.
    pub collider: RawHandle,
    /// Which feature of it (vertex index; cap 0 or 1 of a capsule; 0 for a ball).
    pub index: u32,
    /// A point inside the shape (its centroid): going round the shape keeping it on the
    /// left, consecutive features turn counter-clockwise about it.
    pub hub: V,
}

/// The 2D cross product `a × b` (the `z` of the 3D one).
#[inline]
#[must_use]
pub(crate) fn cross<R: Real, V: Vector<R>>(a: V, b: V) -> R {
    let (a, b) = (a.to_array3(), b.to_array3());
    a[0] * b[1] - a[1] * b[0]
}

/// `a` turned a quarter left.
#[inline]
#[must_use]
pub(crate) fn perp<R: Real, V: Vector<R>>(a: V) -> V {
    let a = a.to_array3();
    V::from_array3([-a[1], a[0], R::ZERO])
}

/// Signed angle from `a` to `b` (counter-clockwise positive), in `(−π, π]`.
#[inline]
#[must_use]
pub(crate) fn angle<R: Real, V: Vector<R>>(a: V, b: V) -> R {
    cross(a, b).atan2(a.dot(b))
}

/// The wrap features of one collider, in the world frame (none for a half-plane: it has
/// no corner to bend round).
pub(crate) fn collider_features<S: Space>(
    handle: RawHandle,
    c: &Collider<S>,
    rope_radius: RealOf<S>,
    out: &mut Vec<Feature<VecOf<S>, RealOf<S>>>,
) {
    let count = match &c.shape {
        Shape::HalfSpace(_) => 0,
        Shape::Ball(_) => 1,
        Shape::Capsule(_) => 2,
        Shape::Cuboid(_) => 4,
        Shape::Convex(p) => p.vertices().len() as u32,
    };
    out.extend((0..count).filter_map(|i| feature_of(handle, c, i, rope_radius)));
}

/// One feature of a collider by index (what a contact remembers), if it still exists.
pub(crate) fn feature_of<S: Space>(
    handle: RawHandle,
    c: &Collider<S>,
    index: u32,
    rope_radius: RealOf<S>,
) -> Option<Feature<VecOf<S>, RealOf<S>>> {
    let place = |p: VecOf<S>| c.position + c.rotation.rotate(p);
    let (center, radius) = match (&c.shape, index) {
        (Shape::Ball(b), 0) => (c.position, b.radius + rope_radius),
        (Shape::Capsule(k), 0) => (place(k.a), k.radius + rope_radius),
        (Shape::Capsule(k), 1) => (place(k.b), k.radius + rope_radius),
        (Shape::Cuboid(b), i @ 0..=3) => {
            let e = b.half_extents.to_array3();
            let (sx, sy) = [(-1, -1), (1, -1), (1, 1), (-1, 1)][i as usize];
            let local = VecOf::<S>::from_array3([
                e[0] * RealOf::<S>::from_i32(sx),
                e[1] * RealOf::<S>::from_i32(sy),
                RealOf::<S>::ZERO,
            ]);
            (place(local), rope_radius)
        }
        (Shape::Convex(p), i) => (place(*p.vertices().get(i as usize)?), rope_radius),
        _ => return None,
    };
    let hub = match &c.shape {
        Shape::Capsule(k) => place((k.a + k.b) * RealOf::<S>::HALF),
        Shape::Convex(p) => {
            let v = p.vertices();
            let sum = v.iter().fold(VecOf::<S>::ZERO, |a, &b| a + b);
            place(sum / RealOf::<S>::from_i32(v.len().max(1) as i32))
        }
        _ => c.position,
    };
    Some(Feature { center, radius, collider: handle, index, hub })
}

/// The common tangent leaving circle `(c1, ρ1)` and arriving at circle `(c2, ρ2)` (signed
/// radii, see the module docs): touching points and the unit direction. Circles closer
/// than their radii allow have no such tangent: the direction is then the one of least
/// error (`|b|` clamped to 1). `None` when the centres coincide.
#[must_use]
pub(crate) fn tangent<R: Real, V: Vector<R>>(c1: V, rho1: R, c2: V, rho2: R) -> Option<(V, V, V)> {
    let (dh, l) = (c2 - c1).normalize_and_length();
    if !(l > R::GEOMETRIC_EPSILON) {
        return None;
    }
    let b = (-(rho2 - rho1) / l).clamp(-R::ONE, R::ONE);
    let a = (R::ONE - b * b).max(R::ZERO).sqrt();
    let d = dh * a + perp(dh) * b;
    let n = perp(d);
    Some((c1 - n * rho1, c2 - n * rho2, d))
}

/// A node of the path: an end (radius 0) or a wrapped circle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Node<V, R> {
    /// Centre.
    pub center: V,
    /// Signed radius `side · r`.
    pub rho: R,
    /// Wrap side (`±1`; 0 at the ends): kept apart from `rho`, which is 0 on a sharp
    /// corner.
    pub side: R,
    /// A point inside the wrapped shape (see [`Feature::hub`]; the centre at the ends).
    pub hub: V,
}

/// The path through its nodes: per span its two touching points, direction and length;
/// per contact its turn `θ` (continuous, see [`Path::compute`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Path<V, R> {
    /// Per span `j` (node `j` → node `j + 1`): leaving point, arriving point.
    pub ends: Vec<(V, V)>,
    /// Per span: unit direction (zero for a span of no length).
    pub dirs: Vec<V>,
    /// Per span: length.
    pub lengths: Vec<R>,
    /// Per contact (node `i + 1`): turn in its wrap direction (rad; negative: it unwraps).
    pub turns: Vec<R>,
    /// Spans plus arcs.
    pub length: R,
    /// 3D, per contact: turn and arc length of a round contact (working memory of
    /// `taut/path3.rs`).
    pub arcs: Vec<(R, R)>,
}

impl<R: Real, V: Vector<R>> Path<V, R> {
    /// Computes the path through `nodes` (first and last the ends, radius 0). `previous`
    /// holds each contact's last turn: the new one is taken within `π` of it, so a rope
    /// wound round a round post keeps counting its laps.
    pub fn compute(&mut self, nodes: &[Node<V, R>], previous: impl Fn(usize) -> R) {
        self.ends.clear();
        self.dirs.clear();
        self.lengths.clear();
        self.turns.clear();
        let mut length = R::ZERO;
        for w in nodes.windows(2) {
            let (a, b) = (w[0], w[1]);
            let (p, q, d) = match tangent(a.center, a.rho, b.center, b.rho) {
                Some(t) => t,
                None => (a.center, b.center, self.dirs.last().copied().unwrap_or(V::ZERO)),
            };
            let mut len = (q - p).length();
            // A span crossing back over itself (circles overlapping): no length of its own.
            if (q - p).dot(d) < R::ZERO {
                len = R::ZERO;
            }
            self.ends.push((p, q));
            self.dirs.push(d);
            self.lengths.push(len);
            length += len;
        }
        let two_pi = R::PI * R::TWO;
        let inner = nodes.get(1..nodes.len().saturating_sub(1)).unwrap_or(&[]);
        for (k, node) in inner.iter().enumerate() {
            let i = k + 1;
            let (din, dout) = (self.dirs[i - 1], self.dirs[i]);
            let side = node.side;
            let prev = previous(i - 1);
            let turn = if din == V::ZERO || dout == V::ZERO {
                prev
            } else {
                let raw = angle(din, dout) * side;
                // The nearest lap to the previous turn.
                let laps = ((prev - raw) / two_pi + R::HALF).to_f64().floor();
                raw + two_pi * R::from_i32(laps as i32)
            };
            self.turns.push(turn);
            length += node.rho.abs() * turn.max(R::ZERO);
        }
        self.length = length;
    }

    /// Points of the path for drawing and output: each span's two ends, arcs of round
    /// contacts sampled so that no chord lies more than `max_sag` inside its arc (a chord
    /// of angle `φ` on radius `r` sags `r(1 − cos φ/2) ≈ rφ²/8`), at most every 1/8 rad.
    pub fn polyline(&self, nodes: &[Node<V, R>], max_sag: R, out: &mut Vec<V>) {
        out.clear();
        for (j, &(p, q)) in self.ends.iter().enumerate() {
            if j > 0 {
                let (c, rho, turn) = (nodes[j].center, nodes[j].rho, self.turns[j - 1]);
                let r = rho.abs();
                let max_angle = if r > R::GEOMETRIC_EPSILON {
                    (max_sag * R::from_i32(8) / r).sqrt().min(R::from_ratio(1, 8))
                } else {
                    turn
                };
                if r > R::GEOMETRIC_EPSILON && turn > max_angle {
                    // From the arriving point of the span before round to this span's start.
                    let start = out.last().copied().unwrap_or(p);
                    let k = (turn / max_angle).to_f64().ceil().min(256.0) as i32;
                    let step = turn * nodes[j].side / R::from_i32(k);
                    let (s, co) = (step.sin(), step.cos());
                    let mut v = start - c;
                    for _ in 1..k {
                        v = v * co + perp(v) * s;
                        out.push(c + v);
                    }
                }
            }
            if out.last() != Some(&p) {
                out.push(p);
            }
            out.push(q);
        }
    }
}

/// `e^x` for `0 ≤ x ≤ ~20` in any number type (the capstan factor): `(e^{x/64})^64` with a
/// 6-term series for the small exponential (relative error below 10⁻⁷ in `f64`).
#[must_use]
pub(crate) fn exp_small<R: Real>(x: R) -> R {
    let y = x / R::from_i32(64);
    let mut term = R::ONE;
    let mut sum = R::ONE;
    for k in 1..=6 {
        term = term * y / R::from_i32(k);
        sum += term;
    }
    for _ in 0..6 {
        sum = sum * sum;
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Vector2;

    type V = Vector2<f64>;

    #[test]
    fn the_tangent_of_two_equal_circles_on_the_same_side_is_parallel_to_their_centres() {
        let (p, q, d) = tangent(V::new(0.0, 0.0), 1.0, V::new(4.0, 0.0), 1.0).unwrap();
        assert!((d - V::new(1.0, 0.0)).length() < 1e-12);
        // Left turn: circle on the left of travel, so the path runs below the centres.
        assert!((p - V::new(0.0, -1.0)).length() < 1e-12, "{p:?}");
        assert!((q - V::new(4.0, -1.0)).length() < 1e-12, "{q:?}");
    }

    #[test]
    fn the_tangent_from_a_point_touches_the_circle_at_a_right_angle() {
        for rho in [0.5, -0.5] {
            let c = V::new(3.0, 1.0);
            let (p, q, d) = tangent(V::new(0.0, 0.0), 0.0, c, rho).unwrap();
            assert!(p.length() < 1e-12);
            assert!(((q - c).length() - 0.5).abs() < 1e-12);
            assert!((q - c).dot(d).abs() < 1e-12, "radius ⟂ tangent");
            assert!(cross(d, c - q) * rho > 0.0, "circle on the wrap side");
        }
    }

    #[test]
    fn a_path_round_a_circle_measures_spans_plus_arc() {
        // From (−2, 0) over a unit circle at the origin to (2, 0), wrapped clockwise (the
        // rope turns right, over the top): two tangents of √3 and an arc of π/3.
        let nodes = [
            Node { center: V::new(-2.0, 0.0), rho: 0.0, side: 0.0, hub: V::new(-2.0, 0.0) },
            Node { center: V::new(0.0, 0.0), rho: -1.0, side: -1.0, hub: V::new(0.0, 0.0) },
            Node { center: V::new(2.0, 0.0), rho: 0.0, side: 0.0, hub: V::new(2.0, 0.0) },
        ];
        let mut path = Path::default();
        path.compute(&nodes, |_| 0.0);
        let expect = 2.0 * 3f64.sqrt() + core::f64::consts::PI / 3.0;
        assert!((path.length - expect).abs() < 1e-12, "{} vs {expect}", path.length);
        assert!((path.turns[0] - core::f64::consts::PI / 3.0).abs() < 1e-12);
        let mut pts = Vec::new();
        path.polyline(&nodes, 1e-4, &mut pts);
        assert!(pts.iter().all(|p| p.length() >= 1.0 - 1e-9), "no point inside the circle");
        assert!(pts.iter().skip(1).take(pts.len() - 2).all(|p| p.y > 0.0), "over the top");
    }

    #[test]
    fn turns_keep_counting_laps() {
        let nodes = [
            Node { center: V::new(-2.0, 0.0), rho: 0.0, side: 0.0, hub: V::new(-2.0, 0.0) },
            Node { center: V::new(0.0, 0.0), rho: -1.0, side: -1.0, hub: V::new(0.0, 0.0) },
            Node { center: V::new(2.0, 0.0), rho: 0.0, side: 0.0, hub: V::new(2.0, 0.0) },
        ];
        let mut path = Path::default();
        let lap = 2.0 * core::f64::consts::PI;
        path.compute(&nodes, |_| lap);
        assert!((path.turns[0] - (lap + core::f64::consts::PI / 3.0)).abs() < 1e-12);
    }

    #[test]
    fn the_capstan_exponential_is_accurate() {
        for x in [0.0f64, 0.3, 0.942, 1.885, 5.0, 12.0] {
            let e = exp_small(x);
            assert!((e / x.exp() - 1.0).abs() < 1e-7, "{x}: {e}");
        }
        let e = exp_small(crate::Fx::from_f64(0.942)).to_f64();
        assert!((e / 0.942f64.exp() - 1.0).abs() < 1e-5, "fixed point {e}");
    }
}
