//! Controllers: game-side machinery that acts on the particles inside every step — muscle
//! rigs, pose drives, planners — and whose state lives in the world.
//!
//! A controller is added to a world with [`crate::World::add_controller`] and stepped by
//! [`crate::World::step`]: [`Controller::begin_step`] once before the substeps,
//! [`Controller::solve`] in every constraint iteration of every substep (after the world's
//! own constraints and ropes, before contacts — where a muscle or a drive projects its
//! constraints), [`Controller::end_step`] once after. Any number act in one world, in the
//! order they were added.
//!
//! Because a controller lives in the world's state, [`crate::World::snapshot`] saves it,
//! [`crate::World::restore`] brings it back and [`crate::World::state_hash`] covers it
//! (through [`Controller::hash_state`]): rollback stays exact with controllers acting.
//!
//! ```
//! use sinew::controller::{Controller, SubstepSolver};
//! use sinew::prelude::*;
//! use sinew::state::StateHasher;
//!
//! /// Pulls one particle toward a height with a soft XPBD constraint.
//! #[derive(Clone, Debug)]
//! struct Hover {
//!     particle: ParticleHandle,
//!     height: f32,
//!     lambda: f32,
//! }
//!
//! impl Controller<Space2<f32>> for Hover {
//!     fn solve(&mut self, s: &mut SubstepSolver<'_, Space2<f32>>) {
//!         if s.iteration == 0 {
//!             self.lambda = 0.0;
//!         }
//!         let Some(p) = s.particles.position(self.particle) else { return };
//!         let w = s.particles.inverse_mass(self.particle).unwrap_or(0.0);
//!         let alpha = 1e-3 * s.ctx.inv_h2; // compliance 1 mm/N
//!         let c = p.y - self.height;
//!         let dl = (-c - alpha * self.lambda) / (w + alpha);
//!         self.lambda += dl;
//!         let _ = s.particles.set_position(self.particle, Vector2::new(p.x, p.y + w * dl));
//!     }
//!     fn hash_state(&self, h: &mut StateHasher) {
//!         h.write(&self.height);
//!         h.write(&self.lambda);
//!     }
//! }
//!
//! let mut world = World2::new(WorldDef::default()).unwrap();
//! let p = world.add_particle(&ParticleDef::at(Vector2::new(0.0, 1.0))).unwrap();
//! let hover = world.add_controller(Hover { particle: p, height: 1.0, lambda: 0.0 });
//! for _ in 0..120 {
//!     world.step(1.0 / 60.0).unwrap();
//! }
//! // Held at 1 m, bobbing a little below it (1 kg on a 1 kN/m spring sags ~1 cm).
//! let y = world.particles().position(p).unwrap().y;
//! assert!((0.975..=1.0).contains(&y), "{y}");
//! assert_eq!(world.controller(hover).unwrap().height, 1.0);
//! ```

use crate::SinewError;
use crate::arena::RawHandle;
use crate::constraint::SubstepContext;
use crate::particle::{ParticleHandle, ParticleSet};
use crate::space::{RealOf, Space};
use crate::state::{SavedState, StateHasher};
use core::any::Any;
use core::fmt::Debug;
use core::marker::PhantomData;

/// What a controller (or [`crate::World::step_with`]'s callback) sees and changes in a
/// constraint iteration.
pub struct SubstepSolver<'a, S: Space> {
    /// The particles (positions are mid-projection; velocities are from the last substep).
    pub particles: &'a mut ParticleSet<S>,
    /// Substep constants (`h`, `1/h`, `1/h²`).
    pub ctx: &'a SubstepContext<RealOf<S>>,
    /// Substep index within the step, from 0.
    pub substep: u32,
    /// Iteration index within the substep, from 0 (multipliers restart at 0).
    pub iteration: u32,
    /// Substeps in this step.
    pub substeps: u32,
}

/// What a controller sees and changes before and after a step.
pub struct StepContext<'a, S: Space> {
    /// The particles.
    pub particles: &'a mut ParticleSet<S>,
    /// The step's length (s), after any clamp.
    pub dt: RealOf<S>,
    /// Simulated time (s) at the start of the step (before it) or at its end (after it).
    pub time: RealOf<S>,
}

