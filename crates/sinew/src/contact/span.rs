//! Rope span contacts: each segment of a rope collides as a capsule of the rope's radius,
//! tested swept, so a rope cannot slip through a post thinner than its particle spacing or
//! cut a box corner between two particles (the geometry is in [`crate::rope::edge`]).
//!
//! Spans get the particles' treatment (see "Contact planes" and "Contact anchors" in the
//! module docs of [`crate::contact`]): their candidates are the union of their two ends'
//! gathered colliders, their contacts are found once per step while both ends stay near
//! their anchors, and a span whose two ends kept their anchors and pairs keeps last step's
//! items.

use super::anchors::ContactAnchors;
use super::{ContactParams, ContactScratch};
use crate::arena::Arena;
use crate::collider::{Aabb, BroadPhase, Collider};
use crate::math::{Real, Rotation, Vector};
use crate::particle::ParticleSet;
use crate::rope::Rope;
use crate::rope::edge::{LocalPlane, SpanStep, contact_reach, span_step_contact, swept_segment_contact};
use crate::space::{RealOf, Space, VecOf};

/// Per-step span candidates, this step's and last step's (see [`EdgeLists`]).
#[derive(Clone, Debug, Default)]
pub(crate) struct EdgeScratch<S: Space> {
    now: EdgeLists<S>,
    last: EdgeLists<S>,
    /// Per particle slot: the segment it starts in `last` (`u32::MAX`: none).
    seg_of: Vec<u32>,
    /// The gather epoch and broad-phase generation `last` was built in.
    built: (u32, u64),
    /// One span's candidates while it is gathered (kept for its capacity).
    cands: Vec<u32>,
    /// Per particle slot, in a substep where some left their gathered region: whether it
    /// did (kept for its capacity).
    left: Vec<bool>,
    /// [`Spans::requery_spans`]'s lists (kept for their capacity).
    requery: RequeryBufs,
}

/// [`Spans::requery_spans`]'s working lists.
#[derive(Clone, Debug, Default)]
struct RequeryBufs {
    spans: Vec<(u32, u32, u32)>,
    seg: Vec<u32>,
    found: Vec<u32>,
    cands: Vec<u32>,
}

/// One step's span candidates: segments `(a, b, rope slot)` with their collider lists
/// (CSR).
#[derive(Clone, Debug, Default)]
struct EdgeLists<S: Space> {
    segs: Vec<(u32, u32, u32)>,
    start: Vec<u32>,
    items: Vec<u32>,
    /// Per item: the squared clearance between the span between its ends' contact anchors
    /// and the collider (0 for a moving collider). Every point of a span lies within half
    /// its length of an end, so the span's distance to a shape is at least
    /// `min(d_a, d_b) − |ab|/2`; and while neither end moves farther than the clearance
    /// from its anchor, no point of the span does, so the test is skipped.
    clear2: Vec<RealOf<S>>,
    /// Per segment: how far (squared) both ends may move from their contact anchors with
    /// `planes` in force (0: never).
    reuse2: Vec<RealOf<S>>,
    /// Per item: the span's contact for the step (world frame), see `span_step_contact`.
    planes: Vec<ItemPlane<S>>,
    /// Per segment: whether all its items have a step plane or are clear for the step
    /// (none is tested every substep). While such a segment's ends stay within
    /// `reuse2`, a substep copies its ready plane contacts whose clearance it reached —
    /// what the per-item loop would push, in the same order — without visiting its items.
    planar: Vec<bool>,
    /// Per segment (CSR, one more entry than segments): its ready plane contacts in
    /// `plane_contacts`, with their items' clearances (none for a segment not `planar`).
    plane_at: Vec<u32>,
    plane_contacts: Vec<(RealOf<S>, EdgeContact<S>)>,
}

impl<S: Space> EdgeLists<S> {
    fn clear(&mut self) {
        self.segs.clear();
        self.start.clear();
        self.items.clear();
        self.clear2.clear();
        self.reuse2.clear();
        self.planes.clear();
        self.planar.clear();
        self.plane_at.clear();
        self.plane_contacts.clear();
    }

