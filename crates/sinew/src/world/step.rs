//! The step: a named list of stages, each a call into the module that owns it (see the
//! module docs of [`crate::world`] for what each does).

use super::World;
use crate::SinewError;
use crate::constraint::SubstepContext;
use crate::constraint::sweep::{self, Sweep};
use crate::contact::ContactParams;
use crate::contact::bodies::BodyGather;
use crate::contact::gather::{Gather, gather_candidates};
use crate::contact::narrow::{Detect, detect_contacts};
use crate::contact::solve::solve_contacts;
use crate::contact::span::{Spans, solve_edge_contacts};
use crate::contact::velocity::{VelocityPass, velocity_pass};
use crate::controller::{StepContext, SubstepSolver};
use crate::impact::Impacts;
use crate::math::{Real, Vector};
use crate::space::{RealOf, Space, VecOf};
use core::time::Duration;

/// What happened during a step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct StepReport {
    /// The time step was longer than `max_time_step` and was clamped.
    pub clamped_dt: bool,
    /// Particles whose state became non-finite and were restored to their last finite
    /// state (should stay 0; non-zero means extreme input such as enormous forces).
    pub recovered_particles: u32,
    /// Particle contacts that pushed in the last substep, plus the span contacts generated
    /// in it (including those kept from the step's planes that were not violated).
    pub contacts: u32,
    /// Colliding particles that took a new contact anchor this step (their collider pairs
    /// gathered afresh); the others kept theirs (see "Contact anchors" in
    /// [`crate::contact`]), a lonely one possibly moved to the particle without a query
    /// (not counted).
    pub regathered: u32,
    /// Tree-solved bodies (ragdolls) in the middle of an impact after the step, whose
    /// whole-body bounce is still to come (see [`crate::contact::bounce`]).
    pub impacts: u32,
}

/// Where the last step's time went, stage by stage (like Box2D's `b2Profile`). Filled only
/// while [`World::set_profiling`] is on (timing costs a clock read per stage).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct StepProfile {
    /// Drivers, broad phase, waking, wind, controllers' `begin_step`.
    pub begin: Duration,
    /// The per-step particle lists and the constraint order.
    pub predict: Duration,
    /// Collider pairs and contact planes of particles and rope spans.
    pub gather: Duration,
    /// The substeps' integration.
    pub integrate: Duration,
    /// The rope chain solves.
    pub ropes: Duration,
    /// The constraint sweeps.
    pub constraints: Duration,
    /// Controllers and the `step_with` callback.
    pub controllers: Duration,
    /// Contact detection and projection (particles and spans).
    pub contacts: Duration,
    /// Impact passes.
    pub impact: Duration,
    /// Velocity update and velocity pass.
    pub velocity: Duration,
    /// Recovery, targets, tearing, sleep, controllers' `end_step`.
    pub end: Duration,
    /// The whole step.
    pub total: Duration,
}

