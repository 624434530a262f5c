//! # bevy_sinew
//!
//! [Sinew](sinew)'s ropes and ragdolls in Bevy, the way Avian and `bevy_rapier` bring
//! rigid bodies: add a plugin, spawn components, read transforms.
//!
//! ```
//! use bevy_app::prelude::*;
//! use bevy_ecs::prelude::*;
//! use bevy_math::Vec3;
//! use bevy_time::{TimePlugin, TimeUpdateStrategy};
//! use bevy_transform::TransformPlugin;
//! use bevy_sinew::prelude::*;
//! use std::time::Duration;
//!
//! let mut app = App::new();
//! // A 2D world in f32, stepped in FixedPostUpdate at Bevy's fixed rate (64 Hz). A game
//! // adds `DefaultPlugins` instead of the time and transform plugins.
//! app.add_plugins((TimePlugin, TransformPlugin, Sinew2dPlugin::default()));
//! // (Here the clock advances by a 60 Hz frame per update; a game leaves it to Bevy.)
//! app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(1.0 / 60.0)));
//! // A 1 m rope, pinned at its left end; and the ground.
//! let rope = app
//!     .world_mut()
//!     .spawn(SinewRope::between(Vec3::new(0.0, 2.0, 0.0), Vec3::new(1.0, 2.0, 0.0)).segments(10).pin_start())
//!     .id();
//! app.world_mut().spawn(SinewCollider::ground());
//! for _ in 0..60 {
//!     app.update();
//! }
//! // The rope's particles and tensions, written back after each step: it swings down.
//! let points = app.world().get::<RopePoints>(rope).unwrap();
//! assert_eq!(points.current.len(), 11);
//! assert!(points.current[10].y < 1.9, "{}", points.current[10]);
//! let (segment, newtons) = app.world().get::<RopeTension>(rope).unwrap().max().unwrap();
//! assert!(newtons > 0.0);
//! ```
//!
//! # The pieces
//!
//! | what | how | module |
//! |---|---|---|
//! | the world, its settings | [`SinewPlugin`]`<S>` (one per app), [`SinewSettings`], [`SinewWorld`] | here, [`settings`], [`world`] |
//! | ropes | [`SinewRope`] (+ [`RopeAnchor`]: kinematic or dynamic) → [`RopePoints`], [`RopeTension`], [`RopeOverTension`] | [`rope`] |
//! | ragdolls | [`SinewRagdoll`] → node entities ([`RagdollNode`]), [`RagdollNodes`] | [`ragdoll`] |
//! | muscle ragdolls | [`SinewMuscleRagdoll`] (+ [`MuscleTarget`]) → the same node entities | [`muscle`] |
//! | colliders | [`SinewCollider`] at its entity's transform | [`collider`] |
//! | grabbing | [`Grab`], [`MoveGrab`], [`ReleaseGrab`] → [`GrabReleased`] | [`grab`] |
//! | hits | [`HitEvents`] → [`Hit`] | [`hits`] |
//! | smooth motion | [`TransformInterpolation`], [`SimulatedPosition`] | [`interpolation`] |
//! | rollback | [`SinewWorld::snapshot`] → [`SinewSnapshot`], [`SinewWorld::restore`] → [`SinewRestored`], [`SinewWorld::state_hash`] | [`rollback`] |
//! | debug drawing | `SinewGizmosPlugin` (feature `gizmos`) | `gizmos` |
//!
//! # The schedule
//!
//! Each run of the plugin's schedule (`FixedPostUpdate` unless
//! [`SinewPlugin::in_schedule`] says otherwise) goes through three system sets, in order:
//!
//! 1. [`SinewSystems::Prepare`]: bring entities in line with a restored snapshot; apply
//!    changed [`SinewSettings`]; add and remove the
//!    colliders, ropes and ragdolls of added and removed components; move colliders whose
//!    transform changed; start, move and end grabs; read where anchored rope ends must go;
//!    list the particles watched for hits.
//! 2. [`SinewSystems::Step`]: step the world — once by the schedule's `Time::delta`
//!    (the default), once by exactly `1/hz` ([`SinewTimestep::EveryRun`], for rollback
//!    schedules), or as many times as [`SinewTimestep::Hz`]'s stepper says — driving
//!    anchored ends and grabbing hands to their targets before each step (all the steps
//!    of one run share the targets read in the prepare set).
//! 3. [`SinewSystems::Writeback`]: rope points and tensions, ragdoll nodes, transforms,
//!    tension and hit messages.
//!
//! Interpolated transforms ([`TransformInterpolation`]) are written once per frame after
//! the fixed loop (`RunFixedMainLoopSystems::AfterFixedMainLoop`), or after the writeback
//! when the plugin runs in a variable-rate schedule. Game code that moves anchors or
//! sends grab messages in `FixedUpdate` acts within the same step.
//!
//! # Dimensions and number types
//!
//! `SinewPlugin<S>` is generic over the Sinew space: [`Space2`] or [`Space3`] over `f32`,
//! `f64` or the bit-exact fixed-point [`Fx`] (rollback netcode: every machine computes the
//! same bits). The number type is this parameter rather than a field of
//! [`SinewSettings`] because each is a separately compiled solver: an app compiles only the
//! one it uses. Bevy stays in `f32`: positions are converted at the plugin's boundary (see
//! [`space`]). The aliases [`Sinew2dPlugin`], [`Sinew3dPlugin`], [`Sinew2dFixedPlugin`],
//! ... name the usual choices. An app runs one `SinewPlugin`: the components are not
//! generic, and two plugins would both spawn every rope.

