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
//! (a chord across a corner: the middle falls below the ends' average). Only then is the
//! deepest point searched for: inside the shape the signed distance is the largest of the
//! face planes' distances, lines in `t` whose upper envelope has an exact minimum; a span
//! clear of the shape has its nearest point at an end or a corner's foot in 2D, and in 3D
//! where the distance's slope along it changes sign (false position, about 8 distance
//! queries where a golden-section search took 14–24). A span resting flat on a face costs
//! three distance queries. Inside the shape proper the deepest point's normal is the blend
//! of the faces the span runs into and out of that is perpendicular to it, so a span
//! through a thin wall edge-on is pushed back across the wall, not along itself.
//!
//! The test is *swept* (`swept_segment_contact`): a span whose ends moved less than
//! `¾·(half thickness + radius)` in the substep cannot have crossed the middle of the
//! shape and is tested where it is (the common, cheap case). A faster span is sampled
//! from its start-of-substep positions at that spacing; contact normals that flip between
//! samples mean it crossed, and it is then returned whole (both ends to the supporting
//! plane on the side it came from): a rope at 60 m/s stops at a 3 cm post that lies
//! between two of its particles. Against balls and capsules the contact at the current
//! positions is speculative within that spacing, so a neighbouring span's push cannot
//! carry a span into the post unopposed.
//!
//! A span whose ends stay within a few millimetres of where the step started (a rope at
//! rest on its colliders, most of the time) is not tested every substep: its contact is
//! found once for the step and kept as a plane (`span_step_contact`; the bounds are under
//! "Contact planes" in the world's module docs).

use crate::collider::{ConvexShape, Proximity, Shape, closest_on_segment};
use crate::math::{Real, Vector};
use crate::space::{RealOf, Space, VecOf};

/// Segment parameter margin: deepest points closer than this to an end are left to the
/// particle contact there.
const END_MARGIN_RATIO: (i32, i32) = (1, 1000);

/// Sample spacing of the swept test, as a fraction of the inflated shape's half
/// thickness (`half_thickness + radius`): a span point moving less than that between two
/// samples cannot step over the shape's middle, and the margin keeps a sample inside the
/// shape on each side of the middle when a span crosses it.
const SWEEP_SPACING_RATIO: (i32, i32) = (3, 4);
/// Most samples of one swept test (a speed limit: 64 spacings per substep).
const MAX_SWEEP_SAMPLES: i32 = 64;

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
    let (t, normal, dist) = span_deepest(shape, a, b, radius)?;
    if normal == VecOf::<S>::ZERO {
        return None; // through a centre or an axis: no side to push to
    }
    Some((t, normal, a.lerp(b, t) + normal * (radius - dist)))
}

/// The deepest point of the segment `a–b` if it lies closer than `reach` to `shape` and
/// strictly inside the span: `(t, unit normal, signed distance)`.
fn span_deepest<S: Space>(
    shape: &Shape<S>,
    a: VecOf<S>,
    b: VecOf<S>,
    radius: RealOf<S>,
) -> Option<(RealOf<S>, VecOf<S>, RealOf<S>)> {
    span_deepest_from(shape, a, b, || (shape.closest(a), shape.closest(b)), radius)
}

/// A shape's proximities to a span's two ends.
type EndProximities<S> = (Proximity<RealOf<S>, VecOf<S>>, Proximity<RealOf<S>, VecOf<S>>);

