//! Rollback: [`SinewSnapshot`] saves the world *and* which entity is which object, and
//! [`SinewWorld::restore`] brings both back — spawns and despawns included.
//!
//! # GGRS-style sessions
//!
//! A rollback session saves the game state each frame, and on a late input restores an
//! old frame and re-simulates. [`SinewWorld::snapshot`] saves two things:
//!
//! - the world's whole saved state (the library's [`Snapshot`]: particles, constraints,
//!   ropes, ragdoll and muscle controllers, clock), restored bit for bit;
//! - the plugin's entity map: which entity is which rope, ragdoll, collider, grab and
//!   rope-carried body, and what each was spawned from (the spawn components, behind
//!   `Arc`s, so a snapshot copies pointers rather than rope polylines).
//!
//! [`SinewWorld::state_hash`] hashes the world's state only: two peers whose entities are
//! numbered differently still agree. With a fixed-point world (`SinewPlugin<Space2<Fx>>`)
//! the hashes agree across machines.
//!
//! # What a restore does to entities
//!
//! `restore` swaps the world and the map at once; the entities are brought in line at the
//! start of the next run of the plugin's schedule (the first system of the prepare set),
//! before anything is stepped, and a [`SinewRestored`] message says what changed:
//!
//! | between the snapshot and the restore | after the restore |
//! |---|---|
//! | a rope, ragdoll or collider entity was **spawned** | the entity is **despawned** (with a ragdoll's node entities): its object is not in the restored world, and re-simulating the frame that spawned it spawns it again → [`SinewRestored::despawned`] |
//! | a rope, ragdoll or collider entity was **despawned** | a **new entity** is spawned with the same spawn component, handle and the plugin's optional components it had ([`crate::TransformInterpolation`], [`crate::RopeTensionLimit`], [`crate::HitEvents`]), a ragdoll with new node entities → [`SinewRestored::respawned`] (old, new) |
//! | only the component was **removed** (the entity lives) | the component is inserted again on the same entity |
//! | an entity carried by a rope (a dynamic [`crate::RopeAnchor`]) was despawned | it cannot come back: the game's entity is not the plugin's to spawn. Its particle stays on the rope, with no entity → [`SinewRestored::lost`] |
//!
//! What a respawned entity cannot get back is everything the game added to it besides
//! the plugin's components (meshes, sprites, children, game state): listen for
//! [`SinewRestored`] and re-attach them, or keep them on other entities. A rope whose
//! kinematic anchor entity is gone keeps its end where it is.
//!
//! Run the plugin in the session's schedule with [`crate::SinewTimestep::EveryRun`]: one
//! step of exactly `1/hz` per simulated frame, re-simulated frames included, whatever the
//! wall clock did — a frame then depends on the saved state and its inputs only:
//!
//! ```ignore
//! app.add_plugins(SinewPlugin::<Space2<Fx>>::in_schedule(GgrsSchedule))
//!     .insert_resource(SinewSettings { timestep: SinewTimestep::EveryRun { hz: 60 }, ..default() });
//! ```
//!
//! `SinewWorld` is also `Clone` (world, entity map, grabs, caches), for sessions that save
//! resources by cloning them (bevy_ggrs' `rollback_resource_with_clone`); a cloned
//! resource put back is reconciled the same way only through `restore`, so prefer
//! snapshots.

use bevy_ecs::entity::Entity;
use bevy_ecs::message::Message;
use bevy_ecs::world::World as EcsWorld;
use bevy_transform::components::Transform;
use sinew::Snapshot;

use crate::collider::SinewCollider;
use crate::interpolation::{SimulatedPosition, TransformInterpolation};
use crate::muscle::SinewMuscleRagdoll;
use crate::ragdoll::{RagdollNodes, SinewRagdoll, keep_z, spawn_node_entities};
use crate::rope::{SinewRope, SpawnedRope};
use crate::space::PluginSpace;
use crate::world::{Body, EntityMap, Extras, SinewWorld};

/// The world's saved state and the plugin's entity map (see the module docs).
#[derive(Clone)]
pub struct SinewSnapshot<S: PluginSpace> {
    world: Snapshot<S>,
    map: EntityMap<S>,
}

impl<S: PluginSpace> SinewSnapshot<S> {
    /// The world's part: the library's snapshot.
    #[must_use]
    pub fn world(&self) -> &Snapshot<S> {
        &self.world
    }

    /// The hash of the saved world state ([`SinewWorld::state_hash`] once restored).
    #[must_use]
    pub fn state_hash(&self) -> u64 {
        self.world.state_hash()
    }
}

/// What the last restore did to entities (a message, sent by the first run of the
/// plugin's schedule after [`SinewWorld::restore`]; see the module docs).
#[derive(Message, Clone, Debug, Default, PartialEq, Eq)]
pub struct SinewRestored {
    /// Entities spawned after the snapshot, now despawned (ragdoll node entities too).
    pub despawned: Vec<Entity>,
    /// Entities despawned after the snapshot, spawned again: `(old, new)`.
    pub respawned: Vec<(Entity, Entity)>,
    /// Rope-carried entities despawned after the snapshot: their particles are back on
    /// their ropes, with no entity.
    pub lost: Vec<Entity>,
}

