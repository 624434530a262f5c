//! [`SinewWorld`]: the Sinew world as a Bevy resource, and its rollback API.
//!
//! The plugin owns one [`sinew::World`] and the map from Bevy entities to what it spawned
//! for them (a rope, a ragdoll, a collider, a grab). Systems reach the world through
//! `Res<SinewWorld<S>>` / `ResMut<SinewWorld<S>>`: read tensions, apply impulses, call any
//! library function the components do not cover.
//!
//! # Rollback (GGRS-style sessions)
//!
//! A rollback session saves the game state each frame, and on a late input restores an
//! old frame and re-simulates. [`SinewWorld::snapshot`], [`SinewWorld::restore`] and
//! [`SinewWorld::state_hash`] are the library's own (a snapshot is the world's whole
//! saved state — particles, constraints, ropes, ragdoll controllers, clock — and
//! restoring it is bit-exact), so a session keeps `Snapshot`s in its ring and compares
//! hashes between peers. With a fixed-point world (`SinewPlugin<Space2<Fx>>`) the hashes
//! agree across machines.
//!
//! What a snapshot does *not* hold is the Bevy side: which entity is which rope, and
//! the active grabs. Spawning and despawning are therefore not rolled back — spawn
//! physics objects at the start of a session, not in rolled-back frames — and a grab
//! should be an input of the frame (grab, move and release messages sent from the
//! inputs), so that re-simulating a frame sends them again. Alternatively roll the whole
//! resource back: `SinewWorld` is `Clone` (world, entity maps and grabs), which is what
//! a session that saves resources by cloning them (bevy_ggrs'
//! `rollback_resource_with_clone`) needs — at the price of copying the world's caches
//! too, where a [`Snapshot`] holds the saved state only.
//!
//! Run the plugin in the session's schedule with [`crate::SinewTimestep::EveryRun`]: one
//! step of exactly `1/hz` per simulated frame, re-simulated frames included, whatever the
//! wall clock did — a frame then depends on the saved state and its inputs only:
//!
//! ```ignore
//! app.add_plugins(SinewPlugin::<Space2<Fx>>::in_schedule(GgrsSchedule))
//!     .insert_resource(SinewSettings { timestep: SinewTimestep::EveryRun { hz: 60 }, ..default() });
//! ```

use std::collections::BTreeMap;

use bevy_ecs::prelude::{Entity, Resource};
use sinew::ragdoll::Grab;
use sinew::{ColliderHandle, FixedStepper, ParticleHandle, Ragdoll, RealOf, RopeHandle, Snapshot, VecOf, World};

use crate::hits::HitWatch;
use crate::space::PluginSpace;

/// The simulation: a Sinew world and what the plugin spawned in it (see the module docs).
#[derive(Resource, Clone)]
pub struct SinewWorld<S: PluginSpace> {
    pub(crate) world: World<S>,
    pub(crate) ropes: BTreeMap<Entity, RopeHandle>,
    pub(crate) ragdolls: BTreeMap<Entity, Ragdoll<S>>,
    pub(crate) colliders: BTreeMap<Entity, ColliderHandle>,
    pub(crate) grabs: BTreeMap<Entity, ActiveGrab<S>>,
    /// Kinematic particles and where they go at the end of each step (rope ends attached
    /// to entities, grabbing hands), refreshed by the prepare systems.
    pub(crate) drives: Vec<(ParticleHandle, VecOf<S>)>,
    pub(crate) clock: Clock<RealOf<S>>,
    /// World steps taken in the last run of the plugin's schedule.
    pub(crate) steps_last_run: u32,
    /// Set by [`SinewWorld::restore`]: the writeback must refresh every entity even if no
    /// step ran.
    pub(crate) restored: bool,
    /// The plugin runs in one of Bevy's fixed schedules (interpolation reads
    /// `Time<Fixed>`'s overstep).
    pub(crate) fixed_schedule: bool,
    /// Particles watched for hits, and the hits found by this run's steps.
    pub(crate) hits: HitWatch<S>,
}

