//! The Shadow Fight 3 muscle ragdoll: a body that is thrown by a hit and pulls itself back
//! into a fighting pose, deterministic down to the bit in fixed point.
//!
//! # Model
//!
//! The body is **nodes** — point masses without orientation, colliding with the ground,
//! not with each other — tied by two kinds of links:
//!
//! - **edges**, rigid distances (`C = |xₐ − x_b| − L`, compliance 0): the bones;
//! - **muscles**, compliant distances toward a **target length** `ℓ*` taken from a target
//!   pose: `C = |xₐ − x_b| − ℓ*` with compliance
//!
//! ```text
//! α(f) = α₁ / (s(f) · kᵢ)
//! ```
//!
//!   where `α₁` is the rig-wide compliance at full strength (m/N), `kᵢ` the muscle's
//!   relative strength and `s(f)` the [strength envelope](super::envelope) at frame `f`.
//!   A muscle is a spring of stiffness `s·kᵢ/α₁` (N/m) toward its target — XPBD makes that
//!   stiffness independent of the substep and iteration counts — and a muscle with
//!   `s·kᵢ = 0` is limp (skipped).
//!
//! Muscles can pull the body into a pose that its edges cannot take (the blend passes
//! through length sets no rigid skeleton has), so the solve is ordered so that **muscles
//! never break the edges**: each muscle iteration projects every muscle once and then
//! every edge `E` times (default `E = 2`), ending on the edges. With `n` substeps and `I`
//! world iterations a frame runs `n·I·M` muscle passes and `n·I·M·E` edge passes
//! (`M` muscle iterations per world iteration, default 1). A muscle ragdoll is a
//! [`Controller`]: it lives in the world, which solves it in every constraint iteration
//! after its own constraints and before contacts, so ground contact and friction act on
//! the nodes as on any particle.
//!
//! # Entering physics
//!
//! [`MuscleRagdollHandle::enter_physics`] (called by spawning) measures the muscle lengths `ℓ⁰`
//! of the current pose, picks the **nearest preset** by the RMS length difference
//! ([`TargetPose::nearest`]) and restarts the frame counter. The targets then blend from
//! `ℓ⁰` to the preset over 50 frames (exactly the preset from frame 50 on) while the
//! strength follows the envelope: 100 % for 2 frames, 55 %, back to 100 % over 120 frames.
//!
//! # Stabilisers
//!
//! A standing body of point masses has nothing that resists bending at a joint except
//! muscles across it, and a muscle between two neighbours of a joint cannot tell a knee
//! bent forward from one bent backward (the distance is the same). Two light
//! **stabiliser nodes**, one in front at chest level and one behind at leg level, tied by
//! edges to the chest and the pelvis and so moving with the torso, give the muscles
//! anchors away from every limb's line: a muscle from a stabiliser to a knee or a hand
//! fixes which side it is on. They do not collide with the ground
//! ([`NodeDef::collides`](super::NodeDef) false). The
//! [`humanoid16_stabilised`](super::presets::humanoid16_stabilised) preset has them.
//!
//! # Measured (`humanoid16_stabilised`, 8 substeps, defaults, see `tests/suite/ragdoll.rs`)
//!
//! Standing in its stance it sags about 5 mm from the preset under its own weight. A 40 N·s
//! punch to the chest knocks it about 10 cm out of pose; it stays on its feet and is back
//! within 5 cm (in practice about 5 mm) within 4 s. Moving between stance and crouch, the
//! edges stay within 0.4 % of their length at 2 edge passes per muscle pass (0.5 % at 1).
//! A harder push (60 N·s backward, 40 N·s forward) tips the 70 kg body over its feet.
//!
//! # Rollback
//!
//! A muscle ragdoll lives in its world's state, as every controller does: the world's
//! [`Snapshot`](crate::Snapshot) saves it (frame counter, chosen preset, entry lengths,
//! targets and multipliers), [`World::restore`] brings it back and
//! [`World::state_hash`] covers it.