impl<S: PluginSpace> SinewWorld<S> {
    /// The world's saved state and the entity map, for a rollback ring (see the module
    /// docs).
    #[must_use]
    pub fn snapshot(&self) -> SinewSnapshot<S> {
        SinewSnapshot { world: self.world.snapshot(), map: self.map.clone() }
    }

    /// [`Self::snapshot`] into an existing one, reusing the world snapshot's memory.
    pub fn snapshot_into(&self, out: &mut SinewSnapshot<S>) {
        self.world.snapshot_into(&mut out.world);
        out.map.clone_from(&self.map);
    }

    /// Puts the world back in a snapshot's state, bit for bit, and the entity map with
    /// it; the next run of the plugin's schedule despawns and respawns entities to match
    /// (see the module docs) before it steps. The next writeback refreshes every rope and
    /// ragdoll entity, with no interpolation across the jump.
    pub fn restore(&mut self, snapshot: &SinewSnapshot<S>) {
        self.world.restore(&snapshot.world);
        let shown = core::mem::replace(&mut self.map, snapshot.map.clone());
        // Two restores before the entities caught up: they still show the first map.
        self.replaced.get_or_insert(shown);
        self.restored = true;
    }
}

/// Run condition of [`reconcile`]: a restore is waiting.
pub(crate) fn restore_pending<S: PluginSpace>(sim: bevy_ecs::prelude::Res<SinewWorld<S>>) -> bool {
    sim.replaced.is_some()
}

/// Prepare, first: entities brought in line with a restored entity map.
pub(crate) fn reconcile<S: PluginSpace>(ecs: &mut EcsWorld) {
    let Some(mut sim) = ecs.get_resource_mut::<SinewWorld<S>>() else { return };
    let Some(shown) = sim.replaced.take() else { return };
    let mut map = core::mem::take(&mut sim.map);
    let mut report = SinewRestored::default();
    despawn_unsaved(ecs, &shown, &map, &mut report);
    bring_back_ropes(ecs, &mut map, &mut report);
    bring_back_ragdolls::<S>(ecs, &mut map, &mut report);
    bring_back_colliders(ecs, &mut map, &mut report);
    for (&e, _) in shown.bodies.iter().filter(|(e, _)| !map.bodies.contains_key(e)) {
        // The game's entity, no longer carried: it keeps its last transform.
        if let Ok(mut entity) = ecs.get_entity_mut(e) {
            entity.remove::<SimulatedPosition>();
        }
    }
    for &e in map.bodies.keys() {
        match ecs.get_entity_mut(e) {
            Ok(mut entity) if !entity.contains::<SimulatedPosition>() => {
                let at = entity.get::<Transform>().map_or(bevy_math::Vec3::ZERO, |t| t.translation);
                entity.insert(SimulatedPosition::at(at));
            }
            Ok(_) => {}
            Err(_) => report.lost.push(e),
        }
    }
    if let Some(mut sim) = ecs.get_resource_mut::<SinewWorld<S>>() {
        sim.map = map;
    }
    ecs.write_message(report);
}

/// Entities of objects the restored world does not have.
fn despawn_unsaved<S: PluginSpace>(
    ecs: &mut EcsWorld,
    shown: &EntityMap<S>,
    map: &EntityMap<S>,
    report: &mut SinewRestored,
) {
    let ropes = shown.ropes.keys().filter(|e| !map.ropes.contains_key(e));
    let colliders = shown.colliders.keys().filter(|e| !map.colliders.contains_key(e));
    let mut gone: Vec<Entity> = ropes.chain(colliders).copied().collect();
    for (&e, r) in shown.ragdolls.iter().filter(|(e, _)| !map.ragdolls.contains_key(e)) {
        for &node in &r.nodes {
            ecs.despawn(node);
        }
        gone.push(e);
    }
    for e in gone {
        if ecs.despawn(e) {
            report.despawned.push(e);
        }
    }
}

/// The entity for a saved object: `e` if it lives, else a new one (recorded).
fn entity_for(ecs: &mut EcsWorld, e: Entity, report: &mut SinewRestored) -> Entity {
    if ecs.get_entity(e).is_ok() {
        return e;
    }
    let new = ecs.spawn_empty().id();
    report.respawned.push((e, new));
    new
}

/// The plugin's optional components an entity had.
fn insert_extras(ecs: &mut EcsWorld, e: Entity, extras: Extras) {
    let mut entity = ecs.entity_mut(e);
    if extras.interpolated {
        entity.insert(TransformInterpolation);
    }
    if let Some(limit) = extras.tension_limit {
        entity.insert(limit);
    }
    if let Some(hits) = extras.hits {
        entity.insert(hits);
    }
}

