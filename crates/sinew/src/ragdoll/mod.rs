//! Ragdolls: characters made of particles, bones and joint limits.
//!
//! # The method (Jakobsen 2001, "Advanced Character Physics")
//!
//! A particle ragdoll has no rigid bodies and no rotations. Each body part is a cluster of
//! point masses held rigid by distance constraints — a segment for a forearm, a triangle
//! or tetrahedron when the part needs an orientation (a head that can nod, a pelvis that
//! can turn) — and two parts are jointed by *sharing* particles:
//!
//! | shared particles | joint | example |
//! |---|---|---|
//! | one | ball (3D) / pin (2D) | shoulder, hip |
//! | two | hinge about the line through them | 3D elbow, knee |
//!
//! Bones are the XPBD distance constraint `C = |xₐ − x_b| − L` with compliance 0; the
//! projection moves each end by its share `wᵢ / (wₐ + w_b)` of the error along the bone, so
//! heavy parts move less. Joints are limited by one-sided angle constraints: in 2D the
//! signed angle `θ = atan2(u × v, u · v)` between the parent bone `u` and the child bone
//! `v` stays in `[min, max]`; in 3D the swing (angle between `u` and `v`) stays in a cone
//! and the twist of a child reference particle about `v`, measured against a parent
//! reference carried over by the swing, stays in a range (see [`crate::AngleLimit`] and
//! [`crate::SwingTwistLimit`] for the gradients). The cone's axis is the direction from
//! `a` to the joint, and `a` can be *any* particle of the parent body, so a cone centred on
//! the middle of a joint's range is one well-placed reference particle away.
//!
//! Everything is solved by the world's small-step XPBD loop: with `n` substeps of one
//! iteration each, a frame makes `n` Gauss–Seidel passes over bones, limits and contacts
//! (the "solver passes per frame" statistic), which converges far better for the same
//! cost than `n` iterations of one big step (Macklin et al. 2019).
//!
//! # This module
//!
//! - [`rig`]: rigs as data ([`RigDef`]) with validation ([`RigError`]);
//! - [`presets`]: a 16-node 2D humanoid, its muscle-rig variant with stabilisers and
//!   target poses, and a 26-particle 3D humanoid;
//! - [`Ragdoll`] (here): spawning a rig into a [`World`], hit impulses, statistics;
//! - [`grab`]: dragging any node with a hard or soft pin and throwing it on release;
//! - [`pose`]: poses, entering physics from animation, muscle target poses;
//! - [`envelope`] and [`muscle`]: the Shadow Fight 3 muscle ragdoll;
//! - [`frame`], [`drive`], [`reaction`] and [`drive_parts`]: pose drives (orientations of
//!   parts made of particles, implicit spring-dampers toward an animated pose) and hit
//!   reactions (strength drop, knock-out, get-up) for active ragdolls.
//!
//! # Example
//!
//! ```
//! use sinew::prelude::*;
//! use sinew::ragdoll::presets;
//!
//! let mut world = World2::new(WorldDef::default().friction(0.6))?;
//! world.add_collider(&ColliderDef::new(Shape::half_space(Vector2::new(0.0, 1.0), 0.0)?))?;
//! // The 16-node side-view humanoid, standing on the ground (its feet are at y = 0).
//! let rig = presets::humanoid16::<f32>();
//! let ragdoll = Ragdoll::spawn(&mut world, &rig, Vector2::ZERO, 1.0, Vector2::ZERO)?;
//! // A 30 N·s punch to the chest, split between the ends of the nearest bone: the body's
//! // momentum changes by exactly the impulse.
//! let chest = ragdoll.node_named(&rig, "chest").unwrap();
//! let at = world.particles().position(chest).unwrap();
//! let before = world.particles().linear_momentum();
//! ragdoll.apply_impulse_at(&mut world, at, Vector2::new(30.0, 0.0))?;
//! assert!((world.particles().linear_momentum() - before - Vector2::new(30.0, 0.0)).length() < 1e-3);
//! for _ in 0..300 {
//!     world.step(1.0 / 60.0)?;
//! }
//! // Knocked down, it lies still on the ground with its bones and joints intact.
//! let stats = ragdoll.stats(&world)?;
//! assert!(stats.max_bone_strain < 0.01 && stats.max_limit_violation < 2f32.to_radians());
//! assert!(ragdoll.is_at_rest(&world, 0.05)? && ragdoll.center_of_mass(&world)?.y < 0.5);
//! # Ok::<(), SinewError>(())
//! ```
//!
//! # Hit impulses
//!
//! A hit at point `p` with impulse `J` goes to the bone nearest `p`. With `t ∈ [0, 1]` the
//! parameter of the closest point on that bone `a → b`, the ends get `(1 − t)·J` and `t·J`:
//! the total momentum change is exactly `J`, and a hit near a joint goes almost entirely to
//! the joint's node. Each node's velocity changes by its share divided by its mass.
//!
//! # Accuracy and cost
//!
//! By default ([`crate::WorldDef::tree_solve`]) a ragdoll's bones are solved exactly every
//! substep, and again after the contacts ([`crate::constraint::tree`]): every bone of
//! `humanoid16` thrown at 10 m/s into a wall or dropped 5 m stays within 0.01 % at 4 and
//! 8 substeps (`tests/suite/ragdoll_tree.rs`); the joint limits, still projections, then
//! overshoot by up to 10–20° on impact frames. What follows is the projections' path
//! (`tree_solve(false)`).
//!
//! Contacts are projected after the bones in every pass, so a node stopped dead by a wall
//! leaves its bones compressed by about `v·h` until the next pass: bone accuracy during an
//! impact is set by the substep length. Worst bone strain of `humanoid16` thrown at 10 m/s
//! into a wall or dropped 5 m (one iteration per substep, 60 Hz): 8 substeps ≈ 7–13 %,
//! 16 ≈ 4–5 %, 64 ≈ 1–2 %, 96 ≤ 0.35 % (`humanoid3d` into a wall: 16 ≈ 10 %, 32 ≈ 2 %,
//! 64 < 1 %, 96 < 0.5 %). Joint limits stay within about a degree from 16 substeps on.
//! Between impacts the error is negligible at any substep count. Small steps beat
//! iterations here: the same passes spent as 32 substeps × 4 iterations reached 2.5 %, and
//! with several iterations nodes can end a step up to 0.5 mm inside the ground, because
//! contacts are only detected in the first iteration of a substep.
//! A game that can afford few substeps for many ragdolls (1000 `humanoid16` at 4
//! substeps) gets visibly squashed bones for a frame or two at each hard impact.
//! [`crate::WorldDef::impact_passes`] (off by default) spends extra work only on the
//! ragdolls a contact struck in a substep or, in 2D, that the projections left strained:
//! one pass solves each such ragdoll's bones, violated joint limits and contacts at once
//! ([`crate::constraint`]'s `group_solve`) and holds every bone of `humanoid16` within
//! 0.5 % and every joint within 0.25° through 15 wall throws at 6–14 m/s and 6 drops at
//! 8 substeps (11 % mean worst strain without), and of one dragged round by a hand at
//! 3 m/s within 0.5 % (30 % without). It costs at least 3 µs per solved ragdoll per
//! substep: for the few ragdolls a game watches closely, not for a 1000-ragdoll rain
//! (~14 ms a frame with it, ~2 ms without). 3D ragdolls keep the re-projection passes
//! (mean worst strain 24 % → 21 % at 8 substeps; `crate::world` module docs, "Impacts").
//!
//! Ragdoll nodes collide as points (spheres); bones do not, so a limb can end up
//! straddling a thin platform.
//!
//! # Sleeping
//!
//! A ragdoll is one sleep group ([`crate::sleep`]): after a second with every node below
//! 1 cm/s it sleeps (skipped by the step) until something touches it, a node is driven or
//! grabbed, or a constraint from outside moves one of its nodes. [`Ragdoll::is_at_rest`]
//! tells whether every node is below a given speed now.

