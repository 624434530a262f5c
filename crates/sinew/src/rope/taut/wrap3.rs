//! Wrapping and unwrapping in 3D (the method is the 2D one of `taut/wrap.rs`, with the
//! 3D features of `taut/solid.rs` and the sliding path of `taut/path3.rs`):
//!
//! - **Wrap (swept).** An end moving from `e₀` to `e₁` sweeps the triangle
//!   `(P, e₀, e₁)` about its pivot `P`. In the triangle's plane every feature is a circle:
//!   an edge or capsule axis where it pierces the plane (the rope's or the capsule's
//!   radius round it), a ball or capsule cap its section by the plane. The plane's first
//!   circle hit (the 2D sweep) is the first feature hit; it becomes a contact at the
//!   point of its segment in the plane, and the sweep goes on about it.
//! - **Unwrap.** A contact on a round shape unwraps when its arc's turn goes negative
//!   (the rope has come off the ball on the side it wraps; its wrap plane keeps that
//!   side, see `taut/path3.rs`). A contact on an edge unwraps when the rope no longer
//!   presses into the shape there (its bend `d_out − d_in` no longer points against the
//!   edge's outward direction), or, sitting on an end of its edge, when the straight span
//!   that would replace it passes the shape: the rope slips off the corner. A straight
//!   span from its neighbours that happens to clear the shape on the far side does not
//!   unwrap it: the rope would have to pass through the shape to get there.
//! - **Repair.** A span through a shape (a moving collider, a contact that slid off an
//!   edge's end onto a face) gets a contact on that shape's feature of the shortest
//!   detour, each pass one contact, until no span crosses.

use super::Wrap;
use super::geometry::Path;
use super::path3::{compute3, round, slide};
use super::solid::{Feature3, cross3, crosses, feature_of3, inside};
use super::wrap::{MAX_CONTACTS, first_hit};
use crate::arena::{Arena, RawHandle};
use crate::collider::Collider;
use crate::math::{Real, Vector, Vector2};
use crate::space::{RealOf, Space, VecOf};

/// Most contacts one sweep adds.
const MAX_WRAPS_PER_SWEEP: usize = 16;

/// Turns below `−1/ANGLE_TOLERANCE` rad unwrap a round contact.
const ANGLE_TOLERANCE: i32 = 100_000;

/// Working memory of the 3D path.
#[derive(Clone, Debug, Default)]
pub(crate) struct Work3<V, R> {
    /// Each contact's feature (in step with the rope's contacts).
    pub feats: Vec<Feature3<V, R>>,
    /// Each contact's position along its feature.
    pub ats: Vec<R>,
    /// Each contact's wrap plane (round shapes).
    pub normals: Vec<V>,
    /// The path.
    pub path: Path<V, R>,
    /// Features met in a sweep's plane: index, centre and radius in the plane, `t`.
    plane: Vec<(usize, Vector2<R>, R, R)>,
    /// The ends of the path last computed, while its contacts have not changed since
    /// (the stages ask for the same path several times in a substep).
    computed: Option<(V, V)>,
    /// The last few relaxed paths' contacts, to start a path between the same ends (or
    /// the same ends reversed) from (see [`warm_start`]): one rope's, within one step.
    starts: Vec<Start<V, R>>,
    /// How many of `starts` hold a path (the rest keep their memory for later).
    used: usize,
    /// The slot of `starts` replaced next once all are used.
    next_start: usize,
    /// The rope whose paths `starts` holds (its end particles' slots).
    owner: Option<(u32, u32)>,
}

impl<V, R> Work3<V, R> {
    /// Forgets the remembered paths unless they are rope `owner`'s: a path starts only
    /// from its own rope's paths of the same step, so that a step depends on the state
    /// alone (a restored snapshot steps as the original did) and not on another rope.
    pub(crate) fn claim(&mut self, owner: Option<(u32, u32)>) {
        if owner.is_none() || self.owner != owner {
            // (The slots are kept, not dropped: no allocation in a steady step.)
            self.used = 0;
            self.next_start = 0;
        }
        self.owner = owner;
    }
}

