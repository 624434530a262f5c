//! The world's rope API and the rope parts of the step.

use super::chain::{ChainRef, solve_chain};
use super::edge::{LocalPlane, SpanStep, contact_reach, span_step_contact, swept_segment_contact};
use super::{Rope, RopeDef, RopeHandle, RopePoint};
use crate::SinewError;
use crate::constraint::{Bending, SubstepContext};
use crate::math::{Real, Rotation, Vector};
use crate::particle::{ALIVE, KINEMATIC, ParticleDef, ParticleHandle};
use crate::space::{RealOf, Space, VecOf};
use crate::world::World;

/// Per-step span candidates, this step's and last step's (see [`EdgeLists`]).
#[derive(Clone, Debug, Default)]
pub(crate) struct EdgeScratch<S: Space> {
    now: EdgeLists<S>,
    last: EdgeLists<S>,
    /// Per particle slot: the segment it starts in `last` (`u32::MAX`: none).
    seg_of: Vec<u32>,
    /// The gather epoch and broad-phase generation `last` was built in.
    built: (u32, u64),
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

/// Speed below which a rope counts as at rest (m/s), and how long it must stay there
/// before sleeping (steps).
const SLEEP_SPEED_RATIO: (i32, i32) = (1, 100);
const SLEEP_AFTER_STEPS: u32 = 60;
/// Most Newton steps of the chain solve per substep and iteration. Ropes in ordinary
/// motion take one; a rope pulled nearly straight at speed needs many (the linearisation
/// of a nearly straight chain is poor), and stopping Newton half-way can leave it worse
/// than one step would: on a 40-link rope whose ends are pulled apart at 5 m/s to 99 %
/// of its length, a cap of 4 leaves 3.5–7.5 % stretch, 8 leaves 14–29 %, 32 leaves
/// 0.09 % (f32, f64, fixed). The cap only costs where it is needed: the 14 m and
/// 100-rope benchmark scenes average 1.0–1.2 steps per substep either way.
const MAX_NEWTON_STEPS: u32 = 32;

impl<S: Space> World<S> {
    /// Adds a rope: particles along `def.points`, the chain, optional bending and tethers.
    pub fn add_rope(&mut self, def: &RopeDef<S>) -> Result<RopeHandle, SinewError> {
        let pts = def.layout()?;
        let n = pts.len() - 1;
        let mut rest = Vec::with_capacity(n);
        let mut total = RealOf::<S>::ZERO;
        for w in pts.windows(2) {
            let l = (w[1] - w[0]).length();
            rest.push(l);
            total += l;
        }
        let density = def.mass / total;
        let mut particles = Vec::with_capacity(n + 1);
        for (i, &p) in pts.iter().enumerate() {
            // Each particle carries half of each adjacent segment.
            let left = if i > 0 { rest[i - 1] } else { RealOf::<S>::ZERO };
            let right = if i < n { rest[i] } else { RealOf::<S>::ZERO };
            let mut pd = ParticleDef::<S>::at(p);
            pd.mass = density * (left + right) * RealOf::<S>::HALF;
            pd.radius = def.radius;
            pd.gravity_scale = def.gravity_scale;
            pd.friction = def.friction;
            pd.pinned = (i == 0 && def.pin_start) || (i == n && def.pin_end);
            particles.push(self.add_particle(&pd)?);
        }
        let idx = particles.iter().map(|h| h.index() as u32).collect();
        let bend_rest: Vec<RealOf<S>> =
            pts.windows(3).map(|w| Bending::<RealOf<S>>::measure(w[0], w[1], w[2])).collect();
        let rope = Rope {
            particles,
            idx,
            lambda: vec![RealOf::<S>::ZERO; n],
            bend_lambda: vec![RealOf::<S>::ZERO; bend_rest.len()],
            bend_rest,
            rest,
            segment_length: total / RealOf::<S>::from_i32(n as i32),
            density,
            compliance: def.compliance,
            bend_compliance: def.bend_compliance,
            tethers: def.tethers,
            radius: def.radius,
            friction: def.friction,
            tear_tension: def.tear_tension,
            edge_collisions: def.edge_collisions,
            wind: VecOf::<S>::ZERO,
            drag: RealOf::<S>::ZERO,
            sleeping: false,
            calm_steps: 0,
        };
        Ok(RopeHandle(self.ropes.insert(rope)))
    }

