//! Muscle ragdolls as components: [`SinewMuscleRagdoll`] spawns a body that holds itself
//! in a target pose, and [`MuscleTarget`] changes that pose at runtime.
//!
//! ```
//! # use bevy_ecs::prelude::*;
//! # use bevy_transform::components::Transform;
//! use bevy_sinew::prelude::*;
//!
//! fn spawn(mut commands: Commands) {
//!     // The 2D fighter, standing in its stance (feet on the ground at the entity).
//!     commands.spawn((SinewMuscleRagdoll::humanoid(), Transform::default(), MuscleTarget::named("stance")));
//! }
//!
//! fn crouch(mut fighters: Query<&mut MuscleTarget>) {
//!     for mut target in &mut fighters {
//!         *target = MuscleTarget::named("crouch"); // it blends there over 50 steps
//!     }
//! }
//! ```
//!
//! # The model (the library's `sinew::ragdoll::muscle`)
//!
//! A muscle ragdoll is nodes held by rigid *edges* (the bones) and compliant *muscles*,
//! distance springs toward target lengths taken from a *preset* pose: a muscle is a
//! spring of stiffness `s(f)·kᵢ/α₁` (N/m), with `α₁` the compliance at full strength
//! ([`SinewMuscleRagdoll::compliance`]), `kᵢ` the muscle's own strength and `s(f)` the
//! *strength envelope* at frame `f` since the body entered physics
//! ([`MuscleStrength`]: full for 2 frames, 55 %, back to full over 120 by default — a hit
//! knocks it, then it recovers). Entering physics, the targets blend from the body's
//! current lengths to the preset over 50 steps, so nothing jumps.
//!
//! # What the plugin does
//!
//! It spawns the rig in [`SinewMuscleRagdoll::pose`] (a preset's node positions, or your
//! own) at the entity's `Transform`, with one node entity per node as for
//! [`crate::SinewRagdoll`] ([`crate::RagdollNodes`], [`crate::RagdollNode`], the entity
//! following its root node; grabs and hits work the same). The target is the entity's
//! [`MuscleTarget`]: when it changes, the body re-enters physics from where it is (the
//! blend and the strength envelope start again) toward the new preset. Changing the
//! [`SinewMuscleRagdoll`] itself (strength, compliance, damping) applies its settings,
//! keeping the frame counter. The body is a controller of the world: a
//! [`crate::SinewSnapshot`] saves it, frame counter and chosen preset included.
//!
//! Presets: [`MuscleRig::Humanoid`] is the library's 2D `humanoid16_stabilised` with its
//! poses "stance", "crouch" and "upright" (feet on the ground at the entity's origin).
//! The library has no 3D muscle rig: in a 3D world use [`MuscleRig::Custom`].

use std::any::Any;
use std::sync::Arc;

use bevy_ecs::prelude::*;
use bevy_math::Vec3;
use bevy_transform::components::Transform;
use sinew::math::Real;
use sinew::ragdoll::{MuscleRagdollDef, Pose, RigDef, SpawnDef, StrengthEnvelope, TargetPose};
use sinew::{MuscleRagdoll, MuscleRagdollHandle, RealOf, SinewError};

use crate::hits::HitEvents;
use crate::interpolation::{SimulatedPosition, TransformInterpolation};
use crate::ragdoll::{RagdollNodes, fill_in_ragdoll};
use crate::space::PluginSpace;
use crate::world::{Body, Extras, SinewWorld};

/// A muscle rig and its preset poses.
#[derive(Clone)]
pub enum MuscleRig {
    /// The library's 2D fighter (`humanoid16_stabilised`, presets "stance", "crouch",
    /// "upright"). Not available in 3D (logged, not spawned).
    Humanoid,
    /// Your own: a [`MuscleRigDef`]`<S>` of the plugin's space `S`.
    Custom(Arc<dyn Any + Send + Sync>),
}

impl core::fmt::Debug for MuscleRig {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::Humanoid => "Humanoid",
            Self::Custom(_) => "Custom(..)",
        })
    }
}

/// A custom muscle rig: the rig (with muscles) and its named preset poses (node
/// positions in the entity's frame).
#[derive(Clone, Debug)]
pub struct MuscleRigDef<S: PluginSpace> {
    /// The rig.
    pub rig: RigDef<S>,
    /// Named poses, the muscle targets' presets.
    pub poses: Vec<(String, Pose<S>)>,
}

/// Muscle strength over the frames since entering physics (the library's
/// `StrengthEnvelope`, in `f32`): `initial` for `hold_frames`, then `dropped` rising
/// linearly to `full` over `ramp_frames`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MuscleStrength {
    /// Strength while holding, default 1.
    pub initial: f32,
    /// Frames at `initial`, default 2.
    pub hold_frames: u32,
    /// Strength right after, default 0.55.
    pub dropped: f32,
    /// Frames of the recovery, default 120.
    pub ramp_frames: u32,
    /// Strength after recovery, default 1.
    pub full: f32,
}

