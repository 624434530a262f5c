//! Contacts between bodies: particles as spheres and bones as capsules, so that a fist
//! meets a head, a fighter another, a rope a ragdoll.
//!
//! Off by default ([`crate::WorldDef::body_contacts`]): a world that does not turn them on
//! steps exactly as before, and its state hash is unchanged (neither the setting nor the
//! bodies are hashed while it is off), so existing scenes and their golden hashes stay as
//! they are. Turning them on is a choice of behaviour — ragdolls that used to overlap
//! now push each other — and of cost, so it is the world's to make.
//!
//! # Primitives
//!
//! Every distance constraint is a *bone*: a capsule around the segment between its two
//! particles, of radius `r(s) = (1 − s)·r_a + s·r_b` at the point `s` along it (the
//! particles' radii). Every span of a rope is a bone too. A colliding particle that is the
//! end of no bone is a sphere (a capsule whose segment is one point). Particles with
//! `InteractionGroups::NONE` take no part; a bone belongs to the groups both its ends
//! belong to (`memberships_a & memberships_b`, likewise the filters), and two primitives
//! meet when their groups interact, as for colliders.
//!
//! **Who collides.** Each particle belongs to a body ([`crate::particle::BodyId`]): a
//! ragdoll's particles share one, a rope's spans and inner particles share the rope's
//! ([`crate::World::rope_body`]), a particle given no body is a body of its own. Two
//! primitives collide when their ends' bodies are disjoint. Primitives of one body
//! collide only when self-collision is on for it ([`crate::World::set_self_collision`],
//! off by default), and never when they share a particle or when a particle of one is tied
//! to a particle of the other by a bone (neighbouring bones of a rig overlap at rest: a
//! forearm and the upper arm's other bones).
//!
//! # Broad phase, once per step
//!
//! At the start of the step each particle that takes part gets a *margin*, a bound on how
//! far it moves in the step: `m = |v|·Δt + |g|·Δt² + 1 cm`. Each primitive's box holds its
//! segment grown by its largest radius and margin; the boxes go into a uniform grid
//! (`grid.rs`) that lists the overlapping pairs that may collide, sorted by primitive —
//! the order of the projections, the same on every machine. While every particle stays
//! within its margin of where the step started, a pair not listed is farther apart than
//! their radii (two boxes apart by more than both margins), so the list is exact, not an
//! approximation; a particle found beyond its margin in a substep (a sudden yank) has the
//! list built again on the spot from where everything is. The buffers are reused, so a
//! step allocates nothing once they have grown.
//!
//! # Narrow phase and projection, every iteration
//!
//! For a listed pair, the closest points of the two segments (`segment.rs`) at `s` on the
//! first, `t` on the second give `p = x_a + s·(x_b − x_a)`, `q = x_c + t·(x_d − x_c)`,
//! `d = |p − q|` and the constraint `C = d − r₁(s) − r₂(t) ≥ 0`. Its gradient moves
//! the four particles with weights `(1 − s, s, −(1 − t), −t)` along `n = (p − q)/d`; the
//! position-based projection (Macklin et al. 2016, "XPBD", with zero compliance: the
//! contact is rigid; Müller et al. 2020, §3.5, for contacts) is
//!
//! ```text
//! Δλ = −C / w,   w = (1 − s)²·w_a + s²·w_b + (1 − t)²·w_c + t²·w_d,
//! Δx_a = (1 − s)·w_a·Δλ·n,  Δx_b = s·w_b·Δλ·n,  Δx_c = −(1 − t)·w_c·Δλ·n,  Δx_d = −t·w_d·Δλ·n
//! ```
//!
//! (`w` the inverse masses). The moves weighted by the masses sum to
//! `Δλ·n·((1 − s) + s − (1 − t) − t) = 0`: the projection conserves linear momentum
//! between two dynamic bodies, and splits the correction by inverse mass. Coincident
//! points have no direction: the normal is then taken from where the two points were
//! at the start of the substep, else the first axis — deterministic, never NaN.
//!
//! **The lever bound.** A particle of a bone moves `|c_k|·w_k·Δλ = |c_k|·w_k·C / w`
//! (`c_k` its weight above). A bone touched close to an end that cannot move (a striking
//! fist is kinematic, `w = 0`) has `w ≈ (1 − t)²·w_c`, and its free end is levered by
//! `C / (1 − t)`, without bound as the contact nears the held end: two striking fists
//! meeting once moved an elbow 2.8 m in one substep, and the body flew apart. So `w` is
//! taken no smaller than the largest `|c_k|·w_k`: no particle is pushed farther than the
//! depth in one projection (friction, bounded by `μ` times the push, comes on top). Two
//! spheres, and a bone of equal end masses touched at its middle, are unchanged (there `w`
//! is already the larger); a bone of equal end masses touched at `1 − t = 1/√2` by a much
//! heavier body would have moved its end 1.21 times the depth and now moves it the depth,
//! and a bone held at one end, touched at its middle by a held or much heavier body,
//! moves its free end the depth, not twice it (the rest follows in the next substeps). A contact that only a
//! held end could undo is left to what can move (the strike's stop, the drives), a depth
//! at a time. (Twice the depth was tried first: over 400 seeded bouts between two 3D
//! fighters the bodies then overlapped by up to 18 mm, against 10 mm with the depth.)