/// [`span_deepest`] with the ends' proximities from `ends` (called only for the shapes
/// that need them), for callers that already have them.
fn span_deepest_from<S: Space>(
    shape: &Shape<S>,
    a: VecOf<S>,
    b: VecOf<S>,
    ends: impl FnOnce() -> EndProximities<S>,
    radius: RealOf<S>,
) -> Option<(RealOf<S>, VecOf<S>, RealOf<S>)> {
    let (zero, one) = (RealOf::<S>::ZERO, RealOf::<S>::ONE);
    let margin = RealOf::<S>::from_ratio(END_MARGIN_RATIO.0, END_MARGIN_RATIO.1);
    let (t, normal, dist) = match shape {
        Shape::HalfSpace(_) => return None, // a segment cannot dip below a plane without an end doing so
        Shape::Ball(_) | Shape::Capsule(_) => deepest_point(shape, a, b, zero, one)?,
        Shape::Cuboid(_) | Shape::Convex(_) => {
            let (pa, pb) = ends();
            let (da, db) = (pa.distance, pb.distance);
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
                //
                // First without a third query: `a`'s normal `n` gives a supporting plane
                // of the shape, `n·x = n·a − d_a`, below which the signed distance never
                // drops. When `b` lies at its own distance from that same plane, the
                // (convex) signed distance is at most the chord and at least the plane —
                // equal, so flat (a span lying on a face: the common resting case).
                let flat_tol = (b - a).length() * RealOf::<S>::from_ratio(1, 10_000);
                let on_plane = pa.normal.dot(b - a) + da - db;
                if on_plane.abs() <= flat_tol {
                    return None;
                }
                // A middle clear of the shape proves nothing: the distance can dip below
                // zero between a touching end and a clear middle (a span from under a
                // plank's end to past its far corner cuts through it near the end).
                let dm = shape.closest(a.lerp(b, RealOf::<S>::HALF)).distance;
                if dm >= (da + db) * RealOf::<S>::HALF - flat_tol {
                    return None;
                }
                (zero, one)
            };
            deepest_point(shape, a, b, lo, hi)?
        }
    };
    if dist >= radius || t <= margin || t >= one - margin {
        return None;
    }
    Some((t, normal, dist))
}

/// The point of the segment `a–b` deepest in (or nearest to) `shape`, searched in
/// `[lo, hi]` for boxes and convex shapes (balls and capsules are solved in closed form):
/// `(t, unit normal, signed distance of p(t))`; `None` for half-spaces. The normal is 0
/// when the segment passes through a ball's centre or a capsule's axis (either side).
///
/// For boxes, polygons and hulls the signed distance along a segment is convex in `t`.
/// Inside the shape it is the maximum of the face planes' distances, each linear in `t`,
/// and the deepest point sits where a face the span runs into meets one it runs out of
/// (the middle of the stretch where the span runs parallel to a face): found exactly by
/// walking the planes' upper envelope. The nearest face there can be either, and the one
/// that holds the span is their blend perpendicular to it: a span through a thin wall
/// edge-on is pushed back across the wall, not along itself; a chord deep across a corner
/// is pushed out diagonally. The distance is then measured to the shape's supporting
/// plane in that direction. A span clear of the shape has its nearest point at an end or
/// at a corner's foot in 2D (exact), and in 3D where the distance's slope `n·(b − a)`
/// changes sign, found by false position ([`nearest_outside`]).
fn deepest_point<S: Space>(
    shape: &Shape<S>,
    a: VecOf<S>,
    b: VecOf<S>,
    lo: RealOf<S>,
    hi: RealOf<S>,
) -> Option<(RealOf<S>, VecOf<S>, RealOf<S>)> {
    let (zero, one) = (RealOf::<S>::ZERO, RealOf::<S>::ONE);
    match shape {
        Shape::HalfSpace(_) => None,
        // Through the centre or the axis (or, in fixed point, within ~15 µm of it, where
        // squared lengths round to 0) the normal is 0: either side.
        Shape::Ball(ball) => {
            let (q, t) = closest_on_segment(VecOf::<S>::ZERO, a, b);
            let (n, len) = q.normalize_and_length();
            Some((t, if len > zero { n } else { VecOf::<S>::ZERO }, len - ball.radius))
        }
        Shape::Capsule(c) => {
            let (s, u) = closest_segment_segment(a, b, c.a, c.b);
            let p = a.lerp(b, s);
            let q = c.a.lerp(c.b, u);
            let (n, len) = (p - q).normalize_and_length();
            Some((s, if len > zero { n } else { VecOf::<S>::ZERO }, len - c.radius))
        }
        Shape::Cuboid(_) | Shape::Convex(_) => {
            // Inside, the signed distance is the largest face-plane distance, a convex
            // piecewise-linear function of `t` whose minimum is exact (`envelope_minimum`);
            // if even that minimum is above 0 the span is clear of the shape and its
            // nearest point is where the distance stops falling (`nearest_outside`).
            let t = match envelope_minimum(shape, a, b - a, lo, hi) {
                Some((t, g)) if g <= zero => t,
                _ => nearest_outside(shape, a, b, lo, hi),
            };
            let p = a.lerp(b, t);
            let prox = shape.closest(p);
            if prox.distance > zero {
                // Outside the shape proper the distance is smooth: at the span's deepest
                // point its gradient is already perpendicular to the span.
                return Some((t, prox.normal, prox.distance));
            }
            // Inside: the faces active just before and just after the deepest point,
            // blended so that the normal is perpendicular to the span.
            let d = b - a;
            let step = RealOf::<S>::from_ratio(END_MARGIN_RATIO.0, END_MARGIN_RATIO.1);
            let nl = shape.closest(a.lerp(b, (t - step).max(zero))).normal;
            let nr = shape.closest(a.lerp(b, (t + step).min(one))).normal;
            let (sl, sr) = (nl.dot(d), nr.dot(d));
            let blend = if sl < zero && sr > zero {
                let alpha = sr / (sr - sl);
                nl * alpha + nr * (one - alpha)
            } else if sl.abs() <= sr.abs() {
                nl
            } else {
                nr
            };
            let (n, len) = blend.normalize_and_length();
            let n = if len > zero { n } else { prox.normal };
            Some((t, n, n.dot(p) - n.dot(shape.support(n))))
        }
    }
}

