//! Wrapping and unwrapping: how the taut path gains and loses contacts as its ends move.
//!
//! **Wrap (swept).** When an end moves from `e₀` to `e₁`, its last span sweeps the
//! triangle `(P, e₀, e₁)` about its pivot `P` (the last contact's touching point, or the
//! other end). A feature circle is hit when the rotating span becomes tangent to it; of
//! all features inside the sweep, the first hit is the one whose tangent direction is the
//! smallest angle from the old span (the wrong-corner pick of nearest-vertex
//! grappling-hook code cannot happen). It becomes a contact, wrapped on the side the
//! span turns, and the sweep goes on about it from where the end was at that moment
//! (the line through `P` and the touching point meets `e₀e₁` there), so any number of
//! wraps happen in one substep.
//!
//! **Unwrap.** A contact whose turn (in its wrap direction) drops below zero is removed;
//! the one before it is checked again (cascading). The features just unwrapped are not
//! wrapped again by the same sweep: the end passed back over them.
//!
//! **Repair.** A moving collider can carry a corner across a span, which no sweep of the
//! ends sees. Every span is therefore checked against the colliders it overlaps; one that
//! passes through a shape gets a contact at the shape's extreme feature on the side of
//! the smaller detour.
//!
//! **String pulling.** The taut path of a slack particle rope is found by the same sweep:
//! a path is drawn out from the first particle, its end moved from particle to particle.
//! Whatever the rope goes round, the path wraps; where the rope only sags, it does not.

use super::Wrap;
use super::geometry::{Feature, Node, Path, angle, cross, feature_of, perp, tangent};
use crate::arena::{Arena, RawHandle};
use crate::collider::Collider;
use crate::math::{Real, Vector};
use crate::space::{RealOf, Space, VecOf};

/// Most contacts one sweep adds (a bound on work for absurd motion, not a limit met in
/// practice: a full lap round a square post at one substep is 4).
const MAX_WRAPS_PER_SWEEP: usize = 16;

/// Angles (rad, as `1/ANGLE_TOLERANCE`) below which a span counts as touching a feature
/// it lies against, a turn as straight, a sweep as no motion.
const ANGLE_TOLERANCE: i32 = 100_000;

/// Most contacts a rope holds (a bound on work per substep). A path wound further than
/// this gains no more contacts: its spans may then cross obstacles.
pub(crate) const MAX_CONTACTS: usize = 256;

/// The nodes of the path: `start`, the contacts' circles, `end`. A contact whose collider
/// or feature no longer exists is dropped from `wraps`.
pub(crate) fn nodes<S: Space>(
    start: VecOf<S>,
    end: VecOf<S>,
    wraps: &mut Vec<Wrap<RealOf<S>>>,
    colliders: &Arena<Collider<S>>,
    rope_radius: RealOf<S>,
    out: &mut Vec<Node<VecOf<S>, RealOf<S>>>,
) {
    out.clear();
    out.push(Node { center: start, rho: RealOf::<S>::ZERO, side: RealOf::<S>::ZERO, hub: start });
    wraps.retain(|w| match colliders.get(w.collider).and_then(|c| feature_of(w.collider, c, w.feature, rope_radius)) {
        Some(f) => {
            let side = RealOf::<S>::from_i32(w.side);
            out.push(Node { center: f.center, rho: f.radius * side, side, hub: f.hub });
            true
        }
        None => false,
    });
    out.push(Node { center: end, rho: RealOf::<S>::ZERO, side: RealOf::<S>::ZERO, hub: end });
}

/// The path's end nodes moved to `start` and `end`, its contacts' nodes kept: what
/// [`nodes`] gives for the same contacts within a step (their colliders do not move
/// while a step runs), without looking their features up again.
pub(crate) fn move_ends<R: Real, V: Vector<R>>(nodes: &mut [Node<V, R>], start: V, end: V) {
    let end_node = |p: V| Node { center: p, rho: R::ZERO, side: R::ZERO, hub: p };
    if let [first, .., last] = nodes {
        *first = end_node(start);
        *last = end_node(end);
    }
}