    /// Appends segment `i` of `from` (whose `start` and `plane_at` are closed).
    fn copy_segment(&mut self, from: &Self, i: usize) {
        self.segs.push(from.segs[i]);
        self.start.push(self.items.len() as u32);
        let items = from.start[i] as usize..from.start[i + 1] as usize;
        self.items.extend_from_slice(&from.items[items.clone()]);
        self.clear2.extend_from_slice(&from.clear2[items.clone()]);
        self.planes.extend_from_slice(&from.planes[items]);
        self.reuse2.push(from.reuse2[i]);
        self.planar.push(from.planar[i]);
        self.plane_at.push(self.plane_contacts.len() as u32);
        let planes = from.plane_at[i] as usize..from.plane_at[i + 1] as usize;
        self.plane_contacts.extend_from_slice(&from.plane_contacts[planes]);
    }
}

/// A span–collider item's contact for the step, in the world frame.
type ItemPlane<S> = SpanStep<WorldPlane<S>>;

/// A span's step plane in the world frame: keep `n·p(t) ≥ d`, with friction coefficient
/// `mu`.
#[derive(Clone, Copy, Debug)]
struct WorldPlane<S: Space> {
    t: RealOf<S>,
    normal: VecOf<S>,
    d: RealOf<S>,
    mu: RealOf<S>,
}

/// A span contact for one substep: keep `n·((1−t)·x_a + t·x_b) ≥ d`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct EdgeContact<S: Space> {
    pub a: u32,
    pub b: u32,
    pub t: RealOf<S>,
    pub normal: VecOf<S>,
    pub d: RealOf<S>,
    pub dn: RealOf<S>,
    pub mu: RealOf<S>,
}

/// What the span contacts read and write.
pub(crate) struct Spans<'a, S: Space> {
    pub params: &'a ContactParams<RealOf<S>>,
    pub particles: &'a ParticleSet<S>,
    pub anchors: &'a ContactAnchors<S>,
    pub colliders: &'a Arena<Collider<S>>,
    pub broad_phase: &'a mut BroadPhase<VecOf<S>>,
    pub ropes: &'a Arena<Rope<S>>,
    /// The particles' gathering and this substep's reaches.
    pub contact: &'a ContactScratch<S>,
    pub edge: &'a mut EdgeScratch<S>,
    pub edge_contacts: &'a mut Vec<EdgeContact<S>>,
}

