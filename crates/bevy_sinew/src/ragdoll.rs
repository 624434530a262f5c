//! Ragdolls as components: [`SinewRagdoll`] spawns one where its entity is, and every
//! node comes back as an entity with a `Transform`.
//!
//! ```
//! # use bevy_ecs::prelude::*;
//! # use bevy_math::Vec3;
//! # use bevy_transform::components::Transform;
//! use bevy_sinew::prelude::*;
//!
//! fn spawn(mut commands: Commands) {
//!     // The humanoid of the plugin's dimension, its feet 2 m up, thrown to the right.
//!     commands.spawn((
//!         SinewRagdoll::humanoid().velocity(Vec3::new(3.0, 2.0, 0.0)),
//!         Transform::from_xyz(0.0, 2.0, 0.0),
//!         TransformInterpolation,
//!     ));
//! }
//! ```
//!
//! A ragdoll is particles (its *nodes*: head, chest, elbows, hands, ...) held by rigid
//! bones and joint limits. The plugin spawns the rig's pose — its rest pose, or
//! [`SinewRagdoll::pose`] — turned by the entity's rotation, scaled and placed at its
//! translation, with every node moving at [`SinewRagdoll::velocity`]. It then spawns one
//! entity per node with a [`RagdollNode`] (which ragdoll, which node) and a `Transform`
//! that follows the node: parent your meshes or sprites to those. The ragdoll entity
//! itself follows its root node (the pelvis), and [`RagdollNodes`] lists the node
//! entities and positions. Nodes are points: writeback sets translations, not rotations.
//!
//! Grab a node with the [`crate::Grab`] message (a hand that drags it), push the whole
//! body through [`SinewWorld::ragdoll`] (`apply_impulse_at`, `add_velocity`).

use std::any::Any;
use std::sync::Arc;

use bevy_ecs::prelude::*;
use bevy_math::Vec3;
use bevy_transform::components::Transform;
use sinew::math::{Real, Vector};
use sinew::ragdoll::{Pose, RigDef, SpawnDef};
use sinew::{Ragdoll, RealOf, VecOf};

use crate::hits::HitEvents;
use crate::interpolation::{SimulatedPosition, TransformInterpolation};
use crate::muscle::SinewMuscleRagdoll;
use crate::space::PluginSpace;
use crate::world::{Body, Extras, RagdollEntry, SinewWorld};

/// Which rig a [`SinewRagdoll`] is.
#[derive(Clone)]
pub enum RagdollRig {
    /// The library's humanoid of the plugin's dimension (`humanoid16` in 2D,
    /// `humanoid3d` in 3D).
    Humanoid,
    /// Your own rig: a `sinew::ragdoll::RigDef<S>` of the plugin's space `S` (one of
    /// another space is logged as an error and not spawned).
    Custom(Arc<dyn Any + Send + Sync>),
}

impl core::fmt::Debug for RagdollRig {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::Humanoid => "Humanoid",
            Self::Custom(_) => "Custom(..)",
        })
    }
}

/// A ragdoll to spawn at its entity's `Transform` (a component; see the module docs).
///
/// Read once, when it is added. Despawning the entity (or removing this component)
/// removes the ragdoll and despawns its node entities.
#[derive(Component, Clone, Debug)]
#[require(Transform, RagdollNodes, SimulatedPosition)]
pub struct SinewRagdoll {
    /// The rig.
    pub rig: RagdollRig,
    /// Node positions in the entity's frame (one per rig node); `None` = the rig's rest
    /// pose.
    pub pose: Option<Vec<Vec3>>,
    /// Velocity of every node at spawn (m/s).
    pub velocity: Vec3,
    /// Scale of the rig (lengths and radii); the entity's own scale is ignored.
    pub scale: f32,
    /// Spawn one entity per node (default on).
    pub node_entities: bool,
}

impl SinewRagdoll {
    /// The humanoid of the plugin's dimension, at rest, at scale 1.
    #[must_use]
    pub fn humanoid() -> Self {
        Self { rig: RagdollRig::Humanoid, pose: None, velocity: Vec3::ZERO, scale: 1.0, node_entities: true }
    }

    /// A custom rig (of the plugin's space).
    #[must_use]
    pub fn custom<S: PluginSpace>(rig: RigDef<S>) -> Self {
        Self { rig: RagdollRig::Custom(Arc::new(rig)), ..Self::humanoid() }
    }

