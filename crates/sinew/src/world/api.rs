//! Creating, reading, changing and removing what a world holds: particles, constraints,
//! drivers, colliders, sleep groups and controllers. Every input is validated (an error
//! names the value); removing an item cleans every structure that names it.

use super::World;
use crate::SinewError;
use crate::arena::Arena;
use crate::collider::{Collider, ColliderDef, ColliderHandle};
use crate::constraint::{
    Attachment, AttachmentDef, AttachmentHandle, Bending, BendingDef, BendingHandle, Distance, DistanceDef,
    DistanceHandle, JointLimit, JointLimitHandle, SubstepContext, Tether, TetherDef, TetherHandle,
};
use crate::controller::{Controller, ControllerHandle, not_found};
use crate::driver::{DriverDef, DriverHandle, KeyframeDriver};
use crate::limits::Limits;
use crate::math::{Real, Rotation, Vector};
use crate::particle::{ParticleDef, ParticleHandle, check_coordinates, in_range};
use crate::rope::RopeHandle;
use crate::sleep::{SleepGroup, SleepGroupHandle};
use crate::space::{RealOf, RotOf, Space, VecOf};

impl<S: Space> World<S> {
    // ----------------------------------------------------------------- particles

    /// Adds a particle.
    pub fn add_particle(&mut self, def: &ParticleDef<S>) -> Result<ParticleHandle, SinewError> {
        Limits::check("particles", self.state.particles.len(), 1, self.state.def.limits.particles)?;
        check_coordinates(def.position, "particle position")?;
        check_coordinates(def.velocity, "particle velocity")?;
        let zero = RealOf::<S>::ZERO;
        if !def.mass.is_finite() || def.mass < zero {
            return Err(SinewError::InvalidParameter {
                what: "particle mass",
                reason: "must be finite and ≥ 0",
                value: Some(def.mass.to_f64()),
            });
        }
        // A mass so small that its inverse overflows (a denormal f32, 2⁻³² kg in fixed
        // point) would freeze or launch the particle: refused. (0 is a pin, on purpose.)
        if def.mass > zero && !in_range(RealOf::<S>::ONE / def.mass) {
            return Err(SinewError::InvalidParameter {
                what: "particle mass",
                reason: "too small for the number type (its inverse overflows); 0 pins a particle",
                value: Some(def.mass.to_f64()),
            });
        }
        if !def.radius.is_finite() || def.radius < zero {
            return Err(SinewError::InvalidParameter {
                what: "particle radius",
                reason: "must be finite and ≥ 0",
                value: Some(def.radius.to_f64()),
            });
        }
        if !def.gravity_scale.is_finite() {
            return Err(SinewError::NonFinite { what: "particle gravity_scale" });
        }
        if let Some(f) = def.friction
            && (!f.is_finite() || f < zero)
        {
            return Err(SinewError::InvalidParameter {
                what: "particle friction",
                reason: "must be finite and ≥ 0",
                value: Some(f.to_f64()),
            });
        }
        let body = match def.body {
            Some(b) if b.0 >= self.state.bodies.next => {
                return Err(SinewError::InvalidParameter {
                    what: "particle body",
                    reason: "not made by this world's new_body",
                    value: Some(f64::from(b.0)),
                });
            }
            Some(b) => b.0,
            None => crate::contact::bodies::NO_BODY,
        };
        let h = self.state.particles.insert(def);
        // Written only where it differs from the default (no body), so that worlds
        // without bodies hold no body list.
        if def.body.is_some() || h.index() < self.state.bodies.body.len() {
            crate::contact::bodies::BodyState::set(&mut self.state.bodies.body, h.index(), body);
        }
        // A reused slot starts clean: no anchor (no structure names a removed particle's
        // slot, see `remove_particle`).
        self.state.anchors.reset(h.index(), def.position);
        Ok(h)
    }

    /// Removes a particle and cleans everything that names it: the constraints and drivers
    /// that use it are removed; a rope loses it (an end particle takes its segment with
    /// it, an inner one splits the rope in two, see [`World::cut_rope`]); sleep groups drop
    /// it; controllers are told ([`Controller::particle_removed`]). A new particle may
    /// reuse its slot and inherits none of it.
    pub fn remove_particle(&mut self, h: ParticleHandle) -> Result<(), SinewError> {
        self.state.particles.check(h)?;
        let k = h.index() as u32;
        // Every rope that names it (an attached particle can end several ropes).
        loop {
            let found =
                self.state.ropes.iter().find_map(|(r, rope)| rope.idx.iter().position(|&i| i == k).map(|i| (r, i)));
            let Some((r, i)) = found else { break };
            crate::rope::tear::detach(&mut self.state.ropes, RopeHandle(r), i)?;
        }
        self.remove_rope_particle_unchecked(h);
        Ok(())
    }