/// Where the span leaving `node` toward point `e` starts.
fn pivot<R: Real, V: Vector<R>>(node: Node<V, R>, e: V) -> V {
    tangent(node.center, node.rho, e, R::ZERO).map_or(node.center, |t| t.0)
}

/// Of the circles `(index, centre, radius)` in the plane, the first one met by a span
/// pivoting on `p` while its end moves from `e0` to `e1` (see the module docs): its index,
/// the fraction of the move at which it is met and the sweep's sense (`+1`:
/// counter-clockwise). `None` when nothing is met or the span does not turn.
pub(crate) fn first_hit<R: Real, V: Vector<R>>(
    p: V,
    (e0, e1): (V, V),
    circles: impl Iterator<Item = (usize, V, R)>,
) -> Option<(usize, R, R)> {
    let tiny = R::GEOMETRIC_EPSILON;
    let (d0, d1) = (e0 - p, e1 - p);
    let sweep = cross(d0, d1);
    let scale = d0.length() * d1.length();
    if !(sweep.abs() > scale / R::from_i32(10 * ANGLE_TOLERANCE)) || !(scale > tiny) {
        return None;
    }
    let sigma = sweep.signum0();
    let total = angle(d0, d1) * sigma;
    let m = e1 - e0;
    let mut best: Option<(R, usize, R)> = None;
    for (fi, center, radius) in circles {
        let (vh, dist) = (center - p).normalize_and_length();
        if !(dist > radius + tiny) {
            continue;
        }
        let sin = radius / dist;
        let cos = (R::ONE - sin * sin).max(R::ZERO).sqrt();
        // The tangent direction met first by a span turning by `sigma`.
        let u = vh * cos - perp(vh) * (sigma * sin);
        let key = angle(d0, u) * sigma;
        // A span already touching the feature (a rope resting on it) counts as
        // meeting it now; one already past it by more does not.
        let touching = -R::from_ratio(1, ANGLE_TOLERANCE);
        if !(key > touching) || key > total {
            continue;
        }
        if best.is_some_and(|(k, _, _)| k <= key) {
            continue;
        }
        // The end's position when the span lies along `u`, and whether the feature
        // is within the span's reach then.
        let den = cross(u, m);
        if den == R::ZERO {
            continue;
        }
        let s = (-cross(u, d0) / den).clamp(R::ZERO, R::ONE);
        let at = e0 + m * s;
        if (at - p).dot(u) <= dist * cos {
            continue;
        }
        best = Some((key, fi, s));
    }
    best.map(|(_, fi, s)| (fi, s, sigma))
}

/// Sweeps the end of the path from `e0` to `e1` (see the module docs). `nodes` are the
/// path's nodes, ends included (the last one's centre is not read). `skip` are features
/// not to wrap. Returns how many contacts were added.
pub(crate) fn sweep_end<R: Real, V: Vector<R>>(
    wraps: &mut Vec<Wrap<R>>,
    nodes: &mut Vec<Node<V, R>>,
    (e0, e1): (V, V),
    features: &[Feature<V, R>],
    skip: &[(RawHandle, u32)],
) -> usize {
    let mut e0 = e0;
    let mut added = 0;
    while added < MAX_WRAPS_PER_SWEEP && wraps.len() < MAX_CONTACTS {
        let p = pivot(nodes[nodes.len() - 2], e0);
        let last = wraps.last().map(|w| (w.collider, w.feature));
        let circles = features
            .iter()
            .enumerate()
            .filter(|(_, f)| Some((f.collider, f.index)) != last && !skip.contains(&(f.collider, f.index)))
            .map(|(fi, f)| (fi, f.center, f.radius));
        let Some((fi, s, sigma)) = first_hit(p, (e0, e1), circles) else { break };
        let at = e0 + (e1 - e0) * s;
        let f = features[fi];
        let side = sigma.to_f64() as i32;
        wraps.push(Wrap {
            collider: f.collider,
            feature: f.index,
            side,
            turn: R::ZERO,
            at: R::ZERO,
            normal: [R::ZERO; 3],
        });
        nodes.insert(
            nodes.len() - 1,
            Node { center: f.center, rho: f.radius * R::from_i32(side), side: R::from_i32(side), hub: f.hub },
        );
        e0 = at;
        added += 1;
    }
    added
}