//! **Friction** acts on positions, as for the particle–collider contacts (Macklin et al.
//! 2014, "Unified Particle Physics for Real-Time Applications", §6.1): the relative
//! motion `Δ` of `p` and `q` in the substep, less its normal part, is removed entirely
//! while it is within `μ_s` times the contact's push (static friction), else shortened
//! by `μ_k` times the push (kinetic), with the same weights. The coefficients are the
//! world's (`friction`, `static_friction`). No restitution: body contacts are inelastic
//! (the velocity follows from the positions, `v = (x − x_prev)/h`).
//!
//! The projections run in each iteration's contact stage before the particle–collider
//! contacts, which have the last word (a fighter pushed into the floor by another stays
//! on the floor). Fast thin bones: each substep tests where the bones are, not the path
//! between, so a limb crosses another only if their relative motion in one substep
//! exceeds the sum of their radii and the overlap left (at 60 Hz and 8 substeps, 10 m/s
//! is 2.1 cm a substep against the 5–10 cm radii of a rig's limbs: caught; test
//! `a_fast_limb_swung_through_another_is_stopped`).
//!
//! Not built: waking a sleeping body that is struck (a sleeping body's particles are
//! immovable for the step, so it acts as static), contacts against the velocity solve of
//! tree-solved ragdolls (a pushed bone is brought back to length by the next substep's
//! solve), restitution.

pub(crate) mod grid;
mod prune;
pub(crate) mod segment;
mod sweep;

use crate::collider::Aabb;
use crate::constraint::Distance;
use crate::math::{Real, Vector};
use crate::particle::{ALIVE, COLLIDES, InteractionGroups, ParticleSet};
use crate::rope::Rope;
use crate::space::{RealOf, Space, VecOf};
use crate::state::{SavedState, StateHasher};
use grid::PairGrid;
use prune::prune;
use sweep::{NO_GROUP, Sweep};

/// No body given: a particle is a body of its own.
pub(crate) const NO_BODY: u32 = u32::MAX;
/// Bodies made by [`crate::World::new_body`] are below this; the ids above stand for a
/// rope without a body (`ROPE_BODY | slot`) and a particle without one (`OWN_BODY | slot`).
pub(crate) const MAX_BODIES: u32 = 1 << 30;
const ROPE_BODY: u32 = 1 << 30;
const OWN_BODY: u32 = 1 << 31;

