//! The taut rope's stages in a step: contacts updated at each substep, the length
//! constraint with capstan slip in every iteration, particles laid along the path and the
//! tension written at the end, then the switch between slack and taut (the method is in
//! the module docs of [`super`]).

use super::cache::ColliderCache;
use super::geometry::{Feature, Node, Path, collider_features, exp_small, span_ends};
use super::path3::polyline3;
use super::quiet::{self, EndsFrom};
use super::solid::{Feature3, collider_features3};
use super::wrap::{move_ends, nodes, repair, reverse, string_pull, sweep_end, unwrap};
use super::wrap3::{Work3, nodes3, path3, repair3, reverse3, string_pull3, sweep_end3, unwrap3};
use super::{ENTER, LEAVE, MAX_SNAP, TautMode};
use crate::arena::{Arena, RawHandle};
use crate::collider::{Aabb, Collider, mix_friction};
use crate::math::{Real, Vector};
use crate::particle::{KINEMATIC, ParticleSet};
use crate::rope::Rope;
use crate::space::{RealOf, Space, VecOf};

/// Arcs of round contacts are laid out (and reported) in chords at most
/// `1/LAYOUT_SAG` m inside them (25 µm: well under the 1 mm a switch may move a particle).
const LAYOUT_SAG: i32 = 40_000;

/// Working memory of the taut stages (nothing here outlives a call).
#[derive(Clone, Debug, Default)]
pub(crate) struct TautScratch<V, R> {
    features: Vec<Feature<V, R>>,
    /// The features near the end spans of the rope last tested (`taut/quiet.rs`).
    near: quiet::Near<V, R>,
    features3: Vec<Feature3<V, R>>,
    w3: Work3<V, R>,
    nodes: Vec<Node<V, R>>,
    path: Path<V, R>,
    removed: Vec<(RawHandle, u32)>,
    poly: Vec<V>,
    points: Vec<V>,
    laid: Vec<V>,
    start_wraps: Vec<super::Wrap<R>>,
    /// This step's colliders (`taut/cache.rs`).
    cache: ColliderCache<V, R>,
    groups: Vec<super::wrap::Group<V>>,
    seg_lengths: Vec<R>,
}

impl<V: Copy, R: Copy + PartialEq> TautScratch<V, R> {
    /// Forgets this step's colliders (see `taut/cache.rs`) and the 3D paths remembered
    /// as starting points (`taut/wrap3.rs`): called between steps, where colliders may be
    /// moved and a snapshot restored.
    pub(crate) fn forget_colliders(&mut self) {
        self.cache.invalidate();
        self.w3.claim(None);
    }
}

/// Which rope a [`Work3`](super::wrap3::Work3)'s remembered paths belong to.
fn owner<S: Space>(r: &Rope<S>) -> Option<(u32, u32)> {
    Some((*r.idx.first()?, *r.idx.last()?))
}

/// The features of the colliders whose boxes overlap `bounds` (all when `None`); returns
/// whether any of those colliders is moving this step.
fn gather<S: Space>(
    colliders: &Arena<Collider<S>>,
    radius: RealOf<S>,
    bounds: Option<&Aabb<VecOf<S>>>,
    sc: &mut TautScratch<VecOf<S>, RealOf<S>>,
) -> bool {
    let (out, out3) = (&mut sc.features, &mut sc.features3);
    out.clear();
    out3.clear();
    let mut moving = false;
    if let Some(b) = bounds
        && sc.cache.is_valid_for(radius)
    {
        // The same colliders in the same order, their boxes and 2D features measured once
        // this step.
        return sc.cache.gather(colliders, b, out, |h, c| collider_features3(h, c, radius, out3));
    }
    for (h, c) in colliders.iter() {
        if let (Some(b), Some((lo, hi))) = (bounds, c.shape.local_aabb()) {
            let bb = crate::collider::world_aabb::<S>(lo, hi, c.position, c.rotation);
            if !bb.overlaps::<RealOf<S>>(b) {
                continue;
            }
        }
        moving |= c.is_moving();
        if S::DIM == 2 {
            collider_features(h, c, radius, out);
        } else {
            collider_features3(h, c, radius, out3);
        }
    }
    moving
}

/// The slip `δ` of rope from the start side to the end side (negative: the other way)
/// by the capstan law, given the sides' violations `c`, their ends' inverse masses `w`
/// and `k = e^{μθ}` (see the module docs of [`super`]).
pub(crate) fn slip<R: Real>(c: [R; 2], w: [R; 2], k: R) -> R {
    let zero = R::ZERO;
    let toward = |c0: R, c1: R, w0: R, w1: R| -> Option<R> {
        if !(c1 > zero && (c0 < zero || c1 * w0 > k * c0 * w1)) {
            return None;
        }
        let (mut c0, mut c1, mut d) = (c0, c1, zero);
        if c0 < zero {
            let free = (-c0).min(c1);
            d += free;
            c0 += free;
            c1 -= free;
        }
        let den = w0 + k * w1;
        if c1 > zero && den > zero {
            d += ((c1 * w0 - k * c0 * w1) / den).max(zero);
        }
        Some(d)
    };
    if let Some(d) = toward(c[0], c[1], w[0], w[1]) {
        d
    } else if let Some(d) = toward(c[1], c[0], w[1], w[0]) {
        -d
    } else {
        zero
    }
}