/// Queries at most for the nearest point of a clear span in 3D. Every second step at
/// least halves the bracket, so a 5 cm span reaches its 0.05 mm within 20; the unit
/// test's random spans (up to 0.9 m, a box and a hull) took 8 on average.
const MAX_SEARCH_STEPS: usize = 32;

/// A face plane's signed distance along a span as the line `α + β t`: `(α, β)`.
type Line<S> = (RealOf<S>, RealOf<S>);

/// Calls `f(normal, offset)` for each face plane of a box or convex shape (nothing for
/// other shapes).
fn for_each_face_plane<S: Space>(shape: &Shape<S>, mut f: impl FnMut(VecOf<S>, RealOf<S>)) {
    match shape {
        Shape::Cuboid(c) => c.face_planes().for_each(|(n, o)| f(n, o)),
        Shape::Convex(c) => c.face_planes().for_each(|(n, o)| f(n, o)),
        _ => {}
    }
}

/// The minimum over `t ∈ [lo, hi]` of `g(t) = max_f (n_f·(a + t d) − o_f)`, the largest
/// face-plane distance along the segment (equal to the signed distance wherever it is
/// ≤ 0): `(t, g(t))`, or `None` for a shape without face planes.
///
/// `g` is the upper envelope of one line per face, convex and piecewise linear, so its
/// minimum is exact: from `lo`, follow the line on top (of those tied, the steepest) while
/// it falls, jumping to the first line that overtakes it, until a line that does not fall
/// or `hi`. A flat stretch at the bottom (a span parallel to a face) answers with its
/// middle. At most one jump per face, each a pass over the faces.
fn envelope_minimum<S: Space>(
    shape: &Shape<S>,
    a: VecOf<S>,
    d: VecOf<S>,
    lo: RealOf<S>,
    hi: RealOf<S>,
) -> Option<(RealOf<S>, RealOf<S>)> {
    let zero = RealOf::<S>::ZERO;
    // Each face's line `α + β t`: `α = n·a − o`, `β = n·d`.
    let line = |n: VecOf<S>, o: RealOf<S>| (n.dot(a) - o, n.dot(d));
    let value = |(al, be): Line<S>, t: RealOf<S>| al + be * t;
    // The line on top at `lo` (ties: the steepest), and how many faces there are.
    let (mut top, mut faces): (Option<Line<S>>, usize) = (None, 0);
    for_each_face_plane(shape, |n, o| {
        let l = line(n, o);
        faces += 1;
        if top.is_none_or(|b| value(l, lo) > value(b, lo) || (value(l, lo) == value(b, lo) && l.1 > b.1)) {
            top = Some(l);
        }
    });
    let mut cur = top?;
    let mut t = lo;
    // Each jump goes to a steeper line, so there are fewer jumps than faces.
    for _ in 0..faces {
        let (v, k) = (value(cur, t), cur.1);
        if k > zero {
            return Some((t, v));
        }
        // The first steeper line to reach the top one beyond `t` (ties: the steepest).
        let mut next: Option<(RealOf<S>, Line<S>)> = None;
        for_each_face_plane(shape, |n, o| {
            let l = line(n, o);
            if l.1 > k {
                let at = t + (v - value(l, t)).max(zero) / (l.1 - k);
                if next.is_none_or(|(f, fl)| at < f || (at == f && l.1 > fl.1)) {
                    next = Some((at, l));
                }
            }
        });
        let next = next.filter(|&(at, _)| at < hi);
        if k == zero {
            // Flat: from here to where a rising line takes over (or `hi`).
            let end = next.map_or(hi, |(at, _)| at);
            return Some(((t + end) * RealOf::<S>::HALF, v));
        }
        match next {
            Some((at, l)) => (t, cur) = (at.max(t), l),
            None => return Some((hi, value(cur, hi))), // falling all the way
        }
    }
    Some((t, value(cur, t)))
}

