//! The engines under test, each set up for the ragdoll scenario of
//! [`sinew_peers::ragdoll_scenario`] (125 ragdolls, a 5 × 5 × 5 grid, falling onto a ground
//! plane), plus Sinew's 1000-ragdoll 2D scene from `crates/sinew/benches/core.rs`.
//!
//! Shared by `benches/ragdolls.rs` and `examples/ragdoll_quality.rs` (included with
//! `#[path]`, since the engines are dev-dependencies and cannot live in the library target).
//!
//! # Rapier 0.36: an 11-body rigid ragdoll
//!
//! Rapier has no ragdoll type, so the ragdoll is built here the way rigid-body ragdolls
//! usually are: one dynamic body per part, jointed by impulse joints whose attached bodies
//! do not collide with each other (`contacts_enabled(false)`). The parts follow Sinew's
//! `humanoid3d` (same joint positions, same rest pose, 70 kg split head 8 %, trunk 50 %,
//! each arm 5 %, each leg 16 %):
//!
//! | body | collider | mass (kg) | joint to parent |
//! |---|---|---|---|
//! | lower torso | cuboid 0.20 × 0.19 × 0.28 m | 14.0 | — |
//! | upper torso | cuboid 0.20 × 0.31 × 0.30 m | 21.0 | spherical at the spine, all axes ±35° |
//! | head | ball r 0.10 m | 5.6 | spherical at the neck, swing ±45°, twist ±70° |
//! | upper arm ×2 | capsule r 4.5 cm, shoulder → elbow | 2.0 | spherical at the shoulder, swing ±110°, twist free |
//! | forearm ×2 | capsule r 3.5 cm, elbow → hand | 1.5 | revolute (lateral axis) at the elbow, −2° … 147° |
//! | thigh ×2 | capsule r 6.5 cm, hip → knee | 7.0 | spherical at the hip, flexion −20° … 120°, abduction ±45°, twist free |
//! | shin ×2 | capsule r 5 cm, knee → foot | 4.2 | revolute (lateral axis) at the knee, −142° … 2° |
//!
//! 11 bodies and 10 joints (6 spherical, 4 revolute) per ragdoll, the same part
//! structure as `humanoid3d` (which splits the torso in two at the spine as well). The
//! spherical limits are per-axis (Rapier's `JointAxis::Ang*` limits) where Sinew has swing
//! cones, so the ranges are close, not identical. World: `PhysicsWorld::new()` (default
//! `IntegrationParameters`: dt 1/60 s, 4 substeps (`num_solver_iterations`), 1 PGS and 1
//! stabilisation iteration per substep; gravity −9.81 y; sleeping on, a body sleeps with its
//! island after 0.5 s below 5 cm/s), ground a fixed half-space at `y = 0`, default friction
//! 0.5, no restitution. Single-threaded (no `parallel` feature).
//!
//! - `rapier/full`: every collider collides with every other one except across a joint:
//!   ragdolls pile on each other and their own non-adjacent parts collide (hand on thigh).
//! - `rapier/ground-only`: collision groups let ragdoll colliders touch only the ground,
//!   Sinew's contact model (Sinew particles collide with colliders, never with each other),
//!   for a like-for-like cost.
//! - `rapier/ground-only-nosleep`: as `ground-only` with `RigidBodyBuilder::can_sleep(false)`
//!   on every body, so every ragdoll is simulated through the timed window.
//!
//! # Sinew
//!
//! `sinew::ragdoll::presets::humanoid3d::<f32>()` (26 particles, 51 bones, 10 swing/twist
//! limits; see its docs) spawned with `Ragdoll::spawn(world, rig, origin, 1.0, velocity)` into
//! a `World3` with `WorldDef::default().substeps(substeps).friction(0.5)` (1 iteration,
//! no damping, no restitution; sleeping on: a ragdoll sleeps after 1 s with every node below
//! 1 cm/s) and a half-space ground at `y = 0`. Particles collide with the ground as spheres of
//! the node radii; ragdolls never collide with each other (Sinew has no particle–particle
//! contacts), so the five ragdolls of a column land inside one another.
//!
//! - `sinew/humanoid3d-8sub`: 8 substeps (the default);
//! - `sinew/humanoid3d-4sub`: 4 substeps;
//! - `sinew/humanoid3d-8sub-nosleep`, `sinew/humanoid3d-4sub-nosleep`: the same without
//!   sleeping. `Ragdoll::spawn` always puts a ragdoll in a sleep group and `Ragdoll` cannot
//!   leave it, so these spawn the rig by hand with exactly `spawn`'s particles, bones and
//!   limits and no sleep group (`spawn_awake` below); their strain and limit figures use
//!   `Ragdoll::stats`'s definitions on those handles.
//! - `sinew/humanoid3d-8sub-tree`, `sinew/humanoid3d-4sub-tree`: as the first two with
//!   `WorldDef::tree_solve(true)`, the exact solve of the bones (the default in 2D, off by
//!   default in 3D).
//! - `sinew/humanoid16-2d-1000-4sub`: the 2D scene of `crates/sinew/benches/core.rs`
//!   (`ragdolls_1000_humanoid16`): 1000 `humanoid16` raining onto a ground and 40 tilted
//!   platforms, 4 substeps, friction 0.5, damping 0.1. For reference only: it is 2D and not
//!   the 125-ragdoll layout.

