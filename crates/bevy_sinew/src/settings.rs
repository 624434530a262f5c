//! [`SinewSettings`]: the world's settings as a Bevy resource, and how time is stepped.
//!
//! The settings are the common fields of Sinew's [`WorldDef`] in Bevy's types. Change the
//! resource at any time; the plugin applies it to the world before the next step (the
//! world validates it; an invalid change is logged and the old settings kept).
//!
//! The *number type* is not a setting but the plugin's type parameter — `f32`, `f64` or
//! the bit-exact fixed-point [`Fx`](sinew::Fx) — because each is a separately compiled
//! solver: an app pays to compile only the one it uses (see [`crate::SinewPlugin`]).
//!
//! # Timestep
//!
//! [`SinewTimestep::PerRun`] (the default) steps the world once each time the plugin's
//! schedule runs, by that schedule's `Time::delta`. In Bevy's fixed schedules
//! (`FixedPostUpdate`, the default) that is `Time<Fixed>`'s timestep, 1/64 s unless the
//! app sets another, and Bevy runs the schedule as many times per frame as the frame's
//! time is worth; interpolation then uses `Time<Fixed>`'s overstep fraction.
//!
//! [`SinewTimestep::EveryRun`] also steps once per run, by exactly `1/hz` s in the
//! world's scalar whatever the clock says: one step per simulation frame, as a rollback
//! session's schedule wants (its re-simulated frames run the schedule again, and nothing
//! outside the snapshot — no accumulated time — may change what a frame does).
//!
//! [`SinewTimestep::Hz`] keeps Sinew's own [`FixedStepper`](sinew::FixedStepper) instead:
//! the step is exactly `1/hz` in the world's scalar (exact in fixed point too), and each
//! run of the schedule takes as many steps as its `Time::delta` has accumulated. Use it
//! with the plugin in a variable-rate schedule (`Update`), or wherever the world's clock
//! must not depend on how a `Duration` rounds.

use bevy_ecs::prelude::Resource;
use bevy_math::Vec3;
use sinew::WorldDef;
use sinew::math::Real;

use crate::space::PluginSpace;

/// How the plugin turns Bevy time into world steps (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SinewTimestep {
    /// One step per run of the plugin's schedule, of that run's `Time::delta`.
    #[default]
    PerRun,
    /// One step of exactly `1/hz` s per run, whatever the run's `Time::delta`: for
    /// schedules that are one simulation frame per run by construction, such as a
    /// rollback session's (re-simulating a frame runs it again), where the world's clock
    /// must depend on nothing but the frame count.
    EveryRun {
        /// Steps per second.
        hz: u32,
    },
    /// Steps of exactly `1/hz` s, as many as the runs' deltas accumulate, at most
    /// `max_steps` per run (the rest of a long hitch is dropped).
    Hz {
        /// Steps per second.
        hz: u32,
        /// Most steps in one run of the schedule.
        max_steps: u32,
    },
}

/// The world's settings (a resource; see the module docs). Defaults are Sinew's.
#[derive(Resource, Clone, Copy, Debug, PartialEq)]
pub struct SinewSettings {
    /// Gravity (m/s²); z is ignored by 2D worlds. Default −9.81 along y.
    pub gravity: Vec3,
    /// Substeps per step (≥ 1). Default 8.
    pub substeps: u32,
    /// Constraint iterations per substep (≥ 1). Default 1.
    pub iterations: u32,
    /// Default contact friction coefficient. Default 0.
    pub friction: f32,
    /// Default restitution in `[0, 1]`. Default 0.
    pub restitution: f32,
    /// Linear velocity damping rate (1/s). Default 0.
    pub damping: f32,
    /// How Bevy time becomes steps.
    pub timestep: SinewTimestep,
}

impl Default for SinewSettings {
    fn default() -> Self {
        Self {
            gravity: Vec3::new(0.0, -9.81, 0.0),
            substeps: 8,
            iterations: 1,
            friction: 0.0,
            restitution: 0.0,
            damping: 0.0,
            timestep: SinewTimestep::PerRun,
        }
    }
}

impl SinewSettings {
    /// The [`WorldDef`] these settings describe: Sinew's defaults with these fields set.
    /// A world built directly from it matches the plugin's world, which is how the tests
    /// compare the plugin with the bare library.
    #[must_use]
    pub fn world_def<S: PluginSpace>(&self) -> WorldDef<S> {
        let r = |v: f32| S::Real::from_f64(f64::from(v));
        // -9.81 as an f32 is not -9.81; keep Sinew's own constant when it is the default,
        // so that the default settings give exactly the library's default world.
        let gravity = if self.gravity == Self::default().gravity {
            WorldDef::<S>::default().gravity
        } else {
            S::vector(self.gravity)
        };
        WorldDef::default()
            .gravity(gravity)
            .substeps(self.substeps)
            .iterations(self.iterations)
            .friction(r(self.friction))
            .restitution(r(self.restitution))
            .damping(r(self.damping))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sinew::{Fx, Space2, Space3};

    #[test]
    fn default_settings_are_the_library_defaults_in_every_scalar() {
        let s = SinewSettings::default();
        assert_eq!(s.world_def::<Space2<Fx>>(), WorldDef::default());
        assert_eq!(s.world_def::<Space3<f64>>(), WorldDef::default());
    }

    #[test]
    fn changed_fields_reach_the_world_def() {
        let s = SinewSettings { gravity: Vec3::new(1.0, -2.0, 3.0), substeps: 4, friction: 0.5, ..Default::default() };
        let def = s.world_def::<Space3<f32>>();
        assert_eq!((def.substeps, def.friction), (4, 0.5));
        assert_eq!((def.gravity.x, def.gravity.y, def.gravity.z), (1.0, -2.0, 3.0));
    }
}