use crate::SinewError;
use crate::constraint::{JointLimitHandle, SubstepContext};
use crate::controller::{Controller, ControllerHandle, StepContext, SubstepSolver};
use crate::math::{Real, Vector};
use crate::particle::{ParticleHandle, ParticleSet};
use crate::space::{RealOf, Space, VecOf};
use crate::state::{SavedState, StateHasher, saved_state};
use crate::world::World;

use super::envelope::{BlendSchedule, StrengthEnvelope};
use super::grab::Grab;
use super::pose::{Pose, SpawnDef, TargetPose};
use super::rig::{RigDef, RigError, RigItem};
use super::{RigSpace, add_limits, spawn_particles};

/// Settings of a muscle ragdoll (Box2D style: a small struct with defaults and builder
/// methods).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct MuscleRagdollDef<R> {
    /// Edge passes per muscle pass (`E`), ≥ 1. Default 2.
    pub edge_iterations: u32,
    /// Muscle passes per world iteration (`M`), ≥ 1. Default 1.
    pub muscle_iterations: u32,
    /// Muscle compliance at full strength (`α₁`, m/N), ≥ 0. Default 2·10⁻⁵ (a 50 kN/m
    /// spring: a 70 kg body sags a few millimetres under its own weight).
    pub compliance: R,
    /// Muscle damping coefficient (`β`, N·s/m), ≥ 0: a force `β·ℓ̇` against the rate of
    /// change of the muscle's length, applied with XPBD's `γ = α·β/h` (Macklin et al.
    /// 2016). Default 300 N·s/m (a 70 kg body stops rocking on its feet within a second
    /// or two; far larger values slow the solver's convergence and soften the muscles).
    pub damping: R,
    /// Strength over time.
    pub envelope: StrengthEnvelope<R>,
    /// Blend from the entry pose to the preset.
    pub blend: BlendSchedule,
    /// Also add the rig's joint limits to the world (Shadow Fight 3 has none). Default
    /// false.
    pub joint_limits: bool,
}

impl<R: Real> Default for MuscleRagdollDef<R> {
    fn default() -> Self {
        Self {
            edge_iterations: 2,
            muscle_iterations: 1,
            compliance: R::from_f64(2e-5),
            damping: R::from_i32(300),
            envelope: StrengthEnvelope::default(),
            blend: BlendSchedule::default(),
            joint_limits: false,
        }
    }
}

impl<R: Real> MuscleRagdollDef<R> {
    /// Sets the edge passes per muscle pass (`E`).
    #[must_use]
    pub fn edge_iterations(mut self, n: u32) -> Self {
        self.edge_iterations = n;
        self
    }
    /// Sets the muscle passes per world iteration (`M`).
    #[must_use]
    pub fn muscle_iterations(mut self, n: u32) -> Self {
        self.muscle_iterations = n;
        self
    }
    /// Sets the muscle compliance at full strength (`α₁`, m/N).
    #[must_use]
    pub fn compliance(mut self, compliance: R) -> Self {
        self.compliance = compliance;
        self
    }
    /// Sets the muscle damping (`β`, N·s/m).
    #[must_use]
    pub fn damping(mut self, damping: R) -> Self {
        self.damping = damping;
        self
    }
    /// Sets the strength envelope.
    #[must_use]
    pub fn envelope(mut self, envelope: StrengthEnvelope<R>) -> Self {
        self.envelope = envelope;
        self
    }
    /// Sets the blend schedule.
    #[must_use]
    pub fn blend(mut self, blend: BlendSchedule) -> Self {
        self.blend = blend;
        self
    }
    /// Also adds the rig's joint limits to the world.
    #[must_use]
    pub fn joint_limits(mut self, on: bool) -> Self {
        self.joint_limits = on;
        self
    }