/// Removes contacts whose turn went below zero (see the module docs), recomputing the
/// path after each; the removed features go to `removed`. `nodes` are the path's nodes
/// (ends included), kept in step with `wraps`. Two consecutive contacts on one collider
/// wrapped on opposite sides lose the one that turns less. A contact on a sharp corner (radius at
/// most `sharp`) turning more than a half turn is removed too: no convex corner holds a
/// rope wound further round it than its two faces, so the path has crossed the shape.
pub(crate) fn unwrap<R: Real, V: Vector<R>>(
    wraps: &mut Vec<Wrap<R>>,
    nodes: &mut Vec<Node<V, R>>,
    path: &mut Path<V, R>,
    removed: &mut Vec<(RawHandle, u32)>,
    sharp: R,
) {
    loop {
        path.compute(nodes, |i| wraps[i].turn);
        // Slightly negative turns are rounding on a straight path: left for the next
        // substep to decide.
        let eps = R::from_ratio(1, ANGLE_TOLERANCE);
        // A contact wraps its shape on the side the shape is: the shape's inside (its
        // hub) lies on the wrap side of the rope there.
        let wrong_side = |i: usize| {
            let n = nodes[i + 1];
            let d = path.dirs[i] + path.dirs[i + 1];
            let h = n.hub - n.center;
            h.length_squared() > R::GEOMETRIC_EPSILON * R::GEOMETRIC_EPSILON && cross(d, h) * n.side < R::ZERO
        };
        let bad = |(i, &t): (usize, &R)| t < -eps || (t > R::PI && nodes[i + 1].rho.abs() <= sharp) || wrong_side(i);
        // Consecutive contacts on one convex shape wrap it on one side: an S-bend between
        // two of its features crosses it. The one turning less goes.
        let s_bend = || {
            wraps
                .windows(2)
                .position(|w| w[0].collider == w[1].collider && w[0].side != w[1].side)
                .map(|k| if path.turns[k] <= path.turns[k + 1] { k } else { k + 1 })
        };
        let Some(i) = path.turns.iter().enumerate().position(bad).or_else(s_bend) else {
            break;
        };
        let w = wraps.remove(i);
        nodes.remove(i + 1);
        removed.push((w.collider, w.feature));
    }
    for (w, &t) in wraps.iter_mut().zip(&path.turns) {
        w.turn = t;
    }
}

/// One collider's features in a feature list (they come grouped so from the gathering):
/// where they lie, and the box of their circles.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Group<V> {
    range: (u32, u32),
    lo: V,
    hi: V,
}

/// The features' groups by collider, with their boxes, into `out`.
fn groups<R: Real, V: Vector<R>>(features: &[Feature<V, R>], out: &mut Vec<Group<V>>) {
    out.clear();
    let mut k = 0;
    while k < features.len() {
        let c = features[k].collider;
        let (mut lo, mut hi) = (features[k].center, features[k].center);
        let mut end = k;
        while end < features.len() && features[end].collider == c {
            let f = features[end];
            let r = V::splat(f.radius);
            lo = lo.min_elem(f.center - r);
            hi = hi.max_elem(f.center + r);
            end += 1;
        }
        out.push(Group { range: (k as u32, end as u32), lo, hi });
        k = end;
    }
}