use rapier3d::prelude as rp;
use sinew::constraint::{DistanceHandle, JointLimit, JointLimitHandle};
use sinew::particle::ParticleHandle;
use sinew::prelude::*;
use sinew::ragdoll::{Ragdoll, RigDef, RigSpace, SpawnDef, presets};
use sinew::{Quat, Rot2, Vec2, Vec3, World};
use sinew_peers::ragdoll_scenario::{self, COUNT, DT, FRICTION};
use std::f32::consts::PI;

/// One engine configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// Rapier, every contact.
    RapierFull,
    /// Rapier, ragdolls touch only the ground.
    RapierGroundOnly,
    /// Rapier, ragdolls touch only the ground, sleeping off.
    RapierGroundOnlyNoSleep,
    /// Sinew `humanoid3d`, 8 substeps.
    Sinew3d8,
    /// Sinew `humanoid3d`, 4 substeps.
    Sinew3d4,
    /// Sinew `humanoid3d`, 8 substeps, sleeping off.
    Sinew3d8NoSleep,
    /// Sinew `humanoid3d`, 4 substeps, sleeping off.
    Sinew3d4NoSleep,
    /// Sinew `humanoid3d`, 8 substeps, its bones tree-solved (`WorldDef::tree_solve`).
    Sinew3d8Tree,
    /// Sinew `humanoid3d`, 4 substeps, its bones tree-solved.
    Sinew3d4Tree,
    /// Sinew 1000 `humanoid16` (2D), 4 substeps, the core bench's scene.
    Sinew2d1000,
}

impl Variant {
    /// Every variant, in report order.
    pub const ALL: [Variant; 10] = [
        Variant::RapierFull,
        Variant::RapierGroundOnly,
        Variant::RapierGroundOnlyNoSleep,
        Variant::Sinew3d8,
        Variant::Sinew3d4,
        Variant::Sinew3d8NoSleep,
        Variant::Sinew3d4NoSleep,
        Variant::Sinew3d8Tree,
        Variant::Sinew3d4Tree,
        Variant::Sinew2d1000,
    ];

    /// Name used in the bench ids and the printed table.
    pub fn name(self) -> &'static str {
        match self {
            Variant::RapierFull => "rapier/full",
            Variant::RapierGroundOnly => "rapier/ground-only",
            Variant::RapierGroundOnlyNoSleep => "rapier/ground-only-nosleep",
            Variant::Sinew3d8 => "sinew/humanoid3d-8sub",
            Variant::Sinew3d4 => "sinew/humanoid3d-4sub",
            Variant::Sinew3d8NoSleep => "sinew/humanoid3d-8sub-nosleep",
            Variant::Sinew3d4NoSleep => "sinew/humanoid3d-4sub-nosleep",
            Variant::Sinew3d8Tree => "sinew/humanoid3d-8sub-tree",
            Variant::Sinew3d4Tree => "sinew/humanoid3d-4sub-tree",
            Variant::Sinew2d1000 => "sinew/humanoid16-2d-1000-4sub",
        }
    }
}