/// The `t ∈ [lo, hi]` where the segment `a–b`, clear of a 2D box or polygon, comes nearest
/// to it, exactly: two disjoint convex sets come nearest at a vertex of one of them, so
/// the answer is an end of the piece `[lo, hi]` (one distance query each) or the foot of
/// a polygon corner on it (a projection each). `None` in 3D (edges would join the corners).
fn nearest_outside_2d<S: Space>(
    shape: &Shape<S>,
    a: VecOf<S>,
    b: VecOf<S>,
    lo: RealOf<S>,
    hi: RealOf<S>,
) -> Option<RealOf<S>> {
    if S::DIM != 2 {
        return None;
    }
    let zero = RealOf::<S>::ZERO;
    let (p, q) = (a.lerp(b, lo), a.lerp(b, hi));
    let d = q - p;
    let dd = d.length_squared();
    let (dp, dq) = (shape.closest(p).distance, shape.closest(q).distance);
    let (mut best_t, mut best2) = if dp <= dq { (lo, dp.max(zero).sq()) } else { (hi, dq.max(zero).sq()) };
    let mut corner = |v: VecOf<S>| {
        let u = if dd > zero { ((v - p).dot(d) / dd).clamp(zero, RealOf::<S>::ONE) } else { zero };
        let e2 = (p + d * u - v).length_squared();
        if e2 < best2 {
            (best_t, best2) = (lo + (hi - lo) * u, e2);
        }
    };
    match shape {
        Shape::Cuboid(c) => {
            let h = c.half_extents;
            for (sx, sy) in [(1, 1), (-1, 1), (-1, -1), (1, -1)] {
                let mut v = h;
                v.set(0, h.get(0) * RealOf::<S>::from_i32(sx));
                v.set(1, h.get(1) * RealOf::<S>::from_i32(sy));
                corner(v);
            }
        }
        Shape::Convex(c) => c.vertices().iter().for_each(|&v| corner(v)),
        _ => return None,
    }
    Some(best_t)
}