impl<S: Space> Spans<'_, S> {
    /// Once per step: the segments that can collide and, for each, the colliders gathered
    /// for its two particles (deduplicated), as indices into the broad phase's list.
    #[inline(never)] // a stage of the step (see the note in `World::step_with`)
    pub(crate) fn gather(&mut self) {
        let mut scratch = core::mem::take(&mut *self.edge);
        core::mem::swap(&mut scratch.now, &mut scratch.last);
        let EdgeScratch { now: es, last, seg_of, built, cands, .. } = &mut scratch;
        es.clear();
        // Last step's lists are this step's for a span whose two ends kept their contact
        // anchors with their pairs and candidate lists (see "Contact anchors" in the
        // module docs): the same anchors, candidates and reuse distances give the
        // same items. Not for an end whose anchor has nothing in its region: kept, it
        // lists no candidates, while the step that took the anchor listed its own. Valid
        // if built by the previous gather from the same broad phase.
        let (epoch, generation) = (self.contact.fat.epoch, self.broad_phase.generation);
        let last_valid = built.0 != 0 && built.0.wrapping_add(1) == epoch && built.1 == generation;
        *built = (epoch, generation);
        if !last_valid {
            last.clear();
        }
        if !self.ropes.is_empty() && !self.colliders.is_empty() {
            seg_of.clear();
            seg_of.resize(self.particles.pos.len(), u32::MAX);
            for (i, &(a, _, _)) in last.segs.iter().enumerate() {
                seg_of[a as usize] = i as u32;
            }
            let any_moving = self.colliders.values().any(|c| c.is_moving());
            for (h, r) in self.ropes.iter() {
                if r.sleep.sleeping || !r.edge_collisions || r.taut.active {
                    continue;
                }
                for w in r.idx.windows(2) {
                    let (a, b) = (w[0] as usize, w[1] as usize);
                    let ps = &self.particles;
                    if ps.inv_mass[a] == RealOf::<S>::ZERO && ps.inv_mass[b] == RealOf::<S>::ZERO {
                        continue;
                    }
                    if last_valid && self.anchor_kept_with_pairs(a) && self.anchor_kept_with_pairs(b) {
                        // Both ends kept their anchors and their candidate lists: last step's
                        // items, if this span was gathered then (a rope cut or torn since
                        // has new ropes for its pieces: gathered afresh).
                        // Not if it lists a moving collider: that one has left the ends'
                        // query boxes since (one still near ended their anchors), and a
                        // fresh gathering no longer lists it.
                        let i = seg_of[a] as usize;
                        if i != u32::MAX as usize && last.segs[i] == (w[0], w[1], h.index) {
                            let items = &last.items[last.start[i] as usize..last.start[i + 1] as usize];
                            let moving = |bi: &u32| {
                                let slot = self.broad_phase.bounded[*bi as usize].0;
                                self.colliders.values[slot as usize].as_ref().is_some_and(|c| c.is_moving())
                            };
                            if !any_moving || !items.iter().any(moving) {
                                es.copy_segment(last, i);
                                continue;
                            }
                        }
                    }
                    cands.clear();
                    self.bounded_candidates_of(a, cands);
                    self.bounded_candidates_of(b, cands);
                    if cands.is_empty() {
                        continue;
                    }
                    cands.sort_unstable();
                    cands.dedup();
                    es.segs.push((w[0], w[1], h.index));
                    es.start.push(es.items.len() as u32);
                    es.items.extend_from_slice(cands);
                    // The span between its ends' contact anchors, which their reaches are
                    // measured from (see "Contact anchors" in the world's module docs).
                    let (xa, xb) = (self.anchors.pos[a], self.anchors.pos[b]);
                    let half = (xb - xa).length() * RealOf::<S>::HALF;
                    // Both ends near their anchors for the whole step (predicted): the span's
                    // contacts are found once, for the step.
                    let reuse2 = self.plane_reuse2(a).min(self.plane_reuse2(b));
                    let reuse = if reuse2 > RealOf::<S>::ZERO { reuse2.sqrt() } else { RealOf::<S>::ZERO };
                    es.reuse2.push(reuse2);
                    for &bi in cands.iter() {
                        let slot = self.broad_phase.bounded[bi as usize].0;
                        let (clear, plane) = match self.colliders.values[slot as usize].as_ref() {
                            Some(col) if !col.is_moving() => {
                                let local = |x: VecOf<S>| col.rotation.inverse_rotate(x - col.position);
                                let (la, lb) = (local(xa), local(xb));
                                let ends = (col.shape.closest(la), col.shape.closest(lb));
                                let d = ends.0.distance.min(ends.1.distance);
                                // Against the reach at which the span test gives a contact
                                // (speculative beyond the radius for balls and capsules).
                                let reach = contact_reach(&col.shape, col.half_thickness, r.radius);
                                let clear = (d - half - reach - RealOf::<S>::GEOMETRIC_EPSILON).max(RealOf::<S>::ZERO);
                                let plane = if reuse2 == RealOf::<S>::ZERO {
                                    ItemPlane::Test
                                } else if reuse < clear || !ps.groups[a].test(col.groups) {
                                    ItemPlane::Clear
                                } else {
                                    span_step_contact(&col.shape, col.half_thickness, la, lb, ends, r.radius, reuse)
                                        .map(|LocalPlane { t, normal, target }| {
                                            let n = col.rotation.rotate(normal);
                                            let q = col.position + col.rotation.rotate(target);
                                            let mu = crate::collider::mix_friction(
                                                r.friction,
                                                col.friction,
                                                self.params.friction,
                                            );
                                            WorldPlane { t, normal: n, d: n.dot(q), mu }
                                        })
                                };
                                (clear, plane)
                            }
                            _ => (RealOf::<S>::ZERO, ItemPlane::Test),
                        };
                        es.clear2.push(clear * clear);
                        es.planes.push(plane);
                    }
                    // The segment's ready plane contacts (see `EdgeLists::plane_at`).
                    let lo = *es.start.last().unwrap_or(&0) as usize;
                    let planar =
                        reuse2 > RealOf::<S>::ZERO && es.planes[lo..].iter().all(|p| !matches!(p, ItemPlane::Test));
                    es.planar.push(planar);
                    es.plane_at.push(es.plane_contacts.len() as u32);
                    if planar {
                        for (p, &clear2) in es.planes[lo..].iter().zip(&es.clear2[lo..]) {
                            if let ItemPlane::Plane(WorldPlane { t, normal, d, mu }) = *p {
                                let (a, b) = (w[0], w[1]);
                                let c = EdgeContact { a, b, t, normal, d, dn: RealOf::<S>::ZERO, mu };
                                es.plane_contacts.push((clear2, c));
                            }
                        }
                    }
                }
            }
        }
        es.start.push(es.items.len() as u32);
        es.plane_at.push(es.plane_contacts.len() as u32);
        *self.edge = scratch;
    }

    /// Span contacts for one substep, from the candidates gathered for the step.
    ///
    /// The test is swept (see [`swept_segment_contact`]): each span moves from its
    /// positions at the start of the substep (`prev`) to its current ones, and a span fast
    /// enough to have crossed a collider gets its contact from the side it came from.
    /// The clearance skip stays exact for the swept test: every intermediate position of
    /// an end lies on its substep path, no farther from its contact anchor than the
    /// farther of the path's two ends, which is what `reach2` measures.
    #[inline(never)] // a stage of the step (see the note in `World::step_with`)
    pub(crate) fn detect(&mut self, f1: RealOf<S>) {
        let mut out = core::mem::take(&mut *self.edge_contacts);
        out.clear();
        let mut left = core::mem::take(&mut self.edge.left);
        left.clear();
        let es = &self.edge.now;
        let ps = &self.particles;
        // The substep's start as a fraction of the step (for moving colliders).
        let f0 = (f1 - RealOf::<S>::ONE / RealOf::<S>::from_i32(self.params.substeps as i32)).max(RealOf::<S>::ZERO);
        let moved = &self.contact.reach2[..];
        // The lists as local slices: their pointers and lengths then stay in registers
        // across the calls below (they live behind this context's references, which the
        // calls could otherwise be assumed to change).
        let (segs, reuse2, planar, plane_at, plane_contacts) =
            (&es.segs[..], &es.reuse2[..], &es.planar[..], &es.plane_at[..], &es.plane_contacts[..]);
        let (start, items, clear2s, planes) = (&es.start[..], &es.items[..], &es.clear2[..], &es.planes[..]);
        let ropes = &self.ropes.values[..];
        if moved.len() < ps.pos.len() {
            *self.edge_contacts = out;
            self.edge.left = left;
            return; // no colliders: contact detection left no reaches
        }
        // Particles that left the region their candidates were gathered for this substep
        // (a hard yank): their spans are queried afresh below, like the particles.
        if !self.contact.left.is_empty() {
            left.resize(ps.pos.len(), false);
            for &k in &self.contact.left {
                left[k as usize] = true;
            }
        }
        let gone = |k: usize| !left.is_empty() && left[k];
        for (i, &(a, b, rope_slot)) in segs.iter().enumerate() {
            let (a, b) = (a as usize, b as usize);
            if gone(a) || gone(b) {
                continue;
            }
            // How far either end has been from its contact anchor (this substep's start and
            // end).
            let reach2 = {
                let (ra, rb) = (moved[a], moved[b]);
                if ra > rb { ra } else { rb }
            };
            let reuse = reach2 <= reuse2[i];
            if reuse && planar[i] {
                // Every item has its step plane or is clear: the ready contacts.
                let (p0, p1) = (plane_at[i] as usize, plane_at[i + 1] as usize);
                for &(clear2, c) in &plane_contacts[p0..p1] {
                    if reach2 >= clear2 {
                        out.push(c);
                    }
                }
                continue;
            }
            let Some(r) = ropes[rope_slot as usize].as_ref() else { continue };
            let (lo, hi) = (start[i] as usize, start[i + 1] as usize);
            for ((&bi, &clear2), plane) in items[lo..hi].iter().zip(&clear2s[lo..hi]).zip(&planes[lo..hi]) {
                if reach2 < clear2 {
                    continue;
                }
                if reuse {
                    match *plane {
                        ItemPlane::Test => {}
                        ItemPlane::Clear => continue,
                        ItemPlane::Plane(WorldPlane { t, normal, d, mu }) => {
                            let (a, b) = (a as u32, b as u32);
                            out.push(EdgeContact { a, b, t, normal, d, dn: RealOf::<S>::ZERO, mu });
                            continue;
                        }
                    }
                }
                self.test_span(a, b, r, bi, (f0, f1), &mut out);
            }
        }
        if !left.is_empty() {
            self.requery_spans(&left, (f0, f1), &mut out);
        }
        *self.edge_contacts = out;
        self.edge.left = left;
    }

    /// The swept test of span `a–b` of rope `r` against the broad phase's bounded entry
    /// `bi` over the substep `(f0, f1)`; its contacts go to `out`.
    fn test_span(
        &self,
        a: usize,
        b: usize,
        r: &Rope<S>,
        bi: u32,
        (f0, f1): (RealOf<S>, RealOf<S>),
        out: &mut Vec<EdgeContact<S>>,
    ) {
        let ps = &self.particles;
        let (xa, xb) = (ps.pos[a], ps.pos[b]);
        let (xa0, xb0) = (ps.prev[a], ps.prev[b]);
        let (slot, bb) = self.broad_phase.bounded[bi as usize];
        let Some(col) = self.colliders.values[slot as usize].as_ref() else { return };
        let seg_box = self.span_swept_box(a, b, r.radius);
        // The swept box grown to the reach at which the span test gives a contact.
        let pad = VecOf::<S>::splat(contact_reach(&col.shape, col.half_thickness, r.radius) - r.radius);
        if !bb.overlaps::<RealOf<S>>(&crate::Aabb { min: seg_box.min - pad, max: seg_box.max + pad }) {
            return;
        }
        if !ps.groups[a].test(col.groups) {
            return;
        }
        let (p1, r1) = col.pose_at(f1);
        let la = r1.inverse_rotate(xa - p1);
        let lb = r1.inverse_rotate(xb - p1);
        let (la0, lb0) = if col.is_moving() {
            let (p0, r0) = col.pose_at(f0);
            (r0.inverse_rotate(xa0 - p0), r0.inverse_rotate(xb0 - p0))
        } else {
            (r1.inverse_rotate(xa0 - p1), r1.inverse_rotate(xb0 - p1))
        };
        let swept = swept_segment_contact(&col.shape, col.half_thickness, (la0, lb0), (la, lb), r.radius);
        let Some(hit) = swept else { return };
        let n = r1.rotate(hit.normal);
        let q = p1 + r1.rotate(hit.target);
        let mu = crate::collider::mix_friction(r.friction, col.friction, self.params.friction);
        let contact =
            |t| EdgeContact { a: a as u32, b: b as u32, t, normal: n, d: n.dot(q), dn: RealOf::<S>::ZERO, mu };
        if hit.crossed {
            // Both ends back to the plane: the span returns whole.
            out.push(contact(RealOf::<S>::ZERO));
            out.push(contact(RealOf::<S>::ONE));
        } else {
            out.push(contact(hit.t));
        }
    }

    /// The box span `a–b` (of rope radius `radius`) swept this substep: its ends at the
    /// substep's start and end, grown by the radius.
    fn span_swept_box(&self, a: usize, b: usize, radius: RealOf<S>) -> crate::Aabb<VecOf<S>> {
        let ps = &self.particles;
        let (xa, xb, xa0, xb0) = (ps.pos[a], ps.pos[b], ps.prev[a], ps.prev[b]);
        let rv = VecOf::<S>::splat(radius);
        crate::Aabb {
            min: xa.min_elem(xb).min_elem(xa0.min_elem(xb0)) - rv,
            max: xa.max_elem(xb).max_elem(xa0.max_elem(xb0)) + rv,
        }
    }

    /// The spans with an end that left its gathered region this substep (`left`, per
    /// particle slot), tested against the colliders whose boxes overlap the box they swept
    /// (grown by the rope's radius: every collider they touched or crossed) and against
    /// their gathered items (which alone give the speculative contacts of balls and
    /// capsules farther out): the span counterpart of the particles' re-query. Without it
    /// a rope yanked up past a post thinner than its particle spacing passed through it —
    /// the two particles on either side re-queried and clear of the post, the span between
    /// them tested only against the candidates gathered where the step began.
    fn requery_spans(&mut self, left: &[bool], (f0, f1): (RealOf<S>, RealOf<S>), out: &mut Vec<EdgeContact<S>>) {
        let ps = &self.particles;
        let mut bufs = core::mem::take(&mut self.edge.requery);
        let RequeryBufs { spans, seg, found, cands } = &mut bufs;
        spans.clear();
        seg.clear();
        for (h, r) in self.ropes.iter() {
            if r.sleep.sleeping || !r.edge_collisions || r.taut.active {
                continue;
            }
            for w in r.idx.windows(2) {
                let (a, b) = (w[0] as usize, w[1] as usize);
                let both_pinned = ps.inv_mass[a] == RealOf::<S>::ZERO && ps.inv_mass[b] == RealOf::<S>::ZERO;
                if (left[a] || left[b]) && !both_pinned {
                    spans.push((w[0], w[1], h.index));
                }
            }
        }
        // Where each gathered span sits in this step's lists.
        if !spans.is_empty() {
            seg.resize(self.particles.pos.len(), u32::MAX);
            for (i, &(a, _, _)) in self.edge.now.segs.iter().enumerate() {
                seg[a as usize] = i as u32;
            }
        }
        for &(a, b, rope_slot) in spans.iter() {
            let Some(radius) = self.ropes.values[rope_slot as usize].as_ref().map(|r| r.radius) else { continue };
            let q = self.span_swept_box(a as usize, b as usize, radius);
            self.broad_phase.query::<RealOf<S>>(&q, found);
            cands.clear();
            cands.extend_from_slice(found);
            // The span's gathered items too (all of them: with an end gone, no plane).
            let es = &self.edge.now;
            let i = seg[a as usize] as usize;
            if i != u32::MAX as usize && es.segs[i] == (a, b, rope_slot) {
                cands.extend_from_slice(&es.items[es.start[i] as usize..es.start[i + 1] as usize]);
            }
            cands.sort_unstable();
            cands.dedup();
            let Some(r) = self.ropes.values[rope_slot as usize].as_ref() else { continue };
            for &bi in cands.iter() {
                self.test_span(a as usize, b as usize, r, bi, (f0, f1), out);
            }
        }
        self.edge.requery = bufs;
    }

    /// Whether particle slot `k` kept its contact anchor and, with it, its pairs and
    /// candidate list (an anchor with something in its region) in this step's gathering.
    #[inline]
    fn anchor_kept_with_pairs(&self, k: usize) -> bool {
        self.contact.kept.get(k) == Some(&self.contact.fat.epoch) && !self.anchors.is_lonely(k)
    }

    /// How far particle slot `k` may move from its contact anchor with its contact
    /// planes reused (see "Contact planes" in the module docs), squared; 0: none.
    #[inline]
    fn plane_reuse2(&self, k: usize) -> RealOf<S> {
        self.contact.plane2.get(k).copied().unwrap_or(RealOf::<S>::ZERO)
    }

    /// Appends the broad-phase entries (indices into its bounded list) gathered this step
    /// for particle slot `k`: the cached entries that overlap its query box, which is
    /// exactly what a broad-phase query with that box returns.
    #[inline]
    fn bounded_candidates_of(&self, k: usize, out: &mut Vec<u32>) {
        let Some(e) = self.contact.fat.current(k) else { return };
        // The query box of the gathering, around the particle's contact anchor.
        let (x, mv) = (self.anchors.pos[k], VecOf::<S>::splat(e.reach));
        let q = Aabb { min: x - mv, max: x + mv };
        let bounded = &self.broad_phase.bounded;
        out.extend(self.contact.fat.listed(k).iter().copied().filter(|&b| bounded[b as usize].1.overlaps(&q)));
    }
}