/// Per-step accuracy figures of a world (see [`Sim::measure`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct Measure {
    /// Rapier: largest distance between the two anchors of a joint (m). Sinew: largest
    /// `|length − rest|` of a bone (m) (its joints are shared particles, so they cannot
    /// separate; the error shows up in the bones instead).
    pub joint_error: f32,
    /// Sinew: largest `|length − rest| / rest` over bones (`RagdollStats::max_bone_strain`);
    /// Rapier: 0 (rigid bodies do not strain).
    pub bone_strain: f32,
    /// Sinew: largest joint-limit violation (rad) (`RagdollStats::max_limit_violation`);
    /// Rapier: not measured (0).
    pub limit_violation: f32,
    /// Deepest point below the ground (m, ≥ 0): Rapier, the lowest collider AABB bottom;
    /// Sinew, the lowest particle bottom (`y − radius`).
    pub ground_depth: f32,
    /// Ragdolls with at least one awake body / not asleep.
    pub awake: usize,
}

/// A joint of the Rapier ragdoll as built: the two bodies and the anchors in their frames.
#[derive(Clone, Copy, Debug)]
pub struct RapierJoint {
    /// Parent body.
    pub body1: rp::RigidBodyHandle,
    /// Child body.
    pub body2: rp::RigidBodyHandle,
    /// Joint position in the parent's frame.
    pub anchor1: rp::Vector,
    /// Joint position in the child's frame.
    pub anchor2: rp::Vector,
}

/// A built ragdoll world of one engine.
pub enum Sim {
    /// Rapier: the world, every joint, and each ragdoll's bodies.
    Rapier { world: Box<rp::PhysicsWorld>, joints: Vec<RapierJoint>, ragdolls: Vec<Vec<rp::RigidBodyHandle>> },
    /// Sinew 3D: either spawned ragdolls, or (sleeping off) the same rig spawned by hand.
    Sinew3 { world: Box<World3>, ragdolls: Vec<Ragdoll<Space3<f32>>>, awake: Vec<AwakeDoll> },
    /// Sinew 2D.
    Sinew2 { world: Box<World2>, ragdolls: Vec<Ragdoll<Space2<f32>>> },
}

impl Sim {
    /// The scenario's initial state for `variant` (time 0, nothing stepped).
    pub fn new(variant: Variant) -> Self {
        match variant {
            Variant::RapierFull => rapier_scene(false, true),
            Variant::RapierGroundOnly => rapier_scene(true, true),
            Variant::RapierGroundOnlyNoSleep => rapier_scene(true, false),
            Variant::Sinew3d8 => sinew3_scene(8, true, false),
            Variant::Sinew3d4 => sinew3_scene(4, true, false),
            Variant::Sinew3d8NoSleep => sinew3_scene(8, false, false),
            Variant::Sinew3d4NoSleep => sinew3_scene(4, false, false),
            Variant::Sinew3d8Tree => sinew3_scene(8, true, true),
            Variant::Sinew3d4Tree => sinew3_scene(4, true, true),
            Variant::Sinew2d1000 => sinew2_scene(),
        }
    }

    /// Advances one 1/60 s step.
    pub fn step(&mut self) {
        match self {
            Sim::Rapier { world, .. } => world.step(),
            Sim::Sinew3 { world, .. } => {
                world.step(DT).expect("sinew step");
            }
            Sim::Sinew2 { world, .. } => {
                world.step(DT).expect("sinew step");
            }
        }
    }

    /// A copy of the current state. Rapier's `PhysicsWorld` is not `Clone`: its state
    /// (bodies, colliders, joints, islands, broad and narrow phase, warm-start impulses
    /// included) is cloned into a world with a new `PhysicsPipeline`, `CollisionPipeline` and
    /// `CCDSolver`. (Handing the copy the pipeline of another world, to spare it the first
    /// step's allocations, is not safe: the `PhysicsPipeline` keeps state between steps, and
    /// with a pipeline taken from a world 120 steps further on, `rapier/full` pulled a joint
    /// 1.3 m apart 18 steps later.) Sinew's `World` is `Clone`.
    pub fn restore_from(base: &Sim) -> Sim {
        match base {
            Sim::Rapier { world: w, joints, ragdolls } => {
                let world = rp::PhysicsWorld {
                    gravity: w.gravity,
                    integration_parameters: w.integration_parameters,
                    physics_pipeline: rp::PhysicsPipeline::new(),
                    collision_pipeline: rp::CollisionPipeline::new(),
                    islands: w.islands.clone(),
                    broad_phase: w.broad_phase.clone(),
                    narrow_phase: w.narrow_phase.clone(),
                    bodies: w.bodies.clone(),
                    colliders: w.colliders.clone(),
                    impulse_joints: w.impulse_joints.clone(),
                    multibody_joints: w.multibody_joints.clone(),
                    soft_bodies: w.soft_bodies.clone(),
                    ccd_solver: rp::CCDSolver::new(),
                };
                Sim::Rapier { world: Box::new(world), joints: joints.clone(), ragdolls: ragdolls.clone() }
            }
            Sim::Sinew3 { world, ragdolls, awake } => {
                Sim::Sinew3 { world: world.clone(), ragdolls: ragdolls.clone(), awake: awake.clone() }
            }
            Sim::Sinew2 { world, ragdolls } => Sim::Sinew2 { world: world.clone(), ragdolls: ragdolls.clone() },
        }
    }