impl StepProfile {
    /// The stages in the order they run, with their names.
    #[must_use]
    pub fn stages(&self) -> [(&'static str, Duration); 11] {
        [
            ("begin", self.begin),
            ("predict", self.predict),
            ("gather", self.gather),
            ("integrate", self.integrate),
            ("ropes", self.ropes),
            ("constraints", self.constraints),
            ("controllers", self.controllers),
            ("contacts", self.contacts),
            ("impact", self.impact),
            ("velocity", self.velocity),
            ("end", self.end),
        ]
    }
}

impl core::ops::AddAssign for StepProfile {
    /// Sums stage by stage (totals over several steps).
    fn add_assign(&mut self, o: Self) {
        self.begin += o.begin;
        self.predict += o.predict;
        self.gather += o.gather;
        self.integrate += o.integrate;
        self.ropes += o.ropes;
        self.constraints += o.constraints;
        self.controllers += o.controllers;
        self.contacts += o.contacts;
        self.impact += o.impact;
        self.velocity += o.velocity;
        self.end += o.end;
        self.total += o.total;
    }
}

/// Laps of the step's clock, when profiling.
struct Clock {
    start: Option<std::time::Instant>,
    last: Option<std::time::Instant>,
}

impl Clock {
    fn new(on: bool) -> Self {
        let now = on.then(std::time::Instant::now);
        Self { start: now, last: now }
    }
    /// Adds the time since the last lap to `d`.
    #[inline]
    fn lap(&mut self, d: &mut Duration) {
        if let Some(last) = self.last {
            let now = std::time::Instant::now();
            *d += now - last;
            self.last = Some(now);
        }
    }
    fn total(&self) -> Duration {
        self.start.map_or(Duration::ZERO, |s| s.elapsed())
    }
}

/// The particles the substep's contacts pushed, for the trees' solves after contacts.
fn fill_pushed<S: Space>(
    trees: &mut crate::constraint::tree::Trees<S>,
    ps: &crate::particle::ParticleSet<S>,
    contacts: &[crate::contact::Contact<S>],
) {
    let zero = RealOf::<S>::ZERO;
    trees.pushed.clear();
    trees.pushed.extend(contacts.iter().filter(|c| c.dn > zero).map(|c| {
        // Held by static friction (as the contact solve decides it): heavy in every
        // direction; else along the normal only.
        let k = c.particle as usize;
        let d = ps.pos[k] - ps.prev[k];
        let t = d - c.normal * c.normal.dot(d);
        (c.particle, c.normal, c.mu_s > zero && t.length_squared() <= (c.mu_s * c.dn).sq())
    }));
}

/// The contact planes of the struck trees' particles, for the rows of their solve after
/// contacts: every contact's (acted or not) and the step's plane of every collider pair
/// gathered for them (a particle beside a contact, with none of its own this substep).
fn fill_planes<S: Space>(
    trees: &mut crate::constraint::tree::TreeSolver<S>,
    contacts: &[crate::contact::Contact<S>],
    scratch: &crate::contact::ContactScratch<S>,
) {
    let mut planes = core::mem::take(&mut trees.extra.planes);
    planes.clear();
    planes.extend(contacts.iter().filter(|c| trees.is_struck(c.particle)).map(|c| (c.particle, c.normal, c.d)));
    let mut lo = 0;
    for p in &scratch.probes {
        let pairs = &scratch.pairs[lo..p.pairs_end as usize];
        lo = p.pairs_end as usize;
        if !trees.is_struck(p.particle) {
            continue;
        }
        let z = VecOf::<S>::ZERO;
        planes.extend(pairs.iter().filter(|q| q.normal != z).map(|q| (p.particle, q.normal, q.d)));
    }
    trees.extra.planes = planes;
}

impl<S: Space> World<S> {
    /// Advances the world by `dt` seconds.
    ///
    /// `dt` must be finite and positive (else [`SinewError::InvalidTimeStep`] and nothing
    /// changes); a `dt` above `max_time_step` is clamped to it and reported.
    pub fn step(&mut self, dt: RealOf<S>) -> Result<StepReport, SinewError> {
        self.step_with(dt, &mut |_: &mut SubstepSolver<'_, S>| {})
    }

    /// Like [`World::step`], with user constraints: `custom` runs in every constraint
    /// iteration of every substep, after the world's constraints and controllers and
    /// before contacts. It receives the particles and the substep constants and projects
    /// whatever it likes — deterministic as long as it is. (Machinery with state of its
    /// own belongs in a [`crate::controller::Controller`], which snapshots save.)
    pub fn step_with(
        &mut self,
        dt: RealOf<S>,
        custom: &mut dyn FnMut(&mut SubstepSolver<'_, S>),
    ) -> Result<StepReport, SinewError> {
        if !dt.is_finite() || !(dt > RealOf::<S>::ZERO) {
            return Err(SinewError::InvalidTimeStep { dt: dt.to_f64() });
        }
        let mut report = StepReport::default();
        let max = self.state.def.max_time_step;
        let dt = if dt > max {
            report.clamped_dt = true;
            max
        } else {
            dt
        };
        // The stages are `#[inline(never)]`: inlined, they made this one huge function
        // whose registers spilled across all of them; out of line, each loop gets its own
        // allocation (about 2.5% faster on the 1000-ragdoll benchmark, for a handful of
        // calls per substep).
        let mut profile = super::StepProfile::default();
        let mut clock = Clock::new(self.scratch.profiling);
        let n = self.state.def.substeps;
        let h = dt / RealOf::<S>::from_i32(n as i32);
        let ctx = SubstepContext::new(h);
        let params = self.state.def.contact_params(h);
        self.begin_step(dt);
        clock.lap(&mut profile.begin);
        self.predict(&ctx);
        clock.lap(&mut profile.predict);
        self.gather(&params, dt);
        clock.lap(&mut profile.gather);
        for s in 0..n {
            let f0 = RealOf::<S>::from_i32(s as i32) / RealOf::<S>::from_i32(n as i32);
            let f1 = RealOf::<S>::from_i32(s as i32 + 1) / RealOf::<S>::from_i32(n as i32);
            self.integrate(h, f1);
            clock.lap(&mut profile.integrate);
            for it in 0..self.state.def.iterations {
                let first = it == 0;
                self.solve_ropes(&ctx, (first, s == 0));
                clock.lap(&mut profile.ropes);
                self.solve_constraints(&ctx, first);
                clock.lap(&mut profile.constraints);
                self.solve_controllers(&ctx, (s, it, n), custom);
                clock.lap(&mut profile.controllers);
                if first {
                    self.detect_contacts(&params, (f0, f1, h));
                }
                self.solve_contacts(h);
                clock.lap(&mut profile.contacts);
            }
            self.impact_passes(&params, &ctx, s + 1 == n);
            clock.lap(&mut profile.impact);
            self.velocities(&params, &ctx, f0);
            clock.lap(&mut profile.velocity);
            if !self.state.ropes.is_empty() {
                crate::rope::tension::accumulate(&self.state.ropes, &mut self.scratch.tension);
            }
        }
        self.end_step(dt, h, &mut report);
        clock.lap(&mut profile.end);
        profile.total = clock.total();
        self.scratch.profile = profile;
        Ok(report)
    }

    /// Turns per-stage timing of steps on or off (see [`StepProfile`]).
    pub fn set_profiling(&mut self, on: bool) {
        self.scratch.profiling = on;
    }

    /// Where the last step's time went (zero unless profiling is on).
    #[must_use]
    pub fn profile(&self) -> &StepProfile {
        &self.scratch.profile
    }

    /// The last substep's particle–collider contacts: `(particle slot, collider slot,
    /// normal, push)`, the push being how far the contact moved the particle (m; 0 for a
    /// contact that was found but did not act).
    pub fn contacts(&self) -> impl Iterator<Item = (usize, usize, VecOf<S>, RealOf<S>)> + '_ {
        self.scratch.contacts.iter().map(|c| (c.particle as usize, c.collider as usize, c.normal, c.dn))
    }

    // ------------------------------------------------------------------ stages

    /// Drivers, the broad phase, waking and wind, controllers' `begin_step`.
    fn begin_step(&mut self, dt: RealOf<S>) {
        let st = &mut self.state;
        if !st.ropes.is_empty() {
            crate::rope::taut::solve::switch(&mut st.ropes, &mut st.particles, &st.colliders, &mut self.scratch.taut);
        }
        let t_end = st.time + dt;
        for slot in crate::driver::drive(&mut st.drivers, &mut st.particles, st.time, t_end) {
            self.wake_ropes_with_slot(slot);
        }
        self.update_broad_phase();
        let st = &mut self.state;
        let substeps = st.def.substeps;
        let chain = &mut self.scratch.chain;
        crate::rope::solve::begin_step(&mut st.ropes, &mut st.particles, &st.colliders, substeps, chain);
        if !st.ropes.is_empty() {
            crate::rope::tension::begin(&st.ropes, &mut self.scratch.tension);
        }
        crate::sleep::wake_groups(&mut st.sleep_groups, &st.particles, &st.colliders, substeps);
        let mut step = StepContext { particles: &mut st.particles, dt, time: st.time };
        for c in st.controllers.values_mut() {
            c.begin_step(&mut step);
        }
    }

    /// Rebuilds the broad phase if colliders were added, removed or moved. A new
    /// generation (every cached list of colliders invalid) only when the colliders or the
    /// set of those that move changed: while the same colliders keep moving, the static
    /// ones' lists stay valid (see "Contact anchors" in [`crate::contact`]).
    fn update_broad_phase(&mut self) {
        let (st, d) = (&self.state, &mut self.derived);
        let any_moving = st.colliders.values().any(|c| c.is_moving());
        if !(d.broad_phase_dirty || any_moving) {
            return;
        }
        let moving = || st.colliders.iter().map(|(h, c)| (h.index, c.is_moving()));
        let restructure = d.broad_phase_restructure || !moving().eq(d.moving_colliders.iter().copied());
        if restructure {
            d.moving_colliders = moving().collect();
        }
        let slots = st.colliders.capacity_slots();
        let n = st.def.substeps;
        let boxes = st.colliders.iter().map(|(h, c)| (h.index, c.swept_aabb(n)));
        d.broad_phase.rebuild::<RealOf<S>>(boxes, slots, restructure);
        d.broad_phase_dirty = any_moving;
        d.broad_phase_restructure = false;
    }

    /// The per-step particle lists (what sleeps, what collides, the velocity each substep
    /// adds), the constraint order if constraints changed, and the links' denominators.
    fn predict(&mut self, ctx: &SubstepContext<RealOf<S>>) {
        let (st, sc) = (&mut self.state, &mut self.scratch);
        let pr = &mut sc.prediction;
        let n = st.particles.pos.len();
        crate::rope::solve::particle_flags(&st.ropes, n, &mut pr.sleeping, &mut pr.extra_reach);
        crate::sleep::mark_sleeping_groups(&st.sleep_groups, &mut pr.sleeping);
        // The trees' shape depends on which particles are pinned (read before sleeping
        // particles are made immovable for the step: sleep does not reshape a tree).
        let d = &mut self.derived;
        d.order.dirty |= d.order.trees.pins_changed(&st.particles);
        if d.order.dirty {
            let how = (st.def.constraint_order, st.def.tree_solve);
            d.order.build(how, &st.particles, &st.distances, &st.limits);
            if st.def.impact_passes > 0 {
                d.groups.rebuild::<S>(n, &st.distances, &st.limits);
            } else {
                d.groups = Default::default();
            }
        }
        pr.prepare(&mut st.particles, st.def.gravity, ctx.h);
        // No contacts this step for a particle that is not dynamic and colliding: its
        // anchor is where the step starts, and none is kept.
        for &k in &pr.released {
            st.anchors.release(k as usize, st.particles.pos[k as usize]);
        }
        // All links rigid (a crowd of ragdolls): the rows take their denominators straight
        // from the particles; else every link is prepared and projected on its own.
        let d = &mut self.derived;
        d.order.trees.prepare(&st.particles);
        // 2D only: in 3D the swing–twist rows left thrown bodies moving at 2–3 m/s after
        // 5 s (see `WorldDef::limit_rows`).
        d.order.trees.set_limit_rows(st.def.limit_rows && S::DIM == 2);
        sc.distances_rigid = d.order.link_rows.fill(&st.distances, &st.particles);
        if !sc.distances_rigid {
            for c in st.distances.values_mut() {
                c.prepare(&st.particles, ctx);
            }
        }
    }

    /// Collider pairs and planes for the particles, then for the rope spans.
    fn gather(&mut self, params: &ContactParams<RealOf<S>>, dt: RealOf<S>) {
        let (st, d, sc) = (&mut self.state, &mut self.derived, &mut self.scratch);
        let pr = &sc.prediction;
        let g = Gather {
            params,
            particles: &st.particles,
            anchors: &mut st.anchors,
            colliders: &st.colliders,
            broad_phase: &mut d.broad_phase,
            scratch: &mut sc.contact,
            colliding: &pr.dynamic_colliding,
            dv: &pr.dv,
            extra_reach: &pr.extra_reach,
        };
        gather_candidates(g, dt);
        // The trees in flight (no collider within reach) are solved to the Newton
        // tolerance only (see `constraint::tree`).
        if !d.order.trees.is_empty() {
            d.order.trees.mark_near(sc.contact.probes.iter().map(|p| p.particle));
        }
        self.spans(params).gather();
        self.gather_bodies(dt);
    }

    /// The body contacts' primitives and pair list (see [`crate::contact::bodies`]).
    fn gather_bodies(&mut self, dt: RealOf<S>) {
        let (st, sc) = (&self.state, &mut self.scratch);
        if !st.def.body_contacts {
            sc.bodies.clear();
            return;
        }
        let g = BodyGather {
            state: &st.bodies,
            particles: &st.particles,
            distances: &st.distances,
            ropes: &st.ropes,
            gravity: st.def.gravity,
        };
        sc.bodies.gather(&g, dt);
    }

    /// The span-contact stage's view of the world.
    fn spans<'a>(&'a mut self, params: &'a ContactParams<RealOf<S>>) -> Spans<'a, S> {
        let (st, d, sc) = (&self.state, &mut self.derived, &mut self.scratch);
        Spans {
            params,
            particles: &st.particles,
            anchors: &st.anchors,
            colliders: &st.colliders,
            broad_phase: &mut d.broad_phase,
            ropes: &st.ropes,
            contact: &sc.contact,
            edge: &mut sc.edge,
            edge_contacts: &mut sc.edge_contacts,
        }
    }

    /// The prediction (compiled for AVX2 too, see `ParticleSet::integrate`).
    fn integrate(&mut self, h: RealOf<S>, f1: RealOf<S>) {
        crate::rope::solve::apply_drag(&self.state.ropes, &mut self.state.particles, h);
        let damping = self.state.def.damping;
        self.state.particles.integrate(&self.scratch.prediction, damping, h, f1);
    }

    fn solve_ropes(&mut self, ctx: &SubstepContext<RealOf<S>>, first: (bool, bool)) {
        let (st, sc) = (&mut self.state, &mut self.scratch);
        let taut = (&st.colliders, st.def.friction, &mut sc.taut);
        sc.chain.gravity = st.def.gravity;
        crate::rope::solve::solve_ropes(&mut st.ropes, &mut st.particles, &mut sc.chain, ctx, first, taut);
    }

    fn solve_constraints(&mut self, ctx: &SubstepContext<RealOf<S>>, first: bool) {
        let st = &mut self.state;
        let sweep = Sweep {
            distances: &mut st.distances,
            bendings: &mut st.bendings,
            tethers: &st.tethers,
            attachments: &mut st.attachments,
            limits: &mut st.limits,
            order: &mut self.derived.order,
            distances_rigid: self.scratch.distances_rigid,
        };
        sweep::solve(sweep, &mut st.particles, ctx, first);
    }

    /// Controllers in the order they were added, then the `step_with` callback.
    fn solve_controllers(
        &mut self,
        ctx: &SubstepContext<RealOf<S>>,
        (substep, iteration, substeps): (u32, u32, u32),
        custom: &mut dyn FnMut(&mut SubstepSolver<'_, S>),
    ) {
        let st = &mut self.state;
        let mut s = SubstepSolver { particles: &mut st.particles, ctx, substep, iteration, substeps };
        for c in st.controllers.values_mut() {
            c.solve(&mut s);
        }
        custom(&mut s);
    }

    fn detect_contacts(&mut self, params: &ContactParams<RealOf<S>>, (f0, f1, h): (RealOf<S>, RealOf<S>, RealOf<S>)) {
        let (st, d, sc) = (&self.state, &mut self.derived, &mut self.scratch);
        let det = Detect {
            params,
            particles: &st.particles,
            anchors: &st.anchors,
            colliders: &st.colliders,
            broad_phase: &mut d.broad_phase,
            scratch: &mut sc.contact,
            contacts: &mut sc.contacts,
        };
        detect_contacts(det, f0, f1, h);
        self.spans(params).detect(f1);
        let (st, sc) = (&self.state, &mut self.scratch);
        if st.def.body_contacts {
            // The time left in the step from this substep's start.
            let rest = h * RealOf::<S>::from_i32(st.def.substeps as i32) * (RealOf::<S>::ONE - f0);
            sc.bodies.check(&st.bodies, &st.particles, st.def.gravity, rest);
        }
    }

    fn solve_contacts(&mut self, h: RealOf<S>) {
        let def = &self.state.def;
        if def.body_contacts {
            // Before the collider contacts, which have the last word.
            let mu = (def.friction, def.static_friction.unwrap_or(def.friction));
            self.scratch.bodies.solve(&mut self.state.particles, mu);
        }
        let (ps, sc) = (&mut self.state.particles, &mut self.scratch);
        solve_contacts(ps, &mut sc.contacts, h);
        solve_edge_contacts(ps, &mut sc.edge_contacts);
        // The bones of the trees a contact pushed, back to their lengths.
        let trees = &mut self.derived.order.trees;
        if !trees.is_empty() {
            fill_pushed(trees, ps, &sc.contacts);
            // Bones a body contact pushed too: heavy along the push.
            trees.pushed.extend(sc.bodies.pushed.iter().map(|&(k, n)| (k, n, false)));
            if trees.limit_rows() {
                let (contacts, scratch) = (&sc.contacts, &sc.contact);
                trees.solve_after_contacts_with_rows(ps, &mut self.state.limits, |t| {
                    fill_planes(t, contacts, scratch);
                });
            } else {
                trees.solve_after_contacts(ps);
            }
        }
    }

    /// The links' multipliers at the last substep, then the impact passes.
    fn impact_passes(&mut self, params: &ContactParams<RealOf<S>>, ctx: &SubstepContext<RealOf<S>>, last: bool) {
        let (st, d, sc) = (&mut self.state, &mut self.derived, &mut self.scratch);
        if sc.distances_rigid && last {
            // The links' multipliers: the last substep's, for the force readouts (the
            // impact passes take those of the groups they re-project).
            d.order.link_rows.store_lambdas(&mut st.distances);
        }
        if last {
            d.order.trees.store_lambdas(&mut st.distances);
        }
        if st.def.impact_passes == 0 || d.groups.of.is_empty() {
            return;
        }
        Impacts {
            passes: st.def.impact_passes,
            params,
            particles: &mut st.particles,
            distances: &mut st.distances,
            limits: &mut st.limits,
            colliders: &st.colliders,
            groups: &mut d.groups,
            group_solver: &mut sc.group_solver,
            link_rows: &d.order.link_rows,
            distances_rigid: sc.distances_rigid,
            contacts: &mut sc.contacts,
            contact: &sc.contact,
        }
        .run(ctx, ctx.h);
    }

    /// `v = (x − x_prev)/h`, then dynamic friction and restitution.
    fn velocities(&mut self, params: &ContactParams<RealOf<S>>, ctx: &SubstepContext<RealOf<S>>, f0: RealOf<S>) {
        let (st, sc) = (&mut self.state, &mut self.scratch);
        let trees = &mut self.derived.order.trees;
        // The whole-body bounce reads the bodies' momentum before the solve: the particles'
        // `vel` still holds the prediction's velocities here.
        let bounce = st.def.body_restitution && !trees.is_empty();
        if !bounce {
            st.impacts.0.clear();
        }
        let bouncing = bounce
            && (!sc.contacts.is_empty() || !st.impacts.0.is_empty())
            && crate::contact::bounce::begin(
                &mut sc.bounce,
                trees,
                &st.particles,
                &sc.contacts,
                &mut st.impacts,
                params.rest_speed,
                ctx.inv_h,
            );
        st.particles.update_velocities(ctx.inv_h);
        let pass = VelocityPass {
            particles: &mut st.particles,
            colliders: &st.colliders,
            contacts: &sc.contacts,
            edge_contacts: &sc.edge_contacts,
            span_push: &mut sc.contact.span_push,
            rest_speed: params.rest_speed,
            bounced: &mut sc.contact.bounced,
            whole_bodies: if bounce { Some(trees) } else { None },
        };
        velocity_pass(pass, ctx, f0);
        // A bounce shared by the whole body: the bones' velocity rows solved with the
        // contacts' particles heavy (see "Restitution" in `crate::contact`).
        if !trees.is_empty() && !sc.contact.bounced.is_empty() {
            fill_pushed(trees, &st.particles, &sc.contacts);
            trees.solve_velocities(&mut st.particles, &sc.contact.bounced);
        }
        if bouncing {
            let (h, rest) = (ctx.h, params.rest_speed);
            crate::contact::bounce::finish(&sc.bounce, trees, &mut st.particles, &mut st.impacts, h, rest);
        }
    }

    /// Recovery of non-finite particles, forces cleared, targets reached, colliders
    /// settled, the clock, tearing, sleep, controllers' `end_step`.
    fn end_step(&mut self, dt: RealOf<S>, h: RealOf<S>, report: &mut StepReport) {
        let (st, sc) = (&mut self.state, &mut self.scratch);
        if !st.ropes.is_empty() {
            for r in st.ropes.values_mut().filter(|r| r.taut.active && !r.sleep.sleeping) {
                crate::rope::taut::solve::end_step(r, &mut st.particles, &st.colliders, dt, &mut sc.taut);
            }
            crate::rope::tension::settle(&mut st.ropes, &sc.tension, st.def.substeps);
        }
        let acted = sc.contacts.iter().filter(|c| c.dn > RealOf::<S>::ZERO).count();
        report.contacts = (acted + sc.edge_contacts.len()) as u32;
        report.regathered = sc.contact.regathered;
        report.impacts = st.impacts.0.len() as u32;
        sc.recovered.clear();
        st.particles.recover_non_finite(&mut sc.recovered);
        for &k in &sc.recovered {
            st.anchors.forget(k as usize);
        }
        report.recovered_particles = sc.recovered.len() as u32;
        sc.prediction.wake_masses(&mut st.particles);
        // Forces are per step, targets are reached exactly, colliders settle.
        let ps = &mut st.particles;
        ps.force.iter_mut().for_each(|f| *f = VecOf::<S>::ZERO);
        for &k in &sc.prediction.kinematic {
            if let Some(t) = ps.target[k as usize].take() {
                ps.pos[k as usize] = t;
            }
        }
        for c in st.colliders.values_mut() {
            c.prev_position = c.position;
            c.prev_rotation = c.rotation;
        }
        st.time = st.time_carry.add(st.time, dt);
        st.step_count += 1;
        st.last_h = h;
        if !st.ropes.is_empty() {
            for (r, segment) in crate::rope::solve::overloaded(&st.ropes, h) {
                let _ = self.cut_rope(r, segment);
            }
            let st = &mut self.state;
            crate::rope::solve::settle(&mut st.ropes, &mut st.particles);
        }
        let st = &mut self.state;
        crate::sleep::settle_groups(&mut st.sleep_groups, &mut st.particles);
        let mut step = StepContext { particles: &mut st.particles, dt, time: st.time };
        for c in st.controllers.values_mut() {
            c.end_step(&mut step);
        }
    }
}
