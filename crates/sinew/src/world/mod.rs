//! The world: particles, constraints, colliders, ropes and controllers, advanced by the
//! XPBD substep loop.
//!
//! ```
//! use sinew::prelude::*;
//!
//! // Settings are a small struct with builders; every input is validated.
//! let mut world = World2::new(WorldDef::default().substeps(4).friction(0.5))?;
//! world.add_collider(&ColliderDef::new(Shape::half_space(Vector2::new(0.0, 1.0), 0.0)?))?;
//! let ball = world.add_particle(&ParticleDef::at(Vector2::new(0.0, 1.0)).radius(0.1))?;
//! let mut report = StepReport::default();
//! for _ in 0..60 {
//!     report = world.step(1.0 / 60.0)?; // what happened in the step
//! }
//! assert_eq!(world.step_count(), 60);
//! assert!((world.time() - 1.0).abs() < 1e-5);
//! assert_eq!(report.contacts, 1, "the ball rests on the ground");
//! assert!((world.particles().position(ball).unwrap().y - 0.1).abs() < 1e-3);
//! // A hitch in the game is clamped to `max_time_step` (0.1 s) and reported; a bad time
//! // step is an error, and changes nothing.
//! assert!(world.step(0.5)?.clamped_dt);
//! assert!(world.step(f32::NAN).is_err());
//! # Ok::<(), SinewError>(())
//! ```
//!
//! # One step
//! [`World::step`] runs these stages, each a function in the module that owns it
//! (`world/step.rs` lists them in one screen; [`StepProfile`] times them):
//!
//! ```text
//! step(dt):
//!   begin        drivers set kinematic targets; the broad phase is rebuilt if colliders
//!                were added, removed or moved; sleeping ropes and groups that are touched
//!                wake; controllers' begin_step                           [driver, sleep, rope]
//!   predict      the velocity every substep adds, the lists of kinematic, colliding and
//!                sleeping particles                                       [particle]
//!   gather       once per step: each colliding particle's collider pairs and contact
//!                planes around its contact anchor, and the rope spans'    [contact]
//!   h = dt / substeps; repeat substeps times:
//!     integrate  ropes' wind drag, implicit: v = (v + k·wind)/(1 + k), k = drag·h/m;
//!                v = v·max(0, 1 − damping·h) + h·(g·s + f/m); x_prev = x; x += h·v
//!                (driven particles move along their path instead)          [particle]
//!     repeat iterations times (λ = 0 in the first):
//!       ropes        the exact chain solve, bending, tethers              [rope]
//!       constraints  distances, bending, tethers, attachments, joint limits [constraint]
//!       controllers  muscles, drives, the step_with callback               [controller]
//!       contacts     first iteration: detect (swept, or the step's planes); then project
//!                    with static friction, particles and rope spans       [contact]
//!     impact     the constraint groups a contact struck, again (off by default) [impact]
//!     velocity   v = (x − x_prev)/h; dynamic friction and restitution      [particle, contact]
//!   end          non-finite particles recovered; forces cleared; targets reached; ropes
//!                tear; ropes and sleep groups settle; controllers' end_step [rope, sleep]
//! ```
//!
//! Everything iterates in slot order over plain vectors, so a step is a pure function of
//! the world's state: the same inputs give bit-identical results on the same build, and,
//! in fixed point, on every machine.
//!
//! # State, derived data, scratch
//! A world is three parts. `state` (`WorldState`) is everything a
//! step reads that it does not rebuild — particles, constraints, colliders, ropes, sleep
//! groups, contact anchors, controllers, the clock: a snapshot is a copy of it, the state
//! hash walks it (see [`crate::state`]). `derived` is rebuilt from the state when it
//! changes (the broad phase, the constraint order and groups), and after a restore.
//! `scratch` is the per-step working memory (contact lists, caches, solver buffers).

mod api;
mod bodies;
mod def;
mod ropes;
mod snapshot;
pub(crate) mod state;
mod step;
mod threads;

pub use def::WorldDef;
pub use snapshot::Snapshot;
pub use step::{StepProfile, StepReport};
pub use threads::step_all;

use crate::SinewError;
use crate::collider::BroadPhase;
use crate::constraint::group_solve::GroupSolver;
use crate::constraint::groups::ConstraintGroups;
use crate::constraint::order::ConstraintOrdering;
use crate::contact::bodies::BodyScratch;
use crate::contact::span::{EdgeContact, EdgeScratch};
use crate::contact::{Contact, ContactScratch};
use crate::math::Real;
use crate::particle::ParticleSet;
use crate::particle::integrate::Prediction;
use crate::rope::chain::ChainScratch;
use crate::space::{RealOf, Space, VecOf};
use state::WorldState;

/// A simulation world. See the module docs for what one step does.
#[derive(Clone, Debug)]
pub struct World<S: Space> {
    /// The saved state.
    pub(crate) state: WorldState<S>,
    /// What is rebuilt from the state.
    pub(crate) derived: Derived<S>,
    /// Per-step working memory.
    pub(crate) scratch: Scratch<S>,
}