/// The bodies (saved state). Hashed only while body contacts are on: off, nothing a step
/// computes reads them, and a world that never turns them on keeps its hash.
#[derive(Clone, Debug, Default)]
pub(crate) struct BodyState {
    /// Mirror of [`crate::WorldDef::body_contacts`] (what the hash follows).
    pub enabled: bool,
    /// Per particle slot: its body, or [`NO_BODY`].
    pub body: Vec<u32>,
    /// Per rope slot: its body, or [`NO_BODY`].
    pub rope_body: Vec<u32>,
    /// The next body id.
    pub next: u32,
    /// Bodies with self-collision on, sorted.
    pub self_collide: Vec<u32>,
    /// Pairs of a self-colliding body's primitives that overlapped when self-collision
    /// was turned on (a rig's rest pose), never paired: `[a, b, c, d]` with `a < b`,
    /// `c < d`, `(a, b) < (c, d)` (particle slots; a sphere is `[k, k]`), sorted.
    pub excluded: Vec<[u32; 4]>,
}

impl SavedState for BodyState {
    fn hash_state(&self, h: &mut StateHasher) {
        if self.enabled {
            let Self { enabled: _, body, rope_body, next, self_collide, excluded } = self;
            body.hash_state(h);
            rope_body.hash_state(h);
            next.hash_state(h);
            self_collide.hash_state(h);
            h.write_u64(excluded.len() as u64);
            for e in excluded {
                e.iter().for_each(|&x| h.write_u64(u64::from(x)));
            }
        }
    }
    fn heap_bytes(&self) -> usize {
        (self.body.capacity() + self.rope_body.capacity() + self.self_collide.capacity()) * 4
            + self.excluded.capacity() * 16
    }
    fn copy_from(&mut self, o: &Self) {
        let Self { enabled, body, rope_body, next, self_collide, excluded } = self;
        excluded.clone_from(&o.excluded);
        *enabled = o.enabled;
        body.copy_from(&o.body);
        rope_body.copy_from(&o.rope_body);
        *next = o.next;
        self_collide.copy_from(&o.self_collide);
    }
}

impl BodyState {
    /// Sets entry `k` of `v` (grown with [`NO_BODY`]).
    pub fn set(v: &mut Vec<u32>, k: usize, body: u32) {
        if v.len() <= k {
            v.resize(k + 1, NO_BODY);
        }
        v[k] = body;
    }
    /// Entry `k` of `v`.
    #[inline]
    pub fn get(v: &[u32], k: usize) -> u32 {
        v.get(k).copied().unwrap_or(NO_BODY)
    }
    fn self_collides(&self, body: u32) -> bool {
        self.self_collide.binary_search(&body).is_ok()
    }

    /// The exclusion key of two primitives.
    fn key(p: (u32, u32), q: (u32, u32)) -> [u32; 4] {
        let p = (p.0.min(p.1), p.0.max(p.1));
        let q = (q.0.min(q.1), q.0.max(q.1));
        let (x, y) = if p <= q { (p, q) } else { (q, p) };
        [x.0, x.1, y.0, y.1]
    }

    /// Lists the pairs of `body`'s primitives (`segments`: particle slots of its bones and
    /// spans, then spheres as `(k, k)`) that overlap now, as pairs never to collide.
    pub fn exclude_overlapping<S: Space>(&mut self, body: u32, ps: &ParticleSet<S>, segments: &[(u32, u32)]) {
        let zero = RealOf::<S>::ZERO;
        for (i, &(a, b)) in segments.iter().enumerate() {
            for &(c, d) in &segments[i + 1..] {
                if a == c || a == d || b == c || b == d {
                    continue;
                }
                let (pa, pb, pc, pd) = (ps.pos[a as usize], ps.pos[b as usize], ps.pos[c as usize], ps.pos[d as usize]);
                let (s, t) = segment::closest_params(pa, pb, pc, pd);
                let (s, t) = (if a == b { zero } else { s }, if c == d { zero } else { t });
                let rad = |k: u32| ps.radius[k as usize];
                let r = rad(a) + (rad(b) - rad(a)) * s + rad(c) + (rad(d) - rad(c)) * t;
                // A millimetre of margin: touching at rest counts.
                let r = r + RealOf::<S>::from_ratio(1, 1000);
                if (pa.lerp(pb, s) - pc.lerp(pd, t)).length_squared() < r.sq() {
                    self.excluded.push(Self::key((a, b), (c, d)));
                }
            }
        }
        let _ = body;
        self.excluded.sort_unstable();
        self.excluded.dedup();
    }
}