    /// Accuracy figures of the current state (see [`Measure`]).
    pub fn measure(&self) -> Measure {
        let mut m = Measure::default();
        match self {
            Sim::Rapier { world, joints, ragdolls } => {
                for j in joints {
                    let a = world.bodies[j.body1].position().transform_point(j.anchor1);
                    let b = world.bodies[j.body2].position().transform_point(j.anchor2);
                    m.joint_error = m.joint_error.max(a.distance(b));
                }
                for (_, c) in world.colliders.iter() {
                    if c.parent().is_some_and(|b| world.bodies[b].is_dynamic()) {
                        m.ground_depth = m.ground_depth.max(-c.compute_aabb().mins.y);
                    }
                }
                m.awake = ragdolls.iter().filter(|r| r.iter().any(|&h| !world.bodies[h].is_sleeping())).count();
            }
            Sim::Sinew3 { world, ragdolls, awake } => {
                for r in ragdolls {
                    let st = r.stats(world).expect("stats");
                    m.bone_strain = m.bone_strain.max(st.max_bone_strain);
                    m.limit_violation = m.limit_violation.max(st.max_limit_violation);
                    m.joint_error = m.joint_error.max(worst_bone_error(world, r.bones()));
                    m.awake += usize::from(!r.is_sleeping(world));
                }
                for d in awake {
                    let (error, strain) = bone_errors(world, &d.bones);
                    m.joint_error = m.joint_error.max(error);
                    m.bone_strain = m.bone_strain.max(strain);
                    for &h in &d.limits {
                        let l = world.joint_limit(h).expect("limit");
                        m.limit_violation = m.limit_violation.max(l.violation(world.particles()));
                    }
                    m.awake += 1;
                }
                let ps = world.particles();
                for (p, r) in ps.positions().iter().zip(ps.radii()) {
                    m.ground_depth = m.ground_depth.max(r - p.y);
                }
            }
            Sim::Sinew2 { world, ragdolls } => {
                for r in ragdolls {
                    let st = r.stats(world).expect("stats");
                    m.bone_strain = m.bone_strain.max(st.max_bone_strain);
                    m.limit_violation = m.limit_violation.max(st.max_limit_violation);
                    m.joint_error = m.joint_error.max(worst_bone_error(world, r.bones()));
                    m.awake += usize::from(!r.is_sleeping(world));
                }
                let ps = world.particles();
                for (p, r) in ps.positions().iter().zip(ps.radii()) {
                    m.ground_depth = m.ground_depth.max(r - p.y);
                }
            }
        }
        m
    }

    /// Number of ragdolls.
    pub fn ragdolls(&self) -> usize {
        match self {
            Sim::Rapier { ragdolls, .. } => ragdolls.len(),
            Sim::Sinew3 { ragdolls, awake, .. } => ragdolls.len() + awake.len(),
            Sim::Sinew2 { ragdolls, .. } => ragdolls.len(),
        }
    }

    /// True when every body or particle position is finite.
    pub fn is_finite(&self) -> bool {
        match self {
            Sim::Rapier { world, .. } => world.bodies.iter().all(|(_, b)| b.translation().is_finite()),
            Sim::Sinew3 { world, .. } => world.particles().positions().iter().all(|p| p.is_finite()),
            Sim::Sinew2 { world, .. } => world.particles().positions().iter().all(|p| p.is_finite()),
        }
    }
}

/// Largest `|length − rest|` (m) over `bones`.
fn worst_bone_error<S: Space<Real = f32>>(world: &World<S>, bones: &[DistanceHandle]) -> f32 {
    bone_errors(world, bones).0
}