    /// Checks every field.
    pub fn validate(&self) -> Result<(), SinewError> {
        if self.edge_iterations == 0 || self.edge_iterations > 64 {
            return Err(SinewError::InvalidParameter {
                what: "edge_iterations",
                reason: "must be in 1..=64",
                value: None,
            });
        }
        if self.muscle_iterations == 0 || self.muscle_iterations > 64 {
            return Err(SinewError::InvalidParameter {
                what: "muscle_iterations",
                reason: "must be in 1..=64",
                value: None,
            });
        }
        for (v, what) in [(self.compliance, "muscle compliance"), (self.damping, "muscle damping")] {
            if !v.is_finite() {
                return Err(SinewError::NonFinite { what });
            }
            if v < R::ZERO {
                return Err(SinewError::InvalidParameter { what, reason: "must be ≥ 0", value: None });
            }
        }
        self.envelope.validate()
    }
}

saved_state!(impl[R: Real] MuscleRagdollDef<R> {
    edge_iterations, muscle_iterations, compliance, damping, envelope, blend, joint_limits,
});

/// A rigid (or compliant) edge owned by the muscle ragdoll.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Edge<R> {
    a: u32,
    b: u32,
    rest: R,
    compliance: R,
    lambda: R,
}

saved_state!(impl[R: Real] Edge<R> { a, b, rest, compliance, lambda });

/// A muscle: a compliant distance toward a target length.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Muscle<R> {
    a: u32,
    b: u32,
    /// Relative strength `kᵢ`.
    strength: R,
    /// Length when physics was entered (`ℓ⁰`).
    start: R,
    /// Target for the current frame.
    target: R,
    /// Compliance for the current frame; `None` = limp.
    compliance: Option<R>,
    lambda: R,
}

saved_state!(impl[R: Real] Muscle<R> { a, b, strength, start, target, compliance, lambda });

/// XPBD projection of one distance; returns nothing, moves the two ends.
#[inline]
#[allow(clippy::too_many_arguments)]
fn project<S: Space>(
    p: &mut ParticleSet<S>,
    ctx: &SubstepContext<RealOf<S>>,
    a: usize,
    b: usize,
    rest: RealOf<S>,
    compliance: RealOf<S>,
    damping: RealOf<S>,
    lambda: &mut RealOf<S>,
) {
    let zero = RealOf::<S>::ZERO;
    let (wa, wb) = (p.inv_mass[a], p.inv_mass[b]);
    let wsum = wa + wb;
    if wsum == zero {
        return;
    }
    let d = p.pos[a] - p.pos[b];
    let len2 = d.length_squared();
    let eps = RealOf::<S>::GEOMETRIC_EPSILON;
    if len2 <= eps * eps {
        return;
    }
    let (len, inv_len) = len2.sqrt_recip();
    let n = d * inv_len;
    let c = len - rest;
    let dl = if compliance == zero {
        -c / wsum
    } else {
        let alpha_t = compliance * ctx.inv_h2;
        let mut num = -c - alpha_t * *lambda;
        let mut w = wsum;
        if damping != zero {
            let gamma = compliance * damping * ctx.inv_h;
            num -= gamma * n.dot((p.pos[a] - p.prev[a]) - (p.pos[b] - p.prev[b]));
            w = (RealOf::<S>::ONE + gamma) * wsum;
        }
        num / (w + alpha_t)
    };
    *lambda += dl;
    p.pos[a] += n * (wa * dl);
    p.pos[b] -= n * (wb * dl);
}

/// A Shadow Fight 3-style muscle ragdoll (see the module docs): a [`Controller`] whose
/// nodes are particles of its world, and whose edges, muscles and schedules it solves
/// every step. [`MuscleRagdoll::spawn`] adds one to a world and returns its handle.
#[derive(Clone, Debug, PartialEq)]
pub struct MuscleRagdoll<S: RigSpace> {
    def: MuscleRagdollDef<RealOf<S>>,
    nodes: Vec<ParticleHandle>,
    edges: Vec<Edge<RealOf<S>>>,
    /// Edge end nodes (indices into `nodes`), for hit distribution.
    edge_nodes: Vec<(u32, u32)>,
    muscles: Vec<Muscle<RealOf<S>>>,
    /// Preset target poses, already multiplied by the spawn scale.
    presets: Vec<TargetPose<RealOf<S>>>,
    preset: Option<usize>,
    frame: u32,
    limits: Vec<JointLimitHandle>,
    root: usize,
    head: Option<usize>,
    scale: RealOf<S>,
}