/// Whether particle slot `k` moves freely (not pinned, driven or kinematic).
fn free<S: Space>(ps: &ParticleSet<S>, k: u32) -> bool {
    let k = k as usize;
    ps.inv_mass[k] > RealOf::<S>::ZERO && ps.flags[k] & KINEMATIC == 0 && ps.target[k].is_none()
}

/// The slack of the start side with the current contacts, `span₀ − a₀` (half the whole
/// slack when there is no contact).
fn start_slack<R: Real, V: Vector<R>>(path: &Path<V, R>, split: R, length: R, contacts: usize) -> R {
    if contacts == 0 { (path.length - length) * R::HALF } else { path.lengths[0] - split }
}

/// Start of a substep (its first iteration): the contacts follow the ends from where the
/// substep started (`prev`) to their predictions (`pos`) — wraps, unwraps, repairs — and
/// the start side's length is carried over so that its slack does not change. The
/// colliders are measured for the step at its first substep that needs them
/// (`taut/cache.rs`; the switch forgets them at every step's start). In 2D a substep whose
/// motion cannot change any contact skips the wraps, unwraps and repairs
/// (`taut/quiet.rs`).
pub(crate) fn update_contacts<S: Space>(
    r: &mut Rope<S>,
    ps: &ParticleSet<S>,
    colliders: &Arena<Collider<S>>,
    sc: &mut TautScratch<VecOf<S>, RealOf<S>>,
) {
    if !sc.cache.is_valid_for(r.radius) {
        sc.cache.build(colliders, r.radius);
    }
    if S::DIM != 2 {
        update_contacts3(r, ps, colliders, sc);
        return;
    }
    let (a, b) = (r.idx[0] as usize, r.idx[r.idx.len() - 1] as usize);
    let (s0, s1, e0, e1) = (ps.prev[a], ps.pos[a], ps.prev[b], ps.pos[b]);
    let (length, radius) = (r.rest_length(), r.radius);
    let t = &mut r.taut;
    // The start side's slack before any change, at the new positions.
    nodes(s1, e1, &mut t.wraps, colliders, radius, &mut sc.nodes);
    sc.path.compute(&sc.nodes, |i| t.wraps[i].turn);
    let slack0 = start_slack(&sc.path, t.split, length, t.wraps.len());
    // The features near the path and the ends' motion (a sweep's triangle and every
    // span lie in the box of its corners).
    let (mut lo, mut hi) = (s0.min_elem(s1).min_elem(e0.min_elem(e1)), s0.max_elem(s1).max_elem(e0.max_elem(e1)));
    let mut reach = radius;
    for n in &sc.nodes {
        lo = lo.min_elem(n.center);
        hi = hi.max_elem(n.center);
        reach = reach.max(n.rho.abs());
    }
    let pad = VecOf::<S>::splat(reach);
    let bounds = Aabb { min: lo - pad, max: hi + pad };
    let from = EndsFrom { s0, e0 };
    if !sc.cache.moving_in(&bounds)
        && quiet::holds(
            quiet::QuietQuery { wraps: &t.wraps, nodes: &sc.nodes, path: &sc.path, from, sharp: radius },
            &mut sc.cache,
            colliders,
            (&mut sc.near, (a as u32, b as u32)),
        )
    {
        // Nothing can change this substep (`taut/quiet.rs`): the path at the new positions
        // stands, as the stages would have left it.
        #[cfg(test)]
        let full = quiet::checking().then(|| {
            let (mut t2, mut sc2) = (t.clone(), sc.clone());
            stages::<S>(&mut t2, &mut sc2, colliders, radius, [s0, s1, e0, e1], slack0, &bounds);
            (t2, sc2.path)
        });
        finish_update::<S>(t, sc, slack0, (s0, e0));
        #[cfg(test)]
        if let Some((t2, p2)) = full {
            // The contacts, and the path the length solve then starts from.
            let p = &sc.path;
            let same_path = (&p2.ends, &p2.dirs, &p2.lengths, &p2.turns, p2.length)
                == (&p.ends, &p.dirs, &p.lengths, &p.turns, p.length);
            quiet::record(&t2 == t && same_path, !t.wraps.is_empty() && s0 != s1);
        }
        return;
    }
    stages::<S>(t, sc, colliders, radius, [s0, s1, e0, e1], slack0, &bounds);
}