/// `(max |length − rest|, max |length − rest| / rest)` over `bones`: the definitions of
/// `Ragdoll::bone_errors`, for ragdolls spawned by hand.
fn bone_errors<S: Space<Real = f32>>(world: &World<S>, bones: &[DistanceHandle]) -> (f32, f32) {
    let p = world.particles().positions();
    let (mut error, mut strain) = (0.0f32, 0.0f32);
    for &h in bones {
        let c = world.distance(h).expect("bone");
        let (a, b) = c.indices();
        let e = (p[a].distance(p[b]) - c.rest).abs();
        error = error.max(e);
        strain = strain.max(e / c.rest);
    }
    (error, strain)
}

// ------------------------------------------------------------------ Rapier

fn v(x: f32, y: f32, z: f32) -> rp::Vector {
    rp::Vector::new(x, y, z)
}

fn deg(d: f32) -> f32 {
    d * PI / 180.0
}

/// A part of the Rapier ragdoll, in the rig frame (rest pose, feet at `y ≈ 0`, facing +x).
enum Part {
    Ball { centre: rp::Vector, radius: f32 },
    Cuboid { centre: rp::Vector, half: rp::Vector },
    Capsule { a: rp::Vector, b: rp::Vector, radius: f32 },
}

impl Part {
    fn centre(&self) -> rp::Vector {
        match *self {
            Part::Ball { centre, .. } | Part::Cuboid { centre, .. } => centre,
            Part::Capsule { a, b, .. } => (a + b) * 0.5,
        }
    }

    fn collider(&self) -> rp::ColliderBuilder {
        match *self {
            Part::Ball { radius, .. } => rp::ColliderBuilder::ball(radius),
            Part::Cuboid { half, .. } => rp::ColliderBuilder::cuboid(half.x, half.y, half.z),
            Part::Capsule { a, b, radius } => {
                let c = self.centre();
                rp::ColliderBuilder::capsule_from_endpoints(a - c, b - c, radius)
            }
        }
    }
}

/// Joint kinds of the Rapier ragdoll (limits in radians).
enum JointKind {
    /// Spherical with per-axis angular limits `(axis, [min, max])`.
    Ball(Vec<(rp::JointAxis, [f32; 2])>),
    /// Revolute about the lateral axis `z` with limits.
    Hinge([f32; 2]),
}