#![warn(missing_docs)]
// A Bevy system's queries are its signature: a filter tuple spelled out where the system
// is declared says what it reads, an alias elsewhere would hide it.
#![allow(clippy::type_complexity)]

pub mod collider;
#[cfg(feature = "gizmos")]
pub mod gizmos;
pub mod grab;
pub mod hits;
pub mod interpolation;
pub mod muscle;
pub mod ragdoll;
pub mod rollback;
pub mod rope;
pub mod settings;
pub mod space;
pub mod world;

use core::marker::PhantomData;

use bevy_app::prelude::*;
use bevy_app::{FixedFirst, FixedLast, RunFixedMainLoop, RunFixedMainLoopSystems};
use bevy_ecs::intern::Interned;
use bevy_ecs::prelude::*;
use bevy_ecs::schedule::ScheduleLabel;
use bevy_time::Time;
use sinew::math::Real;
use sinew::{FixedStepper, Fx, RealOf, Space2, Space3};
use world::Clock;

/// The Sinew library this plugin runs (its version of it).
pub use sinew;

pub use collider::{ColliderShape, SinewCollider};
#[cfg(feature = "gizmos")]
pub use gizmos::SinewGizmosPlugin;
pub use grab::{Grab, GrabPoint, GrabReleased, MoveGrab, ReleaseGrab};
pub use hits::{Hit, HitEvents};
pub use interpolation::{SimulatedPosition, TransformInterpolation};
pub use muscle::{MusclePose, MuscleRig, MuscleRigDef, MuscleStrength, MuscleTarget, SinewMuscleRagdoll};
pub use ragdoll::{RagdollNode, RagdollNodes, RagdollRig, SinewRagdoll};
pub use rollback::{SinewRestored, SinewSnapshot};
pub use rope::{RopeAnchor, RopeOverTension, RopePoints, RopeTension, RopeTensionLimit, SinewRope, SpawnedRope};
pub use settings::{SinewSettings, SinewTimestep};
pub use space::PluginSpace;
pub use world::SinewWorld;