/// A relaxed path remembered as a starting point: its ends, its contacts (collider,
/// feature) and where they settled.
#[derive(Clone, Debug, Default)]
struct Start<V, R> {
    ends: (V, V),
    keys: Vec<(RawHandle, u32)>,
    ats: Vec<R>,
    /// The spans' touching points (`Path::ends`).
    touch: Vec<(V, V)>,
}

/// Relaxed paths a [`Work3`] remembers.
const STARTS: usize = 4;

/// The features of the contacts into `w.feats`; a contact whose collider or feature no
/// longer exists is dropped.
pub(crate) fn nodes3<S: Space>(
    wraps: &mut Vec<Wrap<RealOf<S>>>,
    colliders: &Arena<Collider<S>>,
    rope_radius: RealOf<S>,
    w: &mut Work3<VecOf<S>, RealOf<S>>,
) {
    w.feats.clear();
    w.computed = None;
    wraps.retain(|c| {
        match colliders.get(c.collider).and_then(|k| feature_of3(c.collider, k, c.feature, rope_radius)) {
            Some(f) => {
                w.feats.push(f);
                w.computed = None;
                true
            }
            None => false,
        }
    });
}

/// The path between `ends` through the contacts (whose features are in `w.feats`); the
/// contacts slide and their turns are written back.
pub(crate) fn path3<R: Real, V: Vector<R>>(ends: (V, V), wraps: &mut [Wrap<R>], w: &mut Work3<V, R>) {
    if w.computed == Some(ends) && w.path.turns.len() == wraps.len() {
        return;
    }
    w.computed = Some(ends);
    w.ats.clear();
    w.ats.extend(wraps.iter().map(|c| c.at));
    w.normals.clear();
    w.normals.extend(wraps.iter().map(|c| V::from_array3(c.normal)));
    let warm = warm_start(ends, wraps, w);
    compute3(&mut w.path, ends, &w.feats, &mut w.ats, &mut w.normals, warm);
    remember(ends, wraps, w);
    for (i, c) in wraps.iter_mut().enumerate() {
        c.at = w.ats[i];
        c.turn = w.path.turns[i];
        c.normal = w.normals[i].to_array3();
    }
}

/// Starts the relaxation of the path between `ends` where a remembered path through the
/// same contacts settled (or through the same contacts reversed, walked the other way:
/// its touching points swapped), its touching points included, instead of at the
/// contacts' segment points. A remembered path between the same ends (or the same ends
/// reversed) is preferred: one substep's contact update asks for the path between its
/// ends' new positions three times around its sweeps and reversals, and for the reversed
/// path of each end's move, and each of these settles in one sweep; otherwise the most
/// recent one, its end points moved to `ends`. Cold, the relaxation spent about nine
/// sweeps a path re-placing touching points (1 µm tolerance). Only the contacts'
/// positions and touching points are taken: their wrap planes stay their own, so a warm
/// start never changes which way a round contact goes round. Returns whether it started
/// warm.
fn warm_start<R: Real, V: Vector<R>>(ends: (V, V), wraps: &[Wrap<R>], w: &mut Work3<V, R>) -> bool {
    let n = wraps.len();
    let key = |c: &Wrap<R>| (c.collider, c.feature);
    let len = w.used;
    // Most recent first.
    let order = (1..=len).map(|k| (w.next_start + len - k) % len.max(1));
    let mut pick: Option<(usize, bool)> = None;
    for k in order {
        let m = &w.starts[k];
        if m.keys.len() != n || m.touch.len() != n + 1 {
            continue;
        }
        let forward = m.keys.iter().zip(wraps).all(|(k, c)| *k == key(c));
        let backward = m.keys.iter().rev().zip(wraps).all(|(k, c)| *k == key(c));
        if forward && m.ends == ends {
            pick = Some((k, true));
            break;
        }
        if backward && m.ends == (ends.1, ends.0) {
            pick = Some((k, false));
            break;
        }
        if pick.is_none() && (forward || backward) {
            pick = Some((k, forward));
        }
    }
    let Some((k, forward)) = pick else { return false };
    let m = &w.starts[k];
    for i in 0..n {
        w.ats[i] = m.ats[if forward { i } else { n - 1 - i }];
    }
    w.path.ends.clear();
    if forward {
        w.path.ends.extend_from_slice(&m.touch);
    } else {
        w.path.ends.extend(m.touch.iter().rev().map(|&(p, q)| (q, p)));
    }
    w.path.ends[0].0 = ends.0;
    w.path.ends[n].1 = ends.1;
    true
}