fn rapier_scene(ground_only: bool, sleeping: bool) -> Sim {
    let mut world = rp::PhysicsWorld::new();
    let (ragdoll_groups, ground_groups) = if ground_only {
        (
            rp::InteractionGroups::new(rp::Group::GROUP_1, rp::Group::GROUP_2, rp::InteractionTestMode::And),
            rp::InteractionGroups::new(rp::Group::GROUP_2, rp::Group::ALL, rp::InteractionTestMode::And),
        )
    } else {
        (rp::InteractionGroups::all(), rp::InteractionGroups::all())
    };
    let ground = world.insert_body(rp::RigidBodyBuilder::fixed());
    world.insert_collider(
        rp::ColliderBuilder::new(rp::SharedShape::halfspace(rp::Vector::Y)).collision_groups(ground_groups),
        Some(ground),
    );

    let mut joints = Vec::new();
    let mut ragdolls = Vec::with_capacity(COUNT);
    for n in 0..COUNT {
        let [ox, oy, oz] = ragdoll_scenario::origin(n);
        let [vx, vy, vz] = ragdoll_scenario::velocity(n);
        let (origin, vel) = (v(ox, oy, oz), v(vx, vy, vz));
        let mut bodies = Vec::with_capacity(11);
        let mut add = |world: &mut rp::PhysicsWorld, part: Part, mass: f32| {
            let body =
                rp::RigidBodyBuilder::dynamic().translation(origin + part.centre()).linvel(vel).can_sleep(sleeping);
            let h = world.insert_body(body);
            world.insert_collider(part.collider().mass(mass).collision_groups(ragdoll_groups), Some(h));
            bodies.push(h);
            (h, part.centre())
        };
        let lower = add(&mut world, Part::Cuboid { centre: v(-0.02, 1.025, 0.0), half: v(0.10, 0.095, 0.14) }, 14.0);
        let upper = add(&mut world, Part::Cuboid { centre: v(0.02, 1.315, 0.0), half: v(0.10, 0.155, 0.15) }, 21.0);
        let head = add(&mut world, Part::Ball { centre: v(0.03, 1.65, 0.0), radius: 0.10 }, 5.6);
        let mut pending = vec![
            (
                lower,
                upper,
                v(-0.02, 1.14, 0.0),
                JointKind::Ball(vec![
                    (rp::JointAxis::AngX, [deg(-35.0), deg(35.0)]),
                    (rp::JointAxis::AngY, [deg(-35.0), deg(35.0)]),
                    (rp::JointAxis::AngZ, [deg(-35.0), deg(35.0)]),
                ]),
            ),
            (
                upper,
                head,
                v(-0.01, 1.50, 0.0),
                JointKind::Ball(vec![
                    (rp::JointAxis::AngX, [deg(-45.0), deg(45.0)]),
                    (rp::JointAxis::AngY, [deg(-70.0), deg(70.0)]),
                    (rp::JointAxis::AngZ, [deg(-45.0), deg(45.0)]),
                ]),
            ),
        ];
        for s in [-1.0f32, 1.0] {
            let (shoulder, elbow, hand) = (v(0.0, 1.44, 0.18 * s), v(-0.02, 1.16, 0.20 * s), v(-0.02, 0.90, 0.20 * s));
            let (hip, knee, foot) = (v(0.03, 0.93, 0.10 * s), v(0.05, 0.51, 0.10 * s), v(0.03, 0.06, 0.10 * s));
            let arm = add(&mut world, Part::Capsule { a: shoulder, b: elbow, radius: 0.045 }, 2.0);
            let forearm = add(&mut world, Part::Capsule { a: elbow, b: hand, radius: 0.035 }, 1.5);
            let thigh = add(&mut world, Part::Capsule { a: hip, b: knee, radius: 0.065 }, 7.0);
            let shin = add(&mut world, Part::Capsule { a: knee, b: foot, radius: 0.05 }, 4.2);
            pending.push((
                upper,
                arm,
                shoulder,
                JointKind::Ball(vec![
                    (rp::JointAxis::AngX, [deg(-110.0), deg(110.0)]),
                    (rp::JointAxis::AngZ, [deg(-110.0), deg(110.0)]),
                ]),
            ));
            pending.push((arm, forearm, elbow, JointKind::Hinge([deg(-2.0), deg(147.0)])));
            pending.push((
                lower,
                thigh,
                hip,
                JointKind::Ball(vec![
                    (rp::JointAxis::AngX, [deg(-45.0), deg(45.0)]),
                    (rp::JointAxis::AngZ, [deg(-20.0), deg(120.0)]),
                ]),
            ));
            pending.push((thigh, shin, knee, JointKind::Hinge([deg(-142.0), deg(2.0)])));
        }
        for ((b1, c1), (b2, c2), at, kind) in pending {
            let (anchor1, anchor2) = (at - c1, at - c2);
            let joint: rp::GenericJoint = match kind {
                JointKind::Ball(limits) => {
                    let mut j = rp::SphericalJointBuilder::new()
                        .local_anchor1(anchor1)
                        .local_anchor2(anchor2)
                        .contacts_enabled(false);
                    for (axis, l) in limits {
                        j = j.limits(axis, l);
                    }
                    j.build().into()
                }
                JointKind::Hinge(l) => rp::RevoluteJointBuilder::new(rp::Vector::Z)
                    .local_anchor1(anchor1)
                    .local_anchor2(anchor2)
                    .contacts_enabled(false)
                    .limits(l)
                    .build()
                    .into(),
            };
            world.insert_impulse_joint(b1, b2, joint);
            joints.push(RapierJoint { body1: b1, body2: b2, anchor1, anchor2 });
        }
        ragdolls.push(bodies);
    }
    Sim::Rapier { world: Box::new(world), joints, ragdolls }
}

// ------------------------------------------------------------------ Sinew

/// A ragdoll spawned by hand without a sleep group: the bones and limits it got.
#[derive(Clone, Debug)]
pub struct AwakeDoll {
    /// Bone constraints, in rig order.
    pub bones: Vec<DistanceHandle>,
    /// Joint limits, in rig order.
    pub limits: Vec<JointLimitHandle>,
}