/// The `t ∈ [lo, hi]` where the segment `a–b`, clear of a box or convex shape, comes
/// nearest to it. In 2D exactly ([`nearest_outside_2d`]). In 3D the root of the
/// distance's slope `s(t) = n(t)·(b − a)` (`n` the unit normal of the nearest point,
/// continuous outside a convex shape, and non-decreasing since the distance is convex),
/// by false position with the Illinois modification and a halving after any step that did
/// not halve the bracket, until the bracket is 0.05 mm of rope or after
/// [`MAX_SEARCH_STEPS`] queries.
fn nearest_outside<S: Space>(shape: &Shape<S>, a: VecOf<S>, b: VecOf<S>, lo: RealOf<S>, hi: RealOf<S>) -> RealOf<S> {
    if let Some(t) = nearest_outside_2d(shape, a, b, lo, hi) {
        return t;
    }
    let (zero, half) = (RealOf::<S>::ZERO, RealOf::<S>::HALF);
    let d = b - a;
    let slope = |t: RealOf<S>| shape.closest(a.lerp(b, t)).normal.dot(d);
    let arc_tol = RealOf::<S>::from_ratio(1, 20_000);
    let span = d.length();
    let (mut tl, mut sl) = (lo, slope(lo));
    if sl >= zero {
        return lo; // rising from the start
    }
    let (mut th, mut sh) = (hi, slope(hi));
    if sh <= zero {
        return hi; // falling to the end
    }
    let mut side = 0i8;
    let mut width = th - tl;
    for _ in 0..MAX_SEARCH_STEPS {
        if (th - tl) * span <= arc_tol {
            break;
        }
        // False position, except after a step that did not halve the bracket: the slope
        // is flat over a face and turns only round an edge or vertex, where the root
        // usually is, so straight-line guesses can creep (then halving guarantees
        // progress).
        let halving = th - tl > width * half;
        width = th - tl;
        let mut t = if halving { (tl + th) * half } else { tl + (th - tl) * (zero - sl) / (sh - sl) };
        if !(t > tl && t < th) {
            t = (tl + th) * half;
        }
        let st = slope(t);
        if st > zero {
            (th, sh) = (t, st);
            if side == 1 {
                sl *= half;
            }
            side = 1;
        } else if st < zero {
            (tl, sl) = (t, st);
            if side == -1 {
                sh *= half;
            }
            side = -1;
        } else {
            return t;
        }
    }
    (tl + th) * half
}

/// A span's contact for a whole step (see "Contact planes" in the world's docs): what
/// [`span_step_contact`] finds, with the plane `P` in the collider's frame
/// ([`LocalPlane`]); the rope's step keeps it in the world frame with its friction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum SpanStep<P> {
    /// No step plane: the span is tested every substep.
    Test,
    /// Clear of the collider while its ends stay within the reuse distance.
    Clear,
    /// Keep the span's point at `t` on the plane's side while its ends stay within the
    /// reuse distance.
    Plane(P),
}

impl<P> SpanStep<P> {
    /// The same outcome with the plane converted by `f`.
    #[inline]
    pub(crate) fn map<Q>(self, f: impl FnOnce(P) -> Q) -> SpanStep<Q> {
        match self {
            Self::Test => SpanStep::Test,
            Self::Clear => SpanStep::Clear,
            Self::Plane(p) => SpanStep::Plane(f(p)),
        }
    }
}

/// A span's step plane in the collider's frame: keep `n·p(t) ≥ n·target`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct LocalPlane<S: Space> {
    pub t: RealOf<S>,
    pub normal: VecOf<S>,
    pub target: VecOf<S>,
}

/// The contact of the span `a–b` (local frame, at the start of a step; `ends` are the
/// shape's proximities to `a` and `b`) that holds for the
/// step while neither end moves farther than `reuse` from here. Every point of the span
/// then moves at most `reuse`, and the signed distance to a shape is 1-Lipschitz, so the
/// contact is looked for within `reuse` beyond [`contact_reach`] (a speculative plane:
/// it acts only if the span comes that close). With the deepest point and its normal
/// fixed for the step, a span that turns while it slides is held at a point up to
/// `reuse` from the true deepest one; as `reuse` is at most half the radius and a span
/// more than `reuse` deep is left to the per-substep test, its centre line stays out of
/// the shape proper.
#[allow(clippy::too_many_arguments)]
pub(crate) fn span_step_contact<S: Space>(
    shape: &Shape<S>,
    half_thickness: RealOf<S>,
    a: VecOf<S>,
    b: VecOf<S>,
    ends: EndProximities<S>,
    radius: RealOf<S>,
    reuse: RealOf<S>,
) -> SpanStep<LocalPlane<S>> {
    // An end deeper in than the reuse distance: the span's middle could sink as far
    // again within the step without a contact, so it is tested every substep.
    if ends.0.distance.min(ends.1.distance) < radius - reuse {
        return SpanStep::Test;
    }
    let reach = contact_reach(shape, half_thickness, radius) + reuse;
    match span_deepest_from(shape, a, b, || ends, reach) {
        None => SpanStep::Clear,
        // Through a centre or an axis, or deeper in than the reuse distance (pushed out
        // substep by substep, along the deepest point's normal at each).
        Some((_, normal, dist)) if normal == VecOf::<S>::ZERO || dist < radius - reuse => SpanStep::Test,
        Some((t, normal, dist)) => {
            SpanStep::Plane(LocalPlane { t, normal, target: a.lerp(b, t) + normal * (radius - dist) })
        }
    }
}

