//! Particles: the only dynamic bodies in Sinew.
//!
//! Ropes, ragdolls and muscle rigs are all point masses tied by constraints. A particle has
//! a position, a velocity, a mass, a collision radius and collision filter bits.
//!
//! **Pinned / kinematic particles.** A particle with inverse mass 0 is not moved by
//! constraints or collisions; everything attached to it sees it as an immovable anchor.
//! Such a particle can still be *driven*: [`ParticleSet::set_kinematic_target`] moves it
//! linearly to a target over the next step (one substep at a time, so constraints see a
//! smooth path and the particle gets the matching velocity). This is how a hand grabs a
//! rope, how a rope end follows a moving object, and how a ragdoll node is dragged.
//! [`ParticleSet::release`] gives it back its mass, with a velocity.
//!
//! Storage is structure-of-arrays (positions together, velocities together, ...) so the
//! solver's loops stream through memory; removed slots are reused last-freed-first.
//!
//! ```
//! use sinew::prelude::*;
//!
//! let mut world = World2::new(WorldDef::default())?;
//! let ball = world.add_particle(&ParticleDef::at(Vector2::new(0.0, 2.0)).mass(0.5).radius(0.1))?;
//! // A hand: created pinned (it remembers its 1 kg for later), then driven at 3 m/s.
//! let hand = world.add_particle(&ParticleDef::at(Vector2::new(0.0, 0.0)).pinned())?;
//! for i in 1..=10 {
//!     world.particles_mut().set_kinematic_target(hand, Vector2::new(0.05 * i as f32, 0.0))?;
//!     world.step(1.0 / 60.0)?;
//! }
//! let ps = world.particles();
//! assert!((ps.velocity(hand).unwrap().x - 3.0).abs() < 1e-3, "a driven particle moves at its path's speed");
//! assert!(ps.position(ball).unwrap().y < 2.0, "the free ball falls");
//!
//! // Let the hand go with its velocity; push the ball: an impulse of 1 N·s on 0.5 kg.
//! let v = ps.velocity(hand).unwrap();
//! world.particles_mut().release(hand, v, 1.0)?;
//! let before = world.particles().velocity(ball).unwrap();
//! world.particles_mut().apply_impulse(ball, Vector2::new(1.0, 0.0))?;
//! assert!((world.particles().velocity(ball).unwrap() - before - Vector2::new(2.0, 0.0)).length() < 1e-6);
//! assert!(!world.particles().is_kinematic(hand));
//! # Ok::<(), SinewError>(())
//! ```

pub(crate) mod integrate;

use crate::arena::{RawHandle, define_handle};
use crate::dim::{BaseSpace as Space, RealOf, VecOf};
use crate::math::{Real, Vector};
use crate::state::{SavedState, StateHasher, saved_state};

define_handle!(
    /// A particle in a [`crate::World`].
    ParticleHandle
);

/// Collision filtering: two objects interact when each one's `memberships` intersects the
/// other's `filter`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct InteractionGroups {
    /// Groups this object belongs to.
    pub memberships: u32,
    /// Groups this object interacts with.
    pub filter: u32,
}

impl InteractionGroups {
    /// Member of all groups, interacts with all.
    pub const ALL: Self = Self { memberships: u32::MAX, filter: u32::MAX };
    /// Interacts with nothing.
    pub const NONE: Self = Self { memberships: 0, filter: 0 };

    /// True when `self` and `o` interact.
    #[inline]
    #[must_use]
    pub fn test(self, o: Self) -> bool {
        (self.memberships & o.filter) != 0 && (o.memberships & self.filter) != 0
    }
}

impl SavedState for InteractionGroups {
    #[inline]
    fn hash_state(&self, h: &mut StateHasher) {
        h.write_u64(u64::from(self.memberships) | (u64::from(self.filter) << 32));
    }
}

impl Default for InteractionGroups {
    fn default() -> Self {
        Self::ALL
    }
}