    /// A rope.
    #[must_use]
    pub fn rope(&self, h: RopeHandle) -> Option<&Rope<S>> {
        self.ropes.get(h.0)
    }

    /// Ropes in slot order (torn pieces included).
    pub fn ropes(&self) -> impl Iterator<Item = (RopeHandle, &Rope<S>)> {
        self.ropes.iter().map(|(h, r)| (RopeHandle(h), r))
    }

    pub(crate) fn rope_mut(&mut self, h: RopeHandle) -> Result<&mut Rope<S>, SinewError> {
        self.ropes.get_mut(h.0).ok_or(SinewError::InvalidHandle { what: "rope" })
    }

    /// Removes a rope and its particles.
    pub fn remove_rope(&mut self, h: RopeHandle) -> Result<(), SinewError> {
        let rope = self.ropes.remove(h.0).ok_or(SinewError::InvalidHandle { what: "rope" })?;
        for p in rope.particles {
            let _ = self.remove_particle(p);
        }
        Ok(())
    }

    /// Tension (N) of every segment in the last substep, start to end (positive = pulled).
    pub fn rope_tensions(&self, h: RopeHandle) -> Result<Vec<RealOf<S>>, SinewError> {
        let rope = self.rope(h).ok_or(SinewError::InvalidHandle { what: "rope" })?;
        Ok(rope.lambda.iter().map(|&l| self.lambda_to_force(-l)).collect())
    }

    /// Grabs the rope at a point: pins the particle there and returns it. Drive it with
    /// [`crate::particle::ParticleSet::set_kinematic_target`]; let go with
    /// [`World::release_particle`] (it keeps the hand's velocity).
    pub fn grab_rope(&mut self, h: RopeHandle, at: RopePoint<RealOf<S>>) -> Result<ParticleHandle, SinewError> {
        let rope = self.rope_mut(h)?;
        let i = rope.resolve(at)?;
        let p = rope.particles[i];
        rope.sleeping = false;
        self.particles.pin(p)?;
        Ok(p)
    }

    /// Releases a pinned or driven particle with the velocity it is moving at (so a rope
    /// swung by a hand flies on when let go). Particles created with mass 0 get 1 kg.
    pub fn release_particle(&mut self, p: ParticleHandle) -> Result<(), SinewError> {
        let v = self.particles.velocity(p).ok_or(SinewError::InvalidHandle { what: "particle" })?;
        self.particles.release(p, v, RealOf::<S>::ONE)?;
        self.wake_ropes_with(p);
        Ok(())
    }

    /// Sets the wind a rope is dragged toward (m/s) and the drag coefficient (N·s/m per
    /// particle); a drag of 0 turns wind off.
    pub fn set_rope_wind(&mut self, h: RopeHandle, wind: VecOf<S>, drag: RealOf<S>) -> Result<(), SinewError> {
        crate::particle::check_finite(wind, "wind")?;
        if !drag.is_finite() || drag < RealOf::<S>::ZERO {
            return Err(SinewError::InvalidParameter { what: "drag", reason: "must be finite and ≥ 0" });
        }
        let rope = self.rope_mut(h)?;
        rope.wind = wind;
        rope.drag = drag;
        rope.sleeping = false;
        Ok(())
    }

    /// Wakes a sleeping rope.
    pub fn wake_rope(&mut self, h: RopeHandle) -> Result<(), SinewError> {
        let rope = self.rope_mut(h)?;
        rope.sleeping = false;
        rope.calm_steps = 0;
        Ok(())
    }