/// Remembers the path just relaxed between `ends` as a starting point (see [`warm_start`]).
fn remember<R: Real, V: Vector<R>>(ends: (V, V), wraps: &[Wrap<R>], w: &mut Work3<V, R>) {
    let k = if w.used < STARTS {
        if w.starts.len() <= w.used {
            w.starts.push(Start::default());
        }
        w.used += 1;
        w.used - 1
    } else {
        let k = w.next_start;
        w.next_start = (k + 1) % STARTS;
        k
    };
    let m = &mut w.starts[k];
    m.ends = ends;
    m.keys.clear();
    m.keys.extend(wraps.iter().map(|c| (c.collider, c.feature)));
    m.ats.clone_from(&w.ats);
    m.touch.clone_from(&w.path.ends);
}

/// Removes contacts that no longer hold (see the module docs), recomputing the path
/// after each; the removed features go to `removed`.
pub(crate) fn unwrap3<S: Space>(
    ends: (VecOf<S>, VecOf<S>),
    wraps: &mut Vec<Wrap<RealOf<S>>>,
    w: &mut Work3<VecOf<S>, RealOf<S>>,
    colliders: &Arena<Collider<S>>,
    rope_radius: RealOf<S>,
    removed: &mut Vec<(RawHandle, u32)>,
) {
    let eps = RealOf::<S>::from_ratio(1, ANGLE_TOLERANCE);
    loop {
        path3(ends, wraps, w);
        let bad = |i: usize| {
            let f = w.feats[i];
            if f.radius > RealOf::<S>::ZERO {
                return w.path.turns[i] < -eps;
            }
            // The rope presses on an edge along `d_in − d_out`: it must push into the
            // shape (against the edge's outward direction), else the rope lifts off.
            let bend = w.path.dirs[i + 1] - w.path.dirs[i];
            if !(bend.dot(f.out) < -eps) {
                return true;
            }
            // At an end of its edge, the rope slips off the corner once the straight span
            // would pass the shape.
            let (p, q) = (w.path.ends[i].0, w.path.ends[i + 1].1);
            let t = wraps[i].at;
            let at_end = t <= RealOf::<S>::ZERO || t >= RealOf::<S>::ONE;
            at_end && colliders.get(f.collider).is_none_or(|c| !crosses(c, p, q, rope_radius * RealOf::<S>::HALF))
        };
        let Some(i) = (0..wraps.len()).find(|&i| bad(i)) else { break };
        let c = wraps.remove(i);
        w.feats.remove(i);
        w.computed = None;
        removed.push((c.collider, c.feature));
    }
}