/// What a world rebuilds from its state when the state changes (and after a restore).
#[derive(Clone, Debug)]
pub(crate) struct Derived<S: Space> {
    pub broad_phase: BroadPhase<VecOf<S>>,
    /// Rebuild the broad phase at the next step.
    pub broad_phase_dirty: bool,
    /// The colliders changed (added, removed, restored): the next rebuild starts a new
    /// broad-phase generation.
    pub broad_phase_restructure: bool,
    /// Every collider's slot and whether it moved, as of the last broad-phase generation.
    pub moving_colliders: Vec<(u32, bool)>,
    /// The order of the constraint sweep (see [`crate::constraint::order`]).
    pub order: ConstraintOrdering<S>,
    /// The groups of distances and joint limits connected through shared particles, for
    /// the impact passes; rebuilt with the order (kept only while the passes are on).
    pub groups: ConstraintGroups,
}

impl<S: Space> Default for Derived<S> {
    fn default() -> Self {
        Self {
            broad_phase: BroadPhase::default(),
            broad_phase_dirty: true,
            broad_phase_restructure: true,
            moving_colliders: Vec::new(),
            order: ConstraintOrdering::default(),
            groups: ConstraintGroups::default(),
        }
    }
}

/// Buffers rebuilt every step (never part of the state).
#[derive(Clone, Debug, Default)]
pub(crate) struct Scratch<S: Space> {
    /// The prediction stage's per-step lists.
    pub prediction: Prediction<S>,
    /// Every distance constraint is rigid this step (projected as rows of links).
    pub distances_rigid: bool,
    /// The contact stages' working memory.
    pub contact: ContactScratch<S>,
    /// This substep's particle–collider contacts (the last substep's after a step).
    pub contacts: Vec<Contact<S>>,
    /// Rope span candidates, this step's and last step's.
    pub edge: EdgeScratch<S>,
    /// This substep's rope span contacts.
    pub edge_contacts: Vec<EdgeContact<S>>,
    /// The rope chain solve's buffers.
    pub chain: ChainScratch<S>,
    /// The rope tension read-out's buffers.
    pub tension: crate::rope::tension::TensionScratch<RealOf<S>>,
    /// Working memory of the taut ropes.
    pub taut: crate::rope::taut::solve::TautScratch<VecOf<S>, RealOf<S>>,
    /// The body contacts' primitives, pairs and grid.
    pub bodies: BodyScratch<S>,
    /// The impact passes' direct solve.
    pub group_solver: GroupSolver<S>,
    /// The whole-body bounce's bodies of the substep.
    pub bounce: crate::contact::bounce::BounceScratch<S>,
    /// Particles recovered from a non-finite state this step.
    pub recovered: Vec<u32>,
    /// Per-stage timing of the last step, when enabled.
    pub profile: StepProfile,
    /// Whether steps are timed.
    pub profiling: bool,
}

impl<S: Space> World<S> {
    /// A world with the given settings.
    pub fn new(def: WorldDef<S>) -> Result<Self, SinewError> {
        def.validate()?;
        Ok(Self { state: WorldState::new(def), derived: Derived::default(), scratch: Scratch::default() })
    }

    /// Settings.
    #[inline]
    #[must_use]
    pub fn def(&self) -> &WorldDef<S> {
        &self.state.def
    }

    /// Changes the settings (validated).
    pub fn set_def(&mut self, def: WorldDef<S>) -> Result<(), SinewError> {
        def.validate()?;
        let old = &self.state.def;
        self.derived.order.dirty |= def.constraint_order != old.constraint_order;
        // The impact passes' groups are only kept while the passes are on.
        self.derived.order.dirty |= (def.impact_passes > 0) != (old.impact_passes > 0);
        self.derived.order.dirty |= def.tree_solve != old.tree_solve;
        // What gathered pairs and span planes hold of the settings.
        if def.plane_reuse != old.plane_reuse || def.friction != old.friction {
            self.state.anchors.drop_all();
        }
        self.state.bodies.enabled = def.body_contacts;
        self.state.def = def;
        Ok(())
    }

    /// Simulated time (s).
    #[inline]
    #[must_use]
    pub fn time(&self) -> RealOf<S> {
        self.state.time
    }

    /// Steps taken.
    #[inline]
    #[must_use]
    pub fn step_count(&self) -> u64 {
        self.state.step_count
    }

    /// The substep length `h` of the last step (s; 0 before the first): forces read out of
    /// multipliers are `λ/h²`.
    #[inline]
    #[must_use]
    pub fn substep_length(&self) -> RealOf<S> {
        self.state.last_h
    }

    /// The particles.
    #[inline]
    #[must_use]
    pub fn particles(&self) -> &ParticleSet<S> {
        &self.state.particles
    }

    /// Mutable particles (positions, velocities, forces, pins, kinematic targets; every
    /// setter validates its input).
    #[inline]
    pub fn particles_mut(&mut self) -> &mut ParticleSet<S> {
        &mut self.state.particles
    }

    /// Converts a multiplier of the last substep into a force (N): `λ / h²`.
    #[must_use]
    pub fn lambda_to_force(&self, lambda: RealOf<S>) -> RealOf<S> {
        let h = self.state.last_h;
        if h == RealOf::<S>::ZERO { RealOf::<S>::ZERO } else { lambda / (h * h) }
    }

    /// Marks everything derived from the state (broad phase, constraint order, contacts)
    /// for rebuilding; used after a restore.
    pub(crate) fn invalidate_derived(&mut self) {
        (self.derived.broad_phase_dirty, self.derived.broad_phase_restructure) = (true, true);
        self.derived.order.dirty = true;
        self.scratch.contacts.clear();
        self.scratch.edge_contacts.clear();
    }
}