/// Game-side machinery stepped by the world (see the module docs).
///
/// Implement the hooks you need and [`hash_state`](Controller::hash_state); the world
/// clones a controller for snapshots, so it must be `Clone` (the clone, downcasting and
/// dispatch come from [`ControllerObject`], implemented for every `Clone` controller).
pub trait Controller<S: Space>: ControllerObject<S> + Debug + Send + Sync + 'static {
    /// Once before the substeps, after drivers and sleep have woken what they wake.
    fn begin_step(&mut self, _step: &mut StepContext<'_, S>) {}
    /// In every constraint iteration of every substep, after the world's constraints and
    /// ropes, before contacts.
    fn solve(&mut self, _s: &mut SubstepSolver<'_, S>) {}
    /// Once after the step (velocities final, time advanced).
    fn end_step(&mut self, _step: &mut StepContext<'_, S>) {}
    /// A particle this controller may name is being removed from the world: forget it
    /// (the handle is stale afterwards, and its slot may be reused by a new particle).
    fn particle_removed(&mut self, _p: ParticleHandle) {}
    /// The particle slots it holds together in pairs, for debug drawing (drawn as the
    /// world's distances are: a muscle ragdoll's bones, a drive's links).
    fn links(&self, _out: &mut Vec<[usize; 2]>) {}
    /// Mixes *every* field of the controller's state into `h`: the world's state hash
    /// covers controllers through this, and rollback checks compare it.
    fn hash_state(&self, h: &mut StateHasher);
    /// Heap bytes held (for sizing a rollback buffer).
    fn heap_bytes(&self) -> usize {
        0
    }
}

/// Cloning, downcasting and naming for `dyn Controller`, implemented for every `Clone`
/// controller.
pub trait ControllerObject<S: Space> {
    /// A boxed copy (snapshots).
    fn clone_box(&self) -> Box<dyn Controller<S>>;
    /// As `Any`, for downcasting to the concrete type.
    fn as_any(&self) -> &dyn Any;
    /// As `Any`, mutably.
    fn as_any_mut(&mut self) -> &mut dyn Any;
    /// The boxed controller as `Any` (taking it out of the world).
    fn into_any(self: Box<Self>) -> Box<dyn Any>;
    /// The concrete type's name (errors).
    fn type_name(&self) -> &'static str;
}

impl<S: Space, T: Controller<S> + Clone> ControllerObject<S> for T {
    fn clone_box(&self) -> Box<dyn Controller<S>> {
        Box::new(self.clone())
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
    fn type_name(&self) -> &'static str {
        core::any::type_name::<T>()
    }
}

impl<S: Space> Clone for Box<dyn Controller<S>> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

impl<S: Space> SavedState for Box<dyn Controller<S>> {
    fn hash_state(&self, h: &mut StateHasher) {
        Controller::hash_state(&**self, h);
    }
    fn heap_bytes(&self) -> usize {
        Controller::heap_bytes(&**self)
    }
}

/// A controller of type `T` in a [`crate::World`] (a value handle: copy it freely; it never
/// borrows the world).
pub struct ControllerHandle<T> {
    pub(crate) raw: RawHandle,
    _t: PhantomData<fn() -> T>,
}

impl<T> ControllerHandle<T> {
    pub(crate) fn new(raw: RawHandle) -> Self {
        Self { raw, _t: PhantomData }
    }
    /// Slot index (stable for the life of the controller).
    #[inline]
    #[must_use]
    pub fn index(self) -> usize {
        self.raw.index as usize
    }
}

impl<T> Clone for ControllerHandle<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for ControllerHandle<T> {}
impl<T> PartialEq for ControllerHandle<T> {
    fn eq(&self, o: &Self) -> bool {
        self.raw == o.raw
    }
}
impl<T> Eq for ControllerHandle<T> {}
impl<T> Debug for ControllerHandle<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "ControllerHandle({}v{})", self.raw.index, self.raw.generation)
    }
}

/// The error for a handle that names no controller of its type.
pub(crate) fn not_found<T>(h: ControllerHandle<T>) -> SinewError {
    SinewError::InvalidHandle { what: "controller", handle: Some(h.raw) }
}

impl<T> SavedState for ControllerHandle<T> {
    fn hash_state(&self, h: &mut StateHasher) {
        self.raw.hash_state(h);
    }
}