/// The stages of a substep's contact update (see [`update_contacts`]), `sc.nodes` and
/// `sc.path` the path through the contacts at the ends' new positions.
fn stages<S: Space>(
    t: &mut super::Taut<RealOf<S>>,
    sc: &mut TautScratch<VecOf<S>, RealOf<S>>,
    colliders: &Arena<Collider<S>>,
    radius: RealOf<S>,
    [s0, s1, e0, e1]: [VecOf<S>; 4],
    slack0: RealOf<S>,
    bounds: &Aabb<VecOf<S>>,
) {
    let moving = gather(colliders, radius, Some(bounds), sc);
    let before = t.wraps.len();
    // The end: unwrap at its new position, then sweep from the old one (the start where
    // it was).
    // (`sc.nodes` holds these contacts' nodes.)
    move_ends(&mut sc.nodes, s0, e1);
    sc.removed.clear();
    unwrap(&mut t.wraps, &mut sc.nodes, &mut sc.path, &mut sc.removed, radius);
    let mut changed = !sc.removed.is_empty();
    changed |= sweep_end(&mut t.wraps, &mut sc.nodes, (e0, e1), &sc.features, &sc.removed) > 0;
    // The start, on the reversed path.
    let last = sc.nodes.len() - 1;
    sc.nodes[0].center = s1;
    sc.nodes[last].center = e1;
    reverse(&mut t.wraps, &mut sc.nodes);
    sc.removed.clear();
    unwrap(&mut t.wraps, &mut sc.nodes, &mut sc.path, &mut sc.removed, radius);
    changed |= !sc.removed.is_empty();
    changed |= sweep_end(&mut t.wraps, &mut sc.nodes, (s0, s1), &sc.features, &sc.removed) > 0;
    reverse(&mut t.wraps, &mut sc.nodes);
    // Every span when the contacts or the colliders changed, else the end spans.
    let all = changed || t.wraps.len() != before || moving;
    repair(&mut t.wraps, &mut sc.nodes, &mut sc.path, &sc.features, (4, all), &mut sc.groups);
    // What the repair added is checked like the rest (a contact it put on the wrong side
    // of a shape goes), and what that leaves crossing a shape repaired once more.
    sc.removed.clear();
    unwrap(&mut t.wraps, &mut sc.nodes, &mut sc.path, &mut sc.removed, radius);
    repair(&mut t.wraps, &mut sc.nodes, &mut sc.path, &sc.features, (2, all), &mut sc.groups);
    sc.path.compute(&sc.nodes, |i| t.wraps[i].turn);
    finish_update::<S>(t, sc, slack0, (s0, e0));
}

/// The end of a substep's contact update, `sc.path` the path through the contacts at the
/// ends' new positions (`sc.nodes`): the turns kept, the start side's length carried
/// over (its slack `slack0`), the pivots at the substep's start `(s0, e0)`.
fn finish_update<S: Space>(
    t: &mut super::Taut<RealOf<S>>,
    sc: &mut TautScratch<VecOf<S>, RealOf<S>>,
    slack0: RealOf<S>,
    (s0, e0): (VecOf<S>, VecOf<S>),
) {
    for (w, &turn) in t.wraps.iter_mut().zip(&sc.path.turns) {
        w.turn = turn;
    }
    if !t.wraps.is_empty() {
        t.split = (sc.path.lengths[0] - slack0).max(RealOf::<S>::ZERO);
    }
    // The pivots at the substep's start, through the contacts as they are now (without
    // contacts, each end's pivot is the other end's start).
    t.pivots = Some(if t.wraps.is_empty() {
        [e0.to_array3(), s0.to_array3()]
    } else {
        // (`sc.nodes` are these contacts' nodes.) The end spans' touching points, as the
        // path through these nodes has them.
        move_ends(&mut sc.nodes, s0, e0);
        let n = sc.nodes.len();
        let first = span_ends(sc.nodes[0], sc.nodes[1]).1;
        let last = span_ends(sc.nodes[n - 2], sc.nodes[n - 1]).0;
        [first.to_array3(), last.to_array3()]
    });
}

/// The pivots of the two ends on `path` between `ends` (see `Taut::pivots`).
fn pivots_of<S: Space>(path: &Path<VecOf<S>, RealOf<S>>, (start, end): (VecOf<S>, VecOf<S>)) -> [[RealOf<S>; 3]; 2] {
    let last = path.ends.len().saturating_sub(1);
    let (p0, p1) = if path.ends.len() < 2 { (end, start) } else { (path.ends[0].1, path.ends[last].0) };
    [p0.to_array3(), p1.to_array3()]
}