/// Spans through colliders (see "Repair" in the module docs): adds a contact on the
/// smaller detour round the first such collider of each span, `passes` times over; every
/// span if `all`, else only the two end spans (the others lie between contacts that did
/// not move). Returns whether anything was added. `scratch` is working memory.
pub(crate) fn repair<R: Real, V: Vector<R>>(
    wraps: &mut Vec<Wrap<R>>,
    nodes: &mut Vec<Node<V, R>>,
    path: &mut Path<V, R>,
    features: &[Feature<V, R>],
    (passes, all): (usize, bool),
    scratch: &mut Vec<Group<V>>,
) -> bool {
    let mut any = false;
    groups(features, scratch);
    // A shape can cut or straddle a span only if the box of its circles meets the span's
    // box; the margin (1 mm, and 10⁻⁴ of the coordinates' size for rounding far from the
    // origin in `f32`) keeps the box test from deciding what the exact test below
    // decides by rounding.
    for _ in 0..passes {
        path.compute(nodes, |i| wraps[i].turn);
        let mut insert: Option<(usize, Wrap<R>, Node<V, R>)> = None;
        let last = path.ends.len().saturating_sub(1);
        'spans: for (j, &(a, b)) in path.ends.iter().enumerate() {
            // Only the end spans move unless something else changed.
            if !all && j != 0 && j != last {
                continue;
            }
            let (d, len) = (b - a).normalize_and_length();
            if !(len > R::GEOMETRIC_EPSILON) || wraps.len() >= MAX_CONTACTS {
                continue;
            }
            let size = (0..V::DIM).fold(R::ZERO, |m, i| m.max(a.get(i).abs()).max(b.get(i).abs()));
            let margin = V::splat(R::from_ratio(1, 1000) + size * R::from_ratio(1, 10_000));
            let (span_lo, span_hi) = (a.min_elem(b) - margin, a.max_elem(b) + margin);
            for g in scratch.iter() {
                if (0..V::DIM).any(|i| g.hi.get(i) < span_lo.get(i) || span_hi.get(i) < g.lo.get(i)) {
                    continue;
                }
                let group = &features[g.range.0 as usize..g.range.1 as usize];
                let Some((f, side)) = detour(a, (d, len), group, wraps, j) else { continue };
                let w = Wrap {
                    collider: f.collider,
                    feature: f.index,
                    side,
                    turn: R::ZERO,
                    at: R::ZERO,
                    normal: [R::ZERO; 3],
                };
                let n =
                    Node { center: f.center, rho: f.radius * R::from_i32(side), side: R::from_i32(side), hub: f.hub };
                insert = Some((j, w, n));
                break 'spans;
            }
        }
        let Some((j, w, n)) = insert else { break };
        wraps.insert(j, w);
        nodes.insert(j + 1, n);
        any = true;
    }
    if any {
        path.compute(nodes, |i| wraps[i].turn);
        for (w, &t) in wraps.iter_mut().zip(&path.turns) {
            w.turn = t;
        }
    }
    any
}

/// The repair's decision for span `j` of the path, leaving `a` (unit direction `d`,
/// length `len`), and one collider's features `group`: the feature to add as a contact
/// and its wrap side when the span cuts or straddles the shape (see "Repair" in the module
/// docs), `None` when it does neither or the detour would round one of the span's own
/// contacts. Shared with the quiet test (`taut/quiet.rs`), which must decide as the repair
/// does.
pub(crate) fn detour<R: Real, V: Vector<R>>(
    a: V,
    (d, len): (V, R),
    group: &[Feature<V, R>],
    wraps: &[Wrap<R>],
    j: usize,
) -> Option<(Feature<V, R>, i32)> {
    // The part of the shape beside the span: features whose foot lies on it.
    let (mut left, mut right) = (None::<(R, usize)>, None::<(R, usize)>);
    let mut cuts = false;
    let mut lo = R::MAX;
    let mut hi = -R::MAX;
    for (gi, f) in group.iter().enumerate() {
        let rel = f.center - a;
        let along = rel.dot(d);
        let off = cross(d, rel);
        lo = lo.min(off - f.radius);
        hi = hi.max(off + f.radius);
        if along > R::ZERO && along < len {
            if off.abs() < f.radius {
                cuts = true;
            }
            if left.is_none_or(|(v, _)| off + f.radius > v) {
                left = Some((off + f.radius, gi));
            }
            if right.is_none_or(|(v, _)| f.radius - off > v) {
                right = Some((f.radius - off, gi));
            }
        }
    }
    // A polygon crossed between its corners: corners on both sides of the
    // span, within its extent.
    let straddles = lo < R::ZERO && hi > R::ZERO && group.len() > 2 && {
        let (mut l, mut r) = (false, false);
        for f in group {
            let rel = f.center - a;
            let along = rel.dot(d);
            if along > R::ZERO && along < len {
                let off = cross(d, rel);
                l |= off > R::ZERO;
                r |= off < R::ZERO;
            }
        }
        l && r
    };
    if !(cuts || straddles) {
        return None;
    }
    // Going round with the shape on the left means the path bulges right:
    // round the rightmost feature, turning left (+1); and vice versa.
    let pick = match (left, right) {
        (Some((l, li)), Some((r, ri))) => {
            if r <= l {
                (ri, 1)
            } else {
                (li, -1)
            }
        }
        (Some((_, li)), None) => (li, -1),
        (None, Some((_, ri))) => (ri, 1),
        (None, None) => return None,
    };
    // Next to a contact on the same shape, go round it on that contact's side
    // (the other side would make an S-bend through it).
    let neighbour = [j.checked_sub(1), Some(j)]
        .into_iter()
        .flatten()
        .filter_map(|i| wraps.get(i))
        .find(|w| w.collider == group[0].collider)
        .map(|w| w.side);
    let pick = match neighbour {
        Some(1) if pick.1 != 1 => right.map_or(pick, |(_, ri)| (ri, 1)),
        Some(-1) if pick.1 != -1 => left.map_or(pick, |(_, li)| (li, -1)),
        _ => pick,
    };
    let f = group[pick.0];
    // Not the span's own ends (a rope may touch a corner again a lap later).
    let own = |i: Option<usize>| {
        i.and_then(|i| wraps.get(i)).is_some_and(|w| (w.collider, w.feature) == (f.collider, f.index))
    };
    if own(j.checked_sub(1)) || own(Some(j)) {
        return None;
    }
    Some((f, pick.1))
}

