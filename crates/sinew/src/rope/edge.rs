//! Span (edge) collisions: each rope segment is a capsule of the rope's radius.
//!
//! Particle contacts alone let a post thinner than the particle spacing slip between two
//! particles, and let a box corner cut the span between them. So every substep each
//! segment `p(t) = (1 − t)·x_a + t·x_b` is tested against the colliders near its two
//! particles, and where the segment's *deepest* point lies strictly inside the span
//! (at the ends the particle contacts already act) it gets a contact
//! `C = n·p(t) − d ≥ 0`, with gradients `(1 − t)·n` and `t·n` on the two particles:
//!
//! ```text
//! Δλ = −C / ((1 − t)²·w_a + t²·w_b),   Δx_a = w_a (1 − t) n Δλ,   Δx_b = w_b t n Δλ
//! ```
//!
//! The deepest point: for balls and capsules, closest points in closed form. For boxes,
//! polygons and hulls the signed distance along a segment is convex in `t`; a span
//! matters only if it passes through the shape inflated by the radius while its ends are
//! clear (a swept entry test from each end bounds where), or dips deeper than its ends
//! (a chord across a corner: the middle falls below the ends' average). Only then does a
//! golden-section search find the deepest point; a span resting flat on a face costs
//! three distance queries.

use crate::collider::{Shape, closest_on_segment};
use crate::math::{Real, Vector};
use crate::space::{RealOf, Space, VecOf};

/// Segment parameter margin: deepest points closer than this to an end are left to the
/// particle contact there.
const END_MARGIN_RATIO: (i32, i32) = (1, 1000);

/// Closest points between segments `p0–p1` and `q0–q1`: parameters `(s, t)` in `[0, 1]`
/// (Ericson, *Real-Time Collision Detection*, §5.1.9).
#[must_use]
pub fn closest_segment_segment<R: Real, V: Vector<R>>(p0: V, p1: V, q0: V, q1: V) -> (R, R) {
    let (zero, one) = (R::ZERO, R::ONE);
    let d1 = p1 - p0;
    let d2 = q1 - q0;
    let r = p0 - q0;
    let a = d1.dot(d1);
    let e = d2.dot(d2);
    let f = d2.dot(r);
    if a == zero && e == zero {
        return (zero, zero);
    }
    if a == zero {
        return (zero, (f / e).clamp(zero, one));
    }
    let c = d1.dot(r);
    if e == zero {
        return ((-c / a).clamp(zero, one), zero);
    }
    let b = d1.dot(d2);
    let denom = a * e - b * b;
    let mut s = if denom > zero { ((b * f - c * e) / denom).clamp(zero, one) } else { zero };
    let mut t = (b * s + f) / e;
    if t < zero {
        t = zero;
        s = (-c / a).clamp(zero, one);
    } else if t > one {
        t = one;
        s = ((b - c) / a).clamp(zero, one);
    }
    (s, t)
}