    /// [`World::remove_particle`] for a live particle no rope names any more.
    pub(crate) fn remove_rope_particle_unchecked(&mut self, h: ParticleHandle) {
        let st = &mut self.state;
        let k = h.index();
        retain(&mut st.distances, |c| c.a as usize != k && c.b as usize != k);
        retain(&mut st.tethers, |c| c.particle as usize != k && c.anchor as usize != k);
        retain(&mut st.bendings, |c| c.a as usize != k && c.b as usize != k && c.c as usize != k);
        retain(&mut st.attachments, |c| c.particle as usize != k);
        retain(&mut st.limits, |c| !c.particle_indices().contains(&k));
        retain(&mut st.drivers, |d| d.particle != h);
        for g in st.sleep_groups.values_mut() {
            g.idx.retain(|&i| i as usize != k);
        }
        for c in st.controllers.values_mut() {
            c.particle_removed(h);
        }
        st.anchors.forget(k);
        st.particles.remove(h);
        self.derived.order.dirty = true;
        // This substep's contacts name it (read-outs, debug drawing).
        self.scratch.contacts.retain(|c| c.particle as usize != k);
        self.scratch.edge_contacts.retain(|c| c.a as usize != k && c.b as usize != k);
    }

    // --------------------------------------------------------------- constraints

    /// Distances, tethers, bendings, attachments and joint limits (what
    /// [`Limits::constraints`] counts).
    #[must_use]
    pub fn constraint_count(&self) -> usize {
        let st = &self.state;
        st.distances.len() + st.tethers.len() + st.bendings.len() + st.attachments.len() + st.limits.len()
    }

    fn check_constraint_limit(&self) -> Result<(), SinewError> {
        Limits::check("constraints", self.constraint_count(), 1, self.state.def.limits.constraints)
    }

    /// Adds a distance constraint.
    pub fn add_distance(&mut self, def: &DistanceDef<S>) -> Result<DistanceHandle, SinewError> {
        self.check_constraint_limit()?;
        let ps = &self.state.particles;
        ps.check(def.a)?;
        ps.check(def.b)?;
        if def.a == def.b {
            return Err(SinewError::InvalidParameter {
                what: "distance",
                reason: "particles must differ",
                value: None,
            });
        }
        let rest = match def.length {
            Some(l) => l,
            None => ps.pos[def.a.index()].distance(ps.pos[def.b.index()]),
        };
        check_params(&[
            (rest, "distance length"),
            (def.compliance, "distance compliance"),
            (def.damping, "distance damping"),
        ])?;
        let c = Distance::new(def.a.index(), def.b.index(), rest, def.compliance, def.damping, def.unilateral);
        self.derived.order.dirty = true;
        Ok(DistanceHandle(self.state.distances.insert(c)))
    }

    /// Removes a distance constraint.
    pub fn remove_distance(&mut self, h: DistanceHandle) -> Result<(), SinewError> {
        self.state.distances.remove(h.0).ok_or(SinewError::InvalidHandle { what: "distance", handle: Some(h.0) })?;
        self.derived.order.dirty = true;
        Ok(())
    }

    /// A distance constraint.
    pub fn distance(&self, h: DistanceHandle) -> Result<&Distance<RealOf<S>>, SinewError> {
        self.state.distances.get(h.0).ok_or(SinewError::InvalidHandle { what: "distance", handle: Some(h.0) })
    }

    fn distance_mut(&mut self, h: DistanceHandle) -> Result<&mut Distance<RealOf<S>>, SinewError> {
        self.state.distances.get_mut(h.0).ok_or(SinewError::InvalidHandle { what: "distance", handle: Some(h.0) })
    }

    /// Sets a distance constraint's rest length (m, finite, ≥ 0).
    pub fn set_distance_length(&mut self, h: DistanceHandle, length: RealOf<S>) -> Result<(), SinewError> {
        check_params(&[(length, "distance length")])?;
        self.distance_mut(h)?.rest = length;
        Ok(())
    }