pub mod drive;
mod drive_def;
mod drive_math;
pub mod drive_parts;
pub mod envelope;
pub mod frame;
pub mod grab;
pub mod muscle;
pub mod pose;
pub mod presets;
pub mod reaction;
pub mod rig;
pub mod stats;

pub use drive::{DriveGains, DrivePartDef, PoseDrive, PoseDriveDef, PoseDriveHandle};
pub use envelope::{BlendSchedule, StrengthEnvelope};
pub use frame::{DriveAxes, DriveSpace, InertiaSolver3};
pub use grab::Grab;
pub use muscle::{MuscleRagdoll, MuscleRagdollDef, MuscleRagdollHandle};
pub use pose::{Pose, SpawnDef, TargetPose, pose_distance};
pub use reaction::{DrivePhase, HitReactionDef, HitRecord};
pub use rig::{
    BoneDef, MuscleDef, NodeDef, NodeRef, ResolvedLimit, ResolvedRig, RigDef, RigError, RigItem, RigLimit, TwistDef,
};
pub use stats::RagdollStats;

use crate::constraint::{AngleLimitDef, DistanceHandle, JointLimit, JointLimitHandle, SwingTwistLimitDef};
use crate::math::{Real, Rotation, Vector};
use crate::particle::{InteractionGroups, ParticleDef, ParticleHandle};
use crate::space::{RealOf, RotOf, Space, Space2, Space3, VecOf};
use crate::world::World;
use crate::{DistanceDef, SinewError};