/// A body: a set of particles (a ragdoll's, a rope's) whose primitives do not collide with
/// each other, unless self-collision is turned on for it
/// ([`crate::World::set_self_collision`]). Made by [`crate::World::new_body`]; ragdolls and
/// ropes get one each when spawned. Only read while body contacts are on
/// ([`crate::WorldDef::body_contacts`], see [`crate::contact::bodies`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BodyId(pub(crate) u32);

impl BodyId {
    /// The id's number (bodies are numbered from 0 in the order they were made).
    #[must_use]
    pub fn index(self) -> u32 {
        self.0
    }
}

/// Definition of a particle (Box2D style: a small struct with defaults and builder
/// methods).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct ParticleDef<S: Space> {
    /// Initial position (m).
    pub position: VecOf<S>,
    /// Initial velocity (m/s).
    pub velocity: VecOf<S>,
    /// Mass (kg), ≥ 0. With `pinned` false, 0 also pins the particle.
    pub mass: RealOf<S>,
    /// Start pinned (inverse mass 0) while remembering `mass` for a later release.
    pub pinned: bool,
    /// Collision radius (m), ≥ 0.
    pub radius: RealOf<S>,
    /// Multiplier on the world gravity (1 = normal).
    pub gravity_scale: RealOf<S>,
    /// Collision filter.
    pub groups: InteractionGroups,
    /// Friction coefficient against colliders; `None` = use the collider's or the world's.
    pub friction: Option<RealOf<S>>,
    /// The body the particle belongs to, for body contacts; `None`: a body of its own.
    pub body: Option<BodyId>,
}

impl<S: Space> Default for ParticleDef<S> {
    fn default() -> Self {
        Self {
            position: VecOf::<S>::ZERO,
            velocity: VecOf::<S>::ZERO,
            mass: RealOf::<S>::ONE,
            pinned: false,
            radius: RealOf::<S>::ZERO,
            gravity_scale: RealOf::<S>::ONE,
            groups: InteractionGroups::ALL,
            friction: None,
            body: None,
        }
    }
}

impl<S: Space> ParticleDef<S> {
    /// A particle at `position` with the default mass of 1 kg.
    #[must_use]
    pub fn at(position: VecOf<S>) -> Self {
        Self { position, ..Self::default() }
    }
    /// Sets the mass (0 pins).
    #[must_use]
    pub fn mass(mut self, mass: RealOf<S>) -> Self {
        self.mass = mass;
        self
    }
    /// Sets the radius.
    #[must_use]
    pub fn radius(mut self, radius: RealOf<S>) -> Self {
        self.radius = radius;
        self
    }
    /// Sets the initial velocity.
    #[must_use]
    pub fn velocity(mut self, velocity: VecOf<S>) -> Self {
        self.velocity = velocity;
        self
    }
    /// Starts pinned.
    #[must_use]
    pub fn pinned(mut self) -> Self {
        self.pinned = true;
        self
    }
    /// Sets the multiplier on world gravity.
    #[must_use]
    pub fn gravity_scale(mut self, s: RealOf<S>) -> Self {
        self.gravity_scale = s;
        self
    }
    /// Sets the collision filter.
    #[must_use]
    pub fn groups(mut self, groups: InteractionGroups) -> Self {
        self.groups = groups;
        self
    }
    /// Sets the friction coefficient against colliders.
    #[must_use]
    pub fn friction(mut self, mu: RealOf<S>) -> Self {
        self.friction = Some(mu);
        self
    }
    /// Sets the body (see [`BodyId`]).
    #[must_use]
    pub fn body(mut self, body: BodyId) -> Self {
        self.body = Some(body);
        self
    }
}

pub(crate) const ALIVE: u8 = 1;
pub(crate) const KINEMATIC: u8 = 2;
pub(crate) const COLLIDES: u8 = 4;