/// Deepest contact of the segment `a–b` (local frame) inflated by `radius` with `shape`:
/// `(t, unit normal, point p(t) must reach)`, or `None` when the segment is clear or the
/// deepest point is at an end.
pub(crate) fn segment_contact<S: Space>(
    shape: &Shape<S>,
    a: VecOf<S>,
    b: VecOf<S>,
    radius: RealOf<S>,
) -> Option<(RealOf<S>, VecOf<S>, VecOf<S>)> {
    let (zero, one) = (RealOf::<S>::ZERO, RealOf::<S>::ONE);
    let margin = RealOf::<S>::from_ratio(END_MARGIN_RATIO.0, END_MARGIN_RATIO.1);
    let (t, normal, dist) = match shape {
        Shape::HalfSpace(_) => return None, // a segment cannot dip below a plane without an end doing so
        Shape::Ball(ball) => {
            let (q, t) = closest_on_segment(VecOf::<S>::ZERO, a, b);
            let (n, len) = q.normalize_and_length();
            if len == zero {
                return None;
            }
            (t, n, len - ball.radius)
        }
        Shape::Capsule(c) => {
            let (s, u) = closest_segment_segment(a, b, c.a, c.b);
            let p = a.lerp(b, s);
            let q = c.a.lerp(c.b, u);
            let (n, len) = (p - q).normalize_and_length();
            if len == zero {
                return None;
            }
            (s, n, len - c.radius)
        }
        Shape::Cuboid(_) | Shape::Convex(_) => {
            let da = shape.closest(a).distance;
            let db = shape.closest(b).distance;
            // Interval of the span to search for its deepest point.
            let (lo, hi) = if da >= radius && db >= radius {
                // Both ends clear: only a span passing through the (inflated) shape matters.
                let entry = shape.raycast(a, b, radius)?.fraction;
                let exit = shape.raycast(b, a, radius).map_or(one, |h| one - h.fraction);
                (entry, exit.max(entry))
            } else {
                // An end touches (its particle contact acts there). The signed distance is
                // convex along the span, so it is linear — a span resting flat on a face,
                // nothing for the span to add — exactly when the middle lies on the chord
                // of the ends; a chord across a corner bends below it.
                let dm = shape.closest(a.lerp(b, RealOf::<S>::HALF)).distance;
                let flat_tol = (b - a).length() * RealOf::<S>::from_ratio(1, 10_000);
                if dm >= (da + db) * RealOf::<S>::HALF - flat_tol || dm >= radius {
                    return None;
                }
                (zero, one)
            };
            // Golden-section search for the minimum of the convex signed distance.
            let inv_phi = RealOf::<S>::from_f64(0.618_033_988_749_895);
            let f = |t: RealOf<S>| shape.closest(a.lerp(b, t)).distance;
            let (mut lo, mut hi) = (lo, hi);
            let mut x1 = hi - (hi - lo) * inv_phi;
            let mut x2 = lo + (hi - lo) * inv_phi;
            let (mut f1, mut f2) = (f(x1), f(x2));
            for _ in 0..24 {
                if f1 <= f2 {
                    hi = x2;
                    x2 = x1;
                    f2 = f1;
                    x1 = hi - (hi - lo) * inv_phi;
                    f1 = f(x1);
                } else {
                    lo = x1;
                    x1 = x2;
                    f1 = f2;
                    x2 = lo + (hi - lo) * inv_phi;
                    f2 = f(x2);
                }
            }
            let t = (lo + hi) * RealOf::<S>::HALF;
            let prox = shape.closest(a.lerp(b, t));
            (t, prox.normal, prox.distance)
        }
    };
    if dist >= radius || t <= margin || t >= one - margin {
        return None;
    }
    let p = a.lerp(b, t);
    Some((t, normal, p + normal * (radius - dist)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Vector2;
    use crate::space::Space2;

    #[test]
    fn segment_segment_closest_points() {
        let v = Vector2::<f64>::new;
        let (s, t) = closest_segment_segment(v(-1.0, 0.0), v(1.0, 0.0), v(0.0, -1.0), v(0.0, 1.0));
        assert!((s - 0.5).abs() < 1e-12 && (t - 0.5).abs() < 1e-12);
        let (s, t) = closest_segment_segment(v(0.0, 0.0), v(1.0, 0.0), v(2.0, 1.0), v(3.0, 1.0));
        assert!((s - 1.0).abs() < 1e-12 && t.abs() < 1e-12);
    }

    #[test]
    fn a_span_across_a_thin_post_gets_a_contact_at_its_middle() {
        let v = Vector2::<f64>::new;
        let post = Shape::<Space2<f64>>::ball(0.01).unwrap();
        let (t, n, target) = segment_contact(&post, v(-0.05, 0.005), v(0.05, 0.005), 0.005).unwrap();
        assert!((t - 0.5).abs() < 1e-9);
        assert!((n - v(0.0, 1.0)).length() < 1e-9);
        assert!((target.y - 0.015).abs() < 1e-9);
        let bx = Shape::<Space2<f64>>::cuboid(v(0.5, 0.5)).unwrap();
        // A span cutting the corner (0.5, 0.5) between two outside particles.
        let (t, n, target) = segment_contact(&bx, v(0.3, 0.6), v(0.6, 0.3), 0.0).unwrap();
        assert!((t - 0.5).abs() < 1e-3, "{t}");
        // Pushed out through the nearest face (here +x, a tie broken toward the first axis).
        assert!(n.x >= 0.0 && n.y >= 0.0 && (n.length() - 1.0).abs() < 1e-12);
        assert!(bx.closest(target).distance > -1e-9);
        assert!(segment_contact(&bx, v(0.3, 0.8), v(0.8, 0.8), 0.0).is_none());
    }
}