/// The joint-limit definition a world of space `S` accepts.
pub type LimitDefOf<S> = <<S as crate::JointSpace>::JointLimit as JointLimit<S>>::Def;

/// A [`Space`] that can build its joint limits from a rig: 2D rigs use angle limits, 3D
/// rigs swing-twist limits. Implemented for [`Space2`] and [`Space3`].
pub trait RigSpace: Space {
    /// The world limit for a resolved rig limit, with nodes mapped to particles; `None`
    /// when the limit belongs to the other dimension or names a node `nodes` lacks.
    fn limit_def(limit: &ResolvedLimit<Self::Real>, nodes: &[ParticleHandle]) -> Option<LimitDefOf<Self>>;
}

impl<R: Real> RigSpace for Space2<R> {
    fn limit_def(limit: &ResolvedLimit<R>, nodes: &[ParticleHandle]) -> Option<AngleLimitDef<R>> {
        match *limit {
            ResolvedLimit::Angle { nodes: [a, b, c], min, max, compliance } => Some({
                let mut d = AngleLimitDef::new(*nodes.get(a)?, *nodes.get(b)?, *nodes.get(c)?, min, max);
                d.compliance = compliance;
                d
            }),
            ResolvedLimit::SwingTwist { .. } => None,
        }
    }
}

impl<R: Real> RigSpace for Space3<R> {
    fn limit_def(limit: &ResolvedLimit<R>, nodes: &[ParticleHandle]) -> Option<SwingTwistLimitDef<R>> {
        match *limit {
            ResolvedLimit::SwingTwist { nodes: [a, b, c], swing_max, twist, compliance } => {
                let (refs, twist_min, twist_max) = match twist {
                    Some(([p, q], lo, hi)) => (Some((*nodes.get(p)?, *nodes.get(q)?)), lo, hi),
                    None => (None, -R::PI, R::PI),
                };
                Some({
                    let mut d = SwingTwistLimitDef::new(*nodes.get(a)?, *nodes.get(b)?, *nodes.get(c)?, swing_max);
                    d.parent_ref = refs.map(|r| r.0);
                    d.child_ref = refs.map(|r| r.1);
                    d.twist_min = twist_min;
                    d.twist_max = twist_max;
                    d.compliance = compliance;
                    d
                })
            }
            ResolvedLimit::Angle { .. } => None,
        }
    }
}

/// A spawned ragdoll: the handles of its particles, bones and joint limits in a
/// [`World`]. A plain value — it never borrows the world; every method takes the world
/// it was spawned into.
#[derive(Clone, Debug, PartialEq)]
pub struct Ragdoll<S: RigSpace> {
    nodes: Vec<ParticleHandle>,
    bones: Vec<DistanceHandle>,
    /// Bone end nodes (indices into `nodes`), for hit distribution.
    bone_nodes: Vec<(u32, u32)>,
    limits: Vec<JointLimitHandle>,
    root: usize,
    head: Option<usize>,
    scale: RealOf<S>,
    /// The ragdoll sleeps as one group (see [`crate::sleep`]).
    sleep: Option<crate::SleepGroupHandle>,
}

impl<S: RigSpace> Ragdoll<S> {
    /// Spawns the rig's rest pose scaled by `scale` and placed at `origin`, every node
    /// moving at `velocity`.
    pub fn spawn(
        world: &mut World<S>,
        rig: &RigDef<S>,
        origin: VecOf<S>,
        scale: RealOf<S>,
        velocity: VecOf<S>,
    ) -> Result<Self, SinewError> {
        if !origin.is_finite() || !velocity.is_finite() {
            return Err(SinewError::NonFinite { what: "ragdoll origin or velocity" });
        }
        Self::spawn_with(world, rig, &SpawnDef::from_rig(rig, origin, RotOf::<S>::IDENTITY, scale, velocity))
    }