    /// Spawns in this pose (node positions in the entity's frame).
    #[must_use]
    pub fn pose(mut self, nodes: Vec<Vec3>) -> Self {
        self.pose = Some(nodes);
        self
    }

    /// Every node starts moving at `v` (m/s).
    #[must_use]
    pub fn velocity(mut self, v: Vec3) -> Self {
        self.velocity = v;
        self
    }

    /// Scales the rig.
    #[must_use]
    pub fn scale(mut self, scale: f32) -> Self {
        self.scale = scale;
        self
    }

    /// Spawns no node entities ([`RagdollNodes::positions`] is still written).
    #[must_use]
    pub fn without_node_entities(mut self) -> Self {
        self.node_entities = false;
        self
    }

    /// The rig, for the plugin's space `S`.
    fn rig_def<S: PluginSpace>(&self) -> Option<RigDef<S>> {
        match &self.rig {
            RagdollRig::Humanoid => Some(S::humanoid()),
            RagdollRig::Custom(any) => any.downcast_ref::<RigDef<S>>().cloned(),
        }
    }

    /// The library's spawn definition at transform `t`.
    fn spawn_def<S: PluginSpace>(&self, rig: &RigDef<S>, t: &Transform) -> SpawnDef<S> {
        let (origin, rotation) = (S::vector(t.translation), S::rotation(t.rotation));
        let scale = RealOf::<S>::from_f64(f64::from(self.scale));
        let velocity = S::vector(self.velocity);
        match &self.pose {
            None => SpawnDef::from_rig(rig, origin, rotation, scale, velocity),
            Some(nodes) => {
                let pose = Pose::<S>::new(nodes.iter().map(|&p| S::vector(p)).collect());
                let mut def = SpawnDef::at_rest(pose.transformed(origin, rotation, scale)).with_scale(scale);
                def.velocities = vec![velocity; nodes.len()];
                def
            }
        }
    }
}

/// A ragdoll's nodes (written back): their entities and positions.
#[derive(Component, Clone, Debug, Default, PartialEq)]
pub struct RagdollNodes {
    /// One entity per node, in rig order (empty without node entities).
    pub entities: Vec<Entity>,
    /// Node positions after the last step, in rig order.
    pub positions: Vec<Vec3>,
}

/// On a node entity: the ragdoll entity it belongs to and its index in the rig.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct RagdollNode {
    /// The ragdoll entity.
    pub ragdoll: Entity,
    /// The node's index in the rig.
    pub index: usize,
}

/// What [`spawn_ragdolls`] reads and fills in of a new ragdoll entity.
type NewRagdoll<'a> = (
    Entity,
    Ref<'a, SinewRagdoll>,
    &'a Transform,
    &'a mut RagdollNodes,
    &'a mut SimulatedPosition,
    Has<TransformInterpolation>,
    Option<&'a HitEvents>,
);

/// Prepare: spawns the ragdolls of newly added [`SinewRagdoll`]s and their node entities.
pub(crate) fn spawn_ragdolls<S: PluginSpace>(
    mut commands: Commands,
    mut sim: ResMut<SinewWorld<S>>,
    mut ragdolls: Query<NewRagdoll, Added<SinewRagdoll>>,
) {
    for (entity, spec, t, mut nodes, mut root, interpolated, hits) in &mut ragdolls {
        if sim.map.ragdolls.contains_key(&entity) {
            continue; // put back by a restore: already in the world
        }
        let Some(rig) = spec.rig_def::<S>() else {
            log::error!("bevy_sinew: ragdoll of {entity}: its custom rig is not a RigDef of the plugin's space");
            continue;
        };
        let ragdoll = match Ragdoll::spawn_with(&mut sim.world, &rig, &spec.spawn_def(&rig, t)) {
            Ok(r) => r,
            Err(e) => {
                log::error!("bevy_sinew: ragdoll of {entity} not spawned: {e}");
                continue;
            }
        };
        let body = Body::Plain(ragdoll, Arc::new(SinewRagdoll::clone(&spec)));
        let extras = Extras { interpolated, hits: hits.copied(), ..Extras::default() };
        let entry = fill_in_ragdoll::<S>(
            &mut commands,
            &sim.world,
            entity,
            body,
            spec.node_entities,
            t,
            &mut nodes,
            &mut root,
            extras,
        );
        sim.map.ragdolls.insert(entity, entry);
    }
}