/// Sweeps the end of the path from `e0` to `e1` (see the module docs); `start` is the
/// path's other end. `features` are the candidates, `skip` features not to wrap. Returns
/// how many contacts were added.
pub(crate) fn sweep_end3<R: Real, V: Vector<R>>(
    start: V,
    (e0, e1): (V, V),
    wraps: &mut Vec<Wrap<R>>,
    w: &mut Work3<V, R>,
    features: &[Feature3<V, R>],
    skip: &[(RawHandle, u32)],
) -> usize {
    let mut e0 = e0;
    let mut added = 0;
    let tiny = R::GEOMETRIC_EPSILON;
    while added < MAX_WRAPS_PER_SWEEP && wraps.len() < MAX_CONTACTS {
        // The pivot: the other end, or where the span leaves the last contact.
        path3((start, e0), wraps, w);
        let m = wraps.len();
        let p = if m == 0 { start } else { w.path.ends[m].0 };
        let (d0, d1) = (e0 - p, e1 - p);
        let (u, l0) = d0.normalize_and_length();
        let n = cross3(d0, d1).normalize_or_zero();
        if !(l0 > tiny) || n == V::ZERO {
            break;
        }
        let v = cross3(n, u);
        let flat = |x: V| Vector2::new((x - p).dot(u), (x - p).dot(v));
        let last = wraps.last().map(|c| (c.collider, c.feature));
        w.plane.clear();
        for (fi, f) in features.iter().enumerate() {
            let id = (f.collider, f.index);
            if Some(id) == last || skip.contains(&id) {
                continue;
            }
            let axis = f.b - f.a;
            let den = axis.dot(n);
            let mut t = R::ZERO;
            if den.abs() > tiny * axis.length() && axis != V::ZERO {
                t = (p - f.a).dot(n) / den;
                if t >= R::ZERO && t <= R::ONE {
                    w.plane.push((fi, flat(f.at(t)), f.radius, t));
                    continue;
                }
                if f.radius == R::ZERO {
                    continue;
                }
                t = t.clamp(R::ZERO, R::ONE);
            } else if axis != V::ZERO && f.radius == R::ZERO {
                continue;
            }
            // A ball, a capsule's cap or a capsule lying in the plane: its section.
            let c = f.at(t);
            let h = (c - p).dot(n);
            let r2 = f.radius * f.radius - h * h;
            if r2 > R::ZERO {
                w.plane.push((fi, flat(c - n * h), r2.sqrt(), t));
            }
        }
        let circles = w.plane.iter().enumerate().map(|(k, &(_, c, r, _))| (k, c, r));
        let Some((k, s, _)) = first_hit(Vector2::ZERO, (flat(e0), flat(e1)), circles) else { break };
        let (fi, _, _, t) = w.plane[k];
        let f = features[fi];
        wraps.push(Wrap {
            collider: f.collider,
            feature: f.index,
            side: 0,
            turn: R::ZERO,
            at: t,
            // The rope wraps it turning as the span swept: about the sweep plane's normal.
            normal: n.to_array3(),
        });
        w.feats.push(f);
        w.computed = None;
        e0 = e0 + (e1 - e0) * s;
        added += 1;
    }
    added
}

/// A candidate detour of the repair: whether its spans clear the shape, its length, the
/// feature (index in its group), the contact's place on it and its wrap normal.
type Detour<S> = (bool, RealOf<S>, usize, RealOf<S>, VecOf<S>);