impl Default for MuscleStrength {
    fn default() -> Self {
        Self { initial: 1.0, hold_frames: 2, dropped: 0.55, ramp_frames: 120, full: 1.0 }
    }
}

impl MuscleStrength {
    /// The same strength at every frame (1 = full).
    #[must_use]
    pub fn constant(s: f32) -> Self {
        Self { initial: s, hold_frames: 0, dropped: s, ramp_frames: 0, full: s }
    }

    fn envelope<R: Real>(&self) -> StrengthEnvelope<R> {
        let r = |v: f32| R::from_f64(f64::from(v));
        StrengthEnvelope {
            initial: r(self.initial),
            hold_frames: self.hold_frames,
            dropped: r(self.dropped),
            ramp_frames: self.ramp_frames,
            full: r(self.full),
        }
    }
}

/// Which pose a muscle ragdoll spawns in, in its entity's frame.
#[derive(Clone, Debug, PartialEq)]
pub enum MusclePose {
    /// The rig's preset of this index (default: the first, the humanoid's stance).
    Preset(usize),
    /// These node positions (one per rig node).
    Nodes(Vec<Vec3>),
}

/// A muscle ragdoll to spawn at its entity's `Transform` (a component; see the module
/// docs). Despawning the entity (or removing this component) removes it and its nodes.
#[derive(Component, Clone, Debug)]
#[require(Transform, RagdollNodes, SimulatedPosition, MuscleTarget)]
pub struct SinewMuscleRagdoll {
    /// The rig and presets.
    pub rig: MuscleRig,
    /// The spawn pose.
    pub pose: MusclePose,
    /// Strength over time.
    pub strength: MuscleStrength,
    /// Muscle compliance at full strength (m/N), default 2·10⁻⁵ (a 50 kN/m spring).
    pub compliance: f32,
    /// Muscle damping (N·s/m), default 300.
    pub damping: f32,
    /// Spawn one entity per node (default on).
    pub node_entities: bool,
}

impl SinewMuscleRagdoll {
    /// The 2D fighter in its stance, default strength.
    #[must_use]
    pub fn humanoid() -> Self {
        Self {
            rig: MuscleRig::Humanoid,
            pose: MusclePose::Preset(0),
            strength: MuscleStrength::default(),
            compliance: 2e-5,
            damping: 300.0,
            node_entities: true,
        }
    }

    /// A custom rig (of the plugin's space).
    #[must_use]
    pub fn custom<S: PluginSpace>(rig: MuscleRigDef<S>) -> Self {
        Self { rig: MuscleRig::Custom(Arc::new(rig)), ..Self::humanoid() }
    }

    /// Spawns in this pose.
    #[must_use]
    pub fn pose(mut self, pose: MusclePose) -> Self {
        self.pose = pose;
        self
    }

    /// Sets the strength envelope.
    #[must_use]
    pub fn strength(mut self, strength: MuscleStrength) -> Self {
        self.strength = strength;
        self
    }

    /// Spawns no node entities ([`RagdollNodes::positions`] is still written).
    #[must_use]
    pub fn without_node_entities(mut self) -> Self {
        self.node_entities = false;
        self
    }

    fn rig_def<S: PluginSpace>(&self) -> Option<MuscleRigDef<S>> {
        match &self.rig {
            MuscleRig::Humanoid => S::muscle_humanoid(),
            MuscleRig::Custom(any) => any.downcast_ref::<MuscleRigDef<S>>().cloned(),
        }
    }

    fn library_def<S: PluginSpace>(&self) -> MuscleRagdollDef<RealOf<S>> {
        let r = |v: f32| RealOf::<S>::from_f64(f64::from(v));
        MuscleRagdollDef::default()
            .compliance(r(self.compliance))
            .damping(r(self.damping))
            .envelope(self.strength.envelope())
    }
}

/// The target preset of a muscle ragdoll entity (a component, required by
/// [`SinewMuscleRagdoll`]): change it to change the pose (see the module docs).
#[derive(Component, Clone, Debug, Default, PartialEq, Eq)]
pub enum MuscleTarget {
    /// The preset nearest to the body's pose when it entered physics (the default).
    #[default]
    Nearest,
    /// The preset of this index.
    Index(usize),
    /// The preset of this name.
    Named(String),
}

impl MuscleTarget {
    /// The preset called `name`.
    #[must_use]
    pub fn named(name: &str) -> Self {
        Self::Named(name.to_owned())
    }