/// [`update_contacts`] in 3D: the same stages with the features and path of
/// `taut/wrap3.rs`.
fn update_contacts3<S: Space>(
    r: &mut Rope<S>,
    ps: &ParticleSet<S>,
    colliders: &Arena<Collider<S>>,
    sc: &mut TautScratch<VecOf<S>, RealOf<S>>,
) {
    let (a, b) = (r.idx[0] as usize, r.idx[r.idx.len() - 1] as usize);
    let (s0, s1, e0, e1) = (ps.prev[a], ps.pos[a], ps.prev[b], ps.pos[b]);
    let length = r.rest_length();
    let radius = r.radius;
    sc.w3.claim(owner(r));
    let t = &mut r.taut;
    let ends_before = end_contacts(&t.wraps);
    nodes3(&mut t.wraps, colliders, radius, &mut sc.w3);
    path3((s1, e1), &mut t.wraps, &mut sc.w3);
    let slack0 = start_slack(&sc.w3.path, t.split, length, t.wraps.len());
    let (mut lo, mut hi) = (s0.min_elem(s1).min_elem(e0.min_elem(e1)), s0.max_elem(s1).max_elem(e0.max_elem(e1)));
    let mut reach = radius;
    for f in &sc.w3.feats {
        lo = lo.min_elem(f.a.min_elem(f.b));
        hi = hi.max_elem(f.a.max_elem(f.b));
        reach = reach.max(f.radius);
    }
    let pad = VecOf::<S>::splat(reach);
    gather(colliders, radius, Some(&Aabb { min: lo - pad, max: hi + pad }), sc);
    // The end: unwrap at its new position, then sweep from the old one.
    sc.removed.clear();
    unwrap3((s0, e1), &mut t.wraps, &mut sc.w3, colliders, radius, &mut sc.removed);
    sweep_end3(s0, (e0, e1), &mut t.wraps, &mut sc.w3, &sc.features3, &sc.removed);
    // The start, on the reversed path.
    reverse3(&mut t.wraps, &mut sc.w3);
    sc.removed.clear();
    unwrap3((e1, s1), &mut t.wraps, &mut sc.w3, colliders, radius, &mut sc.removed);
    sweep_end3(e1, (s0, s1), &mut t.wraps, &mut sc.w3, &sc.features3, &sc.removed);
    reverse3(&mut t.wraps, &mut sc.w3);
    // Contacts slide along their edges, so every span may have moved: all are checked
    // (in 2D only the end spans, unless something changed).
    repair3((s1, e1), &mut t.wraps, &mut sc.w3, &sc.features3, colliders, radius, (4, true));
    sc.removed.clear();
    unwrap3((s1, e1), &mut t.wraps, &mut sc.w3, colliders, radius, &mut sc.removed);
    repair3((s1, e1), &mut t.wraps, &mut sc.w3, &sc.features3, colliders, radius, (2, true));
    path3((s1, e1), &mut t.wraps, &mut sc.w3);
    if !t.wraps.is_empty() {
        t.split = (sc.w3.path.lengths[0] - slack0).max(RealOf::<S>::ZERO);
    }
    // The pivots at the substep's start: those of the path the last substep solved, when
    // its end contacts are still the ends' contacts; else through the contacts as they
    // are now (on a copy: the path relaxes where contacts sit along their edges).
    t.pivots = match t.carry.take() {
        // Without contacts each end's pivot is the other end, where it started.
        _ if t.wraps.is_empty() => Some([e0.to_array3(), s0.to_array3()]),
        Some(p) if end_contacts(&t.wraps) == ends_before => Some(p),
        _ => {
            let mut start_wraps = core::mem::take(&mut sc.start_wraps);
            start_wraps.clone_from(&t.wraps);
            path3((s0, e0), &mut start_wraps, &mut sc.w3);
            sc.start_wraps = start_wraps;
            Some(pivots_of::<S>(&sc.w3.path, (s0, e0)))
        }
    };
}

/// How many contacts, and the first and last (collider, feature).
type EndContacts = (usize, Option<(RawHandle, u32)>, Option<(RawHandle, u32)>);

/// The first and last contacts (collider, feature) and how many there are: what decides
/// the ends' pivots.
fn end_contacts<R>(wraps: &[super::Wrap<R>]) -> EndContacts {
    let key = |w: &super::Wrap<R>| (w.collider, w.feature);
    (wraps.len(), wraps.first().map(key), wraps.last().map(key))
}