/// What the last step's body contacts did (see [`crate::World::body_contact_stats`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct BodyContactStats {
    /// Primitives (bones, rope spans, lone spheres) that took part.
    pub primitives: u32,
    /// Box pairs the broad phase tested (all its builds in the step).
    pub box_tests: u64,
    /// Pairs the broad phase listed (its last build).
    pub candidate_pairs: u32,
    /// Times the pair list was built in the step (1, more if a particle left its margin).
    pub builds: u32,
    /// Pairs that pushed in the last iteration of the last substep.
    pub contacts: u32,
    /// The deepest overlap found before a projection in the last substep (m).
    pub max_depth: f64,
}

/// A bone (`a ≠ b`) or a sphere (`a = b`).
#[derive(Clone, Copy, Debug)]
struct Prim {
    a: u32,
    b: u32,
    bodies: [u32; 2],
    groups: InteractionGroups,
}

/// Working memory (scratch, rebuilt every step).
#[derive(Clone, Debug, Default)]
pub(crate) struct BodyScratch<S: Space> {
    prims: Vec<Prim>,
    /// Per primitive: its body, when it has one body that does not collide with itself;
    /// [`NO_GROUP`](sweep::NO_GROUP) otherwise (the grid's quick rejection).
    alone: Vec<u32>,
    boxes: Vec<Aabb<VecOf<S>>>,
    /// Candidate pairs (indices into `prims`), sorted.
    pairs: Vec<(u32, u32)>,
    /// Per slot: the body it counts as this step.
    eff: Vec<u32>,
    /// Per slot: end of a bone or span this step.
    in_bone: Vec<bool>,
    /// The particles taking part, in slot order.
    members: Vec<u32>,
    /// Per slot: where its margin is measured from, and the margin.
    start: Vec<VecOf<S>>,
    margin: Vec<RealOf<S>>,
    /// Bone neighbours (CSR), built only when some body self-collides.
    adj_start: Vec<u32>,
    adj: Vec<u32>,
    adj_fill: Vec<u32>,
    grid: PairGrid,
    sweep: Sweep,
    /// Per body (at most [`prune::PRUNE_MAX_BODIES`]): the box around its primitives' boxes.
    body_boxes: Vec<(u32, Aabb<VecOf<S>>)>,
    /// The primitives whose boxes go into the grid (see [`prune`]), and their boxes.
    kept: Vec<u32>,
    kept_boxes: Vec<Aabb<VecOf<S>>>,
    /// The kept boxes' groups for the sweep (`alone` of each).
    kept_alone: Vec<u32>,
    /// The particles this iteration's projections pushed, with the direction (for the
    /// tree solve after contacts, as the collider contacts' pushed particles).
    pub pushed: Vec<(u32, VecOf<S>)>,
    pub stats: BodyContactStats,
}

/// The body contacts' view of the world for the once-per-step build.
pub(crate) struct BodyGather<'a, S: Space> {
    pub state: &'a BodyState,
    pub particles: &'a ParticleSet<S>,
    pub distances: &'a crate::arena::Arena<Distance<RealOf<S>>>,
    pub ropes: &'a crate::arena::Arena<Rope<S>>,
    pub gravity: VecOf<S>,
}

impl<S: Space> BodyScratch<S> {
    /// Empties the lists (body contacts off).
    pub fn clear(&mut self) {
        self.prims.clear();
        self.pairs.clear();
        self.members.clear();
        self.pushed.clear();
        self.stats = BodyContactStats::default();
    }