/// Projects span contacts, with Coulomb friction on the contact point's motion.
#[inline(never)] // a stage of the step (see the note in `World::step_with`)
pub(crate) fn solve_edge_contacts<S: Space>(ps: &mut ParticleSet<S>, contacts: &mut [EdgeContact<S>]) {
    let zero = RealOf::<S>::ZERO;
    let one = RealOf::<S>::ONE;
    for c in contacts {
        let (a, b) = (c.a as usize, c.b as usize);
        let (wa, wb) = (ps.inv_mass[a], ps.inv_mass[b]);
        let (ga, gb) = (one - c.t, c.t);
        let w = ga * ga * wa + gb * gb * wb;
        if w == zero {
            continue;
        }
        let p = ps.pos[a] * ga + ps.pos[b] * gb;
        let cval = c.normal.dot(p) - c.d;
        if cval >= zero {
            continue;
        }
        let dl = -cval / w;
        ps.pos[a] += c.normal * (wa * ga * dl);
        ps.pos[b] += c.normal * (wb * gb * dl);
        c.dn += -cval;
        if c.mu > zero {
            // Motion of the contact point this substep, tangential part.
            let p_now = ps.pos[a] * ga + ps.pos[b] * gb;
            let p_prev = ps.prev[a] * ga + ps.prev[b] * gb;
            let disp = p_now - p_prev;
            let tang = disp - c.normal * c.normal.dot(disp);
            let (tn, tl) = tang.normalize_and_length();
            if tl > zero {
                // Stick inside the cone, else slide with the kinetic share.
                let cancel = if tl < c.mu * c.dn { tl } else { c.mu * c.dn };
                let dl_t = cancel / w;
                ps.pos[a] -= tn * (wa * ga * dl_t);
                ps.pos[b] -= tn * (wb * gb * dl_t);
            }
        }
    }
}