/// One iteration of the length constraint (see the module docs of [`super`]); `fresh`:
/// the substep's contact update ([`update_contacts`]) ran just before it.
pub(crate) fn solve<S: Space>(
    r: &mut Rope<S>,
    ps: &mut ParticleSet<S>,
    colliders: &Arena<Collider<S>>,
    default_friction: RealOf<S>,
    sc: &mut TautScratch<VecOf<S>, RealOf<S>>,
    fresh: bool,
) {
    let zero = RealOf::<S>::ZERO;
    let (a, b) = (r.idx[0] as usize, r.idx[r.idx.len() - 1] as usize);
    let length = r.rest_length();
    let rope_friction = r.friction;
    sc.w3.claim(owner(r));
    let t = &mut r.taut;
    // Right after the 2D contact update `sc.path` is this path already: the update left
    // it through these contacts at these end positions, with these turns (`sc.nodes`
    // then hold the ends' positions at the substep's start).
    if !(fresh && S::DIM == 2) {
        path_of((ps.pos[a], ps.pos[b]), &mut t.wraps, r.radius, colliders, sc);
    }
    let path = sc.path_for::<S>();
    if S::DIM == 3 && t.pivots.is_some() && !t.wraps.is_empty() {
        t.carry = Some(pivots_of::<S>(path, (ps.pos[a], ps.pos[b])));
    }
    let w = [ps.inv_mass[a], ps.inv_mass[b]];
    let last = path.dirs.len() - 1;
    if t.wraps.is_empty() {
        let c = path.length - length;
        let ws = w[0] + w[1];
        if c > zero && ws > zero {
            let dl = c / ws;
            // Along the ends' line at the substep's start (module docs, "Holding").
            let from = t.pivots.map(|p| VecOf::<S>::from_array3(p[1]));
            let (d, s) = shake(ps.pos[b] - ps.pos[a], from.map(|p| ps.prev[b] - p), c);
            ps.pos[a] += d * (w[0] / ws * s);
            ps.pos[b] -= d * (w[1] / ws * s);
            t.lambda[0] += dl;
            t.lambda[1] += dl;
        }
        return;
    }
    let inner = path.length - path.lengths[0] - path.lengths[last];
    let room = (length - inner).max(zero);
    let a0 = t.split.clamp(zero, room);
    let mut c = [path.lengths[0] - a0, path.lengths[last] - (room - a0)];
    // The capstan factor over every contact.
    let mut mu_theta = zero;
    for wr in &t.wraps {
        let mu = mix_friction(rope_friction, colliders.get(wr.collider).and_then(|c| c.friction), default_friction);
        mu_theta += mu * wr.turn.max(zero);
    }
    let k = exp_small(mu_theta);
    let d = slip(c, w, k);
    t.split = (a0 - d).clamp(zero, room);
    let moved = a0 - t.split;
    c[0] += moved;
    c[1] -= moved;
    let mut l = [zero; 2];
    // Each end along its span's direction at the substep's start (module docs, "Holding").
    if c[0] > zero && w[0] > zero {
        let from = t.pivots.map(|p| ps.prev[a] - VecOf::<S>::from_array3(p[0]));
        let (d, s) = shake(ps.pos[a] - path.ends[0].1, from, c[0]);
        ps.pos[a] -= d * s;
        l[0] = c[0] / w[0];
    }
    if c[1] > zero && w[1] > zero {
        let from = t.pivots.map(|p| ps.prev[b] - VecOf::<S>::from_array3(p[1]));
        let (d, s) = shake(ps.pos[b] - path.ends[last].0, from, c[1]);
        ps.pos[b] -= d * s;
        l[1] = c[1] / w[1];
    }
    // An immovable end holds what the other side pulls (exactly so without friction).
    if w[0] == zero {
        l[0] = l[1];
    }
    if w[1] == zero {
        l[1] = l[0];
    }
    t.lambda[0] += l[0];
    t.lambda[1] += l[1];
}

/// The correction of a span `r` (from its pivot to its end) that is `c > 0` too long,
/// made along the span's direction at the substep's start, `r0` (SHAKE; module docs,
/// "Holding"): the unit direction `d` and the distance `s` with `|r − s·d| = |r| − c`.
/// Without `r0` (outside a step: the switch's own solves), where it has no length or
/// where it cannot reach that length (the end swung nearly a right angle in one
/// substep): the span's current direction and `c`, the radial projection.
fn shake<R: Real, V: Vector<R>>(r: V, r0: Option<V>, c: R) -> (V, R) {
    let (now, len) = r.normalize_and_length();
    let Some(r0) = r0 else { return (now, c) };
    let (d, len0) = r0.normalize_and_length();
    if len0 <= R::GEOMETRIC_EPSILON || len <= c {
        return (now, c);
    }
    // |r − s·d|² = (|r| − c)²  ⇔  s² − 2·s·b + k = 0 with b = r·d, k = c·(2|r| − c);
    // the smaller root, written without the cancellation of b − √(b² − k).
    let b = r.dot(d);
    let k = c * (len * R::TWO - c);
    let disc = b * b - k;
    if b <= R::ZERO || disc < R::ZERO {
        return (now, c);
    }
    (d, k / (b + disc.sqrt()))
}