/// Structure-of-arrays particle storage. Indices of live particles never move.
#[derive(Clone, Debug, Default)]
pub struct ParticleSet<S: Space> {
    pub(crate) pos: Vec<VecOf<S>>,
    pub(crate) prev: Vec<VecOf<S>>,
    pub(crate) vel: Vec<VecOf<S>>,
    pub(crate) inv_mass: Vec<RealOf<S>>,
    pub(crate) mass: Vec<RealOf<S>>,
    pub(crate) radius: Vec<RealOf<S>>,
    pub(crate) gravity_scale: Vec<RealOf<S>>,
    pub(crate) force: Vec<VecOf<S>>,
    pub(crate) friction: Vec<Option<RealOf<S>>>,
    pub(crate) groups: Vec<InteractionGroups>,
    pub(crate) flags: Vec<u8>,
    /// Where a driven kinematic particle must be at the end of the current step.
    pub(crate) target: Vec<Option<VecOf<S>>>,
    /// Position at the start of the current step (kinematic interpolation origin).
    pub(crate) step_start: Vec<VecOf<S>>,
    pub(crate) generation: Vec<u32>,
    pub(crate) free: Vec<u32>,
    pub(crate) live: usize,
}

saved_state!(impl[S: Space] ParticleSet<S> {
    pos, prev, vel, inv_mass, mass, radius, gravity_scale, force, friction, groups, flags, target, step_start,
    generation, free, live,
});

impl<S: Space> ParticleSet<S> {
    /// Inserts a particle; the definition must already be validated.
    pub(crate) fn insert(&mut self, d: &ParticleDef<S>) -> ParticleHandle {
        let zero = RealOf::<S>::ZERO;
        let pinned = d.pinned || d.mass == zero;
        let inv = if pinned { zero } else { d.mass.recip_or_zero() };
        let mut flags = ALIVE;
        if pinned {
            flags |= KINEMATIC;
        }
        if d.groups != InteractionGroups::NONE {
            flags |= COLLIDES;
        }
        self.live += 1;
        if let Some(i) = self.free.pop() {
            let k = i as usize;
            self.pos[k] = d.position;
            self.prev[k] = d.position;
            self.step_start[k] = d.position;
            self.vel[k] = if pinned { VecOf::<S>::ZERO } else { d.velocity };
            self.inv_mass[k] = inv;
            self.mass[k] = d.mass;
            self.radius[k] = d.radius;
            self.gravity_scale[k] = d.gravity_scale;
            self.force[k] = VecOf::<S>::ZERO;
            self.friction[k] = d.friction;
            self.groups[k] = d.groups;
            self.flags[k] = flags;
            self.target[k] = None;
            return ParticleHandle(RawHandle { index: i, generation: self.generation[k] });
        }
        let i = self.pos.len() as u32;
        self.pos.push(d.position);
        self.prev.push(d.position);
        self.step_start.push(d.position);
        self.vel.push(if pinned { VecOf::<S>::ZERO } else { d.velocity });
        self.inv_mass.push(inv);
        self.mass.push(d.mass);
        self.radius.push(d.radius);
        self.gravity_scale.push(d.gravity_scale);
        self.force.push(VecOf::<S>::ZERO);
        self.friction.push(d.friction);
        self.groups.push(d.groups);
        self.flags.push(flags);
        self.target.push(None);
        self.generation.push(0);
        ParticleHandle(RawHandle { index: i, generation: 0 })
    }

    /// Removes a particle. Constraints that reference it must be removed by the caller.
    pub(crate) fn remove(&mut self, h: ParticleHandle) -> bool {
        if !self.contains(h) {
            return false;
        }
        let k = h.index();
        self.flags[k] = 0;
        self.inv_mass[k] = RealOf::<S>::ZERO;
        self.vel[k] = VecOf::<S>::ZERO;
        self.target[k] = None;
        self.generation[k] = self.generation[k].wrapping_add(1);
        self.free.push(h.0.index);
        self.live -= 1;
        true
    }

