//! Transform interpolation: smooth motion at any frame rate from a fixed-rate simulation.
//!
//! The world steps at a fixed rate (64 Hz by default) and the game renders at whatever
//! rate the screen has. Drawn at the last step's positions, a body moves in jerks: two
//! steps in one 144 Hz frame, none in the next. Interpolation draws it instead at
//!
//! ```text
//! rendered = previous + (current − previous) · α,    α = leftover time / step ∈ [0, 1)
//! ```
//!
//! where `previous` and `current` are the states after the last two steps and α the
//! fraction of a step the fixed-step clock holds after the frame's steps ran (Bevy's
//! `Time<Fixed>::overstep_fraction`, or Sinew's [`FixedStepper::alpha`] with
//! [`crate::SinewTimestep::Hz`]). What is drawn lags the simulation by less than a step,
//! and moves smoothly. This is what Avian's `TransformInterpolation` does, and it is
//! opt-in the same way: add [`TransformInterpolation`] to a ragdoll or rope entity (its
//! node entities get it too). Without it, transforms and rope points are the last step's.
//!
//! Writeback stores the last two states in [`SimulatedPosition`] (and in
//! [`crate::RopePoints`] for ropes); the interpolation system, after the fixed loop,
//! writes the blend into `Transform::translation` (keeping z in 2D) and
//! [`crate::RopePoints::points`]. A restored snapshot is a jump, not motion: the next
//! writeback sets `previous = current` so that nothing is drawn sliding across it.
//!
//! [`FixedStepper::alpha`]: sinew::FixedStepper::alpha

use bevy_ecs::prelude::*;
use bevy_math::Vec3;
use bevy_time::{Fixed, Time};
use bevy_transform::components::Transform;
use sinew::math::Real;

use crate::ragdoll::keep_z;
use crate::rope::RopePoints;
use crate::space::PluginSpace;
use crate::world::{Clock, SinewWorld};

/// Draw this rope or ragdoll (and its node entities) between the last two steps.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TransformInterpolation;

/// An entity's simulated position after the last two steps (written back).
#[derive(Component, Clone, Copy, Debug, Default, PartialEq)]
pub struct SimulatedPosition {
    /// After the step before the last.
    pub previous: Vec3,
    /// After the last step.
    pub current: Vec3,
}

impl SimulatedPosition {
    /// At rest at `p` (both states).
    #[must_use]
    pub fn at(p: Vec3) -> Self {
        Self { previous: p, current: p }
    }

    /// The blend at `alpha` (0 = `previous`, 1 = `current`).
    #[must_use]
    pub fn lerp(&self, alpha: f32) -> Vec3 {
        self.previous.lerp(self.current, alpha)
    }

    /// A new step's position; after a `jump` (a restored snapshot) both states are it.
    pub(crate) fn advance(&mut self, p: Vec3, jump: bool) {
        self.previous = if jump { p } else { self.current };
        self.current = p;
    }
}

/// The interpolation factor now: `Time<Fixed>`'s overstep in a fixed schedule, the
/// plugin's stepper's alpha with [`crate::SinewTimestep::Hz`], else 1 (the last step).
pub(crate) fn alpha<S: PluginSpace>(sim: &SinewWorld<S>, fixed: Option<&Time<Fixed>>) -> f32 {
    match (&sim.clock, fixed) {
        (Clock::Stepper(stepper), _) => stepper.alpha().to_f64() as f32,
        (_, Some(fixed)) if sim.fixed_schedule => fixed.overstep_fraction(),
        _ => 1.0,
    }
}

/// Writeback: the last step's position into `Transform` for what is not interpolated.
pub(crate) fn write_transforms<S: PluginSpace>(
    mut q: Query<(&SimulatedPosition, &mut Transform), (Changed<SimulatedPosition>, Without<TransformInterpolation>)>,
) {
    for (pos, mut t) in &mut q {
        t.translation = keep_z::<S>(pos.current, t.translation.z);
    }
}

/// After the fixed loop: interpolated transforms and rope points (see the module docs).
pub(crate) fn interpolate<S: PluginSpace>(
    sim: Res<SinewWorld<S>>,
    fixed: Option<Res<Time<Fixed>>>,
    mut bodies: Query<(&SimulatedPosition, &mut Transform), With<TransformInterpolation>>,
    mut ropes: Query<&mut RopePoints, With<TransformInterpolation>>,
) {
    let a = alpha(&sim, fixed.as_deref());
    for (pos, mut t) in &mut bodies {
        let p = keep_z::<S>(pos.lerp(a), t.translation.z);
        if t.translation != p {
            t.translation = p;
        }
    }
    for mut rope in &mut ropes {
        let rope = &mut *rope;
        if rope.previous.len() != rope.current.len() {
            continue;
        }
        rope.points.clear();
        rope.points.extend(rope.previous.iter().zip(&rope.current).map(|(p, c)| p.lerp(*c, a)));
    }
}