impl<V, R> TautScratch<V, R> {
    /// The path last computed (by [`path_of`] or the 3D stages).
    fn path_for<S: Space>(&self) -> &Path<V, R> {
        if S::DIM == 2 { &self.path } else { &self.w3.path }
    }
}

/// The path's polyline and the arc length at each of its points, for the rope's current
/// contacts and end positions (in `sc.poly`; returns the path's length).
fn polyline<S: Space>(
    r: &mut Rope<S>,
    ps: &ParticleSet<S>,
    colliders: &Arena<Collider<S>>,
    sc: &mut TautScratch<VecOf<S>, RealOf<S>>,
) -> RealOf<S> {
    let ends = (ps.pos[r.idx[0] as usize], ps.pos[r.idx[r.idx.len() - 1] as usize]);
    sc.w3.claim(owner(r));
    let length = path_of(ends, &mut r.taut.wraps, r.radius, colliders, sc);
    polyline_of::<S>(sc);
    length
}

/// The polyline of the path last computed by [`path_of`] (in `sc.poly`).
fn polyline_of<S: Space>(sc: &mut TautScratch<VecOf<S>, RealOf<S>>) {
    let sag = RealOf::<S>::from_ratio(1, LAYOUT_SAG);
    if S::DIM == 2 {
        sc.path.polyline(&sc.nodes, sag, &mut sc.poly);
    } else {
        polyline3(&sc.w3.path, &sc.w3.feats, (&sc.w3.ats, &sc.w3.normals), sag, &mut sc.poly);
    }
}

/// The path through `wraps` between the end positions `ends` (in `sc.nodes` and
/// `sc.path`; contacts whose collider is gone are dropped); returns its length.
fn path_of<S: Space>(
    (start, end): (VecOf<S>, VecOf<S>),
    wraps: &mut Vec<super::Wrap<RealOf<S>>>,
    radius: RealOf<S>,
    colliders: &Arena<Collider<S>>,
    sc: &mut TautScratch<VecOf<S>, RealOf<S>>,
) -> RealOf<S> {
    if S::DIM == 2 {
        nodes(start, end, wraps, colliders, radius, &mut sc.nodes);
        sc.path.compute(&sc.nodes, |i| wraps[i].turn);
        sc.path.length
    } else {
        nodes3(wraps, colliders, radius, &mut sc.w3);
        path3((start, end), wraps, &mut sc.w3);
        sc.w3.path.length
    }
}

/// Positions along the polyline `poly` for every particle of the rope: particle `i` at
/// arc length `sᵢ·ℓ/L` (its rest position, the path's length `ℓ` shared evenly).
/// `lengths` is working memory (the polyline's segment lengths, measured once).
fn lay_out<S: Space>(r: &Rope<S>, poly: &[VecOf<S>], lengths: &mut Vec<RealOf<S>>, out: &mut Vec<VecOf<S>>) {
    out.clear();
    lengths.clear();
    lengths.extend(poly.windows(2).map(|w| (w[1] - w[0]).length()));
    let total: RealOf<S> = lengths.iter().fold(RealOf::<S>::ZERO, |s, &l| s + l);
    let length = r.rest_length();
    let scale = if length > RealOf::<S>::ZERO { total / length } else { RealOf::<S>::ZERO };
    let (mut seg, mut seg_start) = (0usize, RealOf::<S>::ZERO);
    let mut s = RealOf::<S>::ZERO;
    for i in 0..r.idx.len() {
        if i > 0 {
            s += r.rest[i - 1];
        }
        let want = s * scale;
        while seg + 2 < poly.len() && want > seg_start + lengths[seg] {
            seg_start += lengths[seg];
            seg += 1;
        }
        let p = match poly.len() {
            0 => VecOf::<S>::ZERO,
            1 => poly[0],
            _ => {
                let len = lengths[seg];
                let u = if len > RealOf::<S>::ZERO {
                    ((want - seg_start) / len).clamp(RealOf::<S>::ZERO, RealOf::<S>::ONE)
                } else {
                    RealOf::<S>::ZERO
                };
                poly[seg].lerp(poly[seg + 1], u)
            }
        };
        out.push(p);
    }
}