/// A spawned ragdoll's (plain or muscle) [`RagdollNodes`], root position and node
/// entities; its map entry.
#[allow(clippy::too_many_arguments)]
pub(crate) fn fill_in_ragdoll<S: PluginSpace>(
    commands: &mut Commands,
    world: &sinew::World<S>,
    entity: Entity,
    body: Body<S>,
    node_entities: bool,
    t: &Transform,
    nodes: &mut RagdollNodes,
    root: &mut SimulatedPosition,
    extras: Extras,
) -> RagdollEntry<S> {
    let ps = world.particles();
    nodes.positions = body.nodes(world).iter().filter_map(|&p| ps.position(p)).map(S::to_vec3).collect();
    if node_entities {
        nodes.entities = spawn_node_entities::<S>(&nodes.positions, entity, t.translation.z, |bundle| {
            let mut node = commands.spawn(bundle);
            if extras.interpolated {
                node.insert(TransformInterpolation);
            }
            node.id()
        });
    }
    *root = SimulatedPosition::at(nodes.positions.get(body.root(world)).copied().unwrap_or(t.translation));
    RagdollEntry { body, nodes: nodes.entities.clone(), extras }
}

/// One entity per node of `ragdoll` at `positions` (2D: at depth `z`), made by `spawn`.
pub(crate) fn spawn_node_entities<S: PluginSpace>(
    positions: &[Vec3],
    ragdoll: Entity,
    z: f32,
    mut spawn: impl FnMut((RagdollNode, Transform, SimulatedPosition)) -> Entity,
) -> Vec<Entity> {
    (positions.iter().enumerate())
        .map(|(index, &p)| {
            spawn((
                RagdollNode { ragdoll, index },
                Transform::from_translation(keep_z::<S>(p, z)),
                SimulatedPosition::at(p),
            ))
        })
        .collect()
}

/// Prepare: removes the ragdolls (plain or muscle) whose entity or component is gone,
/// with their node entities.
pub(crate) fn remove_ragdolls<S: PluginSpace>(
    mut commands: Commands,
    mut sim: ResMut<SinewWorld<S>>,
    mut removed: RemovedComponents<SinewRagdoll>,
    mut removed_muscles: RemovedComponents<SinewMuscleRagdoll>,
    present: Query<(), Or<(With<SinewRagdoll>, With<SinewMuscleRagdoll>)>>,
) {
    let sim = &mut *sim;
    for entity in removed.read().chain(removed_muscles.read()) {
        if present.contains(entity) {
            continue; // the component was put back (a restore)
        }
        sim.map.grabs.remove(&entity);
        if let Some(r) = sim.map.ragdolls.remove(&entity) {
            for &node in &r.nodes {
                if let Ok(mut node) = commands.get_entity(node) {
                    node.despawn();
                }
            }
            if let Err(e) = r.body.remove(&mut sim.world) {
                log::error!("bevy_sinew: ragdoll of {entity} not removed: {e}");
            }
        }
    }
}

/// Writeback: [`RagdollNodes`] and the [`SimulatedPosition`] of the ragdoll (its root
/// node) and of its node entities.
pub(crate) fn write_ragdolls<S: PluginSpace>(
    sim: Res<SinewWorld<S>>,
    mut ragdolls: Query<(Entity, &mut RagdollNodes, &mut SimulatedPosition), Without<RagdollNode>>,
    mut node_entities: Query<&mut SimulatedPosition, With<RagdollNode>>,
) {
    if sim.steps_last_run == 0 && !sim.restored {
        return;
    }
    let world = &sim.world;
    let ps = world.particles();
    for (entity, mut nodes, mut root) in &mut ragdolls {
        let Some(entry) = sim.map.ragdolls.get(&entity) else { continue };
        let nodes = &mut *nodes;
        nodes.positions.clear();
        nodes.positions.extend(entry.body.nodes(world).iter().map(|&p| ps.position(p).map_or(Vec3::NAN, S::to_vec3)));
        if let Some(&p) = nodes.positions.get(entry.body.root(world)) {
            root.advance(p, sim.restored);
        }
        for (&e, &p) in nodes.entities.iter().zip(&nodes.positions) {
            if let Ok(mut node) = node_entities.get_mut(e) {
                node.advance(p, sim.restored);
            }
        }
    }
}

/// In 2D, a position keeps the entity's own z (its draw order).
pub(crate) fn keep_z<S: PluginSpace>(p: Vec3, z: f32) -> Vec3 {
    if VecOf::<S>::DIM == 2 { p.with_z(z) } else { p }
}