saved_state!(impl[S: RigSpace] MuscleRagdoll<S> {
    def, nodes, edges, edge_nodes, muscles, presets, preset, frame, limits, root, head, scale,
});

/// A muscle ragdoll in a world.
pub type MuscleRagdollHandle<S> = ControllerHandle<MuscleRagdoll<S>>;

impl<S: RigSpace> MuscleRagdoll<S> {
    /// Spawns `rig` in `state` and enters physics: the current pose becomes the target,
    /// blending toward the preset nearest to it. `presets` hold one length per muscle at
    /// scale 1 (they are multiplied by `state.scale`); with no presets the body holds its
    /// entry pose.
    ///
    /// The ragdoll is added to the world as a controller (the world steps it from then
    /// on); its handle reads it (`world.controller(h)`) and acts on it (see
    /// [`MuscleRagdollHandle`]'s methods). On error nothing is left in the world.
    pub fn spawn(
        world: &mut World<S>,
        rig: &RigDef<S>,
        def: &MuscleRagdollDef<RealOf<S>>,
        presets: &[TargetPose<RealOf<S>>],
        state: &SpawnDef<S>,
    ) -> Result<MuscleRagdollHandle<S>, SinewError> {
        let m = Self::build(world, rig, def, presets, state)?;
        Ok(world.add_controller(m))
    }

    /// Spawns the nodes and builds the ragdoll, without adding it to the world.
    fn build(
        world: &mut World<S>,
        rig: &RigDef<S>,
        def: &MuscleRagdollDef<RealOf<S>>,
        presets: &[TargetPose<RealOf<S>>],
        state: &SpawnDef<S>,
    ) -> Result<Self, SinewError> {
        def.validate()?;
        let r = rig.resolve()?;
        state.check(rig.node_count())?;
        let scale = state.scale;
        let presets = scaled_presets(presets, r.muscles.len(), scale)?;
        let nodes = spawn_particles(world, rig, state)?;
        let edges = r
            .bones
            .iter()
            .map(|&(a, b, rest, compliance)| Edge {
                a: nodes[a].index() as u32,
                b: nodes[b].index() as u32,
                rest: rest * scale,
                compliance,
                lambda: RealOf::<S>::ZERO,
            })
            .collect();
        let zero = RealOf::<S>::ZERO;
        let muscles = r
            .muscles
            .iter()
            .map(|&(a, b, strength)| Muscle {
                a: nodes[a].index() as u32,
                b: nodes[b].index() as u32,
                strength,
                start: zero,
                target: zero,
                compliance: None,
                lambda: zero,
            })
            .collect();
        let mut out = Self {
            def: *def,
            nodes,
            edges,
            edge_nodes: r.bones.iter().map(|&(a, b, _, _)| (a as u32, b as u32)).collect(),
            muscles,
            presets,
            preset: None,
            frame: 0,
            limits: Vec::new(),
            root: r.root,
            head: r.head,
            scale,
        };
        if def.joint_limits {
            match add_limits(world, &r, &out.nodes) {
                Ok(limits) => out.limits = limits,
                Err(e) => {
                    for h in out.nodes {
                        let _ = world.remove_particle(h);
                    }
                    return Err(e);
                }
            }
        }
        out.enter_physics_with(world.particles())?;
        Ok(out)
    }
}

fn scaled_presets<R: Real>(
    presets: &[TargetPose<R>],
    muscles: usize,
    scale: R,
) -> Result<Vec<TargetPose<R>>, SinewError> {
    let mut out = Vec::with_capacity(presets.len());
    for p in presets {
        if p.lengths.len() != muscles {
            return Err(
                RigError::Invalid { item: RigItem::Pose, reason: "a target pose needs one length per muscle" }.into()
            );
        }
        if !p.lengths.iter().all(|l| l.is_finite()) {
            return Err(SinewError::NonFinite { what: "target pose length" });
        }
        if p.lengths.iter().any(|&l| l < R::ZERO) {
            return Err(SinewError::InvalidParameter {
                what: "target pose length",
                reason: "must be ≥ 0",
                value: None,
            });
        }
        out.push(TargetPose { name: p.name.clone(), lengths: p.lengths.iter().map(|&l| l * scale).collect() });
    }
    Ok(out)
}