/// End of a step for a taut rope: its interior particles laid along the path with the
/// velocity of that motion over `dt`, and its tension written per segment (the start
/// side's segments carry the start side's).
pub(crate) fn end_step<S: Space>(
    r: &mut Rope<S>,
    ps: &mut ParticleSet<S>,
    colliders: &Arena<Collider<S>>,
    dt: RealOf<S>,
    sc: &mut TautScratch<VecOf<S>, RealOf<S>>,
) {
    polyline(r, ps, colliders, sc);
    let mut points = core::mem::take(&mut sc.points);
    lay_out(r, &sc.poly, &mut sc.seg_lengths, &mut points);
    let n = r.idx.len();
    let inv_dt = RealOf::<S>::ONE / dt;
    let inner = 1..n.saturating_sub(1);
    for (&k, &p) in r.idx.get(inner.clone()).unwrap_or(&[]).iter().zip(points.get(inner).unwrap_or(&[])) {
        let k = k as usize;
        ps.vel[k] = (p - ps.step_start[k]) * inv_dt;
        ps.pos[k] = p;
        ps.prev[k] = p;
    }
    sc.points = points;
    // Segments before the first contact's rope length carry the start side's tension.
    let total = r.rest_length();
    let t = &mut r.taut;
    let boundary = if t.wraps.is_empty() { total } else { t.split };
    let mut s = RealOf::<S>::ZERO;
    for (j, l) in r.lambda.iter_mut().enumerate() {
        let mid = s + r.rest[j] * RealOf::<S>::HALF;
        s += r.rest[j];
        *l = -(if mid <= boundary { t.lambda[0] } else { t.lambda[1] });
    }
    t.lambda = [RealOf::<S>::ZERO; 2];
    t.pivots = None;
    t.carry = None;
}

/// Before a step (so that what changed between steps — masses, grabs, the mode — counts
/// at once, and a rope laid out straight goes taut before its first step can stretch
/// it): the switch between slack and taut (see "Switching" in the module docs
/// of [`super`]) for every rope whose mode is not `Never` (or that is taut and now is).
pub(crate) fn switch<S: Space>(
    ropes: &mut Arena<Rope<S>>,
    ps: &mut ParticleSet<S>,
    colliders: &Arena<Collider<S>>,
    sc: &mut TautScratch<VecOf<S>, RealOf<S>>,
) {
    let zero = RealOf::<S>::ZERO;
    // Between steps colliders may have moved: measured afresh below and in the step.
    sc.forget_colliders();
    for r in ropes.values_mut() {
        sc.w3.claim(owner(r));
        let n = r.idx.len();
        if r.taut.mode == TautMode::Never || n < 2 {
            r.taut.leave();
            continue;
        }
        let interior_free = r.idx[1..n - 1].iter().all(|&k| free(ps, k));
        let length = r.rest_length();
        if r.taut.active {
            let short = length * (RealOf::<S>::ONE - RealOf::<S>::from_ratio(1, LEAVE));
            let ends = (ps.pos[r.idx[0] as usize], ps.pos[r.idx[n - 1] as usize]);
            let ell = path_of(ends, &mut r.taut.wraps, r.radius, colliders, sc);
            if !interior_free || (r.taut.mode == TautMode::Auto && ell < short) {
                r.taut.leave();
            }
            continue;
        }
        if !interior_free {
            continue;
        }
        let auto = r.taut.mode == TautMode::Auto;
        if auto {
            // Light interior next to the free ends (or no free end at all).
            let (a, b) = (r.idx[0], r.idx[n - 1]);
            let ends: RealOf<S> =
                [a, b].iter().filter(|&&k| free(ps, k)).map(|&k| ps.mass[k as usize]).fold(zero, |s, m| s + m);
            let inner: RealOf<S> = r.idx[1..n - 1].iter().map(|&k| ps.mass[k as usize]).fold(zero, |s, m| s + m);
            let any_free_end = free(ps, a) || free(ps, b);
            if any_free_end && inner * RealOf::<S>::from_i32(10) > ends {
                continue;
            }
        }
        // The string-pulled path through the particles.
        let mut points = core::mem::take(&mut sc.points);
        points.clear();
        points.extend(r.idx.iter().map(|&k| ps.pos[k as usize]));
        let (mut lo, mut hi) = (points[0], points[0]);
        for &p in &points {
            lo = lo.min_elem(p);
            hi = hi.max_elem(p);
        }
        let pad = VecOf::<S>::splat(r.radius * RealOf::<S>::TWO);
        // A particle rope rests on its obstacles at their features' radius (within the
        // solver's tolerance): pulled against slightly smaller features, its string is
        // sure to catch on what it lies round.
        let margin = RealOf::<S>::from_ratio(1, 1000);
        let bounds = Aabb { min: lo - pad, max: hi + pad };
        let mut wraps = core::mem::take(&mut r.taut.wraps);
        if S::DIM == 2 {
            gather(colliders, r.radius, Some(&bounds), sc);
            for f in &mut sc.features {
                f.radius = (f.radius - margin.min(f.radius * RealOf::<S>::HALF)).max(RealOf::<S>::ZERO);
            }
            let work = ((&mut sc.nodes, &mut sc.path), (&mut sc.removed, &mut sc.groups));
            string_pull(r.radius, &points, &sc.features, &mut wraps, work.0, work.1);
        } else {
            // Edges moved out a little less than the rope's radius, balls a little smaller.
            let shrink = margin.min(r.radius * RealOf::<S>::HALF);
            gather(colliders, r.radius - shrink, Some(&bounds), sc);
            string_pull3(&points, &sc.features3, colliders, r.radius, &mut wraps, &mut sc.w3, &mut sc.removed);
        }
        // The path round the true features (the pull used slightly smaller ones).
        let (first, last) = (points[0], points[n - 1]);
        path_of((first, last), &mut wraps, r.radius, colliders, sc);
        polyline_of::<S>(sc);
        let ell = sc.path_for::<S>().length;
        let enter = length * (RealOf::<S>::ONE - RealOf::<S>::from_ratio(1, ENTER));
        let mut laid = core::mem::take(&mut sc.laid);
        lay_out(r, &sc.poly, &mut sc.seg_lengths, &mut laid);
        let mut snap = RealOf::<S>::from_ratio(MAX_SNAP.0, MAX_SNAP.1);
        if S::DIM != 2 && !wraps.is_empty() {
            // A particle rope round a 3D edge lies on the edge rounded by its radius, the
            // taut path on the sharp edge moved out by it: up to 0.3 r apart (`taut/solid.rs`).
            // Only where the path has a contact: in the open the 1 mm of 2D holds.
            snap += r.radius * RealOf::<S>::from_ratio(3, 10);
        }
        let close = points.iter().zip(&laid).all(|(&p, &q)| (p - q).length_squared() <= snap * snap);
        sc.points = points;
        if auto && !(ell >= enter && close) {
            r.taut.wraps = wraps;
            r.taut.wraps.clear();
            sc.laid = laid;
            continue;
        }
        // Taut from here: the interior on the path (velocities kept), the slack shared.
        let t = &mut r.taut;
        t.split = if wraps.is_empty() {
            zero
        } else {
            (sc.path_for::<S>().lengths[0] - (ell - length) * RealOf::<S>::HALF).max(zero)
        };
        t.wraps = wraps;
        t.active = true;
        t.lambda = [zero; 2];
        for (&k, &p) in r.idx[1..n - 1].iter().zip(&laid[1..n - 1]) {
            ps.pos[k as usize] = p;
        }
        sc.laid = laid;
        r.sleep.wake();
        r.taut.pivots = None;
        // A path longer than the rope (a particle rope stretched by its load's pull) is
        // brought to length by moving its free ends, not by the next substep's solve,
        // which would turn the correction into speed. Velocities stay as they are.
        for _ in 0..4 {
            solve(r, ps, colliders, RealOf::<S>::ZERO, sc, false);
        }
        r.taut.lambda = [zero; 2];
    }
}

