//! [`SinewWorld`]: the Sinew world as a Bevy resource, and its rollback API.
//!
//! The plugin owns one [`sinew::World`] and the map from Bevy entities to what it spawned
//! for them (a rope, a ragdoll, a collider, a grab). Systems reach the world through
//! `Res<SinewWorld<S>>` / `ResMut<SinewWorld<S>>`: read tensions, apply impulses, call any
//! library function the components do not cover.
//!
//! Rollback — snapshots that cover spawns and despawns too — is in [`crate::rollback`].

use std::collections::BTreeMap;
use std::sync::Arc;

use bevy_ecs::prelude::{Entity, Resource};
use bevy_transform::components::Transform;
use sinew::ragdoll::Grab;
use sinew::{
    ColliderHandle, FixedStepper, MuscleRagdollHandle, ParticleHandle, Ragdoll, RealOf, RopeHandle, SinewError, VecOf,
    World,
};

use crate::collider::SinewCollider;
use crate::hits::{HitEvents, HitWatch};
use crate::muscle::SinewMuscleRagdoll;
use crate::ragdoll::SinewRagdoll;
use crate::rope::{RopeTensionLimit, SinewRope};
use crate::space::PluginSpace;

/// The simulation: a Sinew world and what the plugin spawned in it (see the module docs).
#[derive(Resource, Clone)]
pub struct SinewWorld<S: PluginSpace> {
    pub(crate) world: World<S>,
    /// Which entity is which rope, ragdoll, collider, grab and anchored body: saved with
    /// the world in a [`crate::SinewSnapshot`].
    pub(crate) map: EntityMap<S>,
    /// The map the entities showed before [`SinewWorld::restore`] replaced it; the
    /// prepare set's first system reconciles the entities with the restored map.
    pub(crate) replaced: Option<EntityMap<S>>,
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

/// Which entity is which object of the world: the Bevy side of the saved state.
///
/// Each entry keeps what the entity was spawned from (behind an `Arc`: saving the map
/// copies pointers, not rope polylines), so that a restore can spawn a despawned entity
/// again.
#[derive(Clone)]
pub(crate) struct EntityMap<S: PluginSpace> {
    pub(crate) ropes: BTreeMap<Entity, RopeEntry>,
    pub(crate) ragdolls: BTreeMap<Entity, RagdollEntry<S>>,
    pub(crate) colliders: BTreeMap<Entity, ColliderEntry>,
    pub(crate) grabs: BTreeMap<Entity, ActiveGrab<S>>,
    /// Entities carried by ropes (dynamic anchors) and their particles.
    pub(crate) bodies: BTreeMap<Entity, ParticleHandle>,
}

impl<S: PluginSpace> Default for EntityMap<S> {
    fn default() -> Self {
        Self {
            ropes: BTreeMap::new(),
            ragdolls: BTreeMap::new(),
            colliders: BTreeMap::new(),
            grabs: BTreeMap::new(),
            bodies: BTreeMap::new(),
        }
    }
}

/// A rope entity: its rope and what it was spawned with.
#[derive(Clone, Debug)]
pub(crate) struct RopeEntry {
    pub(crate) handle: RopeHandle,
    pub(crate) spec: Arc<SinewRope>,
    pub(crate) extras: Extras,
}

/// The plugin's optional components an entity was spawned with, given back to it when a
/// restore spawns it again.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Extras {
    pub(crate) interpolated: bool,
    pub(crate) tension_limit: Option<RopeTensionLimit>,
    pub(crate) hits: Option<HitEvents>,
}

/// A ragdoll entity (plain or muscle): its body, spec and node entities.
#[derive(Clone)]
pub(crate) struct RagdollEntry<S: PluginSpace> {
    pub(crate) body: Body<S>,
    pub(crate) nodes: Vec<Entity>,
    pub(crate) extras: Extras,
}

/// A ragdoll in the world, with the component it was spawned from.
#[derive(Clone)]
pub(crate) enum Body<S: PluginSpace> {
    /// Bones and limits ([`Ragdoll`]).
    Plain(Ragdoll<S>, Arc<SinewRagdoll>),
    /// A muscle ragdoll (a controller of the world).
    Muscle(MuscleRagdollHandle<S>, Arc<SinewMuscleRagdoll>),
}