    /// The primitives, margins and pair list of a step of length `dt`.
    pub fn gather(&mut self, g: &BodyGather<'_, S>, dt: RealOf<S>) {
        self.stats = BodyContactStats::default();
        let ps = g.particles;
        let n = ps.pos.len();
        let alive = |k: usize| ps.flags[k] & ALIVE != 0;
        let collides = |k: usize| ps.flags[k] & (ALIVE | COLLIDES) == ALIVE | COLLIDES;
        self.eff.clear();
        self.eff.extend((0..n).map(|k| match BodyState::get(&g.state.body, k) {
            NO_BODY => OWN_BODY | k as u32,
            b => b,
        }));
        for (h, r) in g.ropes.iter() {
            let rb = match BodyState::get(&g.state.rope_body, h.index as usize) {
                NO_BODY => ROPE_BODY | h.index,
                b => b,
            };
            // Inner particles are the rope's; its ends may be another body's (a load).
            if r.idx.len() > 2 {
                for &k in &r.idx[1..r.idx.len() - 1] {
                    self.eff[k as usize] = rb;
                }
            }
        }
        self.prims.clear();
        self.in_bone.clear();
        self.in_bone.resize(n, false);
        let merge = |a: usize, b: usize| InteractionGroups {
            memberships: ps.groups[a].memberships & ps.groups[b].memberships,
            filter: ps.groups[a].filter & ps.groups[b].filter,
        };
        for c in g.distances.values() {
            let (a, b) = (c.a as usize, c.b as usize);
            if a == b || a >= n || b >= n || !collides(a) || !collides(b) {
                continue;
            }
            self.in_bone[a] = true;
            self.in_bone[b] = true;
            let bodies = [self.eff[a], self.eff[b]];
            self.prims.push(Prim { a: c.a, b: c.b, bodies, groups: merge(a, b) });
        }
        for (h, r) in g.ropes.iter() {
            let rb = match BodyState::get(&g.state.rope_body, h.index as usize) {
                NO_BODY => ROPE_BODY | h.index,
                b => b,
            };
            for w in r.idx.windows(2) {
                let (a, b) = (w[0] as usize, w[1] as usize);
                if a == b || a >= n || b >= n || !collides(a) || !collides(b) {
                    continue;
                }
                self.in_bone[a] = true;
                self.in_bone[b] = true;
                self.prims.push(Prim { a: w[0], b: w[1], bodies: [rb, rb], groups: merge(a, b) });
            }
        }
        for k in 0..n {
            if collides(k) && !self.in_bone[k] {
                let bodies = [self.eff[k]; 2];
                self.prims.push(Prim { a: k as u32, b: k as u32, bodies, groups: ps.groups[k] });
            }
        }
        self.members.clear();
        self.members.extend((0..n as u32).filter(|&k| alive(k as usize) && collides(k as usize)));
        // Bone neighbours, for bodies that collide with themselves.
        self.adj_start.clear();
        self.adj.clear();
        if !g.state.self_collide.is_empty() {
            self.adj_start.resize(n + 1, 0);
            for c in g.distances.values() {
                if (c.a as usize) < n && (c.b as usize) < n {
                    self.adj_start[c.a as usize + 1] += 1;
                    self.adj_start[c.b as usize + 1] += 1;
                }
            }
            for k in 0..n {
                self.adj_start[k + 1] += self.adj_start[k];
            }
            self.adj.resize(self.adj_start[n] as usize, 0);
            let fill = &mut self.adj_fill;
            fill.clear();
            fill.extend_from_slice(&self.adj_start[..n]);
            for c in g.distances.values() {
                let (a, b) = (c.a as usize, c.b as usize);
                if a < n && b < n {
                    self.adj[fill[a] as usize] = c.b;
                    fill[a] += 1;
                    self.adj[fill[b] as usize] = c.a;
                    fill[b] += 1;
                }
            }
        }
        self.stats.primitives = self.prims.len() as u32;
        self.build(g.state, ps, g.gravity, dt);
    }