/// What `Ragdoll::spawn(world, rig, origin, 1.0, velocity)` does, step for step (one
/// particle per node with the node's mass, radius, groups and friction; a rigid
/// `DistanceDef` per bone at its rest length and compliance; the rig's limits through
/// `RigSpace::limit_def`), except the sleep group it adds at the end: `Ragdoll` has no way to
/// opt out of sleeping, and its fields are private, so the no-sleep variants spawn by hand.
fn spawn_awake(world: &mut World3, rig: &RigDef<Space3<f32>>, origin: Vec3, velocity: Vec3) -> AwakeDoll {
    let r = rig.resolve().expect("rig");
    let state = SpawnDef::from_rig(rig, origin, Quat::IDENTITY, 1.0, velocity);
    let nodes: Vec<ParticleHandle> = rig
        .nodes
        .iter()
        .zip(&state.pose.positions)
        .map(|(n, &position)| {
            let mut def = ParticleDef::at(position).velocity(velocity).mass(n.mass).radius(n.radius);
            def.groups = if n.collides { InteractionGroups::ALL } else { InteractionGroups::NONE };
            def.friction = n.friction;
            world.add_particle(&def).expect("node")
        })
        .collect();
    let bones = r
        .bones
        .iter()
        .map(|&(a, b, rest, compliance)| {
            world.add_distance(&DistanceDef::new(nodes[a], nodes[b]).length(rest).compliance(compliance)).expect("bone")
        })
        .collect();
    let limits = r
        .limits
        .iter()
        .map(|l| world.add_joint_limit(&Space3::<f32>::limit_def(l, &nodes).expect("3D limit")).expect("limit"))
        .collect();
    AwakeDoll { bones, limits }
}

fn sinew3_scene(substeps: u32, sleeping: bool, tree: bool) -> Sim {
    let rig = presets::humanoid3d::<f32>();
    let def = WorldDef::default().substeps(substeps).friction(FRICTION).tree_solve(tree);
    let mut world = World3::new(def).expect("world");
    let ground = Shape::half_space(Vec3::new(0.0, 1.0, 0.0), 0.0).expect("ground");
    world.add_collider(&ColliderDef::new(ground)).expect("ground");
    let (mut ragdolls, mut awake) = (Vec::new(), Vec::new());
    for n in 0..COUNT {
        let [ox, oy, oz] = ragdoll_scenario::origin(n);
        let [vx, vy, vz] = ragdoll_scenario::velocity(n);
        let (origin, velocity) = (Vec3::new(ox, oy, oz), Vec3::new(vx, vy, vz));
        if sleeping {
            ragdolls.push(Ragdoll::spawn(&mut world, &rig, origin, 1.0, velocity).expect("spawn"));
        } else {
            awake.push(spawn_awake(&mut world, &rig, origin, velocity));
        }
    }
    Sim::Sinew3 { world: Box::new(world), ragdolls, awake }
}

/// `ragdoll_rain::<f32>` of `crates/sinew/benches/core.rs`, without its 180 warm-up steps
/// (the harness runs those).
fn sinew2_scene() -> Sim {
    let rig = presets::humanoid16::<f32>();
    let def = WorldDef::default().substeps(4).friction(0.5).damping(0.1);
    let mut w = World2::new(def).expect("world");
    w.add_collider(&ColliderDef::new(Shape::half_space(Vec2::new(0.0, 1.0), 0.0).expect("ground"))).expect("ground");
    for i in 0..40 {
        let (x, y) = (-48.0 + (i % 20) as f32 * 5.0, 2.0 + (i / 20) as f32 * 3.0);
        // Computed in f64 and rounded once, exactly as `R::from_f64` does in core.rs.
        let tilt = Rot2::from_angle((0.1 * ((i % 5) as f64 - 2.0)) as f32);
        let platform = Shape::cuboid(Vec2::new(1.5, 0.25)).expect("platform");
        w.add_collider(&ColliderDef::new(platform).position(Vec2::new(x, y)).rotation(tilt)).expect("platform");
    }
    let ragdolls = (0..1000)
        .map(|k| {
            let origin = Vec2::new(-50.0 + (k % 50) as f32 * 2.0, 8.0 + (k / 50) as f32 * 2.0);
            let vel = Vec2::new(((k * 7) % 7) as f32 - 3.0, ((k * 3) % 5) as f32 - 2.0);
            Ragdoll::spawn(&mut w, &rig, origin, 1.0, vel).expect("spawn")
        })
        .collect();
    Sim::Sinew2 { world: Box::new(w), ragdolls }
}