fn bring_back_ropes<S: PluginSpace>(ecs: &mut EcsWorld, map: &mut EntityMap<S>, report: &mut SinewRestored) {
    for e in map.ropes.keys().copied().collect::<Vec<_>>() {
        let Some(entry) = map.ropes.get(&e).cloned() else { continue };
        if let Ok(mut entity) = ecs.get_entity_mut(e)
            && entity.contains::<SinewRope>()
        {
            entity.insert(SpawnedRope::new(entry.handle));
            continue;
        }
        let new = entity_for(ecs, e, report);
        ecs.entity_mut(new).insert((SinewRope::clone(&entry.spec), SpawnedRope::new(entry.handle)));
        insert_extras(ecs, new, entry.extras);
        rekey(map, e, new);
    }
}

fn bring_back_ragdolls<S: PluginSpace>(ecs: &mut EcsWorld, map: &mut EntityMap<S>, report: &mut SinewRestored) {
    for e in map.ragdolls.keys().copied().collect::<Vec<_>>() {
        let Some(mut entry) = map.ragdolls.get(&e).cloned() else { continue };
        let has_component = ecs
            .get_entity(e)
            .is_ok_and(|entity| entity.contains::<SinewRagdoll>() || entity.contains::<SinewMuscleRagdoll>());
        let nodes_alive = entry.nodes.iter().all(|&n| ecs.get_entity(n).is_ok());
        if has_component && nodes_alive {
            if let Some(mut nodes) = ecs.get_mut::<RagdollNodes>(e) {
                nodes.entities.clone_from(&entry.nodes);
            }
            continue;
        }
        let new = entity_for(ecs, e, report);
        if !has_component {
            let mut entity = ecs.entity_mut(new);
            match &entry.body {
                Body::Plain(_, spec) => entity.insert(SinewRagdoll::clone(spec)),
                Body::Muscle(_, spec) => entity.insert(SinewMuscleRagdoll::clone(spec)),
            };
            insert_extras(ecs, new, entry.extras);
        }
        for &n in &entry.nodes {
            ecs.despawn(n);
        }
        let Some(sim) = ecs.get_resource::<SinewWorld<S>>() else { return };
        let positions: Vec<_> = entry
            .body
            .nodes(&sim.world)
            .iter()
            .filter_map(|&p| sim.world.particles().position(p))
            .map(S::to_vec3)
            .collect();
        let root = positions.get(entry.body.root(&sim.world)).copied().unwrap_or_default();
        let z = ecs.get::<Transform>(new).map_or(0.0, |t| t.translation.z);
        let node_entities =
            spawn_nodes_now::<S>(ecs, new, &positions, z, entry.extras.interpolated, entry.nodes.is_empty());
        entry.nodes = node_entities.clone();
        let mut entity = ecs.entity_mut(new);
        entity.insert((RagdollNodes { entities: node_entities, positions }, SimulatedPosition::at(root)));
        if new != e {
            entity.insert(Transform::from_translation(keep_z::<S>(root, z)));
        }
        map.ragdolls.insert(e, entry);
        rekey(map, e, new);
    }
}

/// Node entities for a ragdoll entity, spawned at once (none if it had none).
fn spawn_nodes_now<S: PluginSpace>(
    ecs: &mut EcsWorld,
    ragdoll: Entity,
    positions: &[bevy_math::Vec3],
    z: f32,
    interpolated: bool,
    none: bool,
) -> Vec<Entity> {
    if none {
        return Vec::new();
    }
    spawn_node_entities::<S>(positions, ragdoll, z, |bundle| {
        let mut node = ecs.spawn(bundle);
        if interpolated {
            node.insert(TransformInterpolation);
        }
        node.id()
    })
}

fn bring_back_colliders<S: PluginSpace>(ecs: &mut EcsWorld, map: &mut EntityMap<S>, report: &mut SinewRestored) {
    for e in map.colliders.keys().copied().collect::<Vec<_>>() {
        let Some(entry) = map.colliders.get(&e).copied() else { continue };
        if ecs.get_entity(e).is_ok_and(|entity| entity.contains::<SinewCollider>()) {
            continue;
        }
        let new = entity_for(ecs, e, report);
        ecs.entity_mut(new).insert((entry.spec, entry.transform));
        rekey(map, e, new);
    }
}

/// Moves every entry of `old` to `new`.
fn rekey<S: PluginSpace>(map: &mut EntityMap<S>, old: Entity, new: Entity) {
    if old == new {
        return;
    }
    if let Some(v) = map.ropes.remove(&old) {
        map.ropes.insert(new, v);
    }
    if let Some(v) = map.ragdolls.remove(&old) {
        map.ragdolls.insert(new, v);
    }
    if let Some(v) = map.colliders.remove(&old) {
        map.colliders.insert(new, v);
    }
    if let Some(v) = map.grabs.remove(&old) {
        map.grabs.insert(new, v);
    }
}