/// A span contact from [`swept_segment_contact`]: keep `n·p(t) ≥ n·target`. `crossed`:
/// the span went across the shape this substep and is to be returned whole — both ends
/// to the plane, which moves it back without turning it (a single point pushed back
/// that far would swing the span around it, into the shape).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SpanHit<S: Space> {
    pub t: RealOf<S>,
    pub normal: VecOf<S>,
    pub target: VecOf<S>,
    pub crossed: bool,
}

/// Swept span contact for one substep: the span moves from `a0–b0` to `a1–b1` (local
/// frame, each end along a straight line) past `shape`, whose
/// [`Shape::min_half_thickness`] is `half_thickness`. Returns a contact for the span at
/// its current positions, like [`segment_contact`], that keeps or returns the span on
/// the side of the shape it came from.
///
/// Sample spacing of the swept test for a span of `radius` against `shape`:
/// `¾·(half_thickness + radius)`; 0 for half-spaces and unbounded shapes (never swept).
#[must_use]
pub(crate) fn sweep_spacing<S: Space>(shape: &Shape<S>, half_thickness: RealOf<S>, radius: RealOf<S>) -> RealOf<S> {
    let finite = !matches!(shape, Shape::HalfSpace(_)) && half_thickness < RealOf::<S>::MAX;
    if finite {
        (half_thickness + radius) * RealOf::<S>::from_ratio(SWEEP_SPACING_RATIO.0, SWEEP_SPACING_RATIO.1)
    } else {
        RealOf::<S>::ZERO
    }
}

/// How close a span must come to `shape` for [`swept_segment_contact`] to give it a
/// contact at its current positions: the radius, plus — for balls and capsules, where
/// the speculative contact is free (closed forms) — the sweep spacing. For boxes and
/// convex shapes a wider reach would send every span near a face to the deepest-point
/// search. Callers that skip or cull spans by distance must use this reach.
#[must_use]
pub(crate) fn contact_reach<S: Space>(shape: &Shape<S>, half_thickness: RealOf<S>, radius: RealOf<S>) -> RealOf<S> {
    if matches!(shape, Shape::Ball(_) | Shape::Capsule(_)) {
        radius + sweep_spacing(shape, half_thickness, radius)
    } else {
        radius
    }
}