    /// Sets a distance constraint's compliance (m/N, finite, ≥ 0; 0 is rigid).
    pub fn set_distance_compliance(&mut self, h: DistanceHandle, compliance: RealOf<S>) -> Result<(), SinewError> {
        check_params(&[(compliance, "distance compliance")])?;
        let c = self.distance_mut(h)?;
        let was_rigid = c.is_rigid();
        c.compliance = compliance;
        // Rigid links are tree-solved, the others projected.
        self.derived.order.dirty |= was_rigid != self.distance(h)?.is_rigid();
        Ok(())
    }

    /// Sets a distance constraint's damping (N·s/m, finite, ≥ 0).
    pub fn set_distance_damping(&mut self, h: DistanceHandle, damping: RealOf<S>) -> Result<(), SinewError> {
        check_params(&[(damping, "distance damping")])?;
        self.distance_mut(h)?.damping = damping;
        Ok(())
    }

    /// Tension (N) carried by a distance constraint in the last substep (positive = pulling).
    pub fn distance_tension(&self, h: DistanceHandle) -> Result<RealOf<S>, SinewError> {
        let c = self.distance(h)?;
        Ok(self.lambda_to_force(-c.lambda))
    }

    /// Adds a tether.
    pub fn add_tether(&mut self, def: &TetherDef<S>) -> Result<TetherHandle, SinewError> {
        self.check_constraint_limit()?;
        let ps = &self.state.particles;
        ps.check(def.particle)?;
        ps.check(def.anchor)?;
        if def.particle == def.anchor {
            return Err(SinewError::InvalidParameter { what: "tether", reason: "particles must differ", value: None });
        }
        let len = match def.length {
            Some(l) => l,
            None => ps.pos[def.particle.index()].distance(ps.pos[def.anchor.index()]),
        };
        check_params(&[(len, "tether length")])?;
        Ok(TetherHandle(self.state.tethers.insert(Tether::new(def.particle.index(), def.anchor.index(), len))))
    }

    /// Removes a tether.
    pub fn remove_tether(&mut self, h: TetherHandle) -> Result<(), SinewError> {
        self.state
            .tethers
            .remove(h.0)
            .map(|_| ())
            .ok_or(SinewError::InvalidHandle { what: "tether", handle: Some(h.0) })
    }

    /// Adds a bending constraint.
    pub fn add_bending(&mut self, def: &BendingDef<S>) -> Result<BendingHandle, SinewError> {
        self.check_constraint_limit()?;
        for h in [def.a, def.b, def.c] {
            self.state.particles.check(h)?;
        }
        if def.a == def.b || def.b == def.c || def.a == def.c {
            return Err(SinewError::InvalidParameter { what: "bending", reason: "particles must differ", value: None });
        }
        let p = &self.state.particles.pos;
        let rest = def.rest.unwrap_or_else(|| Bending::measure(p[def.a.index()], p[def.b.index()], p[def.c.index()]));
        check_params(&[(rest, "bending rest"), (def.compliance, "bending compliance")])?;
        let c = Bending::new(def.a.index(), def.b.index(), def.c.index(), rest, def.compliance);
        Ok(BendingHandle(self.state.bendings.insert(c)))
    }

    /// Removes a bending constraint.
    pub fn remove_bending(&mut self, h: BendingHandle) -> Result<(), SinewError> {
        self.state
            .bendings
            .remove(h.0)
            .map(|_| ())
            .ok_or(SinewError::InvalidHandle { what: "bending", handle: Some(h.0) })
    }

    /// Adds an attachment to a world-space target.
    pub fn add_attachment(&mut self, def: &AttachmentDef<S>) -> Result<AttachmentHandle, SinewError> {
        self.check_constraint_limit()?;
        self.state.particles.check(def.particle)?;
        check_coordinates(def.target, "attachment target")?;
        check_params(&[
            (def.length, "attachment length"),
            (def.compliance, "attachment compliance"),
            (def.damping, "attachment damping"),
        ])?;
        Ok(AttachmentHandle(self.state.attachments.insert(Attachment::new(def.particle.index(), def))))
    }