    /// Margins from the particles' velocities over `dt`, boxes, and the pair list.
    fn build(&mut self, state: &BodyState, ps: &ParticleSet<S>, gravity: VecOf<S>, dt: RealOf<S>) {
        let n = ps.pos.len();
        self.start.clear();
        self.start.extend_from_slice(&ps.pos);
        self.margin.clear();
        self.margin.resize(n, RealOf::<S>::ZERO);
        let slack = RealOf::<S>::from_ratio(1, 100);
        let fall = gravity.length() * dt * dt;
        for &k in &self.members {
            let k = k as usize;
            self.margin[k] = ps.vel[k].length() * dt + fall * ps.gravity_scale[k].abs() + slack;
        }
        self.boxes.clear();
        for p in &self.prims {
            let (a, b) = (p.a as usize, p.b as usize);
            let grow = ps.radius[a].max(ps.radius[b]) + self.margin[a].max(self.margin[b]);
            let g = VecOf::<S>::splat(grow);
            let (lo, hi) = (ps.pos[a].min_elem(ps.pos[b]), ps.pos[a].max_elem(ps.pos[b]));
            self.boxes.push(Aabb { min: lo - g, max: hi + g });
        }
        self.pairs.clear();
        let prims = &self.prims;
        let (adj_start, adj) = (&self.adj_start, &self.adj);
        let near = |x: u32| {
            let (s, e) = (adj_start[x as usize] as usize, adj_start[x as usize + 1] as usize);
            &adj[s..e]
        };
        // Within two bones of each other.
        let tied = |x: u32, y: u32| x == y || near(x).iter().any(|&z| z == y || near(z).contains(&y));
        let accept = |i: u32, j: u32| {
            let (p, q) = (&prims[i as usize], &prims[j as usize]);
            if p.a == q.a || p.a == q.b || p.b == q.a || p.b == q.b || !p.groups.test(q.groups) {
                return false;
            }
            let shared = p.bodies.iter().any(|b| q.bodies.contains(b));
            if !shared {
                return true;
            }
            // One body: only with self-collision, and not between bones tied by a bone.
            let one = p.bodies[0] == p.bodies[1] && q.bodies == p.bodies;
            one && state.self_collides(p.bodies[0])
                && !(tied(p.a, q.a) || tied(p.a, q.b) || tied(p.b, q.a) || tied(p.b, q.b))
                && state.excluded.binary_search(&BodyState::key((p.a, p.b), (q.a, q.b))).is_err()
        };
        // One body each, the same, without self-collision: never a pair (what `accept`
        // decides last, decided first and cheaply).
        let alone = &mut self.alone;
        alone.clear();
        alone.extend(prims.iter().map(|p| {
            let one = p.bodies[0] == p.bodies[1];
            if one && !state.self_collides(p.bodies[0]) { p.bodies[0] } else { NO_GROUP }
        }));
        let alone = &self.alone;
        // Up to `SWEEP_MAX_BOXES` boxes the sweep (`sweep.rs`), else the grid: the same
        // pairs either way (both give them sorted), found with less work.
        let (grid, sweep, pairs) = (&mut self.grid, &mut self.sweep, &mut self.pairs);
        let tests = if prune(prims, &self.boxes, alone, &mut self.body_boxes, &mut self.kept) {
            // Only the kept boxes are searched; their pairs are mapped back (the map is
            // increasing, so a pair stays (low, high)).
            let kept = &self.kept;
            self.kept_boxes.clear();
            self.kept_boxes.extend(kept.iter().map(|&k| self.boxes[k as usize]));
            self.kept_alone.clear();
            self.kept_alone.extend(kept.iter().map(|&k| alone[k as usize]));
            let tests = find_pairs(
                (grid, sweep),
                &self.kept_boxes,
                &self.kept_alone,
                |i, j| accept(kept[i as usize], kept[j as usize]),
                pairs,
            );
            for p in pairs.iter_mut() {
                *p = (kept[p.0 as usize], kept[p.1 as usize]);
            }
            tests
        } else {
            find_pairs((grid, sweep), &self.boxes, alone, accept, pairs)
        };
        self.stats.box_tests += tests;
        self.stats.candidate_pairs = self.pairs.len() as u32;
        self.stats.builds += 1;
    }