impl<S: PluginSpace> Body<S> {
    /// The node particles, in rig order (empty for a muscle ragdoll no longer in `world`).
    pub(crate) fn nodes<'a>(&'a self, world: &'a World<S>) -> &'a [ParticleHandle] {
        match self {
            Self::Plain(r, _) => r.nodes(),
            Self::Muscle(h, _) => world.controller(*h).map_or(&[], |m| m.nodes()),
        }
    }

    /// The root node's index.
    pub(crate) fn root(&self, world: &World<S>) -> usize {
        match self {
            Self::Plain(r, _) => r.root(),
            Self::Muscle(h, _) => world.controller(*h).map_or(0, |m| m.root()),
        }
    }

    /// Removes the body and its nodes from `world`.
    pub(crate) fn remove(self, world: &mut World<S>) -> Result<(), SinewError> {
        match self {
            Self::Plain(r, _) => {
                r.remove(world);
                Ok(())
            }
            Self::Muscle(h, _) => h.remove(world),
        }
    }
}

/// A collider entity: its collider, its shape and its last synced transform.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ColliderEntry {
    pub(crate) handle: ColliderHandle,
    pub(crate) spec: SinewCollider,
    pub(crate) transform: Transform,
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
            map: EntityMap::default(),
            replaced: None,
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
        self.map.ropes.get(&entity).map(|r| r.handle)
    }

    /// The ragdoll spawned for `entity` (a [`crate::SinewRagdoll`]).
    #[must_use]
    pub fn ragdoll(&self, entity: Entity) -> Option<&Ragdoll<S>> {
        match self.map.ragdolls.get(&entity).map(|r| &r.body) {
            Some(Body::Plain(r, _)) => Some(r),
            _ => None,
        }
    }

    /// The muscle ragdoll spawned for `entity` (a [`crate::SinewMuscleRagdoll`]): read it
    /// with `world().controller(h)`.
    #[must_use]
    pub fn muscle_ragdoll(&self, entity: Entity) -> Option<MuscleRagdollHandle<S>> {
        match self.map.ragdolls.get(&entity).map(|r| &r.body) {
            Some(Body::Muscle(h, _)) => Some(*h),
            _ => None,
        }
    }

    /// Every rope entity and its rope.
    pub fn ropes(&self) -> impl Iterator<Item = (Entity, RopeHandle)> + '_ {
        self.map.ropes.iter().map(|(&e, r)| (e, r.handle))
    }

    /// Every (plain) ragdoll entity and its ragdoll.
    pub fn ragdolls(&self) -> impl Iterator<Item = (Entity, &Ragdoll<S>)> {
        self.map.ragdolls.iter().filter_map(|(&e, r)| match &r.body {
            Body::Plain(r, _) => Some((e, r)),
            Body::Muscle(..) => None,
        })
    }

    /// The collider spawned for `entity` (a [`crate::SinewCollider`]).
    #[must_use]
    pub fn collider(&self, entity: Entity) -> Option<ColliderHandle> {
        self.map.colliders.get(&entity).map(|c| c.handle)
    }

    /// The particle that carries `entity` on a rope (a dynamic [`crate::RopeAnchor`]).
    #[must_use]
    pub fn body(&self, entity: Entity) -> Option<ParticleHandle> {
        self.map.bodies.get(&entity).copied()
    }

    /// True while `entity` (a rope or ragdoll) is grabbed.
    #[must_use]
    pub fn is_grabbed(&self, entity: Entity) -> bool {
        self.map.grabs.contains_key(&entity)
    }

    /// World steps taken by the last run of the plugin's schedule (one in
    /// [`crate::SinewTimestep::PerRun`], 0 or more in [`crate::SinewTimestep::Hz`]).
    #[must_use]
    pub fn steps_last_run(&self) -> u32 {
        self.steps_last_run
    }

    /// A hash of the world's saved state: equal on two peers exactly when their states
    /// are (compare it to detect desyncs).
    #[must_use]
    pub fn state_hash(&self) -> u64 {
        self.world.state_hash()
    }
}