/// Spans through colliders (see "Repair" in the module docs): per pass, a contact on the
/// feature of the shortest detour round the first shape a span crosses; every span if
/// `all`, else the two end spans. Returns whether anything was added.
pub(crate) fn repair3<S: Space>(
    ends: (VecOf<S>, VecOf<S>),
    wraps: &mut Vec<Wrap<RealOf<S>>>,
    w: &mut Work3<VecOf<S>, RealOf<S>>,
    features: &[Feature3<VecOf<S>, RealOf<S>>],
    colliders: &Arena<Collider<S>>,
    rope_radius: RealOf<S>,
    (passes, all): (usize, bool),
) -> bool {
    let mut any = false;
    for _ in 0..passes {
        if wraps.len() >= MAX_CONTACTS {
            break;
        }
        path3(ends, wraps, w);
        let last = w.path.ends.len() - 1;
        let mut insert = None;
        'spans: for (j, &(a, b)) in w.path.ends.iter().enumerate() {
            if !all && j != 0 && j != last {
                continue;
            }
            let mut k = 0;
            while k < features.len() {
                let h = features[k].collider;
                let mut end = k;
                while end < features.len() && features[end].collider == h {
                    end += 1;
                }
                let group = &features[k..end];
                k = end;
                let Some(c) = colliders.get(h) else { continue };
                let is_round = group[0].radius > RealOf::<S>::ZERO;
                let inflate = if is_round { rope_radius * RealOf::<S>::HALF } else { RealOf::<S>::ZERO };
                if inside(c, a) || inside(c, b) || !crosses(c, a, b, inflate) {
                    continue;
                }
                // Not the span's own contacts.
                let own = |f: &Feature3<VecOf<S>, RealOf<S>>| {
                    [j.checked_sub(1), Some(j)]
                        .into_iter()
                        .flatten()
                        .filter_map(|i| wraps.get(i))
                        .any(|c| (c.collider, c.feature) == (f.collider, f.index))
                };
                // The shortest detour round one feature, preferring one whose two spans
                // clear the shape (a detour that still crosses needs more contacts, and
                // the shortest of those is often round the wrong side).
                let mut best: Option<Detour<S>> = None;
                for (gi, f) in group.iter().enumerate() {
                    if own(f) {
                        continue;
                    }
                    let t = if f.a == f.b { RealOf::<S>::ZERO } else { slide(a, b, f.a, f.b) };
                    let x = f.at(t);
                    let (tin, tout, len, n) = if f.radius > RealOf::<S>::ZERO {
                        let (tin, tout, theta, n) = round(a, b, x, f.radius, VecOf::<S>::ZERO);
                        let len = (tin - a).length() + f.radius * theta.max(RealOf::<S>::ZERO) + (b - tout).length();
                        (tin, tout, len, n)
                    } else {
                        (x, x, (x - a).length() + (b - x).length(), VecOf::<S>::ZERO)
                    };
                    let clear = !crosses(c, a, tin, inflate) && !crosses(c, tout, b, inflate);
                    if best.is_none_or(|(bc, l, _, _, _)| (clear, -len) > (bc, -l)) {
                        best = Some((clear, len, gi, t, n));
                    }
                }
                if let Some((_, _, gi, t, n)) = best {
                    insert = Some((j, group[gi], t, n));
                    break 'spans;
                }
            }
        }
        let Some((j, f, t, n)) = insert else { break };
        wraps.insert(
            j,
            Wrap {
                collider: f.collider,
                feature: f.index,
                side: 0,
                turn: RealOf::<S>::ZERO,
                at: t,
                // The shorter way round, as measured.
                normal: n.to_array3(),
            },
        );
        w.feats.insert(j, f);
        w.computed = None;
        any = true;
    }
    if any {
        path3(ends, wraps, w);
    }
    any
}

/// Reverses a 3D path's contacts (the start becomes the end): their order, and their
/// wrap planes' orientation (the rope turns the other way about them).
pub(crate) fn reverse3<R: Real, V>(wraps: &mut [Wrap<R>], w: &mut Work3<V, R>) {
    wraps.reverse();
    for c in wraps.iter_mut() {
        c.normal = c.normal.map(|x| -x);
    }
    w.feats.reverse();
    w.computed = None;
}