/// The rope's path for output and drawing: the polyline round its contacts when taut,
/// its particles when slack.
pub(crate) fn path_points<S: Space>(r: &Rope<S>, ps: &ParticleSet<S>, colliders: &Arena<Collider<S>>) -> Vec<VecOf<S>> {
    if !r.taut.active {
        return r.idx.iter().map(|&k| ps.pos[k as usize]).collect();
    }
    let mut sc = TautScratch::default();
    let mut wraps = r.taut.wraps.clone();
    let ends = (ps.pos[r.idx[0] as usize], ps.pos[r.idx[r.idx.len() - 1] as usize]);
    path_of(ends, &mut wraps, r.radius, colliders, &mut sc);
    polyline_of::<S>(&mut sc);
    sc.poly
}

#[cfg(test)]
mod tests {
    use super::slip;

    #[test]
    fn without_friction_the_slip_equalises_the_sides_tensions() {
        // Atwood: 1 kg and 3 kg, both sides violated alike.
        let (w, c) = ([1.0f64, 1.0 / 3.0], [0.01f64, 0.01]);
        let d = slip(c, w, 1.0);
        let (c0, c1) = (c[0] + d, c[1] - d);
        assert!((c0 / w[0] - c1 / w[1]).abs() < 1e-15, "{c0} {c1}");
        assert!(d > 0.0, "rope slides to the heavy end's side");
    }

    #[test]
    fn friction_holds_up_to_the_capstan_ratio_and_no_further() {
        let k = 2.0f64;
        let w = [1.0, 1.0];
        assert_eq!(slip([0.01, 0.019], w, k), 0.0, "1.9 < 2: held");
        let d = slip([0.01, 0.021], w, k);
        assert!(d > 0.0);
        assert!(((0.021 - d) - k * (0.01 + d)).abs() < 1e-15, "slips to the ratio exactly");
    }

    #[test]
    fn a_slack_side_gives_its_slack_and_a_pinned_end_holds_anything() {
        assert_eq!(slip([-0.05, 0.01], [1.0, 1.0], 100.0), 0.01, "no tension to hold with");
        assert_eq!(slip([0.0, 0.5], [0.0, 1.0], 1.0), 0.0, "pinned start side");
        assert_eq!(slip([0.2, 0.0], [0.0, 1.0], 1.0), -0.2, "the anchored side pulled taut");
    }
}