/// Reverses a path's contacts (the start becomes the end): order and wrap sides.
pub(crate) fn reverse<R: Real, V: Vector<R>>(wraps: &mut [Wrap<R>], nodes: &mut [Node<V, R>]) {
    wraps.reverse();
    for w in wraps.iter_mut() {
        w.side = -w.side;
    }
    nodes.reverse();
    for n in nodes.iter_mut() {
        n.rho = -n.rho;
        n.side = -n.side;
    }
}

/// The taut path of a particle rope through `points` (see "String pulling" in the module
/// docs): contacts into `wraps` (cleared first), nodes into `nodes`; `removed` and
/// `groups` are working memory.
pub(crate) fn string_pull<R: Real, V: Vector<R>>(
    sharp: R,
    points: &[V],
    features: &[Feature<V, R>],
    wraps: &mut Vec<Wrap<R>>,
    (nodes, path): (&mut Vec<Node<V, R>>, &mut Path<V, R>),
    (removed, groups): (&mut Vec<(RawHandle, u32)>, &mut Vec<Group<V>>),
) {
    wraps.clear();
    nodes.clear();
    let Some((&first, rest)) = points.split_first() else { return };
    let Some(&second) = rest.first() else { return };
    nodes.push(Node { center: first, rho: R::ZERO, side: R::ZERO, hub: first });
    nodes.push(Node { center: second, rho: R::ZERO, side: R::ZERO, hub: second });
    let mut e0 = second;
    for &e1 in &rest[1..] {
        removed.clear();
        let end = nodes.len() - 1;
        nodes[end].center = e1;
        unwrap(wraps, nodes, path, removed, sharp);
        sweep_end(wraps, nodes, (e0, e1), features, removed);
        e0 = e1;
    }
    // A rope laid straight through a corner (as a scene may lay it) passes through its
    // circle rather than sweeping over it: the repair finds it.
    repair(wraps, nodes, path, features, (4, true), groups);
    path.compute(nodes, |i| wraps[i].turn);
    for (w, &t) in wraps.iter_mut().zip(&path.turns) {
        w.turn = t;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Vector2;

    type V = Vector2<f64>;

    fn square(c: V, half: f64, collider: u32) -> Vec<Feature<V, f64>> {
        [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
            .iter()
            .enumerate()
            .map(|(i, &(x, y))| Feature {
                center: c + V::new(x * half, y * half),
                radius: 0.0,
                collider: RawHandle { index: collider, generation: 0 },
                index: i as u32,
                hub: c,
            })
            .collect()
    }

    #[test]
    fn a_span_swept_over_a_corner_wraps_it_and_unwraps_when_it_comes_back() {
        // Anchor at (−3, 2), a 2 m square at the origin; the end swung down past the
        // square's right side. About the anchor the span meets the top-right corner
        // (direction −14°) before the top-left one (−27°), and the end is beyond it then
        // (at (3, 0.5)); about that corner the bottom-right one (straight down) is not
        // reached by an end at (3, −3).
        let feats = square(V::new(0.0, 0.0), 1.0, 0);
        let anchor = V::new(-3.0, 2.0);
        let mut wraps = Vec::new();
        let end = V::new(3.0, -3.0);
        let mut nodes = vec![
            Node { center: anchor, rho: 0.0, side: 0.0, hub: anchor },
            Node { center: end, rho: 0.0, side: 0.0, hub: end },
        ];
        let n = sweep_end(&mut wraps, &mut nodes, (V::new(3.0, 2.5), end), &feats, &[]);
        assert_eq!(n, 1, "{wraps:?}");
        assert_eq!(wraps[0].feature, 2, "top-right corner");
        assert_eq!(wraps[0].side, -1, "swept clockwise: the rope turns right");
        // A little further round: the bottom-right corner too.
        let n = sweep_end(&mut wraps, &mut nodes, (end, V::new(0.5, -3.0)), &feats, &[]);
        assert_eq!(n, 1);
        assert_eq!(wraps[1].feature, 1);
        // Coming back above: both unwrap, the last first.
        let last = nodes.len() - 1;
        nodes[last].center = V::new(3.0, 2.5);
        let mut path = Path::default();
        let mut removed = Vec::new();
        unwrap(&mut wraps, &mut nodes, &mut path, &mut removed, 0.0);
        assert!(wraps.is_empty(), "{wraps:?}");
        assert_eq!(removed.iter().map(|r| r.1).collect::<Vec<_>>(), [1, 2]);
    }

    #[test]
    fn string_pulling_a_rope_laid_round_a_square_finds_its_corners() {
        let feats = square(V::new(0.0, 0.0), 1.0, 0);
        // Points from (−3, 1.2) over the top of the square and down its right side.
        let mut pts = Vec::new();
        for i in 0..=20 {
            pts.push(V::new(-3.0 + 0.2 * i as f64, 1.2));
        }
        for i in 1..=20 {
            pts.push(V::new(1.2, 1.2 - 0.2 * i as f64));
        }
        let (mut wraps, mut nodes, mut path, mut removed) = (Vec::new(), Vec::new(), Path::default(), Vec::new());
        string_pull(0.0, &pts, &feats, &mut wraps, (&mut nodes, &mut path), (&mut removed, &mut Vec::new()));
        assert_eq!(wraps.len(), 1, "{wraps:?}");
        assert_eq!(wraps[0].feature, 2, "the top-right corner");
        assert_eq!(wraps[0].side, -1);
        let expect = (V::new(1.0, 1.0) - V::new(-3.0, 1.2)).length() + (V::new(1.2, -2.8) - V::new(1.0, 1.0)).length();
        assert!((path.length - expect).abs() < 1e-9, "{} vs {expect}", path.length);
    }

    #[test]
    fn a_span_through_a_moved_square_is_repaired_round_the_smaller_detour() {
        let feats = square(V::new(0.0, 0.2), 1.0, 0);
        let mut wraps = Vec::new();
        let mut nodes = vec![
            Node { center: V::new(-3.0, 0.0), rho: 0.0, side: 0.0, hub: V::new(-3.0, 0.0) },
            Node { center: V::new(3.0, 0.0), rho: 0.0, side: 0.0, hub: V::new(3.0, 0.0) },
        ];
        let mut path = Path::default();
        assert!(repair(&mut wraps, &mut nodes, &mut path, &feats, (4, true), &mut Vec::new()));
        // The square sits mostly above the line: the path goes under it, by both bottom
        // corners, turning left at each.
        assert_eq!(wraps.len(), 2, "{wraps:?}");
        assert!(wraps.iter().all(|w| w.side == 1 && (w.feature == 0 || w.feature == 1)));
        for &(a, b) in &path.ends {
            for i in 0..=100 {
                let p = a.lerp(b, i as f64 / 100.0);
                assert!(!(p.x.abs() < 1.0 - 1e-9 && (p.y - 0.2).abs() < 1.0 - 1e-9), "{p:?} inside");
            }
        }
    }
}