    /// The preset's index among `presets`; `None` for [`Self::Nearest`]; an error for a
    /// preset the rig does not have.
    fn index<R>(&self, presets: &[TargetPose<R>]) -> Result<Option<usize>, SinewError> {
        let missing = SinewError::InvalidParameter { what: "muscle target", reason: "no such preset", value: None };
        match self {
            Self::Nearest => Ok(None),
            Self::Index(i) if *i < presets.len() => Ok(Some(*i)),
            Self::Named(name) => presets.iter().position(|p| &p.name == name).map(Some).ok_or(missing),
            Self::Index(_) => Err(missing),
        }
    }
}

/// What [`spawn_muscle_ragdolls`] reads and fills in of a new muscle ragdoll entity.
type NewMuscle<'a> = (
    Entity,
    &'a SinewMuscleRagdoll,
    &'a MuscleTarget,
    &'a Transform,
    &'a mut RagdollNodes,
    &'a mut SimulatedPosition,
    Has<TransformInterpolation>,
    Option<&'a HitEvents>,
);

/// Prepare: spawns the muscle ragdolls of newly added [`SinewMuscleRagdoll`]s.
pub(crate) fn spawn_muscle_ragdolls<S: PluginSpace>(
    mut commands: Commands,
    mut sim: ResMut<SinewWorld<S>>,
    mut new: Query<NewMuscle, Added<SinewMuscleRagdoll>>,
) {
    for (entity, spec, target, t, mut nodes, mut root, interpolated, hits) in &mut new {
        if sim.map.ragdolls.contains_key(&entity) {
            continue; // put back by a restore: already in the world
        }
        let h = match spawn::<S>(&mut sim.world, spec, target, t) {
            Ok(h) => h,
            Err(e) => {
                log::error!("bevy_sinew: muscle ragdoll of {entity} not spawned: {e}");
                continue;
            }
        };
        let body = Body::Muscle(h, Arc::new(spec.clone()));
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

/// One muscle ragdoll into the world, aiming at `target`.
fn spawn<S: PluginSpace>(
    world: &mut sinew::World<S>,
    spec: &SinewMuscleRagdoll,
    target: &MuscleTarget,
    t: &Transform,
) -> Result<MuscleRagdollHandle<S>, SinewError> {
    let no_rig = SinewError::InvalidParameter {
        what: "muscle rig",
        reason: "no muscle rig of the plugin's space (the humanoid is 2D only)",
        value: None,
    };
    let rig = spec.rig_def::<S>().ok_or(no_rig)?;
    let mut presets = Vec::with_capacity(rig.poses.len());
    for (name, pose) in &rig.poses {
        presets.push(TargetPose::from_pose(name.clone(), &rig.rig, pose)?);
    }
    let local = match &spec.pose {
        MusclePose::Preset(i) => rig.poses.get(*i).map(|(_, p)| p.clone()).ok_or(SinewError::InvalidParameter {
            what: "muscle pose",
            reason: "no such preset",
            value: None,
        })?,
        MusclePose::Nodes(nodes) => Pose::new(nodes.iter().map(|&p| S::vector(p)).collect()),
    };
    let placed = local.transformed(S::vector(t.translation), S::rotation(t.rotation), RealOf::<S>::ONE);
    let wanted = target.index(&presets)?;
    let h = MuscleRagdoll::spawn(world, &rig.rig, &spec.library_def::<S>(), &presets, &SpawnDef::at_rest(placed))?;
    if let Some(i) = wanted {
        world.controller_mut(h)?.select_preset(i)?;
    }
    Ok(h)
}

/// Prepare: changed [`MuscleTarget`]s and [`SinewMuscleRagdoll`] settings into the world.
pub(crate) fn update_muscles<S: PluginSpace>(
    mut sim: ResMut<SinewWorld<S>>,
    changed: Query<
        (Entity, Ref<SinewMuscleRagdoll>, Ref<MuscleTarget>),
        Or<(Changed<MuscleTarget>, Changed<SinewMuscleRagdoll>)>,
    >,
) {
    let sim = &mut *sim;
    for (entity, spec, target, ..) in &changed {
        if spec.is_added() {
            continue; // spawned this run, with its target
        }
        let Some(Body::Muscle(h, _)) = sim.map.ragdolls.get(&entity).map(|r| &r.body) else { continue };
        let h = *h;
        let result = (|| {
            if spec.is_changed() {
                sim.world.controller_mut(h)?.set_def(spec.library_def::<S>())?;
            }
            if target.is_changed() {
                // Checked first: an unknown preset leaves the body as it was.
                let preset = target.index(sim.world.controller(h)?.presets())?;
                h.enter_physics(&mut sim.world)?;
                if let Some(i) = preset {
                    sim.world.controller_mut(h)?.select_preset(i)?;
                }
            }
            Ok::<(), SinewError>(())
        })();
        if let Err(e) = result {
            log::error!("bevy_sinew: muscle ragdoll of {entity}: {target:?} not applied: {e}");
        }
    }
}