/// The taut path of a particle rope through `points` in 3D (see "String pulling" in
/// `taut/wrap.rs`): contacts into `wraps` (cleared first).
pub(crate) fn string_pull3<S: Space>(
    points: &[VecOf<S>],
    features: &[Feature3<VecOf<S>, RealOf<S>>],
    colliders: &Arena<Collider<S>>,
    rope_radius: RealOf<S>,
    wraps: &mut Vec<Wrap<RealOf<S>>>,
    w: &mut Work3<VecOf<S>, RealOf<S>>,
    removed: &mut Vec<(RawHandle, u32)>,
) {
    wraps.clear();
    w.feats.clear();
    w.computed = None;
    let Some((&first, rest)) = points.split_first() else { return };
    let Some(&second) = rest.first() else { return };
    let mut e0 = second;
    for &e1 in &rest[1..] {
        removed.clear();
        unwrap3((first, e1), wraps, w, colliders, rope_radius, removed);
        sweep_end3(first, (e0, e1), wraps, w, features, removed);
        e0 = e1;
    }
    let last = points[points.len() - 1];
    repair3((first, last), wraps, w, features, colliders, rope_radius, (4, true));
    removed.clear();
    unwrap3((first, last), wraps, w, colliders, rope_radius, removed);
    path3((first, last), wraps, w);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Vector3;

    type V = Vector3<f64>;

    /// A pole (capsule axis), an edge and a ball between two ends, and the contacts on them.
    fn course() -> (Vec<Feature3<V, f64>>, Vec<Wrap<f64>>) {
        let handle = |index| RawHandle { index, generation: 0 };
        let feats = vec![
            Feature3 {
                a: V::new(-1.0, 0.0, 0.0),
                b: V::new(-1.0, 3.0, 0.0),
                radius: 0.2,
                out: V::ZERO,
                collider: handle(0),
                index: 0,
            },
            Feature3 {
                a: V::new(0.0, 2.5, -2.0),
                b: V::new(0.0, 2.5, 2.0),
                radius: 0.0,
                out: V::new(0.0, 1.0, 0.0),
                collider: handle(1),
                index: 3,
            },
            Feature3 {
                a: V::new(1.5, 1.2, 0.4),
                b: V::new(1.5, 1.2, 0.4),
                radius: 0.3,
                out: V::ZERO,
                collider: handle(2),
                index: 0,
            },
        ];
        let wraps = feats
            .iter()
            .map(|f| Wrap { collider: f.collider, feature: f.index, side: 1, turn: 0.0, at: 0.5, normal: [0.0; 3] })
            .collect();
        (feats, wraps)
    }

    #[test]
    fn a_path_started_from_a_remembered_one_settles_where_a_cold_one_does() {
        let (feats, mut wraps) = course();
        let a = (V::new(-3.0, 1.0, 0.5), V::new(3.0, 0.5, 0.2));
        let moved = (V::new(-3.05, 1.02, 0.45), V::new(3.1, 0.45, 0.25));
        let mut w = Work3 { feats: feats.clone(), ..Work3::default() };
        // Settle once so that every round contact has its wrap plane.
        path3(a, &mut wraps, &mut w);
        let start = wraps.clone();
        // Cold: a fresh working memory.
        let mut cold_wraps = start.clone();
        let mut cold = Work3 { feats: feats.clone(), ..Work3::default() };
        path3(moved, &mut cold_wraps, &mut cold);
        // Warm: the path between other ends remembered first, then the same path walked
        // the other way (a remembered path reversed).
        let mut warm_wraps = start.clone();
        let mut warm = Work3 { feats: feats.clone(), ..Work3::default() };
        path3(a, &mut warm_wraps, &mut warm);
        path3(moved, &mut warm_wraps, &mut warm);
        let (l_cold, l_warm) = (cold.path.length, warm.path.length);
        assert!((l_cold - l_warm).abs() < 1e-9 * l_cold, "{l_cold} vs {l_warm}");
        for (c, h) in cold_wraps.iter().zip(&warm_wraps) {
            assert!((c.at - h.at).abs() * 3.0 < 1e-5, "{} vs {}", c.at, h.at);
            assert!((c.turn - h.turn).abs() < 1e-5, "{} vs {}", c.turn, h.turn);
        }
        reverse3(&mut warm_wraps, &mut warm);
        path3((moved.1, moved.0), &mut warm_wraps, &mut warm);
        assert!((warm.path.length - l_cold).abs() < 1e-9 * l_cold, "reversed: {} vs {l_cold}", warm.path.length);
        for (c, h) in cold_wraps.iter().zip(warm_wraps.iter().rev()) {
            assert!((c.at - h.at).abs() * 3.0 < 1e-5, "reversed: {} vs {}", c.at, h.at);
        }
    }
}