/// Everything an app needs, in one glob import.
pub mod prelude {
    #[cfg(feature = "gizmos")]
    pub use crate::SinewGizmosPlugin;
    pub use crate::{
        ColliderShape, Grab, GrabPoint, GrabReleased, Hit, HitEvents, MoveGrab, MusclePose, MuscleRig, MuscleRigDef,
        MuscleStrength, MuscleTarget, PluginSpace, RagdollNode, RagdollNodes, RagdollRig, ReleaseGrab, RopeAnchor,
        RopeOverTension, RopePoints, RopeTension, RopeTensionLimit, SimulatedPosition, Sinew2dFixedPlugin,
        Sinew2dPlugin, Sinew3dFixedPlugin, Sinew3dPlugin, SinewCollider, SinewMuscleRagdoll, SinewPlugin, SinewRagdoll,
        SinewRestored, SinewRope, SinewSettings, SinewSnapshot, SinewSystems, SinewTimestep, SinewWorld,
        TransformInterpolation,
    };
}

/// 2D in `f32`: the game default.
pub type Sinew2dPlugin = SinewPlugin<Space2<f32>>;
/// 3D in `f32`.
pub type Sinew3dPlugin = SinewPlugin<Space3<f32>>;
/// 2D in bit-exact fixed point (rollback netcode).
pub type Sinew2dFixedPlugin = SinewPlugin<Space2<Fx>>;
/// 3D in bit-exact fixed point.
pub type Sinew3dFixedPlugin = SinewPlugin<Space3<Fx>>;

/// The plugin's system sets, run in this order in its schedule (see the crate docs).
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SinewSystems {
    /// Components into the world: spawns, removals, collider motion, grabs, anchors.
    Prepare,
    /// The world steps.
    Step,
    /// The world into components: rope points and tensions, ragdoll nodes, transforms.
    Writeback,
}

/// Sinew in a Bevy app: a world of space `S` stepped in a schedule (see the crate docs).
pub struct SinewPlugin<S: PluginSpace> {
    schedule: Interned<dyn ScheduleLabel>,
    _space: PhantomData<fn() -> S>,
}

impl<S: PluginSpace> Default for SinewPlugin<S> {
    fn default() -> Self {
        Self::in_schedule(FixedPostUpdate)
    }
}

impl<S: PluginSpace> SinewPlugin<S> {
    /// The plugin with its systems in `schedule` (default `FixedPostUpdate`). In a
    /// variable-rate schedule such as `Update`, use [`SinewTimestep::Hz`].
    #[must_use]
    pub fn in_schedule(schedule: impl ScheduleLabel) -> Self {
        Self { schedule: schedule.intern(), _space: PhantomData }
    }

    fn runs_in_fixed_schedule(&self) -> bool {
        [
            FixedFirst.intern(),
            FixedPreUpdate.intern(),
            FixedUpdate.intern(),
            FixedPostUpdate.intern(),
            FixedLast.intern(),
        ]
        .contains(&self.schedule)
    }
}