impl<S: RigSpace> MuscleRagdoll<S> {
    /// Enters physics from the current state: the current muscle lengths become the
    /// blend's start, the nearest preset becomes the goal, and the frame counter restarts
    /// (so the strength envelope starts again: use it when a new hit arrives or the
    /// character is switched from animation). Returns the chosen preset.
    fn enter_physics_with(&mut self, particles: &ParticleSet<S>) -> Result<Option<usize>, SinewError> {
        let lengths = self.lengths_in(particles)?;
        for (m, &l) in self.muscles.iter_mut().zip(&lengths) {
            m.start = l;
        }
        self.preset = TargetPose::nearest(&self.presets, &lengths).map(|(i, _)| i);
        self.frame = 0;
        self.prepare_frame();
        Ok(self.preset)
    }

    /// Chooses a preset by index instead of the nearest one (the blend continues from
    /// where the frame counter is).
    pub fn select_preset(&mut self, index: usize) -> Result<(), SinewError> {
        if index >= self.presets.len() {
            return Err(SinewError::InvalidParameter { what: "preset", reason: "index out of range", value: None });
        }
        self.preset = Some(index);
        self.prepare_frame();
        Ok(())
    }

    /// Sets this frame's targets and compliances from the schedules.
    fn prepare_frame(&mut self) {
        let s = self.def.envelope.at(self.frame);
        let blend = self.def.blend;
        let f = self.frame;
        let zero = RealOf::<S>::ZERO;
        let preset = self.preset.map(|i| &self.presets[i].lengths);
        for (i, m) in self.muscles.iter_mut().enumerate() {
            m.target = match preset {
                Some(p) => blend.target(f, m.start, p[i]),
                None => m.start,
            };
            let k = s * m.strength;
            m.compliance = if k > zero { Some(self.def.compliance / k) } else { None };
        }
    }

    /// `M` times: muscles once, then edges `E` times.
    fn project_all(&mut self, s: &mut SubstepSolver<'_, S>) {
        let p = &mut *s.particles;
        let ctx = s.ctx;
        let zero = RealOf::<S>::ZERO;
        if s.iteration == 0 {
            self.edges.iter_mut().for_each(|e| e.lambda = zero);
            self.muscles.iter_mut().for_each(|m| m.lambda = zero);
        }
        let damping = self.def.damping;
        for _ in 0..self.def.muscle_iterations {
            for m in &mut self.muscles {
                if let Some(c) = m.compliance {
                    project(p, ctx, m.a as usize, m.b as usize, m.target, c, damping, &mut m.lambda);
                }
            }
            for _ in 0..self.def.edge_iterations {
                for e in &mut self.edges {
                    project(p, ctx, e.a as usize, e.b as usize, e.rest, e.compliance, zero, &mut e.lambda);
                }
            }
        }
    }

    /// Settings.
    #[inline]
    #[must_use]
    pub fn def(&self) -> &MuscleRagdollDef<RealOf<S>> {
        &self.def
    }

    /// Changes the settings (validated; the schedules keep their frame counter).
    pub fn set_def(&mut self, def: MuscleRagdollDef<RealOf<S>>) -> Result<(), SinewError> {
        def.validate()?;
        self.def = def;
        self.prepare_frame();
        Ok(())
    }

    /// Frames stepped since entering physics (the frame the next step runs as).
    #[inline]
    #[must_use]
    pub fn frame(&self) -> u32 {
        self.frame
    }

    /// Strength of the next step, `s(frame)`.
    #[inline]
    #[must_use]
    pub fn strength(&self) -> RealOf<S> {
        self.def.envelope.at(self.frame)
    }

    /// Muscle target lengths of the next step.
    #[must_use]
    pub fn target_lengths(&self) -> Vec<RealOf<S>> {
        self.muscles.iter().map(|m| m.target).collect()
    }