    /// Moves an attachment's target.
    pub fn set_attachment_target(&mut self, h: AttachmentHandle, target: VecOf<S>) -> Result<(), SinewError> {
        check_coordinates(target, "attachment target")?;
        let a = self
            .state
            .attachments
            .get_mut(h.0)
            .ok_or(SinewError::InvalidHandle { what: "attachment", handle: Some(h.0) })?;
        a.target = target;
        Ok(())
    }

    /// Force (N) an attachment applied in the last substep, toward its target.
    pub fn attachment_force(&self, h: AttachmentHandle) -> Result<VecOf<S>, SinewError> {
        let a = self
            .state
            .attachments
            .get(h.0)
            .ok_or(SinewError::InvalidHandle { what: "attachment", handle: Some(h.0) })?;
        if self.state.last_h == RealOf::<S>::ZERO {
            return Ok(VecOf::<S>::ZERO);
        }
        Ok(a.force(&SubstepContext::new(self.state.last_h)))
    }

    /// Removes an attachment.
    pub fn remove_attachment(&mut self, h: AttachmentHandle) -> Result<(), SinewError> {
        self.state
            .attachments
            .remove(h.0)
            .map(|_| ())
            .ok_or(SinewError::InvalidHandle { what: "attachment", handle: Some(h.0) })
    }

    /// Adds a joint limit ([`crate::AngleLimitDef`] in 2D, [`crate::SwingTwistLimitDef`] in 3D).
    pub fn add_joint_limit(
        &mut self,
        def: &<S::JointLimit as JointLimit<S>>::Def,
    ) -> Result<JointLimitHandle, SinewError> {
        self.check_constraint_limit()?;
        let l = S::JointLimit::from_def(def, &self.state.particles)?;
        self.derived.order.dirty = true;
        Ok(JointLimitHandle(self.state.limits.insert(l)))
    }

    /// A joint limit.
    pub fn joint_limit(&self, h: JointLimitHandle) -> Result<&S::JointLimit, SinewError> {
        self.state.limits.get(h.0).ok_or(SinewError::InvalidHandle { what: "joint limit", handle: Some(h.0) })
    }

    /// Iterates joint limits.
    pub fn joint_limits(&self) -> impl Iterator<Item = (JointLimitHandle, &S::JointLimit)> {
        self.state.limits.iter().map(|(h, l)| (JointLimitHandle(h), l))
    }

    /// Removes a joint limit.
    pub fn remove_joint_limit(&mut self, h: JointLimitHandle) -> Result<(), SinewError> {
        self.state.limits.remove(h.0).ok_or(SinewError::InvalidHandle { what: "joint limit", handle: Some(h.0) })?;
        self.derived.order.dirty = true;
        Ok(())
    }

    /// Largest joint-limit violation (rad) over all limits.
    #[must_use]
    pub fn max_joint_violation(&self) -> RealOf<S> {
        let ps = &self.state.particles;
        self.state.limits.values().map(|l| l.violation(ps)).fold(RealOf::<S>::ZERO, |a, b| a.max(b))
    }

    /// Iterates distance constraints.
    pub fn distances(&self) -> impl Iterator<Item = (DistanceHandle, &Distance<RealOf<S>>)> {
        self.state.distances.iter().map(|(h, c)| (DistanceHandle(h), c))
    }

    /// Iterates tethers.
    pub fn tethers(&self) -> impl Iterator<Item = (TetherHandle, &Tether<RealOf<S>>)> {
        self.state.tethers.iter().map(|(h, c)| (TetherHandle(h), c))
    }

    /// Sum over distance constraints of `|length − rest|` (m): the total constraint error.
    #[must_use]
    pub fn total_distance_error(&self) -> RealOf<S> {
        let p = &self.state.particles.pos;
        let mut e = RealOf::<S>::ZERO;
        for c in self.state.distances.values() {
            let (a, b) = c.indices();
            let l = p[a].distance(p[b]);
            if !(c.unilateral && l < c.rest) {
                e += (l - c.rest).abs();
            }
        }
        e
    }

    // ------------------------------------------------------------------ drivers

    /// Adds a keyframe driver; the particle is pinned and placed on the path at the
    /// current time.
    pub fn add_driver(&mut self, def: &DriverDef<S>) -> Result<DriverHandle, SinewError> {
        self.state.particles.check(def.particle)?;
        let d = KeyframeDriver::from_def(def)?;
        if !d.relative {
            let p = d.sample(self.state.time);
            self.state.particles.pin(def.particle)?;
            self.state.particles.set_position(def.particle, p)?;
        }
        Ok(DriverHandle(self.state.drivers.insert(d)))
    }

