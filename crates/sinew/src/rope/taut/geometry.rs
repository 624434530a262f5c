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

/// The leaving and arriving points of the span from node `a` to node `b`, as
/// [`Path::compute`] finds them (for the pivots of a path's end spans without computing
/// the rest of it).
#[inline]
#[must_use]
pub(crate) fn span_ends<R: Real, V: Vector<R>>(a: Node<V, R>, b: Node<V, R>) -> (V, V) {
    let (p, q, ..) = span_of(a, b, None);
    (p, q)
}

/// The span from node `a` to node `b`: leaving and arriving points, unit direction (that
/// of the span before, `before`, where the nodes coincide: then the last value is true)
/// and length (zero for a span crossing back over itself, circles overlapping).
fn span_of<R: Real, V: Vector<R>>(a: Node<V, R>, b: Node<V, R>, before: Option<V>) -> (V, V, V, R, bool) {
    let (p, q, d, chained) = match tangent(a.center, a.rho, b.center, b.rho) {
        Some((p, q, d)) => (p, q, d, false),
        None => (a.center, b.center, before.unwrap_or(V::ZERO), true),
    };
    let mut len = (q - p).length();
    if (q - p).dot(d) < R::ZERO {
        len = R::ZERO;
    }
    (p, q, d, len, chained)
}

/// The turn within one lap at a contact wrapped on `side` between span directions `din`
/// and `dout` (`None` where a span has no direction).
fn raw_turn<R: Real, V: Vector<R>>(din: V, dout: V, side: R) -> Option<R> {
    if din == V::ZERO || dout == V::ZERO { None } else { Some(angle(din, dout) * side) }
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
#[derive(Clone, Debug, Default)]
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
    /// The spans of the last few node lists computed (see [`Path::compute`]).
    memo: SpanMemo<V, R>,
}

/// Node lists a [`Path`] remembers the spans of. A substep's whole contact update
/// computes the path through the same nodes five or six times (before and after an
/// unwrap, a sweep and two repairs that change nothing) between three distinct lists: the
/// ends' new positions, the end's move, the start's move reversed; the fourth slot keeps
/// the new positions' list through the length solve's iterations.
const MEMO_SLOTS: usize = 4;

/// What [`Path::compute`] measured of one node list: everything but the turns' laps,
/// which depend on the previous turns.
#[derive(Clone, Debug, Default)]
struct SpanSlot<V, R> {
    nodes: Vec<Node<V, R>>,
    ends: Vec<(V, V)>,
    dirs: Vec<V>,
    lengths: Vec<R>,
    /// Per contact: the turn within one lap, `None` where a span has no direction.
    raw: Vec<Option<R>>,
    /// The spans' length, summed in order.
    spans: R,
    /// Whether a span between two contacts had no tangent (coinciding circles): its
    /// direction is then the span's before it, back to the first span, so the list is
    /// never re-measured at its ends alone.
    chained: bool,
}

impl<V: Copy, R: Copy> SpanSlot<V, R> {
    /// `o`'s contents, in this slot's memory (no allocation once the lists have grown).
    fn copy_from(&mut self, o: &Self) {
        self.nodes.clone_from(&o.nodes);
        self.ends.clone_from(&o.ends);
        self.dirs.clone_from(&o.dirs);
        self.lengths.clone_from(&o.lengths);
        self.raw.clone_from(&o.raw);
        self.spans = o.spans;
        self.chained = o.chained;
    }
}

/// A ring of [`SpanSlot`]s (the oldest replaced first).
#[derive(Clone, Debug, Default)]
struct SpanMemo<V, R> {
    slots: Vec<SpanSlot<V, R>>,
    next: usize,
}

impl<R: Real, V: Vector<R>> Path<V, R> {
    /// Computes the path through `nodes` (first and last the ends, radius 0). `previous`
    /// holds each contact's last turn: the new one is taken within `π` of it, so a rope
    /// wound round a round post keeps counting its laps.
    ///
    /// The spans and the turns within a lap are a function of the nodes alone: for a node
    /// list equal to one of the last [`MEMO_SLOTS`] computed they are taken from memory
    /// (the same values; only the laps are counted again against `previous`). Nodes are
    /// compared by value (`==`), so a remembered result can differ from a fresh one in
    /// the sign of a zero, never in a value.
    pub fn compute(&mut self, nodes: &[Node<V, R>], previous: impl Fn(usize) -> R) {
        let k = match self.memo.slots.iter().position(|m| m.nodes == nodes) {
            Some(k) => k,
            None => self.measure(nodes),
        };
        let m = &self.memo.slots[k];
        self.ends.clone_from(&m.ends);
        self.dirs.clone_from(&m.dirs);
        self.lengths.clone_from(&m.lengths);
        self.turns.clear();
        let mut length = m.spans;
        let two_pi = R::PI * R::TWO;
        let inner = nodes.get(1..nodes.len().saturating_sub(1)).unwrap_or(&[]);
        for (i, (node, raw)) in inner.iter().zip(&m.raw).enumerate() {
            let prev = previous(i);
            let turn = match *raw {
                None => prev,
                Some(raw) => {
                    // The nearest lap to the previous turn.
                    let laps = ((prev - raw) / two_pi + R::HALF).to_f64().floor();
                    raw + two_pi * R::from_i32(laps as i32)
                }
            };
            self.turns.push(turn);
            length += node.rho.abs() * turn.max(R::ZERO);
        }
        self.length = length;
    }