    /// True when `h` refers to a live particle.
    #[inline]
    #[must_use]
    pub fn contains(&self, h: ParticleHandle) -> bool {
        let k = h.index();
        k < self.flags.len() && self.flags[k] & ALIVE != 0 && self.generation[k] == h.0.generation
    }

    /// Handle of the live particle in slot `index`, if any.
    #[must_use]
    pub fn handle_at(&self, index: usize) -> Option<ParticleHandle> {
        (index < self.flags.len() && self.flags[index] & ALIVE != 0)
            .then(|| ParticleHandle(RawHandle { index: index as u32, generation: self.generation[index] }))
    }

    /// Number of live particles.
    #[inline]
    #[must_use]
    pub fn len(&self) -> usize {
        self.live
    }

    /// True when there are no particles.
    #[inline]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Number of slots (live or free); every particle index is below this.
    #[inline]
    #[must_use]
    pub fn slot_count(&self) -> usize {
        self.pos.len()
    }

    /// Handles of live particles in slot order.
    pub fn handles(&self) -> impl Iterator<Item = ParticleHandle> + '_ {
        (0..self.pos.len()).filter_map(|i| self.handle_at(i))
    }

    /// Position (m). Panics never: a stale handle yields `None`.
    #[inline]
    #[must_use]
    pub fn position(&self, h: ParticleHandle) -> Option<VecOf<S>> {
        self.contains(h).then(|| self.pos[h.index()])
    }

    /// Velocity (m/s).
    #[inline]
    #[must_use]
    pub fn velocity(&self, h: ParticleHandle) -> Option<VecOf<S>> {
        self.contains(h).then(|| self.vel[h.index()])
    }

    /// Mass (kg) remembered for the particle (also while pinned).
    #[must_use]
    pub fn mass(&self, h: ParticleHandle) -> Option<RealOf<S>> {
        self.contains(h).then(|| self.mass[h.index()])
    }

    /// Inverse mass used by the solver (0 while pinned or driven).
    #[must_use]
    pub fn inverse_mass(&self, h: ParticleHandle) -> Option<RealOf<S>> {
        self.contains(h).then(|| self.inv_mass[h.index()])
    }

    /// Collision radius (m).
    #[must_use]
    pub fn radius(&self, h: ParticleHandle) -> Option<RealOf<S>> {
        self.contains(h).then(|| self.radius[h.index()])
    }

    /// True when pinned or driven (inverse mass 0).
    #[must_use]
    pub fn is_kinematic(&self, h: ParticleHandle) -> bool {
        self.contains(h) && self.flags[h.index()] & KINEMATIC != 0
    }

    /// Positions of all slots (dead slots keep their last position), for rendering.
    #[inline]
    #[must_use]
    pub fn positions(&self) -> &[VecOf<S>] {
        &self.pos
    }

    /// Mutable positions of all slots, for custom constraints inside
    /// [`crate::World::step_with`]. Moving a particle with inverse mass 0 breaks the
    /// kinematic contract; use [`ParticleSet::inverse_masses`] to weight corrections.
    #[inline]
    pub fn positions_mut(&mut self) -> &mut [VecOf<S>] {
        &mut self.pos
    }

    /// Positions at the start of the current substep (for velocity-dependent constraints).
    #[inline]
    #[must_use]
    pub fn previous_positions(&self) -> &[VecOf<S>] {
        &self.prev
    }

    /// Inverse masses of all slots (0 = pinned, driven or removed).
    #[inline]
    #[must_use]
    pub fn inverse_masses(&self) -> &[RealOf<S>] {
        &self.inv_mass
    }

    /// Velocities of all slots.
    #[inline]
    #[must_use]
    pub fn velocities(&self) -> &[VecOf<S>] {
        &self.vel
    }

    /// Radii of all slots.
    #[inline]
    #[must_use]
    pub fn radii(&self) -> &[RealOf<S>] {
        &self.radius
    }

    /// Teleports a particle (no velocity change). Non-finite input is rejected.
    pub fn set_position(&mut self, h: ParticleHandle, p: VecOf<S>) -> Result<(), crate::SinewError> {
        self.check(h)?;
        check_coordinates(p, "position")?;
        let k = h.index();
        self.pos[k] = p;
        self.prev[k] = p;
        self.step_start[k] = p;
        self.target[k] = None;
        Ok(())
    }

    /// Sets a velocity (ignored by the solver while the particle is kinematic).
    pub fn set_velocity(&mut self, h: ParticleHandle, v: VecOf<S>) -> Result<(), crate::SinewError> {
        self.check(h)?;
        check_coordinates(v, "velocity")?;
        self.vel[h.index()] = v;
        Ok(())
    }

    /// Adds an external force (N) applied during the next step only.
    pub fn apply_force(&mut self, h: ParticleHandle, f: VecOf<S>) -> Result<(), crate::SinewError> {
        self.check(h)?;
        check_finite(f, "force")?;
        let k = h.index();
        // A force the number type cannot add, or whose acceleration it cannot hold, is
        // refused rather than saturated or turned into an infinite velocity.
        let total = self.force[k] + f;
        let a = total * self.inv_mass[k];
        if !vector_in_range(total) || !vector_in_range(a) || !in_range(a.length_squared()) {
            return Err(crate::SinewError::InvalidParameter {
                what: "force",
                reason: "too large: beyond what the number type can add",
                value: Some(norm_f64(f)),
            });
        }
        self.force[k] = total;
        Ok(())
    }

    /// Applies an impulse (N·s): an immediate velocity change of `impulse / mass`.
    pub fn apply_impulse(&mut self, h: ParticleHandle, impulse: VecOf<S>) -> Result<(), crate::SinewError> {
        self.check(h)?;
        check_finite(impulse, "impulse")?;
        let k = h.index();
        let w = self.inv_mass[k];
        // An impulse the number type cannot add is refused, not half-applied: the velocity
        // and its square must be in range (1e30 N·s on a 4 kg node in f32 gives a finite
        // velocity whose first step overflows, and the step then discarded it).
        let v = self.vel[k] + impulse * w;
        if !vector_in_range(v) || !in_range(v.length_squared()) {
            return Err(crate::SinewError::InvalidParameter {
                what: "impulse",
                reason: "too large: the velocity it gives is beyond the number type's range",
                value: Some(norm_f64(impulse)),
            });
        }
        self.vel[k] = v;
        Ok(())
    }

    /// Pins a particle where it is (inverse mass 0, velocity 0), remembering its mass.
    pub fn pin(&mut self, h: ParticleHandle) -> Result<(), crate::SinewError> {
        self.check(h)?;
        let k = h.index();
        self.inv_mass[k] = RealOf::<S>::ZERO;
        self.vel[k] = VecOf::<S>::ZERO;
        self.flags[k] |= KINEMATIC;
        Ok(())
    }

    /// Drives a kinematic particle to `target` over the next step (pins it first if needed).
    /// The particle moves linearly, substep by substep, and its velocity is the motion's.
    pub fn set_kinematic_target(&mut self, h: ParticleHandle, target: VecOf<S>) -> Result<(), crate::SinewError> {
        self.check(h)?;
        check_coordinates(target, "target")?;
        let k = h.index();
        if self.flags[k] & KINEMATIC == 0 {
            self.pin(h)?;
        }
        self.target[k] = Some(target);
        Ok(())
    }

    /// Releases a pinned particle with `velocity`. A particle created with mass 0 gets
    /// `fallback_mass` (kg, > 0) since a free particle needs one.
    pub fn release(
        &mut self,
        h: ParticleHandle,
        velocity: VecOf<S>,
        fallback_mass: RealOf<S>,
    ) -> Result<(), crate::SinewError> {
        self.check(h)?;
        check_coordinates(velocity, "velocity")?;
        let k = h.index();
        if self.mass[k] <= RealOf::<S>::ZERO {
            if !(fallback_mass > RealOf::<S>::ZERO) {
                return Err(crate::SinewError::InvalidParameter {
                    what: "fallback_mass",
                    reason: "a released particle needs a positive mass",
                    value: None,
                });
            }
            self.mass[k] = fallback_mass;
        }
        self.inv_mass[k] = self.mass[k].recip_or_zero();
        self.flags[k] &= !KINEMATIC;
        self.target[k] = None;
        self.vel[k] = velocity;
        Ok(())
    }

    /// Sets the mass (kg, > 0) of a free particle, or the remembered mass of a pinned one.
    pub fn set_mass(&mut self, h: ParticleHandle, mass: RealOf<S>) -> Result<(), crate::SinewError> {
        self.check(h)?;
        if !(mass > RealOf::<S>::ZERO) || !mass.is_finite() {
            return Err(crate::SinewError::InvalidParameter {
                what: "mass",
                reason: "must be positive and finite",
                value: None,
            });
        }
        let k = h.index();
        self.mass[k] = mass;
        if self.flags[k] & KINEMATIC == 0 {
            self.inv_mass[k] = mass.recip_or_zero();
        }
        Ok(())
    }

    pub(crate) fn check(&self, h: ParticleHandle) -> Result<(), crate::SinewError> {
        if self.contains(h) {
            Ok(())
        } else {
            Err(crate::SinewError::InvalidHandle { what: "particle", handle: Some(h.0) })
        }
    }

    /// Total linear momentum of free particles (kg·m/s).
    #[must_use]
    pub fn linear_momentum(&self) -> VecOf<S> {
        let mut m = VecOf::<S>::ZERO;
        for k in 0..self.pos.len() {
            if self.flags[k] & ALIVE != 0 && self.flags[k] & KINEMATIC == 0 {
                m += self.vel[k] * self.mass[k];
            }
        }
        m
    }
}