    /// Removes a driver (the particle stays pinned where it is).
    pub fn remove_driver(&mut self, h: DriverHandle) -> Result<(), SinewError> {
        self.state
            .drivers
            .remove(h.0)
            .map(|_| ())
            .ok_or(SinewError::InvalidHandle { what: "driver", handle: Some(h.0) })
    }

    // ---------------------------------------------------------------- colliders

    /// Adds a collider.
    pub fn add_collider(&mut self, def: &ColliderDef<S>) -> Result<ColliderHandle, SinewError> {
        Limits::check("colliders", self.state.colliders.len(), 1, self.state.def.limits.colliders)?;
        let c = Collider::from_def(def)?;
        (self.derived.broad_phase_dirty, self.derived.broad_phase_restructure) = (true, true);
        self.state.anchors.drop_all();
        Ok(ColliderHandle(self.state.colliders.insert(c)))
    }

    /// Removes a collider. Every contact anchor is dropped (the particles near it gather
    /// afresh), and the last substep's contacts with it are forgotten.
    pub fn remove_collider(&mut self, h: ColliderHandle) -> Result<(), SinewError> {
        self.state.colliders.remove(h.0).ok_or(SinewError::InvalidHandle { what: "collider", handle: Some(h.0) })?;
        (self.derived.broad_phase_dirty, self.derived.broad_phase_restructure) = (true, true);
        self.state.anchors.drop_all();
        let slot = h.0.index;
        self.scratch.contacts.retain(|c| c.collider != slot);
        // (Span contacts hold no collider slot; they go with the next substep.)
        self.scratch.edge_contacts.clear();
        // Sleeping ropes and groups resting on it fall.
        for r in self.state.ropes.values_mut() {
            r.sleep.wake();
        }
        for g in self.state.sleep_groups.values_mut() {
            g.sleep.wake();
        }
        Ok(())
    }

    /// A collider.
    pub fn collider(&self, h: ColliderHandle) -> Result<&Collider<S>, SinewError> {
        self.state.colliders.get(h.0).ok_or(SinewError::InvalidHandle { what: "collider", handle: Some(h.0) })
    }

    /// Iterates colliders.
    pub fn colliders(&self) -> impl Iterator<Item = (ColliderHandle, &Collider<S>)> {
        self.state.colliders.iter().map(|(h, c)| (ColliderHandle(h), c))
    }

    /// Moves a collider. The next step sweeps it from its old pose to this one, so the
    /// particles it meets are pushed, not tunnelled, and feel its surface velocity.
    pub fn set_collider_pose(
        &mut self,
        h: ColliderHandle,
        position: VecOf<S>,
        rotation: RotOf<S>,
    ) -> Result<(), SinewError> {
        check_coordinates(position, "collider position")?;
        let rotation = rotation.renormalize();
        if !rotation.components().iter().all(|c| c.is_finite()) {
            return Err(SinewError::NonFinite { what: "collider rotation" });
        }
        let c = self
            .state
            .colliders
            .get_mut(h.0)
            .ok_or(SinewError::InvalidHandle { what: "collider", handle: Some(h.0) })?;
        c.position = position;
        c.rotation = rotation;
        // Contact anchors near its path are dropped at the next gathering (see "Contact
        // anchors" in `contact`); the rest stay.
        self.derived.broad_phase_dirty = true;
        Ok(())
    }

    // ------------------------------------------------------------- sleep groups

    /// Makes `particles` a sleep group (see [`crate::sleep`]).
    pub fn add_sleep_group(&mut self, particles: &[ParticleHandle]) -> Result<SleepGroupHandle, SinewError> {
        let g = crate::sleep::group_of(&self.state.particles, particles)?;
        Ok(SleepGroupHandle(self.state.sleep_groups.insert(g)))
    }

    /// A sleep group.
    pub fn sleep_group(&self, h: SleepGroupHandle) -> Result<&SleepGroup, SinewError> {
        self.state.sleep_groups.get(h.0).ok_or(SinewError::InvalidHandle { what: "sleep group", handle: Some(h.0) })
    }