    pub(crate) fn wake_ropes_with(&mut self, p: ParticleHandle) {
        self.wake_ropes_with_slot(p.index());
    }

    pub(crate) fn wake_ropes_with_slot(&mut self, slot: usize) {
        let k = slot as u32;
        for r in self.ropes.values_mut() {
            if r.idx.contains(&k) {
                r.sleeping = false;
                r.calm_steps = 0;
            }
        }
    }

    /// Rope work at the start of a step: wake ropes that are touched (a force, a driven
    /// particle, a moving collider nearby), apply wind drag as a force.
    #[inline(never)] // a phase of the step (see the note in `World::step_with`)
    pub(crate) fn ropes_begin_step(&mut self) {
        if self.ropes.is_empty() {
            return;
        }
        let zero = RealOf::<S>::ZERO;
        // Wake checks need the moving colliders only when some rope sleeps.
        let any_sleeping = self.ropes.values().any(|r| r.sleeping);
        let moving: Vec<_> = if !any_sleeping {
            Vec::new()
        } else {
            self.colliders.values().filter(|c| c.is_moving()).filter_map(|c| c.swept_aabb(self.def.substeps)).collect()
        };
        let moving_unbounded =
            any_sleeping && self.colliders.values().any(|c| c.is_moving() && c.shape.local_aabb().is_none());
        let ps = &mut self.particles;
        for r in self.ropes.values_mut() {
            if r.sleeping {
                let touched = r.idx.iter().any(|&k| {
                    let k = k as usize;
                    ps.target[k].is_some() || ps.force[k] != VecOf::<S>::ZERO
                });
                let near_moving = moving_unbounded || {
                    let pad = VecOf::<S>::splat(r.radius + r.segment_length);
                    let (mut lo, mut hi) = (ps.pos[r.idx[0] as usize], ps.pos[r.idx[0] as usize]);
                    for &k in &r.idx {
                        lo = lo.min_elem(ps.pos[k as usize]);
                        hi = hi.max_elem(ps.pos[k as usize]);
                    }
                    let bb = crate::Aabb { min: lo - pad, max: hi + pad };
                    moving.iter().any(|m| m.overlaps::<RealOf<S>>(&bb))
                };
                if touched || near_moving || r.drag > zero {
                    r.sleeping = false;
                    r.calm_steps = 0;
                }
            }
            if r.drag > zero && !r.sleeping {
                for &k in &r.idx {
                    let k = k as usize;
                    if ps.flags[k] & KINEMATIC == 0 {
                        let f = (r.wind - ps.vel[k]) * r.drag;
                        ps.force[k] += f;
                    }
                }
            }
        }
    }

    /// Per particle slot: whether it belongs to a sleeping rope (the step skips it), and
    /// how far beyond itself its spans reach (the broad phase grows its box by that).
    pub(crate) fn rope_particle_flags(&self, sleeping: &mut Vec<bool>, extra_reach: &mut Vec<RealOf<S>>) {
        let n = self.particles.pos.len();
        sleeping.clear();
        sleeping.resize(n, false);
        extra_reach.clear();
        extra_reach.resize(n, RealOf::<S>::ZERO);
        for r in self.ropes.values() {
            for (i, &k) in r.idx.iter().enumerate() {
                let k = k as usize;
                sleeping[k] = r.sleeping;
                if r.edge_collisions {
                    let left = if i > 0 { r.rest[i - 1] } else { RealOf::<S>::ZERO };
                    let right = r.rest.get(i).copied().unwrap_or(RealOf::<S>::ZERO);
                    extra_reach[k] = left.max(right);
                }
            }
        }
    }