/// How the step system turns a run of the schedule into steps ([`crate::SinewTimestep`]).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Clock<R> {
    /// One step of the run's `Time::delta`.
    PerRun,
    /// One step of exactly this.
    EveryRun(R),
    /// Sinew's accumulator.
    Stepper(FixedStepper<R>),
}

/// A grab in progress on a rope or ragdoll entity.
#[derive(Clone, Debug)]
pub(crate) struct ActiveGrab<S: PluginSpace> {
    pub(crate) kind: GrabKind,
    pub(crate) hand: VecOf<S>,
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum GrabKind {
    /// A rope particle driven kinematically; released with [`World::release_particle`].
    Rope(ParticleHandle),
    /// A ragdoll node grab (hard or soft).
    Ragdoll(Grab),
}

impl<S: PluginSpace> SinewWorld<S> {
    pub(crate) fn new(world: World<S>) -> Self {
        Self {
            world,
            ropes: BTreeMap::new(),
            ragdolls: BTreeMap::new(),
            colliders: BTreeMap::new(),
            grabs: BTreeMap::new(),
            drives: Vec::new(),
            clock: Clock::PerRun,
            steps_last_run: 0,
            restored: false,
            fixed_schedule: false,
            hits: HitWatch::default(),
        }
    }

    /// The Sinew world.
    #[must_use]
    pub fn world(&self) -> &World<S> {
        &self.world
    }

    /// The Sinew world, to change. Objects added here have no entity: the plugin neither
    /// writes them back nor removes them.
    pub fn world_mut(&mut self) -> &mut World<S> {
        &mut self.world
    }

    /// The rope spawned for `entity` (a [`crate::SinewRope`]), once the prepare systems
    /// have run.
    #[must_use]
    pub fn rope(&self, entity: Entity) -> Option<RopeHandle> {
        self.ropes.get(&entity).copied()
    }

    /// The ragdoll spawned for `entity` (a [`crate::SinewRagdoll`]).
    #[must_use]
    pub fn ragdoll(&self, entity: Entity) -> Option<&Ragdoll<S>> {
        self.ragdolls.get(&entity)
    }

    /// Every rope entity and its rope.
    pub fn ropes(&self) -> impl Iterator<Item = (Entity, RopeHandle)> + '_ {
        self.ropes.iter().map(|(&e, &h)| (e, h))
    }

    /// Every ragdoll entity and its ragdoll.
    pub fn ragdolls(&self) -> impl Iterator<Item = (Entity, &Ragdoll<S>)> {
        self.ragdolls.iter().map(|(&e, r)| (e, r))
    }

    /// The collider spawned for `entity` (a [`crate::SinewCollider`]).
    #[must_use]
    pub fn collider(&self, entity: Entity) -> Option<ColliderHandle> {
        self.colliders.get(&entity).copied()
    }

    /// True while `entity` (a rope or ragdoll) is grabbed.
    #[must_use]
    pub fn is_grabbed(&self, entity: Entity) -> bool {
        self.grabs.contains_key(&entity)
    }

    /// World steps taken by the last run of the plugin's schedule (one in
    /// [`crate::SinewTimestep::PerRun`], 0 or more in [`crate::SinewTimestep::Hz`]).
    #[must_use]
    pub fn steps_last_run(&self) -> u32 {
        self.steps_last_run
    }

    /// The world's whole saved state, for a rollback ring (see the module docs).
    #[must_use]
    pub fn snapshot(&self) -> Snapshot<S> {
        self.world.snapshot()
    }

    /// [`Self::snapshot`] into an existing buffer, reusing its memory.
    pub fn snapshot_into(&self, out: &mut Snapshot<S>) {
        self.world.snapshot_into(out);
    }

    /// Puts the world back in a snapshot's state, bit for bit. The next writeback
    /// refreshes every rope and ragdoll entity, with no interpolation across the jump.
    pub fn restore(&mut self, snapshot: &Snapshot<S>) {
        self.world.restore(snapshot);
        self.restored = true;
    }

    /// A hash of the world's saved state: equal on two peers exactly when their states
    /// are (compare it to detect desyncs).
    #[must_use]
    pub fn state_hash(&self) -> u64 {
        self.world.state_hash()
    }
}
