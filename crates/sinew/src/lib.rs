//! # Sinew
//!
//! Real-time character physics for games: ropes, ragdolls and muscle rigs built from
//! particles and constraints, solved with small-step XPBD, in 2D and 3D, in `f32`, `f64`
//! and bit-exact fixed point.
//!
//! ```
//! use sinew::prelude::*;
//!
//! // A pendulum: a pinned particle and a 1 kg bob on a 1 m rigid link.
//! let mut world = World2::new(WorldDef::default()).unwrap();
//! let pin = world.add_particle(&ParticleDef::at(Vector2::new(0.0, 0.0)).mass(0.0)).unwrap();
//! let bob = world.add_particle(&ParticleDef::at(Vector2::new(1.0, 0.0))).unwrap();
//! world.add_distance(&DistanceDef::new(pin, bob)).unwrap();
//! for _ in 0..60 {
//!     world.step(1.0 / 60.0).unwrap();
//! }
//! let p = world.particles().position(bob).unwrap();
//! assert!((p.length() - 1.0).abs() < 1e-3);
//! ```
//!
//! Layers, from the bottom: [`math`] (scalar, vectors, rotations), [`Space`] (dimension),
//! [`particle`], [`constraint`] and [`collider`], then [`World`] which owns them and runs
//! the substep loop. See `ARCHITECTURE.md` in the repository for the design.

#![warn(missing_docs)]
// `!(x > 0)` is deliberate throughout input validation: it is also true for NaN, which
// `x <= 0` is not.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;

mod arena;
pub mod brachiation;
pub mod collider;
pub mod constraint;
pub mod contact;
pub mod controller;
pub mod debug_draw;
mod dim;
pub mod driver;
mod error;
pub mod fight;
pub mod ik;
pub mod impact;
pub mod limits;
pub mod math;
pub mod particle;
pub mod ragdoll;
pub mod rope;
pub mod sleep;
mod space;
pub mod state;
pub mod stepper;
pub mod world;

pub use arena::RawHandle;
pub use collider::{
    Aabb, Ball, Capsule, Collider, ColliderDef, ColliderHandle, ConvexError, ConvexHull, ConvexPolygon, ConvexShape,
    Cuboid, HalfSpace, Shape,
};
pub use constraint::ConstraintOrder;
pub use constraint::{
    AngleLimit, AngleLimitDef, AttachmentDef, AttachmentHandle, BendingDef, BendingHandle, DistanceDef, DistanceHandle,
    JointLimit, JointLimitHandle, SwingTwistLimit, SwingTwistLimitDef, TetherDef, TetherHandle,
};
pub use contact::bodies::BodyContactStats;
pub use controller::SubstepSolver;
pub use controller::{Controller, ControllerHandle};
pub use debug_draw::{DebugDraw, DebugDrawOptions, DrawKind, Rgba, Style};
pub use driver::{DriverDef, DriverHandle};
pub use error::SinewError;
pub use limits::Limits;
pub use math::{Fx, Quat, Real, Rot2, Rotation, Vector, Vector2, Vector3};
pub use particle::{BodyId, InteractionGroups, ParticleDef, ParticleHandle};
pub use ragdoll::{MuscleRagdoll, MuscleRagdollDef, MuscleRagdollHandle, Pose, Ragdoll, RigDef, SpawnDef, TargetPose};
pub use rope::{Rope, RopeDef, RopeEnd, RopeHandle, RopePoint, TautMode, Wrap};
pub use sleep::{SleepGroup, SleepGroupHandle};
pub use space::{BaseSpace, ColliderSpace, JointSpace, RealOf, RotOf, Space, Space2, Space3, VecOf};
pub use state::StateHasher;
pub use stepper::FixedStepper;
pub use world::{Snapshot, StepProfile, StepReport, World, WorldDef};

/// 2D vector in `f32`.
pub type Vec2 = Vector2<f32>;
/// 3D vector in `f32`.
pub type Vec3 = Vector3<f32>;
/// 2D vector in `f64`.
pub type DVec2 = Vector2<f64>;
/// 3D vector in `f64`.
pub type DVec3 = Vector3<f64>;
/// 2D world in `f32` (the game default).
pub type World2 = World<Space2<f32>>;
/// 3D world in `f32`.
pub type World3 = World<Space3<f32>>;
/// 2D world in `f64`.
pub type World2d = World<Space2<f64>>;
/// 3D world in `f64`.
pub type World3d = World<Space3<f64>>;
/// 2D world in bit-exact Q32.32 fixed point (deterministic on every CPU).
pub type World2x = World<Space2<Fx>>;
/// 3D world in bit-exact Q32.32 fixed point.
pub type World3x = World<Space3<Fx>>;
/// 2D vector in fixed point.
pub type XVec2 = Vector2<Fx>;
/// 3D vector in fixed point.
pub type XVec3 = Vector3<Fx>;

/// Everything a typical user needs, in one glob import.
///
/// It holds no name that glam's or Bevy's preludes hold (`Vec2`, `Vec3`, `DVec2`, `Quat`,
/// `Rot2`, `World`, ...), so `use sinew::prelude::*;` sits beside `use glam::*;` or
/// `use bevy::prelude::*;`: Sinew's vectors are [`Vector2`] and [`Vector3`] (whose scalar
/// is inferred), and its worlds the concrete [`World2`], [`World3`], ... (the generic
/// [`crate::World`] and the aliases [`crate::Vec2`] etc. stay at the crate root). The traits
/// whose methods you call but whose names you rarely write come in anonymously.
pub mod prelude {
    pub use crate::math::Rotation as _;
    pub use crate::{
        AngleLimitDef, AttachmentDef, AttachmentHandle, BendingDef, BendingHandle, ColliderDef, ColliderHandle,
        ConstraintOrder, Controller, ControllerHandle, DistanceDef, DistanceHandle, DriverDef, DriverHandle,
        FixedStepper, Fx, InteractionGroups, JointLimitHandle, MuscleRagdoll, MuscleRagdollDef, MuscleRagdollHandle,
        ParticleDef, ParticleHandle, Pose, Ragdoll, Real, RigDef, RopeDef, RopeEnd, RopeHandle, RopePoint, Shape,
        SinewError, SleepGroupHandle, Snapshot, Space, Space2, Space3, SpawnDef, StepReport, SubstepSolver,
        SwingTwistLimitDef, TargetPose, TautMode, TetherDef, TetherHandle, Vector, Vector2, Vector3, World2, World2d,
        World2x, World3, World3d, World3x, WorldDef, XVec2, XVec3,
    };
}