    /// The rope constraints for one iteration: the exact chain solve, bending, tethers.
    pub(crate) fn solve_ropes(&mut self, ctx: &SubstepContext<RealOf<S>>, first: bool) {
        let zero = RealOf::<S>::ZERO;
        let tolerance = RealOf::<S>::from_ratio(1, 1000);
        let ps = &mut self.particles;
        let scratch = &mut self.rope_scratch;
        for r in self.ropes.values_mut() {
            if r.sleeping {
                continue;
            }
            // Multipliers restart at 0 every substep: the chain solve's first step
            // overwrites them (`ChainRef::fresh`).
            if first && !r.bend_lambda.is_empty() {
                r.bend_lambda.iter_mut().for_each(|l| *l = zero);
            }
            // Newton steps until converged (see `chain`): usually one. The first step
            // always runs (it also carries the multipliers, i.e. the tension read-out);
            // further steps only while some link is off by more than the tolerance.
            // A compliant rope takes one step: its links are meant to stretch.
            let mut converged = false;
            for step in 0..MAX_NEWTON_STEPS {
                let chain = ChainRef {
                    idx: &r.idx,
                    rest: &r.rest,
                    lambda: &mut r.lambda,
                    compliance: r.compliance,
                    fresh: first && step == 0,
                };
                converged = solve_chain(chain, ps, ctx, scratch, tolerance);
                if converged || r.compliance > zero {
                    break;
                }
            }
            if let Some(bc) = r.bend_compliance {
                for (j, w) in r.idx.windows(3).enumerate() {
                    let mut c = Bending::new(w[0] as usize, w[1] as usize, w[2] as usize, r.bend_rest[j], bc);
                    c.lambda = r.bend_lambda[j];
                    c.solve(ps, ctx);
                    r.bend_lambda[j] = c.lambda;
                }
            }
            // Tethers are the safety net for a chain solve that stopped short of its
            // tolerance (a rope yanked harder than 32 Newton steps can follow, or a
            // compliant rope). A converged chain already holds every tether: each link is
            // within the tolerance, so every arc is too.
            if r.tethers && !converged {
                solve_rope_tethers(r, ps);
            }
        }
    }