    /// At a substep's detection: builds the pair list again from where everything is if a
    /// particle left its margin (`rest`: the time left in the step, s).
    pub fn check(&mut self, state: &BodyState, ps: &ParticleSet<S>, gravity: VecOf<S>, rest: RealOf<S>) {
        let out = self.members.iter().any(|&k| {
            let k = k as usize;
            (ps.pos[k] - self.start[k]).length_squared() > self.margin[k].sq()
        });
        if out {
            self.build(state, ps, gravity, rest);
        }
    }

    /// Projects every listed pair once (see the module docs), with friction `(μ_k, μ_s)`.
    pub fn solve(&mut self, ps: &mut ParticleSet<S>, mu: (RealOf<S>, RealOf<S>)) {
        let (zero, one) = (RealOf::<S>::ZERO, RealOf::<S>::ONE);
        let mut contacts = 0;
        let mut deepest = zero;
        self.pushed.clear();
        for &(i, j) in &self.pairs {
            let (p, q) = (self.prims[i as usize], self.prims[j as usize]);
            let (a, b, c, d) = (p.a as usize, p.b as usize, q.a as usize, q.b as usize);
            let (s, t) = segment::closest_params(ps.pos[a], ps.pos[b], ps.pos[c], ps.pos[d]);
            let (s, t) = (if a == b { zero } else { s }, if c == d { zero } else { t });
            let x = ps.pos[a].lerp(ps.pos[b], s);
            let y = ps.pos[c].lerp(ps.pos[d], t);
            let r = ps.radius[a] + (ps.radius[b] - ps.radius[a]) * s + ps.radius[c] + (ps.radius[d] - ps.radius[c]) * t;
            let delta = x - y;
            let dist2 = delta.length_squared();
            if dist2 >= r.sq() {
                continue;
            }
            let ws = [(one - s), s, -(one - t), -t];
            let inv = [ps.inv_mass[a], ps.inv_mass[b], ps.inv_mass[c], ps.inv_mass[d]];
            let w = weight(&ws, &inv, [a, b, c, d]);
            if !(w > zero) {
                continue;
            }
            // The lever bound (module docs): no particle moved farther than the depth.
            let w = w.max(lever(&ws, &inv, [a, b, c, d]));
            let (mut n, dist) = delta.normalize_and_length();
            if !(dist > RealOf::<S>::GEOMETRIC_EPSILON) {
                n = fallback_normal(ps, (a, b, s), (c, d, t));
            }
            let depth = r - dist;
            deepest = deepest.max(depth);
            contacts += 1;
            let lambda = depth / w;
            apply(ps, [a, b, c, d], &ws, n * lambda);
            for (&k, &c) in [a, b, c, d].iter().zip(&ws) {
                if c != zero && ps.inv_mass[k] > zero {
                    self.pushed.push((k as u32, if c > zero { n } else { -n }));
                }
            }
            // The part that undoes an overlap the substep started with moves the start
            // too: it is no velocity (else two particles spawned overlapping would fly
            // apart at depth/h).
            let was = ps.prev[a].lerp(ps.prev[b], s) - ps.prev[c].lerp(ps.prev[d], t);
            let depth0 = r - n.dot(was);
            if depth0 > zero {
                let shift = n * (depth0.min(depth) / w);
                for (&k, &c) in [a, b, c, d].iter().zip(&ws) {
                    let wk = ps.inv_mass[k];
                    ps.prev[k] += shift * (c * wk);
                }
            }
            // Friction: the relative tangential motion of p and q in the substep.
            if mu.1 > zero || mu.0 > zero {
                let dp = (ps.pos[a] - ps.prev[a]).lerp(ps.pos[b] - ps.prev[b], s);
                let dq = (ps.pos[c] - ps.prev[c]).lerp(ps.pos[d] - ps.prev[d], t);
                let rel = dp - dq;
                let tang = rel - n * n.dot(rel);
                let (dir, len) = tang.normalize_and_length();
                if len > zero {
                    let cut = if len <= mu.1 * depth { len } else { len.min(mu.0 * depth) };
                    apply(ps, [a, b, c, d], &ws, dir * (-cut / w));
                }
            }
        }
        self.stats.contacts = contacts;
        self.stats.max_depth = deepest.to_f64();
    }
}