    /// Spawns the rig in a given state: any pose with per-node velocities (for example
    /// [`SpawnDef::from_animation`]). Bones take the rig's rest lengths times the scale,
    /// whatever the pose's distances are; limits are the rig's.
    ///
    /// On error nothing is left in the world.
    pub fn spawn_with(world: &mut World<S>, rig: &RigDef<S>, state: &SpawnDef<S>) -> Result<Self, SinewError> {
        let r = rig.resolve()?;
        state.check(rig.node_count())?;
        let nodes = spawn_particles(world, rig, state)?;
        let mut out = Self {
            nodes,
            bones: Vec::with_capacity(r.bones.len()),
            bone_nodes: r.bones.iter().map(|&(a, b, _, _)| (a as u32, b as u32)).collect(),
            limits: Vec::with_capacity(r.limits.len()),
            root: r.root,
            head: r.head,
            scale: state.scale,
            sleep: None,
        };
        if let Err(e) = out.add_constraints(world, &r, state.scale) {
            out.remove(world);
            return Err(e);
        }
        match world.add_sleep_group(&out.nodes) {
            Ok(g) => out.sleep = Some(g),
            Err(e) => {
                out.remove(world);
                return Err(e);
            }
        }
        Ok(out)
    }

    fn add_constraints(
        &mut self,
        world: &mut World<S>,
        r: &ResolvedRig<RealOf<S>>,
        scale: RealOf<S>,
    ) -> Result<(), SinewError> {
        for &(a, b, rest, compliance) in &r.bones {
            let def = DistanceDef::new(self.nodes[a], self.nodes[b]).length(rest * scale).compliance(compliance);
            self.bones.push(world.add_distance(&def)?);
        }
        self.limits = add_limits(world, r, &self.nodes)?;
        Ok(())
    }
}

/// Adds the rig's joint limits to the world.
pub(crate) fn add_limits<S: RigSpace>(
    world: &mut World<S>,
    r: &ResolvedRig<RealOf<S>>,
    nodes: &[ParticleHandle],
) -> Result<Vec<JointLimitHandle>, SinewError> {
    let mut out = Vec::with_capacity(r.limits.len());
    for l in &r.limits {
        let def = S::limit_def(l, nodes).ok_or(SinewError::InvalidParameter {
            what: "rig limit",
            reason: "limit kind does not match the world's dimension",
            value: None,
        })?;
        out.push(world.add_joint_limit(&def)?);
    }
    Ok(out)
}

/// Adds one particle per node; removes them again on error.
pub(crate) fn spawn_particles<S: Space>(
    world: &mut World<S>,
    rig: &RigDef<S>,
    state: &SpawnDef<S>,
) -> Result<Vec<ParticleHandle>, SinewError> {
    let mut nodes = Vec::with_capacity(rig.node_count());
    // One body per ragdoll (read only while body contacts are on).
    let body = world.new_body()?;
    for (i, n) in rig.nodes.iter().enumerate() {
        let def = ParticleDef {
            position: state.pose.positions[i],
            velocity: state.velocity(i),
            mass: n.mass,
            pinned: false,
            radius: n.radius * state.scale,
            gravity_scale: RealOf::<S>::ONE,
            groups: if n.collides { InteractionGroups::ALL } else { InteractionGroups::NONE },
            friction: n.friction,
            body: Some(body),
        };
        match world.add_particle(&def) {
            Ok(h) => nodes.push(h),
            Err(e) => {
                for h in nodes {
                    let _ = world.remove_particle(h);
                }
                return Err(e);
            }
        }
    }
    Ok(nodes)
}

impl<S: RigSpace> Ragdoll<S> {
    /// Particle of each node, in rig order.
    #[inline]
    #[must_use]
    pub fn nodes(&self) -> &[ParticleHandle] {
        &self.nodes
    }

    /// Particle of node `i`.
    #[inline]
    #[must_use]
    pub fn node(&self, i: usize) -> Option<ParticleHandle> {
        self.nodes.get(i).copied()
    }

    /// Particle of the node called `name` in `rig` (the rig it was spawned from).
    #[must_use]
    pub fn node_named(&self, rig: &RigDef<S>, name: &str) -> Option<ParticleHandle> {
        rig.node_index(name).and_then(|i| self.node(i))
    }

    /// Bone constraints, in rig order.
    #[inline]
    #[must_use]
    pub fn bones(&self) -> &[DistanceHandle] {
        &self.bones
    }

    /// Joint limits, in rig order.
    #[inline]
    #[must_use]
    pub fn joint_limits(&self) -> &[JointLimitHandle] {
        &self.limits
    }

    /// Index of the root node.
    #[inline]
    #[must_use]
    pub fn root(&self) -> usize {
        self.root
    }