    /// Muscle lengths when physics was entered.
    #[must_use]
    pub fn entry_lengths(&self) -> Vec<RealOf<S>> {
        self.muscles.iter().map(|m| m.start).collect()
    }

    /// Muscle compliances of the next step (`None` = limp).
    #[must_use]
    pub fn compliances(&self) -> Vec<Option<RealOf<S>>> {
        self.muscles.iter().map(|m| m.compliance).collect()
    }

    /// The chosen preset.
    #[inline]
    #[must_use]
    pub fn chosen_preset(&self) -> Option<usize> {
        self.preset
    }

    /// The presets (lengths multiplied by the spawn scale).
    #[inline]
    #[must_use]
    pub fn presets(&self) -> &[TargetPose<RealOf<S>>] {
        &self.presets
    }

    /// Particle of each node, in rig order.
    #[inline]
    #[must_use]
    pub fn nodes(&self) -> &[ParticleHandle] {
        &self.nodes
    }

    /// Index of the root node.
    #[inline]
    #[must_use]
    pub fn root(&self) -> usize {
        self.root
    }

    /// Index of the head node, if any.
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

    /// Joint limits added to the world (only with [`MuscleRagdollDef::joint_limits`]).
    #[inline]
    #[must_use]
    pub fn joint_limits(&self) -> &[JointLimitHandle] {
        &self.limits
    }

    /// Number of edges.
    #[inline]
    #[must_use]
    pub fn edge_count(&self) -> usize {
        self.edges.len()
    }

    /// Number of muscles.
    #[inline]
    #[must_use]
    pub fn muscle_count(&self) -> usize {
        self.muscles.len()
    }

    /// The current pose.
    pub fn pose(&self, world: &World<S>) -> Result<Pose<S>, SinewError> {
        Pose::from_world(world, &self.nodes)
    }

    /// Current length of every muscle.
    pub fn muscle_lengths(&self, world: &World<S>) -> Result<Vec<RealOf<S>>, SinewError> {
        self.lengths_in(world.particles())
    }

    fn lengths_in(&self, ps: &ParticleSet<S>) -> Result<Vec<RealOf<S>>, SinewError> {
        let p = self.live_positions(ps)?;
        Ok(self.muscles.iter().map(|m| p[m.a as usize].distance(p[m.b as usize])).collect())
    }

    /// Largest `|length − rest| / rest` over the edges.
    pub fn max_edge_strain(&self, world: &World<S>) -> Result<RealOf<S>, SinewError> {
        let p = self.live_positions(world.particles())?;
        let mut worst = RealOf::<S>::ZERO;
        for e in &self.edges {
            let l = p[e.a as usize].distance(p[e.b as usize]);
            worst = worst.max((l - e.rest).abs().safe_div(e.rest, RealOf::<S>::ZERO));
        }
        Ok(worst)
    }

    /// Muscle and edge passes per step: `(n·I·M, n·I·M·E)`.
    #[must_use]
    pub fn solver_passes(&self, world: &World<S>) -> (u32, u32) {
        let base = super::stats::solver_passes(world).saturating_mul(self.def.muscle_iterations);
        (base, base.saturating_mul(self.def.edge_iterations))
    }

    /// Largest distance (m) between a node and where `target` puts it, both measured
    /// relative to the root node (no rotation is removed: a body that fell over is far
    /// from a standing target).
    pub fn pose_error(&self, world: &World<S>, target: &Pose<S>) -> Result<RealOf<S>, SinewError> {
        let now = self.pose(world)?;
        if target.len() != now.len() {
            return Err(SinewError::InvalidParameter { what: "pose", reason: "node count differs", value: None });
        }
        let (r0, r1) = (now.positions[self.root], target.positions[self.root]);
        let mut worst = RealOf::<S>::ZERO;
        for (&x, &t) in now.positions.iter().zip(&target.positions) {
            worst = worst.max(((x - r0) - (t - r1)).length());
        }
        Ok(worst)
    }