    /// Once per step: the segments that can collide and, for each, the colliders gathered
    /// for its two particles (deduplicated), as indices into the broad phase's list.
    #[inline(never)] // a phase of the step (see the note in `World::step_with`)
    pub(crate) fn gather_edge_candidates(&mut self) {
        let mut scratch = core::mem::take(&mut self.edge_scratch);
        core::mem::swap(&mut scratch.now, &mut scratch.last);
        let EdgeScratch { now: es, last, seg_of, built } = &mut scratch;
        es.clear();
        // Last step's lists are this step's for a span whose two ends kept their contact
        // anchors with their pairs and candidate lists (see "Contact anchors" in the
        // world's module docs): the same anchors, candidates and reuse distances give the
        // same items. Not for an end whose anchor has nothing in its region: kept, it
        // lists no candidates, while the step that took the anchor listed its own. Valid
        // if built by the previous gather from the same broad phase.
        let (epoch, generation) = self.gather_stamp();
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
            let mut cands = Vec::new();
            let any_moving = self.colliders.values().any(|c| c.is_moving());
            for (h, r) in self.ropes.iter() {
                if r.sleeping || !r.edge_collisions {
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
                    self.bounded_candidates_of(a, &mut cands);
                    self.bounded_candidates_of(b, &mut cands);
                    if cands.is_empty() {
                        continue;
                    }
                    cands.sort_unstable();
                    cands.dedup();
                    es.segs.push((w[0], w[1], h.index));
                    es.start.push(es.items.len() as u32);
                    es.items.extend_from_slice(&cands);
                    // The span between its ends' contact anchors, which their reaches are
                    // measured from (see "Contact anchors" in the world's module docs).
                    let (xa, xb) = (ps.anchor[a], ps.anchor[b]);
                    let half = (xb - xa).length() * RealOf::<S>::HALF;
                    // Both ends near their anchors for the whole step (predicted): the span's
                    // contacts are found once, for the step.
                    let reuse2 = self.plane_reuse2(a).min(self.plane_reuse2(b));
                    let reuse = if reuse2 > RealOf::<S>::ZERO { reuse2.sqrt() } else { RealOf::<S>::ZERO };
                    es.reuse2.push(reuse2);
                    for &bi in &cands {
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
                                                self.def.friction,
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
        self.edge_scratch = scratch;
    }

    /// Span contacts for one substep, from the candidates gathered for the step.
    ///
    /// The test is swept (see [`swept_segment_contact`]): each span moves from its
    /// positions at the start of the substep (`prev`) to its current ones, and a span fast
    /// enough to have crossed a collider gets its contact from the side it came from.
    /// The clearance skip stays exact for the swept test: every intermediate position of
    /// an end lies on its substep path, no farther from its contact anchor than the
    /// farther of the path's two ends, which is what `reach2` measures.
    #[inline(never)] // a phase of the step (see the note in `World::step_with`)
    pub(crate) fn detect_edge_contacts(&mut self, f1: RealOf<S>) {
        let mut out = core::mem::take(&mut self.edge_contacts);
        out.clear();
        let es = &self.edge_scratch.now;
        let ps = &self.particles;
        // The substep's start as a fraction of the step (for moving colliders).
        let f0 = (f1 - RealOf::<S>::ONE / RealOf::<S>::from_i32(self.def.substeps as i32)).max(RealOf::<S>::ZERO);
        let moved = &self.scratch.reach2;
        if moved.len() < ps.pos.len() {
            self.edge_contacts = out;
            return; // no colliders: contact detection left no reaches
        }
        // Particles that left the region their candidates were gathered for this substep
        // (a hard yank): their spans are queried afresh below, like the particles.
        let mut left = Vec::new();
        if !self.scratch.left.is_empty() {
            left.resize(ps.pos.len(), false);
            for &k in &self.scratch.left {
                left[k as usize] = true;
            }
        }
        let gone = |k: usize| !left.is_empty() && left[k];
        for (i, &(a, b, rope_slot)) in es.segs.iter().enumerate() {
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
            let reuse = reach2 <= es.reuse2[i];
            if reuse && es.planar[i] {
                // Every item has its step plane or is clear: the ready contacts.
                let (p0, p1) = (es.plane_at[i] as usize, es.plane_at[i + 1] as usize);
                for &(clear2, c) in &es.plane_contacts[p0..p1] {
                    if reach2 >= clear2 {
                        out.push(c);
                    }
                }
                continue;
            }
            let Some(r) = self.ropes.values[rope_slot as usize].as_ref() else { continue };
            let (lo, hi) = (es.start[i] as usize, es.start[i + 1] as usize);
            for ((&bi, &clear2), plane) in es.items[lo..hi].iter().zip(&es.clear2[lo..hi]).zip(&es.planes[lo..hi]) {
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
        self.edge_contacts = out;
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
        let mu = crate::collider::mix_friction(r.friction, col.friction, self.def.friction);
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
        let mut spans = Vec::new();
        for (h, r) in self.ropes.iter() {
            if r.sleeping || !r.edge_collisions {
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
        let mut seg = Vec::new();
        if !spans.is_empty() {
            seg.resize(self.particles.pos.len(), u32::MAX);
            for (i, &(a, _, _)) in self.edge_scratch.now.segs.iter().enumerate() {
                seg[a as usize] = i as u32;
            }
        }
        let (mut found, mut cands) = (Vec::new(), Vec::new());
        for (a, b, rope_slot) in spans {
            let Some(radius) = self.ropes.values[rope_slot as usize].as_ref().map(|r| r.radius) else { continue };
            let q = self.span_swept_box(a as usize, b as usize, radius);
            self.broad_phase.query::<RealOf<S>>(&q, &mut found);
            cands.clear();
            cands.extend_from_slice(&found);
            // The span's gathered items too (all of them: with an end gone, no plane).
            let es = &self.edge_scratch.now;
            let i = seg[a as usize] as usize;
            if i != u32::MAX as usize && es.segs[i] == (a, b, rope_slot) {
                cands.extend_from_slice(&es.items[es.start[i] as usize..es.start[i + 1] as usize]);
            }
            cands.sort_unstable();
            cands.dedup();
            let Some(r) = self.ropes.values[rope_slot as usize].as_ref() else { continue };
            for &bi in &cands {
                self.test_span(a as usize, b as usize, r, bi, (f0, f1), out);
            }
        }
    }

    /// Projects span contacts, with Coulomb friction on the contact point's motion.
    #[inline(never)] // a phase of the step (see the note in `World::step_with`)
    pub(crate) fn solve_edge_contacts(&mut self) {
        let zero = RealOf::<S>::ZERO;
        let one = RealOf::<S>::ONE;
        let ps = &mut self.particles;
        for c in &mut self.edge_contacts {
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

    /// End of step: tear overloaded segments, update sleep.
    #[inline(never)] // a phase of the step (see the note in `World::step_with`)
    pub(crate) fn ropes_end_step(&mut self) {
        if self.ropes.is_empty() {
            return;
        }
        // Tearing: collect (rope, segment) where tension exceeds the threshold.
        let mut tears = Vec::new();
        for (h, r) in self.ropes.iter() {
            if let Some(limit) = r.tear_tension {
                if let Some(j) = (0..r.lambda.len()).find(|&j| self.lambda_to_force(-r.lambda[j]) > limit) {
                    tears.push((RopeHandle(h), j));
                }
            }
        }
        for (h, j) in tears {
            let _ = self.cut_rope(h, j);
        }
        let sleep_speed = RealOf::<S>::from_ratio(SLEEP_SPEED_RATIO.0, SLEEP_SPEED_RATIO.1);
        let ps = &mut self.particles;
        for r in self.ropes.values_mut() {
            if r.sleeping {
                // Something outside the rope moved one of its particles (a constraint to
                // another body, a user teleport): wake up.
                if r.idx.iter().any(|&k| ps.vel[k as usize] != VecOf::<S>::ZERO) {
                    r.sleeping = false;
                    r.calm_steps = 0;
                }
                continue;
            }
            let calm = r.idx.iter().all(|&k| {
                let k = k as usize;
                ps.flags[k] & ALIVE != 0
                    && ps.target[k].is_none()
                    && ps.vel[k].length_squared() < sleep_speed * sleep_speed
            });
            r.calm_steps = if calm { r.calm_steps + 1 } else { 0 };
            if r.calm_steps >= SLEEP_AFTER_STEPS && r.drag == RealOf::<S>::ZERO {
                r.sleeping = true;
                for &k in &r.idx {
                    ps.vel[k as usize] = VecOf::<S>::ZERO;
                }
            }
        }
    }
}

/// Tethers from every free particle to the nearest pinned particle along the rope on
/// each side, with the rest length between them (long-range attachments).
fn solve_rope_tethers<S: Space>(r: &Rope<S>, ps: &mut crate::particle::ParticleSet<S>) {
    let n = r.idx.len();
    let zero = RealOf::<S>::ZERO;
    // Forward pass: nearest pin before i; backward pass: nearest pin after i.
    for dir in [false, true] {
        let mut anchor: Option<usize> = None;
        let mut arc = zero;
        for s in 0..n {
            let i = if dir { n - 1 - s } else { s };
            let k = r.idx[i] as usize;
            if let Some(ai) = anchor {
                let seg = if dir { r.rest[i] } else { r.rest[i - 1] };
                arc += seg;
                if ps.inv_mass[k] > zero {
                    let anchor_pos = ps.pos[r.idx[ai] as usize];
                    let d = ps.pos[k] - anchor_pos;
                    if d.length_squared() > arc * arc {
                        let (nv, len) = d.normalize_and_length();
                        ps.pos[k] -= nv * (len - arc);
                    }
                }
            }
            if ps.inv_mass[k] == zero {
                anchor = Some(i);
                arc = zero;
            }
        }
    }
}