    /// The spans through `nodes` and the turns within a lap, into a memo slot (returned).
    /// When a remembered list differs from `nodes` only at its two ends (the ends moved,
    /// the contacts did not), only the end spans and the turns at the first and last
    /// contacts are measured again: the others depend on the contacts alone (unless a
    /// span between contacts had no tangent and took its direction from the span before,
    /// `SpanSlot::chained`: then the list is measured whole).
    fn measure(&mut self, nodes: &[Node<V, R>]) -> usize {
        let n = nodes.len();
        let inner =
            |m: &SpanSlot<V, R>| n > 2 && !m.chained && m.nodes.len() == n && m.nodes[1..n - 1] == nodes[1..n - 1];
        let from = self.memo.slots.iter().position(inner);
        let memo = &mut self.memo;
        let k = if memo.slots.len() < MEMO_SLOTS {
            memo.slots.push(SpanSlot::default());
            memo.slots.len() - 1
        } else {
            let k = memo.next;
            memo.next = (k + 1) % MEMO_SLOTS;
            k
        };
        if let Some(j) = from {
            if j != k {
                let (src, dst) = if j < k {
                    let (a, b) = memo.slots.split_at_mut(k);
                    (&a[j], &mut b[0])
                } else {
                    let (a, b) = memo.slots.split_at_mut(j);
                    (&b[0], &mut a[k])
                };
                dst.copy_from(src);
            }
            let m = &mut memo.slots[k];
            m.nodes[0] = nodes[0];
            m.nodes[n - 1] = nodes[n - 1];
            for span in [0, n - 2] {
                let (p, q, d, len, _) = span_of(nodes[span], nodes[span + 1], span.checked_sub(1).map(|i| m.dirs[i]));
                m.ends[span] = (p, q);
                m.dirs[span] = d;
                m.lengths[span] = len;
            }
            m.spans = m.lengths.iter().fold(R::ZERO, |s, &l| s + l);
            for c in [0, n - 3] {
                m.raw[c] = raw_turn(m.dirs[c], m.dirs[c + 1], nodes[c + 1].side);
            }
            return k;
        }
        let m = &mut memo.slots[k];
        m.nodes.clear();
        m.nodes.extend_from_slice(nodes);
        m.ends.clear();
        m.dirs.clear();
        m.lengths.clear();
        m.raw.clear();
        let mut length = R::ZERO;
        m.chained = false;
        for (j, w) in nodes.windows(2).enumerate() {
            let (p, q, d, len, chained) = span_of(w[0], w[1], m.dirs.last().copied());
            m.chained |= chained && j > 0 && j + 2 < n;
            m.ends.push((p, q));
            m.dirs.push(d);
            m.lengths.push(len);
            length += len;
        }
        m.spans = length;
        let inner = nodes.get(1..n.saturating_sub(1)).unwrap_or(&[]);
        for (c, node) in inner.iter().enumerate() {
            m.raw.push(raw_turn(m.dirs[c], m.dirs[c + 1], node.side));
        }
        k
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
    fn a_path_computed_from_memory_is_the_path_computed_afresh() {
        // Paths round up to five posts whose ends wander (and sometimes jump back to an
        // earlier position, or the contacts change), computed on one `Path` that remembers and on
        // a fresh one each time: every field the same, bit for bit, laps included.
        let mut seed = 7u64;
        let mut rnd = move || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let post = |i: usize, side: f64| {
            let c = V::new(i as f64 - 2.0, if i % 2 == 0 { 1.0 } else { 1.3 });
            Node { center: c, rho: 0.1 * side, side, hub: c }
        };
        let end = |p: V| Node { center: p, rho: 0.0, side: 0.0, hub: p };
        let mut remembering = Path::default();
        let mut earlier: Vec<Vec<Node<V, f64>>> = Vec::new();
        for k in 0..400 {
            let contacts = 1 + (k / 50) % 5;
            let mut nodes = vec![end(V::new(-3.0 + rnd(), -1.0 + rnd()))];
            nodes.extend((0..contacts).map(|i| post(i, if i % 3 == 2 { 1.0 } else { -1.0 })));
            nodes.push(end(V::new(3.0 + rnd(), -1.0 + rnd())));
            // Now and then two contacts on one circle (corners of two boxes that touch):
            // the span between them has no tangent and takes the direction before it.
            if (k / 10) % 3 == 1 && contacts >= 3 {
                nodes[2] = nodes[1];
            }
            if k % 7 == 3
                && let Some(old) = earlier.iter().rev().find(|o| o.len() == nodes.len())
            {
                nodes.clone_from(old);
            }
            let lap = 2.0 * core::f64::consts::PI * (k % 3) as f64;
            let previous = |i: usize| lap + 0.1 * i as f64;
            remembering.compute(&nodes, previous);
            let mut fresh = Path::default();
            fresh.compute(&nodes, previous);
            assert_eq!(remembering.ends, fresh.ends, "{k}");
            assert_eq!(remembering.dirs, fresh.dirs, "{k}");
            assert_eq!(remembering.lengths, fresh.lengths, "{k}");
            assert_eq!(remembering.turns, fresh.turns, "{k}");
            assert_eq!(remembering.length.to_bits(), fresh.length.to_bits(), "{k}");
            earlier.push(nodes);
        }
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