    /// Index of the head node, if the rig names one.
    #[inline]
    #[must_use]
    pub fn head(&self) -> Option<usize> {
        self.head
    }

    /// The scale it was spawned at.
    #[inline]
    #[must_use]
    pub fn scale(&self) -> RealOf<S> {
        self.scale
    }

    /// The current pose.
    pub fn pose(&self, world: &World<S>) -> Result<Pose<S>, SinewError> {
        Pose::from_world(world, &self.nodes)
    }

    /// Removes every particle (and with them every bone and limit) from the world.
    pub fn remove(self, world: &mut World<S>) {
        if let Some(g) = self.sleep {
            let _ = world.remove_sleep_group(g);
        }
        for h in self.nodes {
            // A node removed earlier by the caller is simply skipped.
            let _ = world.remove_particle(h);
        }
    }

    /// Adds `velocity` to every node.
    pub fn add_velocity(&self, world: &mut World<S>, velocity: VecOf<S>) -> Result<(), SinewError> {
        if !velocity.is_finite() {
            return Err(SinewError::NonFinite { what: "velocity" });
        }
        for &h in &self.nodes {
            let v = world
                .particles()
                .velocity(h)
                .ok_or(SinewError::InvalidHandle { what: "ragdoll node", handle: Some(h.0) })?;
            world.particles_mut().set_velocity(h, v + velocity)?;
        }
        Ok(())
    }

    /// True while the ragdoll sleeps (at rest for a second; it wakes when touched).
    #[must_use]
    pub fn is_sleeping(&self, world: &World<S>) -> bool {
        self.sleep.and_then(|g| world.sleep_group(g).ok()).is_some_and(|g| g.is_sleeping())
    }

    /// Applies a hit impulse (N·s) at world point `point`: it is split between the two
    /// ends of the nearest bone (see the module docs). Returns the two node indices and
    /// the fraction that went to the second.
    pub fn apply_impulse_at(
        &self,
        world: &mut World<S>,
        point: VecOf<S>,
        impulse: VecOf<S>,
    ) -> Result<(usize, usize, RealOf<S>), SinewError> {
        apply_impulse_at(world, &self.nodes, &self.bone_nodes, point, impulse)
    }
}

/// Hit distribution shared by [`Ragdoll`] and [`MuscleRagdoll`]: nearest segment, split
/// by the closest point's parameter; with no segments, all to the nearest node.
pub(crate) fn apply_impulse_at<S: Space>(
    world: &mut World<S>,
    nodes: &[ParticleHandle],
    segments: &[(u32, u32)],
    point: VecOf<S>,
    impulse: VecOf<S>,
) -> Result<(usize, usize, RealOf<S>), SinewError> {
    if !point.is_finite() {
        return Err(SinewError::NonFinite { what: "hit point" });
    }
    if !impulse.is_finite() {
        return Err(SinewError::NonFinite { what: "impulse" });
    }
    let ps = world.particles();
    let pos = |i: usize| {
        ps.position(nodes[i]).ok_or(SinewError::InvalidHandle { what: "ragdoll node", handle: Some(nodes[i].0) })
    };
    let (zero, one) = (RealOf::<S>::ZERO, RealOf::<S>::ONE);
    let mut best: Option<(RealOf<S>, usize, usize, RealOf<S>)> = None;
    for &(a, b) in segments {
        let (a, b) = (a as usize, b as usize);
        let (xa, xb) = (pos(a)?, pos(b)?);
        let ab = xb - xa;
        let l2 = ab.length_squared();
        let t = if l2 > zero { ((point - xa).dot(ab) / l2).clamp(zero, one) } else { zero };
        let d2 = (xa + ab * t - point).length_squared();
        if best.is_none_or(|bst| d2 < bst.0) {
            best = Some((d2, a, b, t));
        }
    }
    if best.is_none() {
        for i in 0..nodes.len() {
            let d2 = (pos(i)? - point).length_squared();
            if best.is_none_or(|bst| d2 < bst.0) {
                best = Some((d2, i, i, zero));
            }
        }
    }
    let Some((_, a, b, t)) = best else {
        return Err(SinewError::InvalidParameter { what: "ragdoll", reason: "has no nodes", value: None });
    };
    let ps = world.particles_mut();
    if a == b {
        ps.apply_impulse(nodes[a], impulse)?;
    } else {
        ps.apply_impulse(nodes[a], impulse * (one - t))?;
        ps.apply_impulse(nodes[b], impulse * t)?;
    }
    Ok((a, b, t))
}