pub(crate) fn check_finite<R: Real, V: Vector<R>>(v: V, what: &'static str) -> Result<(), crate::SinewError> {
    if v.is_finite() { Ok(()) } else { Err(crate::SinewError::NonFinite { what }) }
}

/// [`check_finite`], and every component within [`Real::COORDINATE_RANGE`] (fixed point:
/// ±16384), for positions, velocities and targets.
pub(crate) fn check_coordinates<R: Real, V: Vector<R>>(v: V, what: &'static str) -> Result<(), crate::SinewError> {
    check_finite(v, what)?;
    match (0..V::DIM).map(|i| v.get(i)).find(|c| c.abs() > R::COORDINATE_RANGE) {
        Some(c) => Err(crate::SinewError::parameter(
            what,
            "is outside the fixed-point coordinate range ±16384 (the solver squares coordinate differences, which \
             must stay within Q32.32's ±2³¹; use f32 or f64 for larger worlds)",
            c.to_f64(),
        )),
        None => Ok(()),
    }
}

/// Whether `x` is a value the number type holds, not one it overflowed or saturated to:
/// finite, and strictly inside `(−MAX, MAX)` (fixed point saturates to its limits).
pub(crate) fn in_range<R: Real>(x: R) -> bool {
    x.is_finite() && x < R::MAX && x > -R::MAX
}

/// `|v|` computed in `f64` (for messages: it does not overflow where `v`'s type would).
fn norm_f64<R: Real, V: Vector<R>>(v: V) -> f64 {
    (0..V::DIM).map(|i| v.get(i).to_f64().powi(2)).sum::<f64>().sqrt()
}

/// [`in_range`] for every component of `v`.
pub(crate) fn vector_in_range<R: Real, V: Vector<R>>(v: V) -> bool {
    (0..V::DIM).all(|i| in_range(v.get(i)))
}