/// A span whose ends moved at most `spacing = ¾·(half_thickness + radius)` cannot have
/// crossed the middle of the inflated shape, so the test at the current positions
/// decides (the common, cheap case). A faster span is sampled from its start to its end
/// positions with at most that spacing. Every point of the span moves at most as far as
/// the farther end, so a span that crosses the shape's core is inside it at a sample on
/// each side of the middle, and the contact normals of those samples point opposite ways
/// (the deepest point's normal is perpendicular to the span, so a span wrapping around a
/// post or a box corner turns it gradually, sample by sample). The normal of the last
/// touching sample is the reference: if the current contact (or, when the span ended
/// clear beyond the shape, its nearest point) points against the reference, the span
/// crossed, and its nearest point gets the opposite normal, held at the shape's
/// supporting plane on the side it came from — the push-out returns it across. A span
/// that touched during the substep and ended clear without crossing left the shape (or
/// grazed a corner): no contact.
pub(crate) fn swept_segment_contact<S: Space>(
    shape: &Shape<S>,
    half_thickness: RealOf<S>,
    start: (VecOf<S>, VecOf<S>),
    end: (VecOf<S>, VecOf<S>),
    radius: RealOf<S>,
) -> Option<SpanHit<S>> {
    let (zero, one) = (RealOf::<S>::ZERO, RealOf::<S>::ONE);
    let (a0, b0) = start;
    let (a1, b1) = end;
    // The contact at the current positions: speculative within `spacing` beyond the
    // radius (it acts only if the span is pushed in, e.g. by a neighbouring span's contact
    // later in the same pass).
    let finite = !matches!(shape, Shape::HalfSpace(_)) && half_thickness < RealOf::<S>::MAX;
    let spacing = sweep_spacing(shape, half_thickness, radius);
    let reach = contact_reach(shape, half_thickness, radius);
    let deepest = span_deepest(shape, a1, b1, reach);
    // Through a centre or an axis: no side of its own (the sweep may know one).
    let through = deepest.filter(|d| d.1 == VecOf::<S>::ZERO);
    let current = deepest
        .filter(|d| d.1 != VecOf::<S>::ZERO)
        .map(|(t, normal, dist)| (t, normal, a1.lerp(b1, t) + normal * (radius - dist)));
    let hit = |(t, normal, target)| SpanHit { t, normal, target, crossed: false };
    if !finite {
        return current.map(hit);
    }
    let moved2 = (a1 - a0).length_squared().max((b1 - b0).length_squared());
    if moved2 <= spacing.sq() {
        return current.map(hit);
    }
    // Samples `k/n`, `k = 0..n` (`n` is the current positions), `n·spacing ≥ moved`.
    let moved = moved2.sqrt();
    let mut n = 2;
    while n < MAX_SWEEP_SAMPLES && spacing * RealOf::<S>::from_i32(n) < moved {
        n += 1;
    }
    let nr = RealOf::<S>::from_i32(n);
    let opposite = -RealOf::<S>::HALF; // normals turned by more than 120°
    let mut reference: Option<VecOf<S>> = None;
    let mut crossed = false;
    for k in 0..n {
        let s = RealOf::<S>::from_i32(k) / nr;
        if let Some((_, normal, _)) = segment_contact(shape, a0.lerp(a1, s), b0.lerp(b1, s), radius) {
            if reference.is_some_and(|r| normal.dot(r) < opposite) {
                crossed = true;
                break;
            }
            reference = Some(normal);
        }
    }
    let Some(reference) = reference else { return current.map(hit) };
    if !crossed && through.is_none() {
        match current {
            Some(c) if c.1.dot(reference) < opposite => {}
            // Still on the side it came from, or left the shape.
            _ => return current.map(hit),
        }
    }
    // Crossed: the current span's nearest point, pushed back across. Its normal is the
    // current contact's, or, when the span ended clear, its nearest point's.
    let margin = RealOf::<S>::from_ratio(END_MARGIN_RATIO.0, END_MARGIN_RATIO.1);
    let (t, normal) = match (current, through) {
        (_, Some((t, _, _))) => (t.clamp(margin, one - margin), reference),
        (Some((t, nc, _)), _) => (t, -nc),
        (None, None) => match deepest_point(shape, a1, b1, zero, one) {
            Some((t, nc, _)) if nc == VecOf::<S>::ZERO => (t.clamp(margin, one - margin), reference),
            Some((t, nc, _)) if nc.dot(reference) < zero => (t.clamp(margin, one - margin), -nc),
            _ => return None, // back on the reference side (it went around)
        },
    };
    let p = a1.lerp(b1, t);
    let dist = normal.dot(p) - normal.dot(shape.support(normal));
    Some(SpanHit { t, normal, target: p + normal * (radius - dist), crossed: true })
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

    /// The search for the deepest point of a segment in a box or convex shape lands on the
    /// minimum of the signed distance along it, checked against 4001 samples: random spans
    /// clear of, grazing and cutting through a rotated-free box, a triangle and a pentagon
    /// (2D) and a box and a hull (3D). Inside, and outside in 2D, the minimum is exact
    /// (within rounding); outside in 3D within the search's 0.05 mm of rope (the distance
    /// changes by at most that).
    #[test]
    fn the_deepest_point_of_a_span_is_the_minimum_of_its_signed_distance() {
        use crate::math::Vector3;
        use crate::space::Space3;
        fn check<S: Space<Real = f64>>(shape: &Shape<S>, mut point: impl FnMut() -> VecOf<S>) -> (u32, u32) {
            let (mut inside, mut outside) = (0, 0);
            for _ in 0..400 {
                let (a, b) = (point(), point());
                let Some((t, _, _)) = deepest_point(shape, a, b, 0.0, 1.0) else { continue };
                let found = shape.closest(a.lerp(b, t)).distance;
                let best =
                    (0..=4000).map(|i| shape.closest(a.lerp(b, i as f64 / 4000.0)).distance).fold(f64::MAX, f64::min);
                // Exact (no sample can be nearer than the true minimum) inside, and outside
                // in 2D; in 3D outside within the search's tolerance.
                let tol = if best < 0.0 || S::DIM == 2 { 1e-9 } else { 6e-5 * (b - a).length() };
                assert!(found <= best + tol, "a {a:?} b {b:?}: found {found} at t = {t}, sampled minimum {best}");
                if best < 0.0 {
                    inside += 1;
                } else {
                    outside += 1;
                }
            }
            (inside, outside)
        }
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        let v2 = Vector2::<f64>::new;
        let shapes2 = [
            Shape::<Space2<f64>>::cuboid(v2(0.4, 0.15)).unwrap(),
            Shape::<Space2<f64>>::convex(&[v2(-0.3, -0.2), v2(0.35, -0.1), v2(0.0, 0.3)]).unwrap(),
            Shape::<Space2<f64>>::convex(&[
                v2(0.3, 0.0),
                v2(0.1, 0.28),
                v2(-0.25, 0.18),
                v2(-0.25, -0.18),
                v2(0.1, -0.28),
            ])
            .unwrap(),
        ];
        for shape in &shapes2 {
            let (i, o) = check(shape, || v2(next() * 0.6, next() * 0.6));
            assert!(i > 20 && o > 20, "both cases should occur: {i} inside, {o} outside");
        }
        let v3 = Vector3::<f64>::new;
        let hull = [
            v3(0.3, 0.0, 0.0),
            v3(-0.2, 0.25, 0.05),
            v3(-0.2, -0.25, 0.1),
            v3(0.0, 0.0, 0.35),
            v3(0.05, 0.05, -0.3),
            v3(-0.1, 0.2, -0.2),
        ];
        let shapes3 =
            [Shape::<Space3<f64>>::cuboid(v3(0.3, 0.1, 0.2)).unwrap(), Shape::<Space3<f64>>::convex(&hull).unwrap()];
        for shape in &shapes3 {
            let (i, o) = check(shape, || v3(next() * 0.5, next() * 0.5, next() * 0.5));
            assert!(i > 20 && o > 20, "both cases should occur: {i} inside, {o} outside");
        }
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

    #[test]
    fn a_span_touching_a_box_at_one_end_that_dips_through_it_near_that_end_gets_a_contact() {
        // Particle `a` rests under a 2 cm × 4 cm plank's bottom face; the span to `b`
        // (past the plank's far corner) cuts through the plank near `a`, while the span's
        // middle is clear of it. The signed distance along the span is convex but not
        // monotone, so a clear middle does not mean a clear span.
        let v = Vector2::<f64>::new;
        let plank = Shape::<Space2<f64>>::cuboid(v(0.01, 0.02)).unwrap();
        let (a, b, r) = (v(-0.006, -0.0245), v(0.0346, 0.0903), 0.005);
        assert!(plank.closest(a.lerp(b, 0.5)).distance > r, "the middle is clear");
        assert!(plank.closest(a.lerp(b, 0.15)).distance < 0.0, "near `a` the span is inside");
        let (t, n, target) = segment_contact(&plank, a, b, r).expect("a contact");
        assert!(t > 0.0 && t < 0.5, "{t}");
        assert!((n.length() - 1.0).abs() < 1e-9);
        // Projecting the deepest point to the target clears the inflated plank there.
        assert!(plank.closest(target).distance >= r - 1e-9);
    }
}
