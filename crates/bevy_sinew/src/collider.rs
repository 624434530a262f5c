//! Static and moving colliders as components: [`SinewCollider`] puts a shape in the world
//! at its entity's `Transform`, and moves it when the transform changes.
//!
//! Ropes and ragdolls collide with these shapes (the world's colliders are kinematic: they
//! push particles and are not pushed back). A collider follows its entity's `Transform`
//! (read as a world transform: top-level entities), so a platform, a door or a character's
//! capsule moved by game code carries the ropes lying on it; the world turns the motion
//! into contact velocity, so friction drags what rests on it along.
//!
//! ```
//! # use bevy_ecs::prelude::*;
//! # use bevy_math::Vec3;
//! # use bevy_transform::components::Transform;
//! use bevy_sinew::prelude::*;
//!
//! fn spawn(mut commands: Commands) {
//!     commands.spawn(SinewCollider::ground()); // the plane y = 0, solid below
//!     commands.spawn((SinewCollider::ball(0.5), Transform::from_xyz(1.0, 1.0, 0.0)));
//! }
//! ```

use bevy_ecs::prelude::*;
use bevy_math::Vec3;
use bevy_transform::components::Transform;
use sinew::math::Real;
use sinew::{ColliderDef, RealOf, Shape, SinewError};

use crate::space::PluginSpace;
use crate::world::{ColliderEntry, SinewWorld};

/// A collider's shape, in its entity's frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ColliderShape {
    /// The half-space on the `normal` side of the plane through the entity's origin.
    HalfSpace {
        /// Points out of the solid.
        normal: Vec3,
    },
    /// A ball (a disc in 2D) centred on the entity.
    Ball {
        /// Radius (m).
        radius: f32,
    },
    /// A box centred on the entity.
    Cuboid {
        /// Half extents (m); z is ignored in 2D.
        half_extents: Vec3,
    },
    /// A capsule along the entity's y axis.
    Capsule {
        /// Half the length of the core segment (m).
        half_height: f32,
        /// Radius (m).
        radius: f32,
    },
}

/// A collider at its entity's `Transform` (a component; see the module docs).
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[require(Transform)]
pub struct SinewCollider {
    /// The shape.
    pub shape: ColliderShape,
}

impl SinewCollider {
    /// The ground: solid below the entity's origin, free above (+y).
    #[must_use]
    pub fn ground() -> Self {
        Self { shape: ColliderShape::HalfSpace { normal: Vec3::Y } }
    }

    /// A ball of `radius`.
    #[must_use]
    pub fn ball(radius: f32) -> Self {
        Self { shape: ColliderShape::Ball { radius } }
    }

    /// A box with these half extents.
    #[must_use]
    pub fn cuboid(half_extents: Vec3) -> Self {
        Self { shape: ColliderShape::Cuboid { half_extents } }
    }

    /// A capsule along y.
    #[must_use]
    pub fn capsule(half_height: f32, radius: f32) -> Self {
        Self { shape: ColliderShape::Capsule { half_height, radius } }
    }

    fn library_shape<S: PluginSpace>(&self) -> Result<Shape<S>, SinewError> {
        let r = |v: f32| RealOf::<S>::from_f64(f64::from(v));
        match self.shape {
            ColliderShape::HalfSpace { normal } => Shape::half_space(S::vector(normal), RealOf::<S>::ZERO),
            ColliderShape::Ball { radius } => Shape::ball(r(radius)),
            ColliderShape::Cuboid { half_extents } => Shape::cuboid(S::vector(half_extents)),
            ColliderShape::Capsule { half_height, radius } => {
                Shape::capsule(S::vector(Vec3::NEG_Y * half_height), S::vector(Vec3::Y * half_height), r(radius))
            }
        }
    }
}

/// Prepare: adds new colliders, moves those whose transform changed, removes those gone.
pub(crate) fn sync_colliders<S: PluginSpace>(
    mut sim: ResMut<SinewWorld<S>>,
    added: Query<(Entity, &SinewCollider, &Transform), Added<SinewCollider>>,
    moved: Query<(Entity, &Transform, Ref<SinewCollider>), Changed<Transform>>,
    mut removed: RemovedComponents<SinewCollider>,
    present: Query<(), With<SinewCollider>>,
) {
    let sim = &mut *sim;
    for entity in removed.read() {
        if present.contains(entity) {
            continue; // the component was put back (a restore)
        }
        if let Some(c) = sim.map.colliders.remove(&entity) {
            let _ = sim.world.remove_collider(c.handle);
        }
    }
    for (entity, c, t) in &added {
        if sim.map.colliders.contains_key(&entity) {
            continue; // put back by a restore: already in the world
        }
        let def = c
            .library_shape::<S>()
            .map(|shape| ColliderDef::new(shape).position(S::vector(t.translation)).rotation(S::rotation(t.rotation)));
        match def.and_then(|def| sim.world.add_collider(&def)) {
            Ok(handle) => {
                sim.map.colliders.insert(entity, ColliderEntry { handle, spec: *c, transform: *t });
            }
            Err(e) => log::error!("bevy_sinew: collider of {entity} not added: {e}"),
        }
    }
    for (entity, t, spec) in &moved {
        // A new collider is where its transform says; one put back by a restore is where
        // the snapshot had it (its saved transform may not round-trip a fixed-point pose).
        if spec.is_added() {
            continue;
        }
        let Some(entry) = sim.map.colliders.get_mut(&entity) else { continue };
        entry.transform = *t;
        let h = entry.handle;
        let Ok(c) = sim.world.collider(h) else { continue };
        let (p, r) = (S::vector(t.translation), S::rotation(t.rotation));
        if (c.position() != p || c.rotation() != r)
            && let Err(e) = sim.world.set_collider_pose(h, p, r)
        {
            log::error!("bevy_sinew: collider of {entity} not moved: {e}");
        }
    }
}