    /// Iterates sleep groups.
    pub fn sleep_groups(&self) -> impl Iterator<Item = &SleepGroup> {
        self.state.sleep_groups.values()
    }

    /// Removes a sleep group (its particles stay, awake).
    pub fn remove_sleep_group(&mut self, h: SleepGroupHandle) -> Result<(), SinewError> {
        self.state
            .sleep_groups
            .remove(h.0)
            .map(|_| ())
            .ok_or(SinewError::InvalidHandle { what: "sleep group", handle: Some(h.0) })
    }

    /// Wakes a sleep group.
    pub fn wake_sleep_group(&mut self, h: SleepGroupHandle) -> Result<(), SinewError> {
        let g = self
            .state
            .sleep_groups
            .get_mut(h.0)
            .ok_or(SinewError::InvalidHandle { what: "sleep group", handle: Some(h.0) })?;
        g.sleep.wake();
        Ok(())
    }

    // -------------------------------------------------------------- controllers

    /// Adds a controller (see [`crate::controller`]); it acts from the next step on, after
    /// the controllers added before it.
    pub fn add_controller<T: Controller<S> + Clone>(&mut self, controller: T) -> ControllerHandle<T> {
        ControllerHandle::new(self.state.controllers.insert(Box::new(controller)))
    }

    /// A controller.
    pub fn controller<T: Controller<S>>(&self, h: ControllerHandle<T>) -> Result<&T, SinewError> {
        let c = self.state.controllers.get(h.raw).ok_or_else(|| not_found(h))?;
        c.as_any().downcast_ref::<T>().ok_or_else(|| not_found(h))
    }

    /// A controller, mutably.
    pub fn controller_mut<T: Controller<S>>(&mut self, h: ControllerHandle<T>) -> Result<&mut T, SinewError> {
        let c = self.state.controllers.get_mut(h.raw).ok_or_else(|| not_found(h))?;
        c.as_any_mut().downcast_mut::<T>().ok_or_else(|| not_found(h))
    }

    /// A controller and the world's particles, both mutably (for a controller method that
    /// reads or moves the particles it acts on).
    pub fn controller_and_particles_mut<T: Controller<S>>(
        &mut self,
        h: ControllerHandle<T>,
    ) -> Result<(&mut T, &mut crate::particle::ParticleSet<S>), SinewError> {
        let c = self.state.controllers.get_mut(h.raw).ok_or_else(|| not_found(h))?;
        let c = c.as_any_mut().downcast_mut::<T>().ok_or_else(|| not_found(h))?;
        Ok((c, &mut self.state.particles))
    }

    /// Removes a controller and returns it.
    pub fn remove_controller<T: Controller<S>>(&mut self, h: ControllerHandle<T>) -> Result<T, SinewError> {
        let ok = self.state.controllers.get(h.raw).is_some_and(|c| c.as_any().is::<T>());
        if !ok {
            return Err(not_found(h));
        }
        let c = self.state.controllers.remove(h.raw).ok_or_else(|| not_found(h))?;
        c.into_any().downcast::<T>().map(|b| *b).map_err(|_| not_found(h))
    }

    /// The particle-slot pairs every controller holds together (see
    /// [`Controller::links`]), for drawing.
    #[must_use]
    pub fn controller_links(&self) -> Vec<[usize; 2]> {
        let mut out = Vec::new();
        for c in self.state.controllers.values() {
            c.links(&mut out);
        }
        out
    }

    /// Number of controllers.
    #[must_use]
    pub fn controller_count(&self) -> usize {
        self.state.controllers.len()
    }
}

/// Removes every value of `arena` that `keep` rejects.
fn retain<T>(arena: &mut Arena<T>, keep: impl Fn(&T) -> bool) {
    let dead: Vec<_> = arena.iter().filter(|(_, v)| !keep(v)).map(|(h, _)| h).collect();
    for h in dead {
        arena.remove(h);
    }
}

/// Checks that each value is finite and ≥ 0.
pub(crate) fn check_params<R: Real>(vals: &[(R, &'static str)]) -> Result<(), SinewError> {
    for &(v, what) in vals {
        if !v.is_finite() {
            return Err(SinewError::NonFinite { what });
        }
        if v < R::ZERO {
            return Err(SinewError::InvalidParameter { what, reason: "must be ≥ 0", value: Some(v.to_f64()) });
        }
    }
    Ok(())
}