impl<S: PluginSpace> Plugin for SinewPlugin<S> {
    fn build(&self, app: &mut App) {
        let settings = *app.world_mut().get_resource_or_init::<SinewSettings>();
        let world = match sinew::World::new(settings.world_def::<S>()) {
            Ok(w) => w,
            Err(e) => {
                log::error!("bevy_sinew: invalid SinewSettings ({e}); using Sinew's defaults");
                sinew::World::new(sinew::WorldDef::default()).expect("the default settings are valid")
            }
        };
        let mut sim = SinewWorld::<S>::new(world);
        sim.fixed_schedule = self.runs_in_fixed_schedule();
        app.insert_resource(sim)
            .add_message::<Grab>()
            .add_message::<MoveGrab>()
            .add_message::<ReleaseGrab>()
            .add_message::<GrabReleased>()
            .add_message::<RopeOverTension>()
            .add_message::<Hit>()
            .add_message::<SinewRestored>()
            .configure_sets(self.schedule, (SinewSystems::Prepare, SinewSystems::Step, SinewSystems::Writeback).chain())
            .add_systems(
                self.schedule,
                (
                    (
                        rollback::reconcile::<S>.run_if(rollback::restore_pending::<S>),
                        apply_settings::<S>,
                        collider::sync_colliders::<S>,
                        rope::remove_ropes::<S>,
                        ragdoll::remove_ragdolls::<S>,
                        rope::spawn_ropes::<S>,
                        ragdoll::spawn_ragdolls::<S>,
                        muscle::spawn_muscle_ragdolls::<S>,
                        muscle::update_muscles::<S>,
                        grab::handle_grabs::<S>,
                        rope::drive_anchors::<S>,
                        hits::watch_hits::<S>,
                    )
                        .chain()
                        .in_set(SinewSystems::Prepare),
                    step::<S>.in_set(SinewSystems::Step),
                    (
                        (
                            rope::write_ropes::<S>,
                            rope::write_bodies::<S>,
                            ragdoll::write_ragdolls::<S>,
                            hits::send_hits::<S>,
                        ),
                        interpolation::write_transforms::<S>,
                        end_writeback::<S>,
                    )
                        .chain()
                        .in_set(SinewSystems::Writeback),
                ),
            );
        if self.runs_in_fixed_schedule() {
            app.add_systems(
                RunFixedMainLoop,
                interpolation::interpolate::<S>.in_set(RunFixedMainLoopSystems::AfterFixedMainLoop),
            );
        } else {
            app.add_systems(self.schedule, interpolation::interpolate::<S>.after(SinewSystems::Writeback));
        }
    }
}

/// Prepare: a changed [`SinewSettings`] into the world (and the stepper).
fn apply_settings<S: PluginSpace>(settings: Res<SinewSettings>, mut sim: ResMut<SinewWorld<S>>) {
    if !settings.is_changed() {
        return;
    }
    if let Err(e) = sim.world.set_def(settings.world_def::<S>()) {
        log::error!("bevy_sinew: SinewSettings rejected, keeping the previous ones: {e}");
    }
    let exact = |hz: u32| RealOf::<S>::from_ratio(1, i32::try_from(hz.max(1)).unwrap_or(i32::MAX));
    sim.clock = match settings.timestep {
        SinewTimestep::PerRun => Clock::PerRun,
        SinewTimestep::EveryRun { hz } => Clock::EveryRun(exact(hz)),
        SinewTimestep::Hz { hz, max_steps } => match sim.clock {
            // Keep the accumulated time when only other settings changed.
            Clock::Stepper(old) if old.dt() == exact(hz) => Clock::Stepper(old),
            _ => Clock::Stepper(FixedStepper::new(exact(hz), max_steps)),
        },
    };
}

/// Step: the world's steps for this run, each after driving anchors and hands.
fn step<S: PluginSpace>(time: Res<Time>, mut sim: ResMut<SinewWorld<S>>) {
    let sim = &mut *sim;
    let delta = time.delta_secs_f64();
    let (steps, dt) = match &mut sim.clock {
        Clock::PerRun => (u32::from(delta > 0.0), RealOf::<S>::from_f64(delta)),
        Clock::EveryRun(dt) => (1, *dt),
        Clock::Stepper(stepper) => (stepper.advance(RealOf::<S>::from_f64(delta)), stepper.dt()),
    };
    sim.steps_last_run = 0;
    for _ in 0..steps {
        let driven =
            sim.drives.iter().try_for_each(|&(p, target)| sim.world.particles_mut().set_kinematic_target(p, target));
        if let Err(e) = driven.and_then(|()| grab::drive_grabs(sim)) {
            log::error!("bevy_sinew: could not drive a kinematic particle: {e}");
        }
        sim.hits.before_step(&sim.world);
        if let Err(e) = sim.world.step(dt) {
            log::error!("bevy_sinew: step failed: {e}");
            break;
        }
        sim.hits.after_step(&sim.world, dt);
        sim.steps_last_run += 1;
    }
}

/// Writeback, last: a restored snapshot has now been written back.
fn end_writeback<S: PluginSpace>(mut sim: ResMut<SinewWorld<S>>) {
    sim.restored = false;
}