    fn live_positions<'w>(&self, ps: &'w ParticleSet<S>) -> Result<&'w [VecOf<S>], SinewError> {
        if self.nodes.iter().all(|&h| ps.contains(h)) {
            Ok(ps.positions())
        } else {
            Err(SinewError::InvalidHandle { what: "muscle ragdoll node", handle: None })
        }
    }
}

impl<S: RigSpace> Controller<S> for MuscleRagdoll<S> {
    fn begin_step(&mut self, _: &mut StepContext<'_, S>) {
        self.prepare_frame();
    }

    /// The substep hook: `M` times (muscles once, then edges `E` times).
    fn solve(&mut self, s: &mut SubstepSolver<'_, S>) {
        self.project_all(s);
    }

    /// One call = one frame of the schedules.
    fn end_step(&mut self, _: &mut StepContext<'_, S>) {
        self.frame = self.frame.saturating_add(1);
        self.prepare_frame();
    }

    /// A node is gone: the edges and muscles that pull on it go too (the rest of the body
    /// keeps acting).
    fn particle_removed(&mut self, p: ParticleHandle) {
        let k = p.index() as u32;
        if !self.nodes.contains(&p) {
            return;
        }
        let keep: Vec<bool> = self.edges.iter().map(|e| e.a != k && e.b != k).collect();
        let mut it = keep.iter();
        self.edge_nodes.retain(|_| *it.next().unwrap_or(&true));
        self.edges.retain(|e| e.a != k && e.b != k);
        self.muscles.retain(|m| m.a != k && m.b != k);
        // (Presets keep one length per muscle: drop the removed muscles' lengths.)
        if self.presets.iter().any(|p| p.lengths.len() != self.muscles.len()) {
            self.presets.clear();
            self.preset = None;
        }
    }

    /// Its edges (the bones).
    fn links(&self, out: &mut Vec<[usize; 2]>) {
        out.extend(self.edges.iter().map(|e| [e.a as usize, e.b as usize]));
    }

    fn hash_state(&self, h: &mut StateHasher) {
        SavedState::hash_state(self, h);
    }

    fn heap_bytes(&self) -> usize {
        SavedState::heap_bytes(self)
    }
}

impl<S: RigSpace> MuscleRagdollHandle<S> {
    /// Enters physics from the current state: the current muscle lengths become the
    /// blend's start, the nearest preset becomes the goal, and the frame counter restarts
    /// (so the strength envelope starts again: use it when a new hit arrives or the
    /// character is switched from animation). Returns the chosen preset.
    pub fn enter_physics(self, world: &mut World<S>) -> Result<Option<usize>, SinewError> {
        let (m, ps) = world.controller_and_particles_mut(self)?;
        m.enter_physics_with(ps)
    }

    /// Applies a hit impulse at a point (split over the nearest edge, see
    /// [`Ragdoll::apply_impulse_at`](super::Ragdoll::apply_impulse_at)).
    pub fn apply_impulse_at(
        self,
        world: &mut World<S>,
        point: VecOf<S>,
        impulse: VecOf<S>,
    ) -> Result<(usize, usize, RealOf<S>), SinewError> {
        let m = world.controller(self)?;
        let (nodes, edge_nodes) = (m.nodes.clone(), m.edge_nodes.clone());
        super::apply_impulse_at(world, &nodes, &edge_nodes, point, impulse)
    }

    /// Grabs node `node` (see [`Grab`]).
    pub fn grab(
        self,
        world: &mut World<S>,
        node: usize,
        target: VecOf<S>,
        compliance: RealOf<S>,
    ) -> Result<Grab, SinewError> {
        let nodes = world.controller(self)?.nodes.clone();
        Grab::node(world, &nodes, node, target, compliance)
    }

    /// Removes the ragdoll and its nodes (and any joint limits on them) from the world.
    pub fn remove(self, world: &mut World<S>) -> Result<(), SinewError> {
        let m = world.remove_controller(self)?;
        for h in m.nodes {
            let _ = world.remove_particle(h);
        }
        Ok(())
    }
}