/// The overlapping pairs of `boxes` that are not of one group (`group[k]`,
/// [`NO_GROUP`] for none) and that `accept` takes, sorted, in `out` (empty before), by the
/// sweep up to [`sweep::SWEEP_MAX_BOXES`] boxes, else by the grid; returns the box pairs
/// tested.
fn find_pairs<R: Real, V: Vector<R>>(
    (grid, sweep): (&mut PairGrid, &mut Sweep),
    boxes: &[Aabb<V>],
    group: &[u32],
    accept: impl Fn(u32, u32) -> bool,
    out: &mut Vec<(u32, u32)>,
) -> u64 {
    match sweep.pairs(boxes, group, &accept, out) {
        Some(tests) => tests,
        None => {
            // The grid's quick rejection: both of one group.
            let skip = |i: u32, j: u32| {
                let g = group[i as usize];
                g != NO_GROUP && g == group[j as usize]
            };
            grid.pairs(boxes, skip, accept, out);
            out.sort_unstable();
            grid.box_tests
        }
    }
}

/// `Σ wᵢ·cᵢ²` over the four ends, an end repeated (a sphere) counted once with the sum of
/// its weights.
#[inline]
fn weight<R: Real>(ws: &[R; 4], inv: &[R; 4], k: [usize; 4]) -> R {
    let side = |c0: R, c1: R, w0: R, w1: R, same: bool| {
        if same { (c0 + c1).sq() * w0 } else { c0.sq() * w0 + c1.sq() * w1 }
    };
    side(ws[0], ws[1], inv[0], inv[1], k[0] == k[1]) + side(ws[2], ws[3], inv[2], inv[3], k[2] == k[3])
}

/// `max_k |c_k|·w_k` over the four ends, an end repeated counted once with the sum of its
/// weights: how far the farthest-moving particle goes per unit of `Δλ` (the lever bound
/// in the module docs).
#[inline]
fn lever<R: Real>(ws: &[R; 4], inv: &[R; 4], k: [usize; 4]) -> R {
    let side = |c0: R, c1: R, w0: R, w1: R, same: bool| {
        if same { (c0 + c1).abs() * w0 } else { (c0.abs() * w0).max(c1.abs() * w1) }
    };
    side(ws[0], ws[1], inv[0], inv[1], k[0] == k[1]).max(side(ws[2], ws[3], inv[2], inv[3], k[2] == k[3]))
}

/// `x_k += c_k·w_k·Δ` for the four ends.
#[inline]
fn apply<S: Space>(ps: &mut ParticleSet<S>, k: [usize; 4], ws: &[RealOf<S>; 4], delta: VecOf<S>) {
    for (&k, &c) in k.iter().zip(ws) {
        let w = ps.inv_mass[k];
        ps.pos[k] += delta * (c * w);
    }
}

/// A direction for two coincident points: from where they were at the substep's start,
/// else the first axis.
fn fallback_normal<S: Space>(
    ps: &ParticleSet<S>,
    (a, b, s): (usize, usize, RealOf<S>),
    (c, d, t): (usize, usize, RealOf<S>),
) -> VecOf<S> {
    let was = ps.prev[a].lerp(ps.prev[b], s) - ps.prev[c].lerp(ps.prev[d], t);
    let (n, len) = was.normalize_and_length();
    if len > RealOf::<S>::GEOMETRIC_EPSILON {
        return n;
    }
    let mut x = VecOf::<S>::ZERO;
    x.set(0, RealOf::<S>::ONE);
    x
}
